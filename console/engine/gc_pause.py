"""No full garbage collection while a model loads.

Loading an engine imports torch, transformers and vLLM and builds the front end: the heap grows
by hundreds of thousands of long-lived objects, and each full (generation-2) pass of the cyclic
collector walks all of them while holding the GIL. Measured on the 2-core machine while the tiny
model loaded: three full passes of 755, 887 and 1,118 ms -- the window froze for exactly as long
(benchmarks/README-gui.md). Young generations stay collected (10-25 ms each).

:func:`no_full_collections` raises the generation-2 threshold for its duration, which stops both
CPython's automatic collector and the GUI's own collector (``console/ui/gc_guard.py`` follows
``gc.get_threshold()``) from starting a full pass; the GUI's collector skips the young passes too
while :func:`full_collections_paused`. When the last pause ends, what was built meanwhile is moved
out of the collector's sight with ``gc.freeze()`` (the loader also freezes on success, before it
says READY), loaded or failed, so no pass ever walks the load's objects: freezing costs no walk.

An unload (:func:`release_frozen`) used to ``gc.unfreeze()``, which put back everything the load
imported (torch, transformers, vLLM: ~720,000-990,000 objects that stay imported), so every later
full pass of the window's collector walked them again (570-680 ms CPU each). While the GUI's
collector runs they now stay frozen and no pass is made for the unload: one full pass over them
after the unload, on the GUI thread, took 568-761 ms and freed 3,526 objects, the same number
whether the engine was still referenced or not (so not the engine: whether reference counting
frees it is not measured), and no measurable memory (benchmarks/README-gui.md). What stays frozen is that garbage, a few
thousand objects per unload. Without a GUI collector (the CLI) the objects are unfrozen as before:
CPython's own collector makes full passes rarely.
"""

from __future__ import annotations

import gc
import threading
from contextlib import contextmanager
from typing import Iterator

#: A generation-2 threshold no load reaches (it counts generation-1 passes).
PAUSED_THRESHOLD = 1_000_000_000

_lock = threading.Lock()
_depth = 0
_saved: int | None = None
_gui_collectors = 0


@contextmanager
def no_full_collections() -> Iterator[None]:
    """Within: no full collection starts (young ones still run). Nests and may be entered from
    several threads; the threshold in force before the first entry comes back after the last."""
    global _depth, _saved
    with _lock:
        if _depth == 0:
            t0, t1, t2 = gc.get_threshold()
            _saved = t2
            gc.set_threshold(t0, t1, PAUSED_THRESHOLD)
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _saved is not None:
                t0, t1, _ = gc.get_threshold()
                gc.set_threshold(t0, t1, _saved)
                _saved = None
                gc.freeze()  # a failed load too: its objects wait young otherwise, for one long pass


def full_collections_paused() -> bool:
    return _depth > 0


def gui_collector_running(running: bool) -> None:
    """The GUI's collector (``console/ui/gc_guard.py``) says it started (True) or stopped."""
    global _gui_collectors
    with _lock:
        _gui_collectors = max(0, _gui_collectors + (1 if running else -1))


def release_frozen() -> None:
    """After an unload: what is frozen stays frozen while the GUI's collector runs; else it is
    unfrozen (see the module's doc)."""
    with _lock:
        if _gui_collectors > 0:
            return
    gc.unfreeze()
