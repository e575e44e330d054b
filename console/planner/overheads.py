"""The non-KV memory a plan counts per GPU -- CUDA context, activation peak, CUDA graphs, LoRA
slots -- each estimated from the model's shape and corrected by the GPU's calibration file where it
has a figure for it."""

from __future__ import annotations

import math

from console.planner.calibration import Calibration
from console.planner.core import Overhead, PlanRequest, gib, max_num_batched_tokens, max_num_seqs
from console.planner.gpus import GiB
from console.planner.lora import lora_slot_bytes


def estimate_overheads(req: PlanRequest, calibration: Calibration | None) -> dict[str, Overhead]:
    """The named non-KV costs per GPU, each corrected by the calibration file where it says so."""
    s, g = req.shape, req.profile
    tokens, seqs = max_num_batched_tokens(req), min(max_num_seqs(req), max_num_batched_tokens(req))
    tp = req.tensor_parallel_size
    out: dict[str, Overhead] = {}

    if g.is_cpu:
        ctx, ctx_f = 1 * GiB, "1 GiB: Python, torch and vLLM in the engine process (rough)"
    else:
        ctx = int(0.5 * GiB) + (int(0.25 * GiB) if req.world_size > 1 else 0)
        ctx_f = "0.5 GiB CUDA context + cuBLAS workspace" + (" + 0.25 GiB NCCL buffers" if req.world_size > 1 else "")
    act = tokens * (3 * s.intermediate_size // tp + 4 * s.hidden_size) * 2 + seqs * s.vocab_size * 4
    act_f = (
        f"max_num_batched_tokens x (3 x intermediate/TP + 4 x hidden) x 2 B"
        f" + min(max_num_seqs, tokens) x vocab x 4 B = {tokens} x ({3 * s.intermediate_size // tp}"
        f" + {4 * s.hidden_size}) x 2 + {seqs} x {s.vocab_size} x 4"
        f" = {gib(act)}"
    )
    if g.is_cpu:
        graphs, graphs_f = 0, "0: no CUDA graphs on CPU"
    elif req.enforce_eager:
        graphs, graphs_f = 0, "0: eager mode (enforce_eager), no CUDA graphs"
    else:
        capture = min(2 * max_num_seqs(req), 512)
        graphs = int(0.6 * GiB * s.layers / 32 * (0.5 + 0.5 * capture / 512) / req.pipeline_parallel_size)
        graphs_f = (
            f"0.6 GiB x layers/32 x (0.5 + 0.5 x largest capture size/512) = 0.6 x {s.layers}/32 x "
            f"(0.5 + 0.5 x {capture}/512) = {gib(graphs)} (measured 0.6 GiB for Llama-3.1-8B, H200)"
        )
    lora, lora_f = lora_slot_bytes(req)
    for name, value, formula, inside in (
        ("cuda_context", ctx, ctx_f, False),
        ("activation_peak", act, act_f, True),
        ("cuda_graphs", graphs, graphs_f, False),
        ("lora_slots", lora, lora_f, True),
    ):
        source = "estimate"
        if calibration is not None and value:
            value, note = calibration.correct(name, value)
            if note:
                source, formula = note, f"{formula}; {note} -> {gib(value)}"
        out[name] = Overhead(name, value, formula, source, inside)
    return out


#: Never suggest more of a card than this: a desktop's display and allocator fragmentation need some.
MAX_SUGGESTED_UTILIZATION = 0.95


def safe_utilization(req: PlanRequest, overheads: dict[str, Overhead]) -> float:
    """The largest gpu_memory_utilization (2 decimals, at most 0.95) that leaves room for the CUDA
    context and graphs, which vLLM keeps outside total x utilization."""
    g = req.profile
    free = g.memory_bytes - overheads["cuda_context"].bytes - overheads["cuda_graphs"].bytes
    return min(MAX_SUGGESTED_UTILIZATION, math.floor(100 * free / g.memory_bytes) / 100)
