"""The vLLM engine arguments a plan's request gives the engine (vLLM's own names): what Apply and the
exports set, apart from the memory arithmetic of :mod:`console.planner.core`."""

from __future__ import annotations

from typing import Any

from console.planner.lora import lora_engine_args
from console.planner.request import DEFAULT_CPU_KV_BYTES, PlanRequest
from console.planner.vision import mm_engine_args


def engine_args(req: PlanRequest) -> dict[str, Any]:
    """The vLLM engine arguments (vLLM's own names) that give the engine this plan's shape."""
    g = req.profile
    out: dict[str, Any] = {"max_model_len": req.context}
    if req.quantization:
        # Ada/Hopper/Ampere run AWQ/GPTQ fastest through the Marlin kernels; name them explicitly.
        out["quantization"] = (
            f"{req.quantization}_marlin" if req.quantization in ("awq", "gptq") and not g.is_cpu else req.quantization
        )
    out["kv_cache_dtype"] = req.kv_cache_dtype
    out["max_num_seqs"] = int(req.max_num_seqs or max(req.concurrency, 1))
    if req.max_num_batched_tokens:
        out["max_num_batched_tokens"] = int(req.max_num_batched_tokens)
    if g.is_cpu:
        out["device"] = "cpu"
        out["enforce_eager"] = True
        out["kv_cache_memory_bytes"] = int(req.kv_cache_memory_bytes or DEFAULT_CPU_KV_BYTES)
    else:
        out["device"] = "cuda"
        out["enforce_eager"] = bool(req.enforce_eager)
        if req.kv_cache_memory_bytes:
            out["kv_cache_memory_bytes"] = int(req.kv_cache_memory_bytes)
        else:
            out["gpu_memory_utilization"] = round(req.gpu_memory_utilization, 4)
    if req.tensor_parallel_size > 1:
        out["tensor_parallel_size"] = req.tensor_parallel_size
    if req.pipeline_parallel_size > 1:
        out["pipeline_parallel_size"] = req.pipeline_parallel_size
    out.update(lora_engine_args(req))
    out.update(mm_engine_args(req.limit_mm_per_prompt, req.mm_processor_kwargs))
    return out


__all__ = ["engine_args"]
