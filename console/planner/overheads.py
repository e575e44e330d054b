"""The non-KV memory a plan counts per GPU -- CUDA context, activation peak (with vLLM's non-torch
memory), CUDA graphs, LoRA slots, and what a plan holds back for its measured error -- each counted
as the vLLM release does it (:mod:`console.planner.vllm_memory`: the profile run's forward and
sampler phases, the release's measured constants) and corrected by the GPU's own file
(:mod:`console.planner.calibration`) where the user's loads cover it.
"""

from __future__ import annotations

import math

from console.messages import Message
from console.planner.calibration import Calibration
from console.planner.gpus import GiB
from console.planner.lora import lora_slot_bytes
from console.planner.request import Overhead, PlanRequest, gib, max_num_batched_tokens, max_num_seqs, rules
from console.planner.shapes import ModelShape
from console.planner.vllm_memory import (
    MLP_KEEPS_GATE_UP,
    ReleaseConstants,
    activation_bytes,
    compile_benchmark_peak,
    forward_peak,
    memory_constants,
    sampler_peak,
)

#: What a plan holds back beyond its measured error for each step away from constants measured on
#: this GPU with this release (unmeasured: stated, not fitted): (fixed bytes, share of the
#: activation estimate, share of the weights).
MARGINS: dict[str, tuple[int, float, float]] = {
    "exact": (0, 0.0, 0.0),
    "other-gpu": (0, 0.05, 0.01),
    "other-version": (int(0.25 * GiB), 0.10, 0.0),
    "other-gpu-and-version": (int(0.25 * GiB), 0.15, 0.01),
    # no constants at all: the largest residuals measured on any architecture (Gemma-3: its weights
    # 8% over the parameter count with the format's share, its compiled peak 0.9 GiB over the rule)
    "none": (int(0.5 * GiB), 0.30, 0.08),
}


#: How closely measured constants cover a plan, as the plan says it (``Plan.rules["calibration"]``
#: keeps the key).
COVERAGE_TEXT = {
    "exact": Message("measured on this GPU with this vLLM release"),
    "other-gpu": Message("measured on another GPU with this vLLM release"),
    "other-version": Message("measured on this GPU with another vLLM release"),
    "other-gpu-and-version": Message("measured on another GPU with another vLLM release"),
    "none": Message("no measurement for this GPU or release: an estimate"),
}


def fit_source(c: ReleaseConstants) -> Message:
    """Where the release's constants came from (GPU, vLLM, loads)."""
    return Message("measured constants ({0}, vLLM {1}, {2} load(s))", c.gpu, c.vllm_version, c.loads)


def keeps_gate_up(shape: ModelShape) -> bool:
    return not shape.is_moe and shape.model_type in MLP_KEEPS_GATE_UP


def activation_estimate(shape: ModelShape, tokens: int, seqs: int, tp: int = 1) -> int:
    """The profile run's peak activation, eager, before any constant (bytes): the larger of its
    forward and sampler phases."""
    return max(forward_peak(shape, tokens, tp), sampler_peak(shape, tokens, seqs))


def graphs_estimate(req: PlanRequest) -> int:
    """CUDA graphs' memory: 0.6 GiB for Llama-3.1-8B's 32 layers at 512 capture sizes, by layers."""
    s = req.shape
    capture = min(2 * max_num_seqs(req), 512)
    return int(0.6 * GiB * s.layers / 32 * (0.5 + 0.5 * capture / 512) / req.pipeline_parallel_size)


def release_constants(req: PlanRequest) -> tuple[ReleaseConstants | None, str]:
    """The measured constants that cover ``req`` and how closely ("exact" ... "none")."""
    if req.profile.is_cpu:
        return None, "exact"  # the CPU engine's KV cache is what it is given: nothing to calibrate
    if not req.measured_constants:
        return None, "none"
    return memory_constants().find(req.profile.name, rules(req).version)


def own_loads_cover(req: PlanRequest, calibration: Calibration | None) -> bool:
    """The user's own calibration of this GPU was fitted from loads with the vLLM release this plan
    follows: its corrections apply on top of the release's, and no margin is held back."""
    return (
        calibration is not None
        and calibration.origin == "user"
        and not req.profile.is_cpu
        and calibration.vllm_version == rules(req).version
    )


def coverage_of(req: PlanRequest, calibration: Calibration | None) -> tuple[ReleaseConstants | None, str]:
    """The release constants and the coverage the margin follows ("exact" when the user's own loads cover it)."""
    fit, coverage = release_constants(req)
    return fit, "exact" if own_loads_cover(req, calibration) else coverage


def estimate_overheads(req: PlanRequest, calibration: Calibration | None) -> dict[str, Overhead]:
    """The named non-KV costs per GPU, each counted by the release's rules and constants."""
    s, g = req.shape, req.profile
    tokens, seqs = max_num_batched_tokens(req), min(max_num_seqs(req), max_num_batched_tokens(req))
    tp = req.tensor_parallel_size
    fit, coverage = coverage_of(req, calibration)
    own = own_loads_cover(req, calibration)
    out: dict[str, Overhead] = {}

    if g.is_cpu:
        ctx, ctx_f = 1 * GiB, "1 GiB: Python, torch and vLLM in the engine process (rough)"
    else:
        ctx = int(0.5 * GiB) + (int(0.25 * GiB) if req.world_size > 1 else 0)
        ctx_f = "0.5 GiB CUDA context + cuBLAS workspace" + (" + 0.25 GiB NCCL buffers" if req.world_size > 1 else "")
    eager = req.enforce_eager or g.is_cpu
    constants = fit or ReleaseConstants(gpu=g.name, vllm_version=rules(req).version)
    act = activation_bytes(s, tokens, seqs, tp, eager, constants, req.quantization)
    mlp = (
        f"{s.experts_per_token} x (max(2 x {s.moe_intermediate_size}, {s.hidden_size}) + "
        f"max({s.moe_intermediate_size}, {s.hidden_size}) + 2 x {s.moe_intermediate_size}) + 3 x {s.hidden_size}"
        if s.is_moe
        else f"3 x {s.hidden_size} + 3 x {s.intermediate_size}/{tp}"
        + (f" + {s.hidden_size} (gate/up kept through the down projection)" if keeps_gate_up(s) else "")
    )
    scale = (constants.activation_moe if s.is_moe else 1.0) + constants.residual(s.model_type, "activation")
    act_f = (
        f"profile run: max(forward {tokens} tokens x ({mlp}) x 2 B x {scale:g}, "
        f"sampler ({tokens} + {seqs}) x {s.hidden_size} x 2 B + {seqs} x {s.vocab_size} logits) = "
        f"max({gib(forward_peak(s, tokens, tp, req.quantization) * scale)}, {gib(sampler_peak(s, tokens, seqs))})"
    )
    if not eager:
        act_f += (
            f"; compiled: at least the compile-time benchmark of the embedding gather, the table "
            f"{s.vocab_size} x {s.hidden_size} + 2 x {tokens} x {s.hidden_size}, x 2 B = "
            f"{gib(compile_benchmark_peak(s, tokens, tp))}"
        )
        if constants.residual(s.model_type, "compiled"):
            act_f += f" + {gib(constants.residual(s.model_type, 'compiled'))} measured for {s.model_type}"
    non_torch = 0 if g.is_cpu else constants.non_torch_bytes
    act_source: str = fit_source(fit) if fit is not None else Message("estimate")
    act += non_torch
    if non_torch:
        act_f += f"; + {gib(non_torch)} vLLM's non-torch memory = {gib(act)}"
    graphs_source = act_source
    if g.is_cpu:
        graphs, graphs_f = 0, "0: no CUDA graphs on CPU"
    elif req.enforce_eager:
        graphs, graphs_f = 0, "0: eager mode (enforce_eager), no CUDA graphs"
    else:
        graphs = int(graphs_estimate(req) * constants.graphs_scale)
        capture = min(2 * max_num_seqs(req), 512)
        graphs_f = (
            f"0.6 GiB x layers/32 x (0.5 + 0.5 x largest capture size/512) x {constants.graphs_scale:g} = 0.6 x "
            f"{s.layers}/32 x (0.5 + 0.5 x {capture}/512) x {constants.graphs_scale:g} = {gib(graphs)}"
        )
    lora, lora_f = lora_slot_bytes(req)
    graphs_inside = not g.is_cpu and rules(req).graphs_in_budget(s.is_moe, req.enforce_eager)
    for name, value, formula, inside in (
        ("cuda_context", ctx, ctx_f, False),
        ("activation_peak", act, act_f, True),
        ("cuda_graphs", graphs, graphs_f, graphs_inside),
        ("lora_slots", lora, lora_f, True),
    ):
        source = {"activation_peak": act_source, "cuda_graphs": graphs_source}.get(name, Message("estimate"))
        measured = fit is not None and name in ("activation_peak", "cuda_graphs")
        if calibration is not None and value and (own or not measured):
            value, note = calibration.correct(name, value)
            if note:
                source, formula = note, f"{formula}; {note} -> {gib(value)}"
        out[name] = Overhead(name, value, formula, source, inside)
    fixed, act_share, _ = MARGINS[coverage] if not g.is_cpu else (0, 0.0, 0.0)
    error_share = 0.0 if g.is_cpu or own or fit is None else constants.error(True).non_kv_share
    margin = fixed + int((act_share + error_share) * out["activation_peak"].bytes)
    margin_f = (
        f"{coverage}: {gib(fixed)} + {act_share:.0%} of the activation peak + {MARGINS[coverage][2]:.0%} of the weights"
        if fixed or act_share
        else "measured on this GPU with this vLLM release"
    )
    if error_share:
        margin_f += (
            f"; + {error_share:.1%} of the activation peak and of the weights: what three in four eager loads of "
            f"families left out of the fit exceeded their prediction by"
        )
    out["margin"] = Overhead("margin", margin, margin_f, COVERAGE_TEXT[coverage], True)
    return out


def error_share(req: PlanRequest, calibration: Calibration | None) -> float:
    """The measured held-out share of the non-KV memory a plan holds back (0: none measured, or the
    user's own loads cover it)."""
    fit, _ = coverage_of(req, calibration)
    if req.profile.is_cpu or fit is None or own_loads_cover(req, calibration):
        return 0.0
    return fit.error(True).non_kv_share


def weights_margin(req: PlanRequest, weights: int, coverage: str, share: float = 0.0) -> int:
    """The weights' share of the margin (see :data:`MARGINS`) and of the measured error ``share``."""
    if req.profile.is_cpu:
        return 0
    return int((MARGINS[coverage][2] + share) * weights)


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
    "error_share",
    "estimate_overheads",
    "release_constants",
    "graphs_estimate",
    "safe_utilization",
    "weights_margin",
]
