"""The arithmetic behind each figure of a :class:`~console.planner.core.Plan`, numbers filled in
(``inference-console plan --formulas``, the planner's tooltips)."""

from __future__ import annotations

import math

from console.planner.calibration import Calibration
from console.planner.core import Plan, gib, kv_dtype_bytes, weight_bits


def formulas(p: Plan, calibration: Calibration | None) -> dict[str, str]:
    """Each figure with the arithmetic behind it, numbers filled in."""
    req, s, g = p.request, p.request.shape, p.request.profile
    bits = weight_bits(req)
    kvb = kv_dtype_bytes(req)
    m = p.per_gpu[0]
    out = {
        "weights": (
            f"{s.linear_params:,} linear params x {bits:.3f} bits / 8 + {s.unquantized_params:,} embedding/"
            f"lm_head/norm params x {s.weight_bytes} B = {gib(p.weights_bytes)}"
            + (
                f"; per GPU (TP={req.tensor_parallel_size}, PP={req.pipeline_parallel_size}): {gib(m.weights_bytes)}"
                if req.world_size > 1
                else ""
            )
            + (
                f"; x {calibration.weights_scale:g} as vLLM counted them on this GPU -> {gib(m.weights_bytes)}"
                if calibration and calibration.weights_scale
                else ""
            )
        ),
        "kv_bytes_per_token": (
            f"layers x 2 (K,V) x kv_heads x head_dim x dtype bytes = {s.layers} x 2 x "
            f"{s.num_kv_heads} x {s.head_dim} x {kvb} = {p.kv_bytes_per_token:,} B"
        ),
        "kv_bytes_per_block": (
            f"block_size x bytes per token = {p.block_size} x {p.kv_bytes_per_token:,} = {p.kv_bytes_per_block:,} B"
        ),
    }
    ov = {k: v.bytes for k, v in p.overheads.items()}
    vtotal = calibration.device_total_bytes if calibration and calibration.device_total_bytes else g.memory_bytes
    if g.is_cpu:
        out["kv_budget"] = (
            f"kv_cache_memory_bytes = {m.kv_budget_bytes:,} B ({gib(m.kv_budget_bytes)}); "
            "the CPU engine uses it as given"
        )
    elif req.kv_cache_memory_bytes:
        out["kv_budget"] = (
            f"kv_cache_memory_bytes = {gib(m.kv_budget_bytes)} (given; gpu_memory_utilization is then ignored by vLLM)"
        )
    else:
        out["kv_budget"] = (
            f"min(total x util - weights - activations, total - context - graphs - weights - activations) = "
            f"min({gib(vtotal)} x {req.gpu_memory_utilization:g} - {gib(m.weights_bytes)} - "
            f"{gib(ov['activation_peak'])}, {gib(g.memory_bytes)} - {gib(ov['cuda_context'])} - "
            f"{gib(ov['cuda_graphs'])} - {gib(m.weights_bytes)} - {gib(ov['activation_peak'])}) = "
            f"{gib(m.kv_budget_bytes)} per GPU (vLLM itself: {gib(m.vllm_kv_budget_bytes)})"
        )
    layout = p.layout
    per_seq = layout.blocks_per_request() if layout else math.ceil(req.context / p.block_size)
    out["kv_tokens"] = (
        f"blocks = budget // bytes per block = {m.kv_budget_bytes:,} // {p.kv_bytes_per_block:,} = "
        f"{p.kv_blocks:,}; KV cache size = blocks / blocks per request x max_model_len = {p.kv_blocks:,} / "
        f"{per_seq:,} x {req.context:,} = {p.kv_cache_size_tokens:,} tokens" + (f" ({layout.rule})" if layout else "")
    )
    out["max_concurrency"] = (
        f"blocks / blocks per request = {p.kv_blocks:,} / {per_seq:,} = {p.max_concurrency:.2f}x; the longest "
        f"max_model_len one request gets: {p.longest_context:,}"
    )
    for name, o in p.overheads.items():
        out[name] = o.formula
    if calibration is not None:
        out["calibration"] = f"{calibration.path}: {calibration.source}"
    return out
