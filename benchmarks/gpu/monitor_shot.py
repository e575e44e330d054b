#!/usr/bin/env python3
"""The Monitor tab on a real GPU, for the README: the console's window (Qt's offscreen platform)
serving the Llama-3.1-8B shape while its Bench tab runs a concurrency sweep, then a screenshot of the
Monitor showing NVML's memory, utilisation and power beside the engine's KV cache, queue and tokens/s.

On the GPU machine (vLLM on ``PYTHONPATH``, PySide6 and pyqtgraph carried, no network), one call:

    QT_QPA_PLATFORM=offscreen PYTHONPATH=/tmp/site:$PWD python benchmarks/gpu/monitor_shot.py $OUT \\
        --tokenizer DIR [--util 0.1638]

* the model: the Llama-3.1-8B shape (``acceptance.LLAMA_8B``) with dummy weights, SmolLM2's tokenizer
  from ``DIR`` (``tune_8b.py --write-tokenizer DIR`` writes it), in a throwaway store and data home
  (a one-value placeholder ``model.safetensors`` lets the store list it: the Models table shows
  that file's size, not the shape's; the planner reads the config);
* the card: an RTX 4090 emulated on the bigger device (``--util``: 0.1638 of an H200 is 23 GiB), the
  preset's knobs those of a 4090 (8,192 tokens, 256 sequences, 8,192 batched tokens, eager);
* the load: the Bench tab's synthetic workload (``--prompts`` x 512 -> 256 tokens) at concurrency
  16, 64 and 256, through the loaded engine;
* the result: ``OUT/monitor.png`` (palette PNG, as ``packaging/screenshots.py`` saves them) and
  ``OUT/monitor-shot.json`` (the Monitor's device line and readout, the bench's status, the series'
  last values and maxima, seconds per step).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "packaging"))

PRESET = "monitor-8b"


def write_preset(home: Path, util: float, cpu_smoke: bool) -> None:
    presets = home / "presets"
    presets.mkdir(parents=True, exist_ok=True)
    engine = (
        'device = "cpu"\nmax_model_len = 512\nmax_num_seqs = 16\n'
        if cpu_smoke
        else 'device = "cuda"\nload_format = "dummy"\n'
        f"gpu_memory_utilization = {util}\nmax_model_len = 8192\nmax_num_seqs = 256\n"
        "max_num_batched_tokens = 8192\nenforce_eager = true\n"
    )
    (presets / f"{PRESET}.toml").write_text(
        f'name = "{PRESET}"\ndescription = "Llama-3.1-8B shape, dummy weights, emulated 24 GB card"\n'
        f'goal = "max-throughput"\ngpu = "any"\n\n[engine]\n{engine}',
        encoding="utf-8",
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--tokenizer", type=Path)
    ap.add_argument("--util", type=float, default=0.1638)
    ap.add_argument("--prompts", type=int, default=512)
    ap.add_argument("--size", default="1600x900")
    ap.add_argument("--cpu-smoke", action="store_true", help="the tiny random model on the CPU: checks the script")
    args = ap.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("VLLM_LOGGING_LEVEL", "WARNING")
    args.out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="ic-monitor-"))
    home = work / "home"
    os.environ["INFERENCE_CONSOLE_HOME"] = str(home)
    os.environ["INFERENCE_CONSOLE_STORE"] = str(work / "store")
    write_preset(home, args.util, args.cpu_smoke)

    from console.models.store import ModelStore

    if args.cpu_smoke:
        from tests.fixtures.synthetic import make_llama

        folder = make_llama(work / "llama-8b-shape")
    else:
        from tune_8b import shape_8b

        folder = shape_8b(args.tokenizer, work / "llama-8b-shape")
        from safetensors.numpy import save_file

        # the store lists folders with weights; vLLM's dummy loader never reads this one
        save_file({"dummy": np.zeros(1, dtype=np.float16)}, str(folder / "model.safetensors"))
    name = "llama-8b-shape"
    ModelStore(work / "store").add_reference(name, folder, source="benchmarks/gpu/monitor_shot.py")

    from PySide6.QtWidgets import QApplication
    from screenshots import save_small, spinner  # type: ignore[import-not-found]

    from console.engine.types import EngineState
    from console.ui.app import create_window

    app = QApplication(sys.argv[:1])
    ctx, window = create_window()
    width, height = (int(v) for v in args.size.split("x"))
    window.resize(width, height)
    window.show()

    spin = spinner(app)
    report: dict[str, Any] = {"steps_s": {}}
    t0 = time.monotonic()
    spin(1.0)
    if hasattr(window, "build_panels"):
        window.build_panels()
    models = window.models
    models.refresh(select=name)
    models.select_model(name)
    if not models.select_preset(PRESET):
        raise SystemExit(f"preset {PRESET} not offered")
    spin(0.5)
    if not models.load_selected():
        raise SystemExit("the console refused to load the model")
    ok = spin(480, lambda: ctx.engine.status.state in (EngineState.READY, EngineState.FAILED))
    if not ok or ctx.engine.status.state != EngineState.READY:
        raise SystemExit(f"load failed: {ctx.engine.status.error}")
    report["steps_s"]["load"] = round(time.monotonic() - t0, 1)
    print("engine ready", report["steps_s"], flush=True)
    t_loaded = time.time()

    # build_panels has run: these modules (pyqtgraph) are loaded, and the tabs hold their panels
    from console.ui.bench.panel import BenchPanel
    from console.ui.monitor.panel import MonitorPanel

    bench = window.panels["bench"]
    assert isinstance(bench, BenchPanel)
    bench.num_prompts.setValue(8 if args.cpu_smoke else args.prompts)
    bench.input_len.setValue(16 if args.cpu_smoke else 512)
    bench.output_len.setValue(8 if args.cpu_smoke else 256)
    bench.sweep_edit.setText("2,4" if args.cpu_smoke else "16,64,256")
    t1 = time.monotonic()
    if not bench.run():
        raise SystemExit("the bench did not start")
    spin(420, lambda: not bench.busy())
    report["steps_s"]["bench"] = round(time.monotonic() - t1, 1)
    report["bench_status"] = bench.status_label.text()
    print("bench:", report["bench_status"], flush=True)
    spin(3.0)

    monitor = window.panels["monitor"]
    assert isinstance(monitor, MonitorPanel)
    window.tabs.setCurrentWidget(monitor)
    monitor.show_last(max(60.0, time.time() - t_loaded + 10))
    spin(3.0)
    size_kb = save_small(window.grab().toImage(), args.out / "monitor.png") // 1024
    print(f"monitor.png: {size_kb} KB", flush=True)
    report["device_line"] = monitor.device_label.text()
    report["readout"] = monitor.readout.text()
    report["guidance"] = monitor.guidance.text()
    report["sampler"] = ctx.sampler.kind
    series: dict[str, Any] = {}
    for key, curve in monitor.curves.items():
        try:
            _, ys = curve.item.getData()
        except Exception:  # noqa: BLE001 - a curve with no data yet
            continue
        if ys is not None and len(ys):
            peak = float(np.nanmax(ys)) if np.isfinite(ys).any() else None
            series[key] = {"points": int(len(ys)), "last": float(ys[-1]), "max": peak}
    report["series"] = series
    (args.out / "monitor-shot.json").write_text(json.dumps(report, indent=2), encoding="utf-8")
    print(json.dumps(report, indent=2), flush=True)
    ctx.sampler.stop()
    ctx.engine.close()
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    raise SystemExit(main())
