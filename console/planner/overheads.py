"""The non-KV memory a plan counts per GPU -- CUDA context, activation peak (with vLLM's non-torch
memory), CUDA graphs, LoRA slots, and the margin an uncalibrated plan holds back -- each estimated
from the model's shape and corrected by the calibration that covers it: the model family's fit
(:mod:`console.planner.familycal`) and the GPU's file (:mod:`console.planner.calibration`).

The activation peak mirrors vLLM's profile run: ``max_num_batched_tokens`` tokens through one layer
(the MLP's gate/up output and its activation, three hidden-size tensors; a mixture of experts holds
the fused-MoE kernel's workspaces for each of a token's ``experts_per_token`` routed copies) and the
sampler's float32 logits for ``min(max_num_seqs, tokens)`` requests over the vocabulary. A compiled
engine (CUDA graphs, the GPU default) peaks higher than an eager one by a measured amount per 8,192
batched tokens.
"""

from __future__ import annotations

import math

from console.messages import Message
from console.planner.calibration import Calibration
from console.planner.familycal import FamilyFit, family_calibration, family_key
from console.planner.gpus import GiB
from console.planner.lora import lora_slot_bytes
from console.planner.request import Overhead, PlanRequest, gib, max_num_batched_tokens, max_num_seqs, rules
from console.planner.shapes import ModelShape

#: What a plan holds back from the KV cache per step away from an exact family calibration:
#: (fixed bytes, share of the activation estimate, share of the weights).
MARGINS: dict[str, tuple[int, float, float]] = {
    "exact": (0, 0.0, 0.0),
    "other-gpu": (0, 0.05, 0.02),
    "other-version": (int(0.25 * GiB), 0.10, 0.0),
    "other-gpu-and-version": (int(0.25 * GiB), 0.15, 0.02),
    "none": (int(0.5 * GiB), 0.30, 0.05),
}


#: How closely a family calibration covers a plan, as the plan says it (``Plan.rules["calibration"]``
#: keeps the key).
COVERAGE_TEXT = {
    "exact": Message("calibrated for this family, GPU and vLLM release"),
    "other-gpu": Message("measured on another GPU with this vLLM release"),
    "other-version": Message("measured on this GPU with another vLLM release"),
    "other-gpu-and-version": Message("measured on another GPU with another vLLM release"),
    "none": Message("no measurement of this family: an estimate"),
}


def fit_source(fit: FamilyFit) -> Message:
    """Where a figure a family calibration corrected came from (family, GPU, vLLM, loads)."""
    return Message("calibrated ({0}, {1}, vLLM {2}, {3} load(s))", fit.family, fit.gpu, fit.vllm_version, fit.loads)


def activation_estimate(shape: ModelShape, tokens: int, seqs: int, tp: int = 1) -> int:
    """The profile run's peak activation, eager, before any calibration (bytes)."""
    if shape.is_moe:  # the fused-MoE kernel's two workspaces and the experts' gate/up output, per routed copy
        n, h = shape.moe_intermediate_size // tp, shape.hidden_size
        mlp = shape.experts_per_token * (max(2 * n, h) + max(n, h) + 2 * n)
    else:
        mlp = 3 * shape.intermediate_size // tp
    return tokens * (mlp + 3 * shape.hidden_size) * 2 + min(seqs, tokens) * shape.vocab_size * 4


def graphs_estimate(req: PlanRequest) -> int:
    """CUDA graphs' memory: 0.6 GiB for Llama-3.1-8B's 32 layers at 512 capture sizes, by layers."""
    s = req.shape
    capture = min(2 * max_num_seqs(req), 512)
    return int(0.6 * GiB * s.layers / 32 * (0.5 + 0.5 * capture / 512) / req.pipeline_parallel_size)


def family_fit(req: PlanRequest) -> tuple[FamilyFit | None, str]:
    """The family calibration that covers ``req`` and how closely ("exact" ... "none")."""
    if req.profile.is_cpu:
        return None, "exact"  # the CPU engine's KV cache is what it is given: nothing to calibrate
    if not req.family_calibration:
        return None, "none"
    return family_calibration().find(
        req.profile.name, rules(req).version, family_key(req.shape, req.quantization or req.shape.quantization)
    )


def own_loads_cover(req: PlanRequest, calibration: Calibration | None) -> bool:
    """The user's own calibration of this GPU was fitted from loads with the vLLM release this plan
    follows: its corrections apply on top of the family's, and no margin is held back."""
    return (
        calibration is not None
        and calibration.origin == "user"
        and not req.profile.is_cpu
        and calibration.vllm_version == rules(req).version
    )


def coverage_of(req: PlanRequest, calibration: Calibration | None) -> tuple[FamilyFit | None, str]:
    """The family fit and the coverage the margin follows ("exact" when the user's own loads cover it)."""
    fit, coverage = family_fit(req)
    return fit, "exact" if own_loads_cover(req, calibration) else coverage


def estimate_overheads(req: PlanRequest, calibration: Calibration | None) -> dict[str, Overhead]:
    """The named non-KV costs per GPU, each corrected by the calibration that covers it."""
    s, g = req.shape, req.profile
    tokens, seqs = max_num_batched_tokens(req), min(max_num_seqs(req), max_num_batched_tokens(req))
    tp = req.tensor_parallel_size
    fam = family_calibration()
    fit, coverage = coverage_of(req, calibration)
    own = own_loads_cover(req, calibration)
    out: dict[str, Overhead] = {}

    if g.is_cpu:
        ctx, ctx_f = 1 * GiB, "1 GiB: Python, torch and vLLM in the engine process (rough)"
    else:
        ctx = int(0.5 * GiB) + (int(0.25 * GiB) if req.world_size > 1 else 0)
        ctx_f = "0.5 GiB CUDA context + cuBLAS workspace" + (" + 0.25 GiB NCCL buffers" if req.world_size > 1 else "")
    base = activation_estimate(s, tokens, seqs, tp)
    mlp = (
        f"{s.experts_per_token} x (max(2 x {s.moe_intermediate_size}, {s.hidden_size}) + "
        f"max({s.moe_intermediate_size}, {s.hidden_size}) + 2 x {s.moe_intermediate_size})"
        if s.is_moe
        else f"3 x {s.intermediate_size}"
    )
    act_f = (
        f"max_num_batched_tokens x (MLP {mlp}/TP + 3 x hidden) x 2 B + min(max_num_seqs, tokens) x vocab x 4 B"
        f" = {tokens} x ({mlp}/{tp} + 3 x {s.hidden_size}) x 2 + {seqs} x {s.vocab_size} x 4 = {gib(base)}"
    )
    eager = req.enforce_eager or g.is_cpu
    own_extra = fit.compile_extra_bytes if fit is not None else None
    extra = 0 if eager else int((fam.compile_extra_bytes if own_extra is None else own_extra) * tokens / 8192)
    non_torch = 0 if g.is_cpu else fam.non_torch_bytes
    act_source: str = Message("estimate")
    graphs_source = act_source
    if fit is not None:
        base = int(base * fit.activation_scale)
        act_source = fit_source(fit)
        act_f += f"; x {fit.activation_scale:g} as measured for {fit.family} -> {gib(base)}"
    act = base + extra + non_torch
    if extra:
        act_f += f"; + {gib(extra)} a compiled engine's profile run adds (measured, per 8,192 tokens)"
    if non_torch:
        act_f += f"; + {gib(non_torch)} vLLM's non-torch memory = {gib(act)}"
    if g.is_cpu:
        graphs, graphs_f = 0, "0: no CUDA graphs on CPU"
    elif req.enforce_eager:
        graphs, graphs_f = 0, "0: eager mode (enforce_eager), no CUDA graphs"
    else:
        graphs = graphs_estimate(req)
        capture = min(2 * max_num_seqs(req), 512)
        graphs_f = (
            f"0.6 GiB x layers/32 x (0.5 + 0.5 x largest capture size/512) = 0.6 x {s.layers}/32 x "
            f"(0.5 + 0.5 x {capture}/512) = {gib(graphs)} (measured 0.6 GiB for Llama-3.1-8B, H200)"
        )
        if fit is not None and fit.graphs_scale:
            graphs = int(graphs * fit.graphs_scale)
            graphs_source = fit_source(fit)
            graphs_f += f"; x {fit.graphs_scale:g} as measured for {fit.family} -> {gib(graphs)}"
    lora, lora_f = lora_slot_bytes(req)
    graphs_inside = not g.is_cpu and rules(req).graphs_in_budget(s.is_moe, req.enforce_eager)
    for name, value, formula, inside in (
        ("cuda_context", ctx, ctx_f, False),
        ("activation_peak", act, act_f, True),
        ("cuda_graphs", graphs, graphs_f, graphs_inside),
        ("lora_slots", lora, lora_f, True),
    ):
        source = {"activation_peak": act_source, "cuda_graphs": graphs_source}.get(name, Message("estimate"))
        family_measured = fit is not None and (
            name == "activation_peak" or (name == "cuda_graphs" and fit.graphs_scale is not None)
        )
        if calibration is not None and value and (own or not family_measured):
            value, note = calibration.correct(name, value)
            if note:
                source, formula = note, f"{formula}; {note} -> {gib(value)}"
        out[name] = Overhead(name, value, formula, source, inside)
    fixed, act_share, weights_share = MARGINS[coverage] if not g.is_cpu else (0, 0.0, 0.0)
    margin = fixed + int(act_share * act)
    margin_f = (
        f"{coverage}: {gib(fixed)} + {act_share:.0%} of the activation peak + {weights_share:.0%} of the weights"
        if margin or weights_share
        else "0: calibrated for this family, GPU and vLLM release"
    )
    out["margin"] = Overhead("margin", margin, margin_f, COVERAGE_TEXT[coverage], True)
    return out


def weights_margin(req: PlanRequest, weights: int, coverage: str) -> int:
    """The weights' share of the margin (see :data:`MARGINS`)."""
    if req.profile.is_cpu:
        return 0
    return int(MARGINS[coverage][2] * weights)


#: Never suggest more of a card than this: a desktop's display and allocator fragmentation need some.
MAX_SUGGESTED_UTILIZATION = 0.95


def safe_utilization(req: PlanRequest, overheads: dict[str, Overhead]) -> float:
    """The largest gpu_memory_utilization (2 decimals, at most 0.95) that leaves room for the CUDA
    context and the graphs vLLM keeps outside total x utilization."""
    g = req.profile
    outside = overheads["cuda_graphs"].bytes if not overheads["cuda_graphs"].inside_vllm_budget else 0
    free = g.memory_bytes - overheads["cuda_context"].bytes - outside
    return min(MAX_SUGGESTED_UTILIZATION, math.floor(100 * free / g.memory_bytes) / 100)


__all__ = [
    "COVERAGE_TEXT",
    "MARGINS",
    "MAX_SUGGESTED_UTILIZATION",
    "activation_estimate",
    "estimate_overheads",
    "family_fit",
    "graphs_estimate",
    "safe_utilization",
    "weights_margin",
]
