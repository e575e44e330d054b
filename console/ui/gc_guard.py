"""Garbage collection only on the GUI thread.

Python's cyclic collector runs in whichever thread happens to allocate past the threshold; here
that is often the engine thread (vLLM allocates a lot while streaming). If a cycle holding a Qt
object is collected there, Qt deletes a widget off the GUI thread and the process can segfault
(seen in the full test run). So automatic collection is switched off and a GUI timer collects
instead, the approach pyqtgraph's own ``GarbageCollector`` takes.

While a model loads (``console/engine/gc_pause.py``) it collects nothing at all, young generations
included: with automatic collection off, everything the load imports and builds (about 200,000
objects a second) waits in generation 0 for the next tick, so each tick's young pass walked all of
it on the GUI thread, holding the GIL (a tenth of a second and more per pass; measured:
benchmarks/README-gui.md, "what held the GUI thread while a model loads"). The loader
freezes what the load built when it ends (``gc.freeze()``: no pass at all), so skipping loses
nothing but the load's own cyclic garbage (about 16,500 small objects for vLLM's imports).

It ticks every 100 ms: each generation-0 pass walks what was allocated since the last one, and
while a model streams the engine thread allocates ~100,000 objects a second, so a 1 s tick made
generation-0 passes of up to 8 ms on the GUI thread. A generation-1 pass costs about the same
whatever the tick (16-19 ms while streaming: what it walks is what lives a few seconds, the
requests in flight), so it comes as rarely as with the 1 s tick: its threshold counts ticks of
that second, not of this tick.

After an unload what the load froze stays frozen while this collector runs
(``gc_pause.release_frozen``): unfrozen, every later full pass here walked it again.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

from console.engine import gc_pause


class GuiThreadCollector(QObject):
    def __init__(self, interval_ms: int = 100, parent: QObject | None = None) -> None:
        super().__init__(parent)
        gc.disable()
        gc_pause.gui_collector_running(True)
        #: generation-0 passes per generation-1 pass are counted per second of ticks (see the doc)
        self._young_factor = max(1, round(1000 / interval_ms))
        self._stopped = False
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self._on_timer_timeout)
        self._timer.start()

    def _on_timer_timeout(self) -> None:
        # Same policy as the automatic collector: young generations often, older ones rarely.
        # The thresholds are read each time: while a model loads the in-process engine raises the
        # full-collection one (console/engine/gc_pause.py), as it does for the automatic collector.
        if gc_pause.full_collections_paused():  # a load: frozen when it ends, never walked here
            return
        threshold = gc.get_threshold()
        counts = gc.get_count()
        if counts[0] > threshold[0]:
            generation = 0
            if counts[1] > threshold[1] * self._young_factor:
                generation = 2 if counts[2] > threshold[2] else 1
            gc.collect(generation)

    def stop(self) -> None:
        self._timer.stop()
        if not self._stopped:
            self._stopped = True
            gc_pause.gui_collector_running(False)
        gc.enable()
