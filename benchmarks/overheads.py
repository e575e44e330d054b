#!/usr/bin/env python3
"""The console's own small costs, measured (they used to be timed asserts in unit tests).

- device sampling: CPU time of one ``DeviceSampler.sample_once`` (this process and its children),
  as a share of one core at the sampler's 0.5 s interval (target: under 1%);
- planning: wall time of one ``plan()`` for Qwen2.5-14B / 32k / 8 users on a 4090, calibration
  cached (target: under 50 ms, so the knobs can re-plan on every change);
- window start: wall time from a fresh interpreter to the main window shown (target: under 2 s),
  best of ``--launches``.

    .venv/bin/python benchmarks/overheads.py [--samples 40] [--launches 3] [--with-engine]

``--with-engine`` starts the vLLM CPU engine on a tiny random model first, so the sampler also
walks the engine core's child process (what the Monitor does while a model is loaded). The
figures, with the machine's load average, go to ``benchmarks/README-gui.md``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

#: a fresh interpreter that opens the main window and says whether torch / vLLM / transformers
#: were imported by then (tests/test_ui_window.py runs it too)
STARTUP = r"""
import os, sys
os.environ["QT_QPA_PLATFORM"] = "offscreen"
from PySide6.QtWidgets import QApplication
app = QApplication(sys.argv)
from console.ui.app import create_window
ctx, w = create_window()
w.show()
app.processEvents()
print("shown", w.isVisible(), "torch" in sys.modules, "vllm" in sys.modules, "transformers" in sys.modules,
      flush=True)
ctx.sampler.stop()
os._exit(0)
"""


def sampling_cost(samples: int) -> dict[str, float]:
    from console.metrics.device import DeviceSampler
    from console.metrics.store import MetricsStore

    sampler = DeviceSampler(MetricsStore(), interval_s=0.5)
    sampler.sample_once()  # psutil's first cpu_percent call primes its counters
    t0 = time.thread_time()
    for _ in range(samples):
        sampler.sample_once()
    per = (time.thread_time() - t0) / samples
    return {"ms_cpu_per_sample": per * 1000, "share_of_a_core_pct": per / sampler.interval_s * 100}


def plan_latency(repeats: int = 50) -> dict[str, float]:
    from console.planner.core import PlanRequest, plan
    from console.planner.shape_lookup import shape_for

    req = PlanRequest(shape_for("Qwen2.5-14B"), gpu="rtx-4090", max_model_len=32768, concurrency=8)
    plan(req)  # warm the calibration cache
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        plan(req)
        times.append(time.perf_counter() - t0)
    return {"median_ms": statistics.median(times) * 1000, "max_ms": max(times) * 1000}


def window_start(launches: int) -> dict[str, float]:
    walls = []
    with tempfile.TemporaryDirectory() as home:
        env = dict(os.environ, INFERENCE_CONSOLE_HOME=home)
        for _ in range(launches):
            t0 = time.monotonic()
            out = subprocess.run(
                [sys.executable, "-c", STARTUP], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120
            )
            walls.append(time.monotonic() - t0)
            if "shown True" not in out.stdout:
                raise SystemExit(f"the window did not show:\n{out.stderr[-2000:]}")
    return {"best_s": min(walls), "worst_s": max(walls)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=40)
    ap.add_argument("--launches", type=int, default=3)
    ap.add_argument("--with-engine", action="store_true", help="load the CPU engine on a tiny model first")
    args = ap.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    engine = None
    if args.with_engine:
        from console.config import EngineConfig
        from console.engine.in_process import InProcessEngine
        from tests.fixtures.synthetic import make_llama

        model = make_llama(Path(tempfile.mkdtemp()) / "tiny-llama")
        engine = InProcessEngine()
        engine.load(
            EngineConfig(model=str(model), kv_cache_memory_bytes=64 * 1024**2, max_model_len=1024, device="cpu"), "tiny"
        ).result(timeout=600)
    s = sampling_cost(args.samples)
    print(
        f"device sampling: {s['ms_cpu_per_sample']:.2f} ms CPU per sample = "
        f"{s['share_of_a_core_pct']:.2f}% of a core at 0.5 s (target < 1%)" + (" (engine core alive)" if engine else "")
    )
    p = plan_latency()
    print(f"plan(): median {p['median_ms']:.2f} ms, max {p['max_ms']:.2f} ms (target < 50 ms)")
    if engine is not None:
        engine.close()
    w = window_start(args.launches)
    print(f"window shown: best {w['best_s']:.2f} s, worst {w['worst_s']:.2f} s of {args.launches} (target < 2 s)")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
