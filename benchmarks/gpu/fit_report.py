#!/usr/bin/env python3
"""The planner against vLLM for every measured curated load: fit the family calibration, replay.

Usage (no GPU needed):

    python3 benchmarks/gpu/fit_report.py [--write]

Reads ``benchmarks/gpu/results/fit/fit-loads.jsonl`` (``fit_check.py`` on the GPU) and the older
H200 loads of ``calibration_check.py`` (dense bf16 and online-FP8 shapes, compiled), fits the
per-family calibration (:func:`console.planner.familycal.fit_families`) and prints, for every load,
the KV cache size the planner predicts against the one vLLM logged. ``--write`` stores the fit as
``resources/calibration/families.json`` (with the loads it came from, replayed by
``tests/test_planner_fit_replay.py``) and the table as ``results/fit/fit-table.md``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from console.planner.defaults import RECORDED_LOAD_DEFAULTS  # noqa: E402
from console.planner.familycal import fit_families  # noqa: E402
from console.planner.gpus import GiB  # noqa: E402
from console.planner.overheads import activation_estimate, graphs_estimate  # noqa: E402
from console.planner.request import PlanRequest, quantization_family, weights_bytes  # noqa: E402
from console.planner.shapes import ModelShape, shape_for  # noqa: E402

FIT_LOADS = HERE / "results" / "fit" / "fit-loads.jsonl"
FAMILIES = ROOT / "resources" / "calibration" / "families.json"
_KEEP = (
    "repo",
    "shape",
    "mode",
    "gpu",
    "vllm_version",
    "config",
    "engine_args",
    "report",
    "kv_tokens",
    "num_gpu_blocks",
)


def _config_of(shape: ModelShape) -> dict[str, Any]:
    """A config.json holding ``shape`` (the older loads recorded shapes, not configs)."""
    return {
        "model_type": shape.family,
        "hidden_size": shape.hidden_size,
        "num_hidden_layers": shape.layers,
        "num_attention_heads": shape.num_attention_heads,
        "num_key_value_heads": shape.num_kv_heads,
        "head_dim": shape.head_dim,
        "intermediate_size": shape.intermediate_size,
        "vocab_size": shape.vocab_size,
        "max_position_embeddings": shape.max_position_embeddings,
        "tie_word_embeddings": shape.tie_word_embeddings,
        "attention_bias": shape.attention_bias,
    }


def records() -> list[dict[str, Any]]:
    """Every measured load as a fit record: fit_check.py's lines, then the older compiled loads."""
    out = []
    for line in FIT_LOADS.read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        if r.get("rc") != 0 and not (r.get("rc") == "timeout" and r.get("report", {}).get("kv_tokens")):
            continue  # a timeout after vLLM sized the cache (a kernel warm-up ran long) still measured it
        r["gpu"] = "h200" if "H200" in r.get("gpu_name", "") else r.get("gpu_name", "gpu")
        out.append({k: r[k] for k in _KEEP if k in r})
    from calibration_check import recorded_h200_loads

    for rec in recorded_h200_loads():
        if rec.engine_args.get("max_model_len") is None:
            continue  # the whole-card load ran with vLLM's defaults, which the record does not name
        shape = shape_for(rec.shape["name"])
        args = {**RECORDED_LOAD_DEFAULTS, **{k: v for k, v in rec.engine_args.items() if v is not None}}
        out.append(
            {
                "repo": f"{shape.name} (run_gpu.py, dummy weights)",
                "shape": shape.name,
                "mode": "eager" if args.get("enforce_eager") else "compiled",
                "gpu": "h200",
                "vllm_version": rec.vllm_version,
                "config": _config_of(shape),
                "engine_args": args,
                "report": rec.report.to_dict(),
                "kv_tokens": rec.kv_tokens,
            }
        )
    return out


def request_of(r: dict[str, Any], calibration: bool = True) -> PlanRequest:
    a = r["engine_args"]
    shape = ModelShape.from_hf_config(r["config"], r["shape"])
    quant = a.get("quantization")
    return PlanRequest(
        shape,
        gpu=r["gpu"],
        quantization=quantization_family(quant) if quant else shape.quantization,
        kv_cache_dtype=a.get("kv_cache_dtype") or "auto",
        max_model_len=a["max_model_len"],
        gpu_memory_utilization=a["gpu_memory_utilization"],
        max_num_seqs=a["max_num_seqs"],
        max_num_batched_tokens=a["max_num_batched_tokens"],
        enforce_eager=r["mode"] == "eager",
        calibration=calibration,
        vllm_version=r["vllm_version"],
        limit_mm_per_prompt=a.get("limit_mm_per_prompt"),
        mm_processor_kwargs=a.get("mm_processor_kwargs"),
    )


def estimate(r: dict[str, Any]) -> tuple[float, float, float]:
    req = request_of(r, calibration=False)
    s = req.shape
    tokens, seqs = r["engine_args"]["max_num_batched_tokens"], r["engine_args"]["max_num_seqs"]
    return (
        float(weights_bytes(s, req.quantization)),
        float(activation_estimate(s, tokens, min(seqs, tokens))),
        float(graphs_estimate(req)),
    )


def family_document(recs: list[dict[str, Any]]) -> dict[str, Any]:
    doc = fit_families(recs, estimate)
    doc["source"] = (
        "Fitted by benchmarks/gpu/fit_report.py to vLLM's own start-up figures on an NVIDIA H200 (vLLM 0.26.0, "
        "dummy weights, 22.9 GiB of the card as the emulated 24 GB card): every curated checkpoint's published "
        "config (benchmarks/gpu/fit_check.py, 2026-12-03) and the earlier run_gpu.py loads (2026-11-29)."
    )
    doc["loads"] = recs
    return doc


def replay(recs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each load planned with the shipped calibration: predicted against measured KV cache size."""
    from console.planner.core import compute

    rows = []
    for r in recs:
        p = compute(request_of(r))
        measured = int(r["kv_tokens"])
        rows.append(
            {
                "repo": r["repo"],
                "mode": r["mode"],
                "max_model_len": r["engine_args"]["max_model_len"],
                "measured": measured,
                "predicted": p.vllm_kv_tokens,
                "error": (p.vllm_kv_tokens - measured) / measured,
                "weights_gib": (r["report"].get("weights_gib"), round(p.per_gpu[0].weights_bytes / GiB, 2)),
                "coverage": p.rules.get("calibration"),
            }
        )
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| checkpoint (shape as published, dummy weights) | mode | max_model_len | vLLM's KV cache size | planner |"
        " error | weights vLLM / planner (GiB) |",
        "|---|---|---|---|---|---|---|",
    ]
    for x in rows:
        w = x["weights_gib"]
        lines.append(
            f"| {x['repo']} | {x['mode']} | {x['max_model_len']:,} | {x['measured']:,} | {x['predicted']:,} | "
            f"{x['error']:+.2%} | {w[0]} / {w[1]} |"
        )
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args()
    recs = records()
    doc = family_document(recs)
    if a.write:
        FAMILIES.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    rows = replay(recs)
    text = table(rows)
    print(text)
    worst = max(rows, key=lambda x: abs(x["error"]))
    print(
        f"largest error {worst['error']:+.2%} ({worst['repo']}), most optimistic {max(x['error'] for x in rows):+.2%}"
    )
    if a.write:
        (HERE / "results" / "fit" / "fit-table.md").write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
