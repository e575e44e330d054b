"""Follow a load's phases while vLLM builds the engine.

vLLM's engine-core and worker processes log into a file of this load (``load_capture``: each line
``<seconds since the epoch> <message>``); building the engine blocks the engine's thread, so a
thread of its own reads what the file gained every quarter of a second, feeds the lines to a
:class:`~console.engine.load_phases.PhaseClock` and reports each change. Lines without a time
(the rest of a message of several lines) are skipped.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from pathlib import Path
from typing import Callable

from console.engine.load_phases import LoadPhases, PhaseClock

log = logging.getLogger(__name__)
_LINE = re.compile(r"(\d+\.\d+) (.*)")


class PhaseWatch:
    """Reads ``path`` (it may not exist yet) into ``clock`` on its own thread from :meth:`start` to
    :meth:`stop` (or through ``with``), calling ``on_change`` (on that thread) with the phases after
    each change."""

    def __init__(
        self, path: Path | None, clock: PhaseClock, on_change: Callable[[LoadPhases], None], interval: float = 0.25
    ) -> None:
        self.clock = clock
        self._path = path
        self._on_change = on_change
        self._interval = interval
        self._offset = 0
        self._partial = b""
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> PhaseWatch:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> PhaseWatch:
        if self._path is not None:
            self._thread = threading.Thread(target=self._run, name="load-phases", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stop the thread and read what is left (no ``on_change`` after this returns)."""
        self._stopping.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        self._read()

    def _run(self) -> None:
        while not self._stopping.wait(self._interval):
            try:
                if self._read():
                    self._on_change(self.clock.snapshot(time.time()))
            except Exception:  # the phases are a view of the load: never let them break it
                log.exception("following the load's phases failed")
                return

    def _read(self) -> bool:
        """Feed the complete lines the file gained; True when the phases changed."""
        if self._path is None or not self._path.is_file():
            return False
        with self._path.open("rb") as f:
            f.seek(self._offset)
            data = f.read()
        self._offset += len(data)
        *lines, self._partial = (self._partial + data).split(b"\n")
        changed = False
        for raw in lines:
            match = _LINE.match(raw.decode("utf-8", errors="replace"))
            if match is not None:
                changed = self.clock.feed(float(match.group(1)), match.group(2)) or changed
        return changed


__all__ = ["PhaseWatch"]
