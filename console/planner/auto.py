"""The "auto" preset: engine knobs picked by the planner for a model, a GPU and a goal.

Each goal starts from a target (context, users, precision) and lets the planner shrink it until
it fits; the result is a dict of vLLM engine arguments ready for :class:`EngineConfig`.

* low-latency: few users, CUDA graphs, FP8 weights where the card has FP8 tensor cores (fewer
  bytes to read per token is the only way to decode faster), else 16-bit.
* max-throughput: FP8 (or AWQ) weights and FP8 KV to free memory for many sequences, all of the
  card that is safe, a large prefill budget; users are sized for requests averaging a quarter of
  max_model_len (vLLM pre-empts if they all grow to full length at once).
* long-context: FP8 KV and the longest context the cache holds for two users.
* smallest-memory: AWQ + FP8 KV + eager, a KV cache sized for four 4k users.
* balanced: 16-bit if it fits, 16k context, eight users.
"""

from __future__ import annotations

from console.config import VLLM_GPU_MEMORY_UTILIZATION

from typing import Any

from console.planner.core import Plan, PlanRequest, compute
from console.planner.engine_args import engine_args
from console.planner.overheads import safe_utilization
from console.planner.gpus import GpuProfile, get_gpu
from console.planner.shapes import ModelShape
from console.planner.shape_lookup import shape_for
from console.planner.verdict import plan

GOALS = ("balanced", "low-latency", "max-throughput", "long-context", "smallest-memory")


class AutoConfigError(ValueError):
    """No configuration of this model fits this device; the message says what would."""


def _target(shape: ModelShape, g: GpuProfile, goal: str) -> PlanRequest:
    ctx_cap = shape.max_position_embeddings
    fast_weights = "fp8" if g.native_fp8 else None
    base: dict[str, Any] = {"shape": shape, "gpu": g}
    if g.is_cpu:
        return PlanRequest(
            **base,
            max_model_len=min(ctx_cap, 4096 if goal != "long-context" else 32768),
            concurrency={"low-latency": 2, "long-context": 1}.get(goal, 8),
            enforce_eager=True,
        )
    if goal == "low-latency":
        return PlanRequest(
            **base,
            quantization=fast_weights,
            max_model_len=min(ctx_cap, 16384),
            concurrency=4,
            max_num_seqs=4,
            max_num_batched_tokens=2048,
        )
    if goal == "max-throughput":
        return PlanRequest(
            **base,
            quantization=fast_weights or "awq",
            kv_cache_dtype="fp8",
            max_model_len=min(ctx_cap, 8192),
            concurrency=1,
            max_num_batched_tokens=8192,
        )
    if goal == "long-context":
        return PlanRequest(
            **base,
            kv_cache_dtype="fp8",
            max_model_len=ctx_cap,
            concurrency=2,
            max_num_seqs=4,
            max_num_batched_tokens=4096,
        )
    if goal == "smallest-memory":
        return PlanRequest(
            **base,
            quantization="awq",
            kv_cache_dtype="fp8",
            enforce_eager=True,
            max_model_len=min(ctx_cap, 4096),
            concurrency=4,
            max_num_seqs=4,
        )
    return PlanRequest(**base, max_model_len=min(ctx_cap, 16384), concurrency=8)


def auto_plan(shape: ModelShape | str, gpu: GpuProfile | str, goal: str = "balanced") -> Plan:
    """The plan behind :func:`auto_config` (fitted; raises :class:`AutoConfigError` if nothing fits)."""
    if goal not in GOALS:
        raise AutoConfigError(f"goal '{goal}' is not one of {', '.join(GOALS)}")
    shape, g = shape_for(shape), get_gpu(gpu)
    req = _target(shape, g, goal)
    if not g.is_cpu:  # the most of the card that leaves room for context and graphs
        safe = safe_utilization(req, compute(req).overheads)
        req = req.with_changes(
            gpu_memory_utilization=safe if goal == "max-throughput" else min(VLLM_GPU_MEMORY_UTILIZATION, safe)
        )
    p = plan(req)
    if p.verdict == "fits":
        fitted = p
    else:
        settings = [s for s in p.suggestions if s.kind == "settings"]
        if not settings:
            hw = "; ".join(s.summary for s in p.suggestions) or "nothing the planner knows"
            raise AutoConfigError(
                f"{shape.name or 'this model'} does not fit on {g.name} for '{goal}': "
                f"{'; '.join(p.problems)}. What fits: {hw}"
            )
        # the goal's context and users first (the planner lists a shorter context first, as a user
        # choosing by hand minds it least); a trade only when nothing keeps them
        whole = [s for s in settings if s.max_model_len >= req.context and s.users >= req.concurrency]
        fitted = plan(req.with_changes(**(whole or settings)[0].changes))
    if goal == "max-throughput" and not g.is_cpu:
        # size max_num_seqs for requests averaging a quarter of max_model_len
        seqs = max(8, min(256, fitted.kv_tokens * 4 // fitted.request.context))
        fitted = plan(fitted.request.with_changes(max_num_seqs=seqs))
    if goal == "smallest-memory" and not g.is_cpu:
        # pin the KV cache to what the users need instead of a fraction of the card
        need = (
            (fitted.request.concurrency * -(-fitted.request.context // fitted.block_size) + 1)
            * fitted.per_gpu[0].kv_bytes_per_token
            * fitted.block_size
        )
        fitted = plan(fitted.request.with_changes(kv_cache_memory_bytes=need))
    return fitted


def auto_config(shape: ModelShape | str, gpu: GpuProfile | str, goal: str = "balanced") -> dict[str, Any]:
    """Engine knobs (vLLM argument names) for ``shape`` on ``gpu`` tuned for ``goal``."""
    p = auto_plan(shape, gpu, goal)
    args = engine_args(p.request)
    if goal in ("low-latency", "balanced", "long-context"):
        args["enable_prefix_caching"] = True
    return args


def request_from_engine(
    shape: ModelShape | str, gpu: GpuProfile | str, engine: dict[str, Any], concurrency: int = 1
) -> PlanRequest:
    """The plan request matching a preset's (or any config's) engine arguments."""
    keys = (
        "quantization",
        "kv_cache_dtype",
        "max_model_len",
        "gpu_memory_utilization",
        "max_num_seqs",
        "max_num_batched_tokens",
        "enforce_eager",
        "kv_cache_memory_bytes",
        "tensor_parallel_size",
        "pipeline_parallel_size",
        "dtype",
        "speculative_method",
        "num_speculative_tokens",
        "kv_offloading_size",
    )
    values = {k: engine[k] for k in keys if engine.get(k) is not None}
    return PlanRequest(shape_for(shape), gpu=gpu, concurrency=concurrency, **values)
