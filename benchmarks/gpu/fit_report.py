#!/usr/bin/env python3
"""The planner against vLLM for every measured load: fit the release's memory constants, replay.

Usage (no GPU needed):

    python3 benchmarks/gpu/fit_report.py [--write]

Reads ``benchmarks/gpu/results/fit/fit-loads.jsonl`` (``fit_check.py`` on the GPU), the loads of
``fit_matrix.py`` where there are some (``results/fit/fit-matrix.jsonl``) and the older H200 loads
of ``calibration_check.py`` (dense bf16 and online-FP8 shapes, compiled); fits the constants of each
GPU and vLLM release (:func:`console.planner.vllm_memory.fit_release`) with the error they leave on
loads they were not fitted to (each family left out in turn: :func:`held_out_error`), and prints,
for every load, the KV cache size the planner predicts against the one vLLM logged. ``--write``
stores the constants as ``resources/calibration/vllm-memory.json`` (with the loads they came from,
replayed by ``tests/test_planner_fit_replay.py``) and the table as ``results/fit/fit-table.md``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from console.planner.defaults import RECORDED_LOAD_DEFAULTS  # noqa: E402
from console.planner import vllm_memory as vm  # noqa: E402
from console.planner.gpus import GiB  # noqa: E402
from console.planner.overheads import graphs_estimate  # noqa: E402
from console.planner.request import QUANT_BITS, PlanRequest, quantization_family, weights_bytes  # noqa: E402
from console.planner.shapes import ModelShape  # noqa: E402
from console.planner.selfcal import gpu_key  # noqa: E402
from console.planner.shape_lookup import shape_for  # noqa: E402

FIT_LOADS = HERE / "results" / "fit" / "fit-loads.jsonl"
MATRIX_LOADS = HERE / "results" / "fit" / "fit-matrix.jsonl"
CONSTANTS = ROOT / "resources" / "calibration" / "vllm-memory.json"
#: a GPU and release with fewer fitted loads is planned with another GPU's constants of the same release
#: (``MemoryConstants.find``: "other-gpu") rather than with constants one or two loads would set
MIN_FIT_LOADS = 5
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
    "load_id",
    "group",
    "held_out",
    "in_use_bytes",
)


def _config_of(shape: ModelShape) -> dict[str, Any]:
    """A config.json holding ``shape`` (the older loads recorded shapes, not configs)."""
    return {
        "model_type": shape.model_type,
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
    lines = FIT_LOADS.read_text(encoding="utf-8").splitlines()
    if MATRIX_LOADS.is_file():
        lines += MATRIX_LOADS.read_text(encoding="utf-8").splitlines()
    for line in lines:
        r = json.loads(line)
        if r.get("rc") != 0 and not (r.get("rc") == "timeout" and r.get("report", {}).get("kv_tokens")):
            continue  # a timeout after vLLM sized the cache (a kernel warm-up ran long) still measured it
        r["gpu"] = gpu_key(r.get("gpu_name") or "h200")  # "NVIDIA H100 80GB HBM3" -> "h100-80gb"
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


def terms(r: dict[str, Any]) -> vm.LoadTerms | None:
    """A load in the planner's terms (None: vLLM did not report its memory for it)."""
    rep = r["report"]
    if rep.get("weights_gib") is None or rep.get("peak_activation_gib") is None:
        return None
    req = request_of(r, calibration=False)
    s, q, a = req.shape, req.quantization, r["engine_args"]
    tokens, seqs = a["max_num_batched_tokens"], a["max_num_seqs"]
    non_torch = float(rep.get("non_torch_gib") or 0.0) * GiB
    kv = float(rep.get("kv_available_gib") or 0.0) * GiB
    return vm.LoadTerms(
        model_type=s.model_type or "unknown",
        fmt=vm.weight_format(s, q),
        eager=r["mode"] == "eager",
        moe=s.is_moe,
        weights=float(rep["weights_gib"]) * GiB,
        weights_raw=float(weights_bytes(s, q) + vm.rope_cache_bytes(s)),
        quantized=vm.quantized_bytes(s, QUANT_BITS[q], q == "mxfp4"),
        activation=float(rep["peak_activation_gib"]) * GiB,
        forward=float(vm.forward_peak(s, tokens, 1, q)),
        sampler=float(vm.sampler_peak(s, tokens, seqs)),
        compile_peak=float(vm.compile_benchmark_peak(s, tokens)),
        tokens=int(tokens),
        non_torch=non_torch,
        graphs=float(rep["cuda_graph_gib"]) * GiB if rep.get("cuda_graph_gib") else None,
        graphs_estimate=float(graphs_estimate(req)),
        # what vLLM accounted: the budget the KV cache came out of (graphs outside it in 0.26)
        budget=float(rep["weights_gib"] + rep["peak_activation_gib"]) * GiB + non_torch + kv,
        kv_bytes=kv,
    )


def constants_document(recs: list[dict[str, Any]], notes: list[str] | None = None) -> dict[str, Any]:
    """The constants of every GPU and release the records cover, with their held-out error;
    ``notes`` gets a line for each GPU/release with too few loads to fit."""
    groups: dict[tuple[str, str], list[vm.LoadTerms]] = {}
    for r in recs:
        t = terms(r)
        if t is not None and not r.get("held_out"):  # the matrix's held-out loads only test the fit
            groups.setdefault((r["gpu"], r["vllm_version"]), []).append(t)
    releases = []
    for (gpu, version), loads in sorted(groups.items()):
        if len(loads) < MIN_FIT_LOADS:
            if notes is not None:
                notes.append(
                    f"{gpu} / vLLM {version}: {len(loads)} load(s) outside the held-out set, too few to fit: "
                    "its loads are planned with another GPU's constants (replayed below)"
                )
            continue
        c = vm.fit_release(gpu, version, loads)
        held = vm.held_out_error(gpu, version, loads)
        releases.append({**c.to_dict(), "held_out": {k: v.to_dict() for k, v in sorted(held.items())}})
    return {
        "format": vm.FORMAT,
        "source": (
            "Fitted by benchmarks/gpu/fit_report.py to vLLM's own start-up figures on an NVIDIA H200 (vLLM 0.26.0, "
            "dummy weights, 22.9 GiB of the card as the emulated 24 GB card): every curated checkpoint's published "
            "config (benchmarks/gpu/fit_check.py, 2026-12-03) and the earlier run_gpu.py loads (2026-11-29)."
        ),
        "releases": releases,
        "loads": recs,
    }


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
                "promise": p.kv_cache_size_tokens,
                "load_id": r.get("load_id"),
                "group": r.get("group"),
                "held_out": bool(r.get("held_out")),
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


def matrix_table(rows: list[dict[str, Any]]) -> str:
    """The matrix's loads: vLLM's KV tokens against the plan's arithmetic and its promise."""
    lines = [
        "| load | group | held out | vLLM's KV tokens | planner | error | promise | promise error |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for x in rows:
        if x["load_id"] is None:
            continue
        lines.append(
            f"| {x['load_id']} | {x['group']} | {'yes' if x['held_out'] else 'no'} | {x['measured']:,} | "
            f"{x['predicted']:,} | {x['error']:+.2%} | {x['promise']:,} | "
            f"{(x['promise'] - x['measured']) / x['measured']:+.2%} |"
        )
    return "\n".join(lines) + "\n"


def held_out_summary(rows: list[dict[str, Any]]) -> str:
    """The error on the matrix's held-out loads (not in the fit): the issue's bar is within 5% of
    vLLM's KV tokens and never more than 3% above."""
    held = sorted(x["error"] for x in rows if x["held_out"])
    if not held:
        return "no held-out matrix load"
    promise = [(x["promise"] - x["measured"]) / x["measured"] for x in rows if x["held_out"]]
    mid = sorted(abs(e) for e in held)[len(held) // 2]
    within = sum(abs(e) <= 0.05 for e in held)
    over = sum(e > 0.03 for e in promise)
    return (
        f"held-out matrix loads: {len(held)}; error {held[0]:+.2%} .. {held[-1]:+.2%}, half within +-{mid:.2%}; "
        f"{within} within 5%; promise more than 3% above vLLM in {over}"
    )


def matrix_lines() -> list[dict[str, Any]]:
    if not MATRIX_LOADS.is_file():
        return []
    return [json.loads(x) for x in MATRIX_LOADS.read_text(encoding="utf-8").splitlines() if x.strip()]


def start_checks(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The loads with another process holding memory: did vLLM start, and does the plan, told what
    the other process held (NVML's reading), say so?"""
    from console.planner.verdict import plan as plan_with_fixes

    out = []
    for r in lines:
        if not r.get("hold"):
            continue
        r = {**r, "gpu": gpu_key(r.get("gpu_name") or "h200")}
        req = request_of(r)
        req = dataclasses.replace(req, in_use_bytes=int(r.get("in_use_bytes") or 0))
        plan = plan_with_fixes(req)
        started = r.get("rc") == 0
        out.append(
            {
                "load_id": r["load_id"],
                "in_use_gib": round(float(r.get("in_use_bytes") or 0) / GiB, 2),
                "vllm_started": started,
                "refusal": r.get("refusal"),
                "plan_fits": plan.fits,
                "agrees": plan.fits == started,
                "fixes": [x.to_dict() for x in plan.suggestions],
            }
        )
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args()
    recs = records()
    notes: list[str] = []
    doc = constants_document(recs, notes)
    print("\n".join(notes))
    if a.write:
        CONSTANTS.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    rows = replay(recs)
    text = table(rows)
    print(text)
    worst = max(rows, key=lambda x: abs(x["error"]))
    print(
        f"largest error {worst['error']:+.2%} ({worst['repo']}), most optimistic {max(x['error'] for x in rows):+.2%}"
    )
    matrix = matrix_table(rows)
    if matrix.count("\n") > 2:
        print(matrix)
        print(held_out_summary(rows))
        for c in start_checks(matrix_lines()):
            print(json.dumps(c))
    if a.write:
        (HERE / "results" / "fit" / "fit-table.md").write_text(text, encoding="utf-8")
        if matrix.count("\n") > 2:
            (HERE / "results" / "fit" / "fit-matrix-table.md").write_text(
                matrix + "\n" + held_out_summary(rows) + "\n", encoding="utf-8"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
