"""The planner's per-GPU memory view of an export's layout, or why it is missing.

Where the planner cannot size the layout, the report says "planner unavailable" with the reason.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from console.config import EngineConfig
from console.engine.serve_options import ServeOptions
from console.planner import PlanRequest, plan, shape_for


def planner_report(config: EngineConfig, options: ServeOptions) -> dict[str, Any]:
    request: dict[str, Any] = {
        "gpu": options.gpu,
        "quantization": config.quantization,
        "kv_cache_dtype": config.kv_cache_dtype,
        "max_model_len": config.max_model_len,
        "concurrency": config.max_num_seqs,
        "gpu_memory_utilization": config.gpu_memory_utilization,
        "tensor_parallel_size": config.tensor_parallel_size or 1,
        "pipeline_parallel_size": config.pipeline_parallel_size or 1,
        "max_num_seqs": config.max_num_seqs,
        "max_num_batched_tokens": config.max_num_batched_tokens,
        "enforce_eager": config.enforce_eager,
        "kv_cache_memory_bytes": config.kv_cache_memory_bytes,
        "limit_mm_per_prompt": config.limit_mm_per_prompt,
        "mm_processor_kwargs": config.mm_processor_kwargs,
    }
    accepted = {f.name for f in dataclasses.fields(PlanRequest)}
    request = {k: v for k, v in request.items() if v is not None and k in accepted}
    try:
        result = plan(PlanRequest(shape=shape_for(config.model), **request))
        data = result.to_dict()
    except Exception as exc:  # the planner's own refusal (unknown GPU, unreadable model) is the report
        return {"available": False, "reason": f"planner could not plan this layout: {exc}", "request": request}
    return {
        "available": True,
        "request": request,
        "verdict": result.verdict,
        "per_gpu": [g.to_dict() for g in result.per_gpu],
        "plan": data,
    }


def planner_text(report: dict[str, Any]) -> str:
    if not report.get("available"):
        return f"Memory plan: {report.get('reason', 'planner unavailable')}\n"
    data = report.get("plan") or {}
    gpu_name = (data.get("gpu") or {}).get("name") if isinstance(data.get("gpu"), dict) else None
    lines = [
        f"Memory plan: {report.get('verdict')}" + (f" on {gpu_name}" if gpu_name else ""),
        f"Request: {json.dumps(report.get('request', {}), default=str)}",
    ]
    lines += [f"  problem: {p}" for p in data.get("problems") or []]
    per_gpu = report.get("per_gpu")
    if isinstance(per_gpu, dict):
        per_gpu = [per_gpu]
    for i, gpu in enumerate(per_gpu or []):
        if isinstance(gpu, dict) and {"weights_gib", "kv_cache_gib", "used_gib", "capacity_gib"} <= set(gpu):
            overheads = sum((gpu.get("overheads_gib") or {}).values())
            lines.append(
                f"  GPU {gpu.get('rank', i)} (stage {gpu.get('stage', 0)}, {gpu.get('layers', '?')} layers): "
                f"weights {gpu['weights_gib']:.2f} GiB + overheads {overheads:.2f} GiB + KV cache "
                f"{gpu['kv_cache_gib']:.2f} GiB = {gpu['used_gib']:.2f} of {gpu['capacity_gib']:.2f} GiB"
            )
        elif isinstance(gpu, dict):
            items = ", ".join(f"{k}={_fmt(v)}" for k, v in gpu.items())
            lines.append(f"  GPU {i}: {items}")
        else:
            lines.append(f"  GPU {i}: {gpu}")
    if "kv_cache_size_tokens" in data:
        lines.append(
            f"KV cache: {data['kv_cache_size_tokens']} tokens; max concurrency "
            f"{data.get('max_concurrency')}x at {(data.get('request') or {}).get('max_model_len')} tokens "
            "per request"
        )
    for s in data.get("suggestions") or []:
        text = s.get("summary") if isinstance(s, dict) else None
        if text:
            lines.append(f"  suggestion: {text}")
    return "\n".join(lines) + "\n"


def _fmt(v: Any) -> str:
    if isinstance(v, int) and not isinstance(v, bool) and v >= 1024**2:
        return f"{v / 1024**3:.2f} GiB"
    if isinstance(v, float):
        return f"{v:.3g}"
    return str(v)
