"""Crash-safe file writes: write a temporary sibling, fsync, then rename over the target.

A reader (or a restart after ``kill -9``) sees either the old file or the new one, never a torn
one. Used for the model registry, settings, presets, recordings and exports.

The temporary sibling is ``.<name>.<pid>.<random>.tmp``: a writer killed mid-way leaves it
behind, and :func:`sweep_stale_tmp` (run when the store, the settings and the presets are
opened) removes those whose writer is gone.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import re
import tempfile
import time
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

_TMP_RE = re.compile(r"^\..+\.(?P<pid>\d+)\.[A-Za-z0-9_]+\.tmp$")
#: A temporary file in the old naming (no pid) is stale once this old.
_UNOWNED_TMP_AGE_S = 3600.0


class DiskFullError(OSError):
    """Raised with a readable message when a write fails for lack of space."""


def atomic_write_bytes(path: Path, data: bytes) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        # A quota (EDQUOT) or a file-size limit (EFBIG, ulimit -f) is "disk full" to the user too;
        # before, they surfaced as a bare OSError.
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            raise DiskFullError(
                exc.errno,
                f"No space left on the disk holding {path.parent} (writing {path.name}); free some space and try again",
            ) from exc
        if exc.errno == errno.EFBIG:
            raise DiskFullError(
                errno.EFBIG,
                f"{path.name} would exceed the file size limit of this system or "
                f"disk ({path.parent}); raise the limit (ulimit -f) or free "
                "space",
            ) from exc
        raise


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path: Path, obj: Any) -> None:
    atomic_write_text(path, json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n")


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # alive, someone else's
    return True


def sweep_stale_tmp(folder: Path) -> list[Path]:
    """Remove the temporary files that killed writers left in ``folder``; returns them.

    A file whose writer (the pid in its name) still runs is being written: it stays. A file in
    the old naming (no pid) goes once it is an hour old."""
    removed: list[Path] = []
    try:
        candidates = [p for p in Path(folder).iterdir() if p.name.startswith(".") and p.name.endswith(".tmp")]
    except OSError:
        return removed
    for p in candidates:
        m = _TMP_RE.match(p.name)
        try:
            if m:
                pid = int(m.group("pid"))
                if pid == os.getpid() or pid_alive(pid):
                    continue
            elif time.time() - p.stat().st_mtime < _UNOWNED_TMP_AGE_S:
                continue
            if p.is_file():
                p.unlink()
                removed.append(p)
        except OSError as exc:
            log.warning("could not remove the stale temporary file %s: %s", p, exc)
    if removed:
        log.info("removed %d temporary file(s) left by an interrupted write in %s", len(removed), folder)
    return removed
