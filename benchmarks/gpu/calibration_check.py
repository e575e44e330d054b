#!/usr/bin/env python3
"""The planner's self-calibration on a real GPU: predicted vs measured KV tokens, before and after.

Usage on the GPU machine (vLLM on PYTHONPATH):  python3 benchmarks/gpu/calibration_check.py OUTDIR
Loads a few shapes (dummy weights, like run_gpu.py) through the console's in-process engine with a fresh
data home (OUTDIR/home), so each load is recorded and refits this GPU's calibration. For each
load it writes the planner's prediction *before* the load (shipped file or the loads so far: an
out-of-sample prediction), the KV tokens vLLM sized, and the prediction after refitting; then a
leave-one-out over all recorded loads. Result: OUTDIR/calibration_check.json (and printed).

``python3 benchmarks/gpu/calibration_check.py --replay`` runs the leave-one-out on the H200
loads recorded in benchmarks/gpu/results/ instead (no GPU needed; tests/test_planner_selfcal.py).
"""

from __future__ import annotations

import gzip
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE))
RESULTS = HERE / "results"

#: (label, shape, gpu_memory_utilization, extra engine arguments)
CONFIGS: list[tuple[str, str, float, dict[str, Any]]] = [
    ("8b-bf16", "Llama-3.1-8B", 0.30, {}),
    ("3b-bf16", "Llama-3.2-3B", 0.25, {}),
    ("qwen7b-bf16", "Qwen2.5-7B", 0.35, {}),
    ("8b-fp8", "Llama-3.1-8B", 0.30, {"quantization": "fp8", "kv_cache_dtype": "fp8"}),
    ("8b-bf16-0.6", "Llama-3.1-8B", 0.60, {"max_num_batched_tokens": 4096}),
]

#: run_gpu.py's loads whose vLLM log lines are in results/*.log.gz: (log, results file, entries)
RECORDED = [
    ("engine", "engine.json", ["8b_bf16_load", "8b_fp8_load"]),
    ("extra", "extra.json", ["Llama-3.2-3B_load", "Qwen2.5-7B_load", "8b_whole_load"]),
]
_ARGS = (
    "max_model_len",
    "gpu_memory_utilization",
    "max_num_seqs",
    "max_num_batched_tokens",
    "enforce_eager",
    "kv_cache_dtype",
    "quantization",
)


def recorded_h200_loads(results: Path = RESULTS) -> list[Any]:
    """The H200 loads of run_gpu.py as load records, parsed from vLLM's own log lines."""
    from console.planner.loadlog import parse_vllm_log, split_engine_starts
    from console.planner.selfcal import LoadRecord
    from console.planner.shape_lookup import shape_for

    records = []
    for log_name, file, entries in RECORDED:
        data = json.loads((results / file).read_text(encoding="utf-8"))
        text = gzip.open(results / f"{log_name}.log.gz", "rt", encoding="utf-8").read()
        starts = [r for r in map(parse_vllm_log, split_engine_starts(text)) if r.weights]  # not the tiny model
        for entry, report in zip(entries, starts, strict=True):
            load = data[entry]
            if report.kv_tokens != load["kv_cache_tokens"]:
                raise ValueError(f"{entry}: log says {report.kv_tokens} KV tokens, {file} {load['kv_cache_tokens']}")
            model = Path(load["config"]["model"]).name
            records.append(
                LoadRecord(
                    gpu="h200",
                    gpu_name=data["environment"]["gpu"],
                    vllm_version=report.vllm_version or "?",
                    shape=shape_for(model).to_dict(),
                    engine_args={k: load["config"].get(k) for k in _ARGS},
                    report=report,
                    kv_tokens=load["kv_cache_tokens"],
                    block_size=load["block_size"],
                    model=model,
                    time=data["environment"].get("date_utc", ""),
                )
            )
    return records


#: the engine starts of benchmarks/gpu/acceptance.py (2026-11-30, 22:05-22:25 UTC): loads the
#: calibration never saw (other models, other lengths, a 49,152-token vocabulary on the 8B shape)
ACCEPTANCE_LOG = "acceptance.log.gz"
_ACCEPTANCE_SHAPES: dict[str, tuple[str, dict[str, Any]]] = {
    "smollm2": ("SmolLM2-135M", {}),
    "smollm2-awq": ("SmolLM2-135M", {}),
    "llama-8b-shape": ("Llama-3.1-8B", {"vocab_size": 49152}),
}


def acceptance_h200_loads(results: Path = RESULTS) -> list[Any]:
    """The acceptance journey's profiled GPU loads as load records, parsed from vLLM's log lines:
    the engine arguments come from vLLM's own "Initializing a V1 LLM engine" line (max_num_seqs from
    its CUDA-graph capture size, max(2 x seqs, 512) in vLLM 0.26); loads sized by
    kv_cache_memory_bytes (the gate's) skip vLLM's profiling and are left out."""
    import dataclasses
    import re

    from console.planner.core import quantization_family
    from console.planner.loadlog import parse_vllm_log, split_engine_starts
    from console.planner.selfcal import LoadRecord
    from console.planner.shape_lookup import shape_for

    text = gzip.open(results / ACCEPTANCE_LOG, "rt", encoding="utf-8").read()
    records = []
    for chunk in split_engine_starts(text):
        report = parse_vllm_log(chunk)
        m = re.search(
            r"model='([^']+)'.*?max_seq_len=(\d+).*?quantization=(\w+).*?enforce_eager=(\w+)"
            r".*?kv_cache_dtype=(\w+)",
            chunk,
        )
        graphs = re.search(r"'max_cudagraph_capture_size': (\d+)", chunk)
        batched = re.search(r"'compile_ranges_endpoints': \[(\d+)\]", chunk)
        if not (report.complete and m and graphs and batched and report.kv_tokens):
            continue
        folder, max_len, quant, eager, kv_dtype = m.groups()
        name, changes = _ACCEPTANCE_SHAPES[Path(folder).name]
        shape = dataclasses.replace(shape_for(name), **changes)
        capture = int(graphs.group(1))
        args = {
            "max_model_len": int(max_len),
            "gpu_memory_utilization": report.utilization,
            "max_num_seqs": 256 if capture >= 512 else capture // 2,
            "max_num_batched_tokens": int(batched.group(1)),
            "enforce_eager": eager == "True",
            "kv_cache_dtype": kv_dtype,
            "quantization": None if quant == "None" else quantization_family(quant),
        }
        records.append(
            LoadRecord(
                gpu="h200",
                gpu_name="NVIDIA H200",
                vllm_version=report.vllm_version or "?",
                shape=shape.to_dict(),
                engine_args=args,
                report=report,
                kv_tokens=report.kv_tokens,
                block_size=16,
                model=Path(folder).name + (f" {kv_dtype} KV" if kv_dtype != "auto" else ""),
                time="2026-11-30",
            )
        )
    return records


def unseen_table(train: list[Any], unseen: list[Any]) -> list[dict[str, Any]]:
    """Fit on ``train`` only and predict each of ``unseen``; also what the shipped file predicts."""
    from console.planner.calibration import parse_calibration
    from console.planner.selfcal import fit, predict, shipped_calibration

    cal = parse_calibration(fit(train, None, "h200", train[0].vllm_version), "recorded loads")
    shipped = shipped_calibration("h200")
    rows = []
    for r in unseen:
        got, ship = predict(r, cal), predict(r, shipped)
        rows.append(
            {
                "model": r.model,
                "max_len": r.engine_args["max_model_len"],
                "measured": r.kv_tokens,
                "predicted": got,
                "error": got / r.kv_tokens - 1,
                "shipped": ship,
                "shipped_error": ship / r.kv_tokens - 1,
            }
        )
    return rows


def loo_table(records: list[Any]) -> list[dict[str, Any]]:
    from console.planner.selfcal import leave_one_out

    return leave_one_out(records)


def print_rows(rows: list[dict[str, Any]], keys: list[str]) -> None:
    print("  ".join(f"{k:>14}" for k in keys))
    for r in rows:
        print("  ".join(f"{r[k]:>14.4f}" if isinstance(r[k], float) else f"{r[k]!s:>14}" for k in keys))


def predicted(gpu: str, shape: str, util: float, extra: dict[str, Any]) -> tuple[int, str]:
    from console.planner import PlanRequest, plan, shape_for

    p = plan(
        PlanRequest(
            shape_for(shape),
            gpu=gpu,
            gpu_memory_utilization=util,
            max_model_len=8192,
            max_num_seqs=256,
            max_num_batched_tokens=extra.get("max_num_batched_tokens", 8192),
            quantization=extra.get("quantization"),
            kv_cache_dtype=extra.get("kv_cache_dtype", "auto"),
        )
    )
    return p.kv_tokens, p.calibration["status"]


def run_gpu(out: Path) -> dict[str, Any]:
    os.environ["INFERENCE_CONSOLE_HOME"] = str(out / "home")
    os.environ["INFERENCE_CONSOLE_RECORD_LOADS"] = "1"
    from run_gpu import emu_config, environment, shape_folder

    from console.engine.in_process import InProcessEngine
    from console.metrics.device import NvmlSource
    from console.planner.selfcal import gpu_key, read_loads

    gpu = gpu_key(NvmlSource(0).name)
    res: dict[str, Any] = {"environment": environment(), "gpu": gpu, "loads": []}
    engine = InProcessEngine()
    try:
        for label, shape, util, extra in CONFIGS:
            before, status_before = predicted(gpu, shape, util, extra)
            args = {k: v for k, v in extra.items() if k != "max_num_batched_tokens"}
            config = emu_config(shape_folder(out / "models", shape), util, **args)
            if "max_num_batched_tokens" in extra:
                config = config.replace(max_num_batched_tokens=extra["max_num_batched_tokens"])
            t0 = time.time()
            info = engine.load(config, label).result(timeout=900)
            measured = info.kv_cache_tokens
            if measured is None:  # vLLM's log gave no KV cache size: nothing to compare
                raise SystemExit(f"{label}: the engine reported no KV cache size")
            after, status_after = predicted(gpu, shape, util, extra)
            row = {
                "label": label,
                "measured": measured,
                "before": before,
                "before_error": before / measured - 1,
                "status_before": status_before,
                "after": after,
                "after_error": after / measured - 1,
                "status_after": status_after,
                "load_s": time.time() - t0,
            }
            res["loads"].append(row)
            print(json.dumps(row), flush=True)
    finally:
        engine.close()
    records = [r for r in read_loads(gpu) if r.report.complete]
    res["recorded"] = len(records)
    res["leave_one_out"] = loo_table(records) if len(records) > 1 else []
    return res


def main(argv: list[str]) -> int:
    if argv[:1] == ["--replay"]:
        rows = loo_table(recorded_h200_loads())
        print("leave-one-out on the recorded H200 loads (vLLM 0.26.0):")
        print_rows(rows, ["model", "measured", "predicted", "error"])
        unseen = unseen_table(recorded_h200_loads(), acceptance_h200_loads())
        print("fitted on those five, predicting the acceptance journey's loads (never fitted on):")
        print_rows(unseen, ["model", "max_len", "measured", "predicted", "error", "shipped", "shipped_error"])
        both = loo_table(recorded_h200_loads() + acceptance_h200_loads())
        print("leave-one-out over all of them (what a user's own calibration does once it has seen such loads):")
        print_rows(both, ["model", "measured", "predicted", "error"])
        return 0 if all(abs(r["error"]) <= 0.02 for r in rows) else 1
    if len(argv) != 1:
        print(__doc__)
        return 2
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    res = run_gpu(out)
    (out / "calibration_check.json").write_text(json.dumps(res, indent=1, default=str), encoding="utf-8")
    print_rows(res["loads"], ["label", "measured", "before", "before_error", "after", "after_error"])
    print_rows(res["leave_one_out"], ["model", "measured", "predicted", "error"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
