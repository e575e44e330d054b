"""Crash-safe file writes: write a temporary sibling, fsync, then rename over the target.

A reader (or a restart after ``kill -9``) sees either the old file or the new one, never a torn
one. Used for the model registry, settings, conversations and batch results.
"""

from __future__ import annotations

import errno
import json
import os
import tempfile
from pathlib import Path
from typing import Any


class DiskFullError(OSError):
    """Raised with a readable message when a write fails for lack of space."""


def atomic_write_bytes(path: Path, data: bytes) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
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
            raise DiskFullError(exc.errno, f"No space left on the disk holding {path.parent} "
                                           f"(writing {path.name}); free some space and try again") from exc
        if exc.errno == errno.EFBIG:
            raise DiskFullError(errno.EFBIG, f"{path.name} would exceed the file size limit of this system or "
                                             f"disk ({path.parent}); raise the limit (ulimit -f) or free space") from exc
        raise


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path: Path, obj: Any) -> None:
    atomic_write_text(path, json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
