"""Progress and cancellation for long work, shared by the CLI and the GUI.

Long operations (imports, conversions, quantization, batches, benchmarks) take a
:class:`TaskState`: they report progress through it and poll it for cancellation. The CLI prints
the progress; the GUI forwards it to a progress dialog through a queued signal. Nothing here
imports Qt.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Callable


class Cancelled(Exception):
    """Raised inside a task when the user asked to stop it."""


@dataclass(frozen=True)
class Progress:
    stage: str
    fraction: float | None  # 0..1, or None while the length of a stage is unknown
    message: str = ""
    elapsed_s: float = 0.0

    @property
    def eta_s(self) -> float | None:
        if not self.fraction or self.fraction <= 0.0 or self.fraction >= 1.0:
            return None
        return self.elapsed_s * (1.0 - self.fraction) / self.fraction


ProgressCallback = Callable[[Progress], None]


class TaskState:
    """Progress sink plus a cancel flag, safe to use from any thread."""

    def __init__(self, on_progress: ProgressCallback | None = None) -> None:
        self._on_progress = on_progress
        self._cancel = threading.Event()
        self._start = time.monotonic()
        self.last: Progress | None = None

    def report(self, stage: str, fraction: float | None = None, message: str = "") -> None:
        self.last = Progress(stage, fraction, message, time.monotonic() - self._start)
        if self._on_progress is not None:
            self._on_progress(self.last)

    def cancel(self) -> None:
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def silenced(self) -> "TaskState":
        """This task as a sub-step sees it: the same Cancel, its own progress reported nowhere."""
        child = TaskState()
        child._cancel = self._cancel
        return child

    def check(self) -> None:
        """Raise :class:`Cancelled` if cancellation was requested."""
        if self._cancel.is_set():
            raise Cancelled()
