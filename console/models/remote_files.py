"""What a download is made of, whatever the source: the files a repository lists, the listing,
the preview shown before a pull, the user-facing error, and the checks and progress meter every
source's fetch shares (``console.models.download`` for Hugging Face, ``modelscope_source``)."""

from __future__ import annotations

import errno
import hashlib
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from console.jobs import TaskState
from console.units import human_bytes

if TYPE_CHECKING:
    from console.models.gguf_info import GgufAdvice

WEIGHT_EXTS = (".safetensors", ".bin", ".pt", ".pth", ".h5", ".msgpack", ".ckpt", ".gguf", ".onnx")
CHUNK = 1024 * 1024
DISK_FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


class DownloadError(Exception):
    """A download that cannot go on; the message is meant for the user."""


@dataclass(frozen=True)
class RemoteFile:
    path: str
    size: int | None
    sha256: str | None = None  # LFS files: the content's sha256
    git_oid: str | None = None  # small files: git's blob sha1

    @property
    def is_weight(self) -> bool:
        return self.path.lower().endswith(WEIGHT_EXTS)


@dataclass(frozen=True)
class RepoListing:
    repo: str
    source: str
    commit: str
    files: list[RemoteFile]


@dataclass(frozen=True)
class Preview:
    repo: str
    source: str
    commit: str
    files: list[RemoteFile]
    total_bytes: int
    gguf: str | None  # the chosen GGUF file, converted after download
    verdict: str  # the planner's: fits / fits-with-changes / does-not-fit / unknown
    verdict_detail: str
    #: a GGUF: its size as 16-bit weights after the conversion, and the curated checkpoint instead
    gguf_advice: "GgufAdvice | None" = None


def verify_file(path: Path, f: RemoteFile) -> None:
    size = path.stat().st_size
    if f.size is not None and size != f.size:
        path.unlink(missing_ok=True)
        raise DownloadError(
            f"{f.path}: got {size} bytes, the source lists {f.size}; the file was deleted, run the pull again"
        )
    if f.sha256 or f.git_oid:
        h = hashlib.sha256() if f.sha256 else hashlib.sha1(b"blob %d\0" % size)
        with open(path, "rb") as fh:
            while chunk := fh.read(CHUNK * 8):
                h.update(chunk)
        if h.hexdigest() != (f.sha256 or f.git_oid):
            path.unlink(missing_ok=True)
            raise DownloadError(
                f"{f.path} is corrupt (its hash does not match the one the source "
                "lists); the file was deleted, run the pull again"
            )


class Meter:
    """Bytes so far across all files, turned into throttled progress with speed and ETA."""

    def __init__(self, task: TaskState, total: int, already: int) -> None:
        self.task, self.total, self.done = task, max(total, 1), already
        self._t0, self._start_bytes, self._last = time.monotonic(), already, 0.0

    def add(self, n: int, name: str, force: bool = False) -> None:
        self.done += n
        now = time.monotonic()
        if not force and now - self._last < 0.25:
            return
        self._last = now

        speed = (self.done - self._start_bytes) / max(now - self._t0, 1e-3)
        eta = (self.total - self.done) / speed if speed > 0 else None
        msg = f"{human_bytes(self.done)} of {human_bytes(self.total)}, {human_bytes(speed)}/s"
        if eta is not None:
            msg += f", ETA {eta:.0f} s"
        self.task.report(f"downloading {name}", min(self.done / self.total, 1.0), msg)
