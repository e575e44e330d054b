"""No full garbage collection while a model loads (console/engine/gc_pause.py): the automatic
collector and the GUI's own collector both skip generation 2 inside the pause, and the old
threshold comes back afterwards."""

from __future__ import annotations

import gc
from typing import Any, Iterator

import pytest

from console.engine.gc_pause import PAUSED_THRESHOLD, full_collections_paused, no_full_collections


@pytest.fixture
def full_passes() -> Iterator[list[int]]:
    seen: list[int] = []

    def on_gc(phase: str, info: dict[str, Any]) -> None:
        if phase == "start" and info["generation"] == 2:
            seen.append(1)

    gc.callbacks.append(on_gc)
    yield seen
    gc.callbacks.remove(on_gc)


@pytest.fixture
def hand_ticked(qtbot: Any) -> Iterator[tuple[Any, list[int]]]:
    """A GUI collector whose ticks the test makes by hand, and the generation of every pass."""
    from console.ui.gc_guard import GuiThreadCollector

    passes: list[int] = []

    def on_gc(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            passes.append(info["generation"])

    was_enabled = gc.isenabled()
    collector = GuiThreadCollector(interval_ms=10_000)  # its own timer does not fire in a test
    gc.callbacks.append(on_gc)
    try:
        yield collector, passes
    finally:
        gc.callbacks.remove(on_gc)
        collector.stop()
        if not was_enabled:
            gc.disable()


def churn() -> list[Any]:
    """Allocate like an import storm: many container objects that live on (so the long-lived
    generation grows, which is what makes CPython start full passes)."""
    kept = []
    for i in range(300_000):
        kept.append({"i": i, "l": [i]})
    return kept


def test_automatic_collector_skips_full_passes_inside(full_passes: list[int]) -> None:
    was_enabled = gc.isenabled()
    gc.enable()  # the tests' conftest switches automatic collection off; this test needs it
    try:
        before = gc.get_threshold()
        with no_full_collections():
            assert full_collections_paused() and gc.get_threshold()[2] == PAUSED_THRESHOLD
            kept = churn()
            inside = len(full_passes)
        assert gc.get_threshold() == before and not full_collections_paused()
        del kept
        kept = churn()  # the same work outside the pause does start full passes
        outside = len(full_passes) - inside
        del kept
    finally:
        if not was_enabled:
            gc.disable()
    assert inside == 0
    assert outside >= 1


def test_nested_pauses_restore_the_first_threshold() -> None:
    before = gc.get_threshold()
    with no_full_collections():
        with no_full_collections():
            pass
        assert gc.get_threshold()[2] == PAUSED_THRESHOLD  # the outer pause still holds
    assert gc.get_threshold() == before


def test_gui_collector_follows_the_pause(qtbot: Any, full_passes: list[int]) -> None:
    from console.ui.gc_guard import GuiThreadCollector

    was_enabled = gc.isenabled()
    collector = GuiThreadCollector(interval_ms=10_000)  # ticks driven by hand below
    try:

        def tick_until_young_full() -> None:
            for _ in range(200):  # enough generation-1 passes to reach the full-pass threshold
                for _ in range(800):
                    [[]]  # noqa: B018  (allocations bump the generation-0 count)
                keep.append([[] for _ in range(800)])
                collector._on_timer_timeout()

        keep: list[Any] = []
        with no_full_collections():
            tick_until_young_full()
        assert full_passes == []
        tick_until_young_full()
        assert len(full_passes) >= 1
    finally:
        collector.stop()
        if not was_enabled:
            gc.disable()


def test_gui_collector_makes_no_pass_at_all_while_a_model_loads(hand_ticked: tuple[Any, list[int]]) -> None:
    """With automatic collection off, what a load builds (~200,000 objects a second) waited
    in generation 0 for the GUI collector's next tick, whose young pass walked it all on the GUI
    thread (70-155 ms per generation-0 pass, 445 ms for a generation-1 pass while vLLM was
    imported). Inside the pause it makes no pass; when the pause ends, what was built is frozen,
    so no later pass walks it either."""
    collector, passes = hand_ticked
    frozen = gc.get_freeze_count()
    with no_full_collections():
        kept = []
        for _ in range(30):  # a load's ticks: each one past the young thresholds
            kept.append([[i] for i in range(8_000)])  # lists: always tracked by the collector
            collector._on_timer_timeout()
        assert passes == []
        young = gc.get_count()[0]
        assert young > 100_000  # all of it still young: the pass the old collector made each tick
    assert gc.get_freeze_count() - frozen >= 0.99 * young  # moved out of sight, no pass made
    assert gc.get_count()[0] < 1_000
    collector._on_timer_timeout()
    assert passes == []  # nothing young left to walk after the load
    del kept


def test_unload_leaves_the_loads_objects_frozen_for_the_gui_collector(hand_ticked: tuple[Any, list[int]]) -> None:
    """An unload used to ``gc.unfreeze()`` everything a load froze (torch, transformers,
    vLLM: ~720,000 objects that stay imported), so every later full pass of the window's collector
    walked them again (570-680 ms CPU each). With the GUI's collector running they stay frozen and
    no pass is made for the unload (one full pass after it took 568-761 ms and freed 3,526 objects,
    not the engine); without it (the CLI) they are unfrozen as before."""
    import asyncio

    from console.engine.in_process import InProcessEngine

    collector, passes = hand_ticked
    kept = [[i] for i in range(20_000)]  # what a load leaves imported
    gc.freeze()  # as the load does when it ends
    asyncio.run(InProcessEngine()._shutdown_engine())  # what Unload runs (no engine loaded here)
    assert gc.get_freeze_count() >= len(kept)  # not put back for every later pass to walk
    for _ in range(3):
        collector._on_timer_timeout()
    assert 2 not in passes  # no full pass for the unload
    collector.stop()  # the CLI: no GUI collector
    asyncio.run(InProcessEngine()._shutdown_engine())
    assert gc.get_freeze_count() == 0
    del kept


def test_young_passes_stay_small_while_another_thread_allocates(qtbot: Any) -> None:
    """While streaming, the engine thread allocates (vLLM's outputs, our deltas) and the
    GUI's collector walked one second of it per young pass on the GUI thread (gen-0 passes of up to
    8 ms CPU, a gen-1 pass of 19 ms, measured by benchmarks/gui_responsiveness.py). Its timer now
    ticks every 100 ms, so each pass walks a tenth: here a thread allocating like an engine leaves
    30,000-40,000 live young objects per pass with a 1 s tick, ~10,000 with this one."""
    import threading
    import time

    from console.ui.gc_guard import GuiThreadCollector

    sizes: list[int] = []

    def on_gc(phase: str, info: dict[str, Any]) -> None:
        if phase == "start" and threading.current_thread() is threading.main_thread():
            sizes.append(gc.get_count()[0])  # what this pass walks

    stop = threading.Event()

    def engine() -> None:
        keep: list[Any] = []
        while not stop.is_set():
            keep.append([[i] for i in range(1000)])
            if len(keep) > 50:
                keep.clear()
            time.sleep(0.01)

    was_enabled = gc.isenabled()
    collector = GuiThreadCollector()  # the app's interval
    gc.callbacks.append(on_gc)
    thread = threading.Thread(target=engine)
    thread.start()
    try:
        qtbot.wait(2500)
    finally:
        stop.set()
        thread.join()
        gc.callbacks.remove(on_gc)
        collector.stop()
        if not was_enabled:
            gc.disable()
    assert len(sizes) >= 5, sizes  # 2 passes in 2.5 s with the 1 s tick
    assert sorted(sizes)[len(sizes) // 2] < 20_000, sizes  # the median: a late tick on a busy machine walks more
