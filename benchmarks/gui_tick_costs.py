"""What the GUI thread spends its time on, per timer slot and per paint (against the window's lag target).

End-to-end lag figures on a shared 2-core machine are noisy; this measures the GUI thread's own
work instead. The real main window (all panels and docks) runs without an engine; a feeder
thread writes engine bins (64 running requests, tokens, TTFT/ITL samples) into the metrics store
every 20 ms, as a streaming engine would, and the store starts with 10 minutes of history so the
plots are full. Each timer slot and each pyqtgraph paint is wrapped and timed, as is each
whole pass of the event loop; the table lists them with calls,
mean, p99 and max in ms of the GUI thread's CPU time (``time.thread_time``: on a contended
machine wall time mostly measures the other jobs; CPU time is what this thread costs).

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/gui_tick_costs.py [--seconds 20] [--tab monitor]
"""

from __future__ import annotations

import argparse
import cProfile
import math
import os
import pstats
import random
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def fill_history(metrics, seconds: float, now: float) -> None:  # type: ignore[no-untyped-def]
    t = now - seconds
    while t < now:
        feed(metrics, t)
        t += 0.25


def feed(metrics, t: float) -> None:  # type: ignore[no-untyped-def]
    phase = math.sin(t / 30.0)
    metrics.record_step(
        t=t,
        running=64,
        waiting=int(8 + 8 * phase),
        kv_usage=0.5 + 0.3 * phase,
        prompt_tokens=random.randint(0, 200),
        generation_tokens=random.randint(100, 300),
        ttfts=[0.05 + random.random() * 0.1],
        itls=[0.005 + random.random() * 0.01] * 4,
    )


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=20.0)
    p.add_argument("--profile", action="store_true", help="also cProfile the Monitor's paints and ticks")
    p.add_argument("--tab", default="monitor", help="the tab showing: chat, batch, monitor, export")
    args = p.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["INFERENCE_CONSOLE_HOME"] = tempfile.mkdtemp(prefix="ic-ticks-home-")

    from PySide6.QtWidgets import QApplication

    costs: dict[str, list[float]] = defaultdict(list)

    profiler = cProfile.Profile() if args.profile else None
    measuring = [False]

    def timed(cls: type, method: str, name: str) -> None:
        """Replace ``cls.method`` (before any instance connects it) by a timing wrapper."""
        original = getattr(cls, method)

        def wrapper(self, *a):  # type: ignore[no-untyped-def]
            t0 = time.thread_time()
            try:
                if profiler is not None and measuring[0]:
                    return profiler.runcall(original, self, *a)
                return original(self, *a)
            finally:
                costs[name].append(time.thread_time() - t0)

        setattr(cls, method, wrapper)

    from console.ui.refcount_guard import pin_singletons

    pin_singletons()
    app = QApplication(sys.argv[:1])
    import pyqtgraph as pg

    from console.ui import bridge, gc_guard, main_window
    from console.ui.advisor import panel as advisor_panel
    from console.ui.batch import panel as batch_panel
    from console.ui.chat import panel as chat_panel
    from console.ui.monitor import panel as monitor_panel
    from console.ui.context import AppContext

    timed(monitor_panel.MonitorPanel, "_on_timer_tick", "monitor timer slot")
    timed(advisor_panel.AdvisorPanel, "_on_timer_tick", "advisor timer slot")
    timed(main_window.MainWindow, "_on_status_timer_timeout", "status-bar timer slot")
    timed(gc_guard.GuiThreadCollector, "_on_timer_timeout", "gc timer slot")
    timed(bridge.EngineBridge, "_on_timer_tick", "bridge flush slot")
    timed(batch_panel.BatchPanel, "_on_poll_timer_timeout", "batch poll slot")
    timed(chat_panel.ChatPanel, "_on_render_timer_timeout", "chat render slot")
    timed(pg.GraphicsView, "paintEvent", "pyqtgraph view paint")
    timed(main_window.MainWindow, "paintEvent", "main window paint")

    _collector = gc_guard.GuiThreadCollector(parent=app)  # kept alive for the run
    ctx = AppContext.create()
    fill_history(ctx.metrics, 600.0, time.time())
    ctx.sampler.start()
    window = main_window.MainWindow(ctx)
    window.resize(1400, 900)
    window.show()
    window.build_panels()
    window.tabs.setCurrentWidget(window.panels[args.tab])

    stop = threading.Event()

    def feeder() -> None:
        while not stop.is_set():
            feed(ctx.metrics, time.time())
            time.sleep(0.02)

    threading.Thread(target=feeder, daemon=True).start()
    end = time.perf_counter() + 2.0
    while time.perf_counter() < end:  # warm up (first paints, lazy imports)
        app.processEvents()
        time.sleep(0.001)
    costs.clear()
    measuring[0] = True
    t0 = time.perf_counter()
    end = t0 + args.seconds
    while time.perf_counter() < end:
        t1 = time.thread_time()
        app.processEvents()
        costs["(whole event-loop pass)"].append(time.thread_time() - t1)
        time.sleep(0.001)
    wall = time.perf_counter() - t0
    stop.set()

    rows = []
    for name, dts in costs.items():
        ms = sorted(d * 1000 for d in dts)
        rows.append((sum(ms), name, len(ms), sum(ms) / len(ms), ms[min(len(ms) - 1, int(0.99 * len(ms)))], ms[-1]))
    rows.sort(reverse=True)
    total = sum(costs["(whole event-loop pass)"]) * 1000
    print(
        f"tab {args.tab}: {wall:.1f} s, GUI thread busy {total:.0f} ms = {100 * total / 1000 / wall:.1f}% "
        f"(1-min load average {os.getloadavg()[0]:.2f})"
    )
    print(f"{'what':28} {'calls':>6} {'total ms':>9} {'mean':>7} {'p99':>7} {'max':>7}")
    for tot, name, n, mean, p99, mx in rows:
        print(f"{name[:28]:28} {n:6d} {tot:9.1f} {mean:7.2f} {p99:7.2f} {mx:7.2f}")
    if profiler is not None:
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
    sys.stdout.flush()
    ctx.sampler.stop()
    os._exit(0)


if __name__ == "__main__":
    raise SystemExit(main())
