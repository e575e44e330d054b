"""Progress of long CLI commands on stderr, the one reporter every command uses (bench, batch,
quantize, models import/pull, doctor).

On a terminal it redraws one line in place (``\\r``), at most every ``tty_interval_s``. On anything
else (a log file, a pipe, CI) it writes whole lines, as pip and tqdm do: one when a stage starts,
then at most one every ``interval_s`` seconds unless the work moved on by ``step`` (10 %) since the
last line, and always the last one (100 %). ``bench --num-prompts 1024 > bench.log`` writes about a
dozen progress lines, not 1,024.
"""

from __future__ import annotations

import re
import sys
import time
from typing import Callable, TextIO

from console.jobs import Progress

#: A stage is the same stage while only its numbers change ("732/1024 requests", "run 2/3").
_NUMBERS = re.compile(r"\d+(\.\d+)?")
MAX_WIDTH = 120


def progress_line(p: Progress) -> str:
    """``stage  71.5% ETA 12s  message`` (the message where the stage does not already carry it)."""
    pct = "" if p.fraction is None else f" {100 * p.fraction:5.1f}%"
    eta = "" if p.eta_s is None or "ETA" in p.message else f" ETA {p.eta_s:.0f}s"
    message = f"  {p.message}" if p.message and p.message not in p.stage else ""
    return f"{p.stage}{pct}{eta}{message}"


class ProgressPrinter:
    """A :class:`~console.jobs.TaskState` progress callback that writes to ``stream`` (stderr)."""

    def __init__(
        self,
        stream: TextIO | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        interval_s: float = 5.0,
        step: float = 0.1,
        tty_interval_s: float = 0.1,
    ) -> None:
        self._out = stream if stream is not None else sys.stderr
        isatty = getattr(self._out, "isatty", None)
        self._tty = bool(isatty is not None and isatty())
        self._clock = clock
        self._interval_s = tty_interval_s if self._tty else interval_s
        self._step = step
        self._phase: tuple[str, bool] | None = None
        self._last_t = float("-inf")
        self._last_fraction: float | None = None
        self._last_line = ""
        self._drawn = 0  # characters of the line drawn on the terminal, not ended yet

    def __call__(self, p: Progress) -> None:
        now = self._clock()
        line = progress_line(p)[:MAX_WIDTH]
        phase = (_NUMBERS.sub("#", p.stage), p.fraction is None)
        done = p.fraction is not None and p.fraction >= 1.0
        moved = (
            not self._tty
            and p.fraction is not None
            and self._last_fraction is not None
            and p.fraction - self._last_fraction >= self._step
        )
        due = phase != self._phase or done or moved or now - self._last_t >= self._interval_s
        self._phase = phase
        if not due or line == self._last_line:
            return
        self._last_t, self._last_fraction, self._last_line = now, p.fraction, line
        if self._tty:
            self._out.write("\r" + line + " " * max(0, self._drawn - len(line)))
            self._drawn = len(line)
            if done:
                self._out.write("\n")
                self._drawn = 0
        else:
            self._out.write(line + "\n")
        self._out.flush()

    def end_line(self) -> None:
        """End a line left drawn on the terminal (before other output, or when the work stopped short)."""
        if self._drawn:
            self._out.write("\n")
            self._out.flush()
            self._drawn = 0
