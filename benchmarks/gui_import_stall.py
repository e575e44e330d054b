"""The window while vLLM is imported: the part of a model load that needs no engine.

A model load first imports vLLM, torch and transformers on the engine thread (about 5-10 s here,
~1,000,000 new objects). This runs the app's garbage-collection setup (``console/ui/gc_guard.py``:
automatic collection off, a GUI timer collects) and a 10 ms PreciseTimer probe on a Qt event loop
while a thread does those imports inside ``gc_pause.no_full_collections()``, as the in-process engine
does, and reports the probe's late-fire (p50 / p99 / max) and every collector pass by generation
(in the collecting thread's CPU time, which other jobs' load does not change). Builds no engine
and starts no process: no engine lock needed. The import happens once per process, so each run
is a fresh process; compare runs at the same load average (printed).

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/gui_import_stall.py
"""

from __future__ import annotations

import gc
import json
import os
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt, QTimer
    from PySide6.QtWidgets import QApplication

    from console.engine import gc_pause
    from console.ui.gc_guard import GuiThreadCollector
    from console.ui.refcount_guard import pin_singletons

    pin_singletons()
    app = QApplication(sys.argv[:1])
    collector = GuiThreadCollector(parent=app)
    passes: list[tuple[int, float, str]] = []
    started: dict[int, tuple[int, float]] = {}
    gui = threading.get_ident()

    def on_gc(phase: str, info: dict) -> None:  # type: ignore[type-arg]
        tid = threading.get_ident()
        if phase == "start":
            started[tid] = (int(info["generation"]), time.thread_time())
        elif tid in started:
            g, t = started.pop(tid)
            passes.append((g, (time.thread_time() - t) * 1000, "gui" if tid == gui else "import"))

    gc.callbacks.append(on_gc)
    lags: list[float] = []
    last = [time.perf_counter()]

    def on_probe() -> None:
        now = time.perf_counter()
        lags.append(max(0.0, now - last[0] - 0.010) * 1000)
        last[0] = now

    probe = QTimer()
    probe.setTimerType(Qt.TimerType.PreciseTimer)
    probe.setInterval(10)
    probe.timeout.connect(on_probe)
    done = threading.Event()

    def load_like() -> None:
        with gc_pause.no_full_collections():
            from console import vllm_compat

            vllm_compat.import_vllm()
            vllm_compat.async_llm_class()
            vllm_compat.async_engine_args_class()
            from transformers import AutoTokenizer  # noqa: F401
        done.set()

    load_before = os.getloadavg()[0]
    probe.start()
    t0 = time.perf_counter()
    threading.Thread(target=load_like, daemon=True).start()
    while not done.is_set():
        app.processEvents()
        time.sleep(0.001)
    seconds = time.perf_counter() - t0
    end = time.perf_counter() + 2.0  # the ticks right after the load: what it left young
    while time.perf_counter() < end:
        app.processEvents()
        time.sleep(0.001)
    probe.stop()
    collector.stop()
    gc.callbacks.remove(on_gc)
    lags.sort()
    result = {
        "import_s": round(seconds, 1),
        "probe_samples": len(lags),
        "lag_p50_ms": round(lags[len(lags) // 2], 1),
        "lag_p99_ms": round(lags[int(len(lags) * 0.99)], 1),
        "lag_max_ms": round(lags[-1], 1),
        "gc_passes": {
            f"gen{g}": {
                "count": sum(1 for x in passes if x[0] == g),
                "max_cpu_ms": round(max((x[1] for x in passes if x[0] == g), default=0.0), 1),
            }
            for g in (0, 1, 2)
        },
        "load_average_1min_before": round(load_before, 2),
        "load_average_1min_after": round(os.getloadavg()[0], 2),
    }
    print(json.dumps(result), flush=True)
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    raise SystemExit(main())
