"""The engine core's CPU priority below the window's.

On the CPU device the engine core (vLLM's child process) computes on every core it can get, for
as long as requests stream. The GUI thread of the console wakes every few milliseconds for a
short slice; when every core is busy it waits for one, and on the 2-core machine that wait was
most of the window's lag while streaming (measured: benchmarks/README-gui.md). :func:`lower` raises the nice value of
every thread of the engine's processes, so the scheduler hands a core to the waking GUI thread
first; the engine loses nothing while a core is free, but on a machine whose cores other programs
keep busy it yields to them too (benchmarks/README-gui.md). So only the
window asks for it (:func:`prefer_the_window`, called by the app at start); the CLI, its ``bench``
and ``batch`` keep the engine at the console's own priority.

While the window builds a model, the interpreter also hands the GIL over every millisecond
instead of every 5 (:func:`window_first_while_loading`): the load imports thousands of modules and
builds the front end on the engine thread, and each time the GUI thread woke it could wait a whole
slice. Shorter slices shorten the longest stall while a model is built and leave the load's
time as it was; while streaming they cost the engine thread throughput and do not lower the lag,
so they hold only during the load (measured: benchmarks/README-gui.md).

Linux sets the nice value per thread (``setpriority(PRIO_PROCESS, tid)``), so every thread in
``/proc/<pid>/task`` is set; threads started later inherit it from the thread that starts them.
Elsewhere the process's own value is set (psutil), which covers its threads there.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterable, Iterator

#: How much lower than the console the engine core runs on the CPU device (0-19).
ENGINE_NICE = 10
_engine_nice = 0  # 0: the engine keeps the console's priority (the CLI)


def prefer_the_window(nice: int = ENGINE_NICE) -> None:
    """From now on the engines this process loads on the CPU run at ``nice`` (0: not lowered)."""
    global _engine_nice
    _engine_nice = nice


#: The interpreter's switch interval while the window builds a model (Python's default: 5 ms).
LOAD_SWITCH_S = 0.001


@contextmanager
def window_first_while_loading() -> Iterator[None]:
    """Within (a model load): 1 ms GIL slices, when the window asked to come first; else nothing."""
    if _engine_nice <= 0:
        yield
        return
    saved = sys.getswitchinterval()
    sys.setswitchinterval(LOAD_SWITCH_S)
    try:
        yield
    finally:
        sys.setswitchinterval(saved)


def lower_engine(pids: Iterable[int]) -> int:
    """What the in-process engine calls once its engine's processes run: :func:`lower` when the window
    asked for it."""
    return lower(pids, _engine_nice) if _engine_nice > 0 else 0


def _threads(pid: int) -> list[int]:
    try:
        return [int(t.name) for t in Path(f"/proc/{pid}/task").iterdir()]
    except OSError:
        return []


def lower(pids: Iterable[int], nice: int = ENGINE_NICE) -> int:
    """Give every thread of ``pids`` and of their children at least ``nice``; returns how many
    threads (processes, off Linux) were changed. A process that is gone or not ours is skipped."""
    import psutil

    procs: list[psutil.Process] = []
    for pid in pids:
        try:
            p = psutil.Process(pid)
            procs += [p, *p.children(recursive=True)]
        except psutil.Error:
            continue
    changed = 0
    for p in procs:
        if not sys.platform.startswith("linux"):
            try:
                if p.nice() < nice:
                    p.nice(nice)
                    changed += 1
            except psutil.Error:
                pass
            continue
        for tid in _threads(p.pid):
            try:
                if os.getpriority(os.PRIO_PROCESS, tid) < nice:
                    os.setpriority(os.PRIO_PROCESS, tid, nice)
                    changed += 1
            except OSError:
                continue
    return changed
