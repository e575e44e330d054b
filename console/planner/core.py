"""The memory arithmetic: what a model needs on a device, and how many tokens of KV cache remain.

Everything here is pure integer arithmetic on a :class:`ModelShape` and a :class:`GpuProfile`,
mirroring how vLLM sizes its KV cache (``vllm/v1/worker/gpu_worker.py`` and
``vllm/v1/core/kv_cache_utils.py``):

* vLLM's own budget is ``total x gpu_memory_utilization - weights - activation peak``; the CUDA
  context lives outside that fraction and CUDA-graph memory is NOT subtracted (measured on an H200:
  an emulated 24 GB budget really used ~0.6 GiB more). The planner therefore also computes the
  physical limit ``total - context - graphs - weights - activations`` and plans with the smaller.
* blocks = budget // (block_size x KV bytes per token on that GPU), the smallest GPU's count;
  "maximum concurrency" = blocks / ceil(max_model_len / block_size), as vLLM logs it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal

from console.config import KV_CACHE_DTYPES
from console.planner.calibration import Calibration, find_calibration
from console.planner.defaults import scheduler_defaults
from console.planner.gpus import GiB, GpuProfile, get_gpu
from console.planner.lora import check_lora_request, lora_engine_args
from console.planner.shapes import ModelShape, shape_for
from console.planner import speed

#: Bits per weight of each quantization, group scales included: int4 with a 16-bit scale and a
#: 4-bit zero point per group of 128 (AWQ/GPTQ defaults); FP8 with a per-tensor scale; MXFP4 (gpt-oss's
#: experts) 4-bit values with an 8-bit shared exponent per block of 32.
GROUP_SIZE = 128
QUANT_BITS: dict[str | None, float] = {
    None: 16.0,
    "awq": 4 + 20 / GROUP_SIZE,
    "gptq": 4 + 20 / GROUP_SIZE,
    "fp8": 8.0,
    "mxfp4": 4 + 8 / 32,
}
QUANTIZATIONS = ("awq", "gptq", "fp8", "mxfp4")
#: The CPU engine's KV cache when none is given (mirrors console.engine.prepare.DEFAULT_CPU_KV_BYTES).
DEFAULT_CPU_KV_BYTES = 2 * GiB
Verdict = Literal["fits", "fits-with-changes", "does-not-fit"]


@dataclass(frozen=True)
class PlanRequest:
    shape: ModelShape
    gpu: str | GpuProfile = "rtx-4090"
    quantization: str | None = None
    kv_cache_dtype: str = "auto"
    max_model_len: int | None = None  # None: the model's max_position_embeddings (vLLM's default)
    concurrency: int = 1
    gpu_memory_utilization: float = 0.9
    tensor_parallel_size: int = 1
    pipeline_parallel_size: int = 1
    max_num_batched_tokens: int | None = None
    enforce_eager: bool = False
    kv_cache_memory_bytes: int | None = None
    max_num_seqs: int | None = None
    calibration: Calibration | bool = True  # True: the file for this GPU if there is one
    #: the engine's weights dtype; with kv_cache_dtype "auto" the KV cache follows it (float32 on
    #: a CPU whose 16-bit paths are emulated: 4 bytes per value, see console/engine/cpu_dtype.py)
    dtype: str = "auto"
    # issue 21 (console/planner/speed.py): a speculative draft on the device, KV offload on the host
    speculative_method: str | None = None
    num_speculative_tokens: int = 0
    draft_params: int = 0  # an EAGLE head's parameter count when its folder is known; else estimated
    kv_offloading_size: float | None = None  # GiB of host RAM
    host_memory_bytes: int | None = None
    #: LoRA slots (issue 22): 0 = LoRA off; else vLLM's max_loras, at max_lora_rank
    max_loras: int = 0
    max_lora_rank: int = 16

    def __post_init__(self) -> None:
        if not isinstance(self.shape, ModelShape):
            object.__setattr__(self, "shape", shape_for(self.shape))
        object.__setattr__(self, "gpu", get_gpu(self.gpu))
        quant = self.quantization.lower() if isinstance(self.quantization, str) else None
        object.__setattr__(self, "quantization", None if quant in (None, "", "none") else quantization_family(quant))
        if self.kv_cache_dtype not in KV_CACHE_DTYPES:
            raise ValueError(f"kv_cache_dtype '{self.kv_cache_dtype}' is not one of {', '.join(KV_CACHE_DTYPES)}")
        # the planner sizes by family: 1-byte fp8 variants, or the model's own dtype
        object.__setattr__(self, "kv_cache_dtype", "fp8" if self.kv_cache_dtype.startswith("fp8") else "auto")
        checks = {
            "concurrency": self.concurrency,
            "tensor_parallel_size": self.tensor_parallel_size,
            "pipeline_parallel_size": self.pipeline_parallel_size,
        }
        for key in ("max_model_len", "max_num_batched_tokens", "kv_cache_memory_bytes", "max_num_seqs"):
            if getattr(self, key) is not None:
                checks[key] = getattr(self, key)
        for key, value in checks.items():
            if int(value) < 1:
                raise ValueError(f"{key} must be at least 1")
        if not 0 < self.gpu_memory_utilization <= 1:
            raise ValueError("gpu_memory_utilization must be in (0, 1]")
        check_lora_request(self)

    @property
    def profile(self) -> GpuProfile:
        return self.gpu  # type: ignore[return-value]

    @property
    def context(self) -> int:
        return int(self.max_model_len or self.shape.max_position_embeddings)

    @property
    def world_size(self) -> int:
        return self.tensor_parallel_size * self.pipeline_parallel_size

    def with_changes(self, **changes: Any) -> "PlanRequest":
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "shape":
                value = value.name or "custom"
            elif f.name == "gpu":
                value = value.name
            elif f.name == "calibration":
                value = value.path if isinstance(value, Calibration) else value
            out[f.name] = value
        out["max_model_len"] = self.context
        return out


@dataclass(frozen=True)
class Overhead:
    name: str
    bytes: int
    formula: str
    source: str = "estimate"  # or how a calibration file changed it
    inside_vllm_budget: bool = True  # False: vLLM does not subtract it from total x utilization

    def to_dict(self) -> dict[str, Any]:
        return {
            "bytes": self.bytes,
            "gib": round(self.bytes / GiB, 3),
            "formula": self.formula,
            "source": self.source,
            "inside_vllm_budget": self.inside_vllm_budget,
        }


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

    @property
    def weights_gib(self) -> float:
        return self.weights_bytes / GiB

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
            "speed": speed.summary(self.request, self.kv_bytes_per_token),
        }


# -- pieces ------------------------------------------------------------------------------------
def gib(n: float) -> str:
    return f"{n / GiB:.2f} GiB"


def weight_bits(req: PlanRequest) -> float:
    return QUANT_BITS[req.quantization]


def weights_bytes(shape: ModelShape, quantization: str | None) -> int:
    """Quantizable linears at the quantized width (MXFP4: the MoE experts only); embeddings, lm_head
    and norms stay 16-bit. Every expert of an MoE counts: all are resident."""
    linear = shape.linear_bytes(QUANT_BITS[quantization], quantization == "mxfp4")
    return int(math.ceil(linear)) + shape.unquantized_params * shape.weight_bytes


def quantization_family(name: str) -> str:
    """The planner's family of a vLLM quantization method: ``awq_marlin`` and ``auto_awq`` (what
    vLLM 0.26 reports for an AutoAWQ checkpoint on an H200) are AWQ; unknown families raise."""
    for family in QUANTIZATIONS:
        if family in name.lower():
            return family
    raise ValueError(f"quantization '{name}' is not one of {', '.join(QUANTIZATIONS)}")


def kv_dtype_bytes(req: PlanRequest) -> int:
    if req.kv_cache_dtype == "fp8":
        return 1
    return 4 if req.dtype in ("float32", "float", "fp32") else 2


def kv_bytes_per_token(
    shape: ModelShape, dtype_bytes: int, layers: int | None = None, kv_heads: int | None = None
) -> int:
    """layers x 2 (K and V) x kv_heads x head_dim x dtype bytes."""
    return (
        (shape.layers if layers is None else layers)
        * 2
        * (shape.num_kv_heads if kv_heads is None else kv_heads)
        * shape.head_dim
        * dtype_bytes
    )


def pp_layers(layers: int, pp: int) -> list[int]:
    """vLLM's split of layers over pipeline stages (extra layers go to the stages before the last)."""
    parts = [layers // pp] * pp
    for i in range(2, layers % pp + 2):
        parts[-i] += 1
    return parts


def max_num_batched_tokens(req: PlanRequest) -> int:
    return int(req.max_num_batched_tokens or scheduler_defaults(get_gpu(req.gpu), _world(req))[0])


def max_num_seqs(req: PlanRequest) -> int:
    return int(req.max_num_seqs or scheduler_defaults(get_gpu(req.gpu), _world(req))[1])


def _world(req: PlanRequest) -> int:
    return req.tensor_parallel_size * req.pipeline_parallel_size if get_gpu(req.gpu).is_cpu else 1


def resolve_calibration(req: PlanRequest) -> Calibration | None:
    if isinstance(req.calibration, Calibration):
        return req.calibration
    return find_calibration(req.profile.name) if req.calibration else None


# -- the plan's figures ------------------------------------------------------------------------
def compute(req: PlanRequest) -> Plan:
    """All figures and the problems of ``req`` as given (no suggestions: see ``planner.plan``)."""
    s, g = req.shape, req.profile
    tp, pp = req.tensor_parallel_size, req.pipeline_parallel_size
    calibration = resolve_calibration(req)
    from console.planner.overheads import estimate_overheads  # it uses this module's pieces

    overheads = estimate_overheads(req, calibration)
    ctx, act, graphs, lora = (
        overheads[k].bytes for k in ("cuda_context", "activation_peak", "cuda_graphs", "lora_slots")
    )
    kvb = kv_dtype_bytes(req)
    block = g.block_size
    problems: list[str] = []
    if s.num_attention_heads % tp:
        problems.append(
            f"tensor_parallel_size {tp} does not divide the model's {s.num_attention_heads} attention heads"
        )
    kv_heads_rank = max(1, s.num_kv_heads // tp)
    bits = weight_bits(req)
    layer_bytes = s.linear_bytes(bits, req.quantization == "mxfp4", 1) / tp + s.small_params_per_layer * s.weight_bytes
    embed_bytes = s.embedding_params * s.weight_bytes // tp
    # vLLM's budget is the total CUDA reports x utilization (a calibration may know it for this card)
    vllm_total = calibration.device_total_bytes if calibration and calibration.device_total_bytes else g.memory_bytes
    requested_total = int(vllm_total * req.gpu_memory_utilization)
    w_scale = calibration.weights_scale if calibration and calibration.weights_scale else 1.0

    per_gpu: list[GpuMemory] = []
    for stage, layers in enumerate(pp_layers(s.layers, pp)):
        w = layers * layer_bytes + (embed_bytes if stage == 0 else 0)
        if stage == pp - 1:  # lm_head (its own copy on the last stage when tied and pp > 1)
            w += (0 if s.tie_word_embeddings and pp == 1 else embed_bytes) + s.hidden_size * s.weight_bytes
        w = int(math.ceil(w * w_scale))
        if stage == 0:  # an EAGLE head sits beside the first stage, 16-bit, in vLLM's budget
            w += speed.draft_weights_bytes(s, req.speculative_method, req.draft_params, tp)
        per_tok = kv_bytes_per_token(
            s, kvb, layers + (speed.draft_kv_layers(req.speculative_method) if stage == 0 else 0), kv_heads_rank
        )
        if g.is_cpu:
            kv = int(req.kv_cache_memory_bytes or DEFAULT_CPU_KV_BYTES)
            vllm_kv = kv
            requested = w + ctx + act + lora + kv
        elif req.kv_cache_memory_bytes:
            kv = vllm_kv = int(req.kv_cache_memory_bytes)
            requested = requested_total
        else:
            vllm_kv = requested_total - w - act - lora
            kv = min(vllm_kv, g.memory_bytes - ctx - graphs - w - act - lora)
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
        return max(0, min(int(getattr(m, budget_attr)) // (block * m.kv_bytes_per_token) for m in per_gpu))

    blocks, vllm_blocks = blocks_of("kv_budget_bytes"), blocks_of("vllm_kv_budget_bytes")
    per_seq_blocks = math.ceil(req.context / block)
    max_conc = blocks / per_seq_blocks
    first = per_gpu[0]
    budget_total = sum(max(0, m.kv_budget_bytes) for m in per_gpu[::tp]) if pp > 1 else max(0, first.kv_budget_bytes)

    # -- what stops it ----------------------------------------------------------------------
    if req.context > s.max_position_embeddings:
        problems.append(
            f"max_model_len {req.context:,} is longer than the model's {s.max_position_embeddings:,} "
            "positions (vLLM refuses it)"
        )
    worst = max(per_gpu, key=lambda m: m.weights_bytes)
    where = "RAM" if g.is_cpu else "the card"
    if g.is_cpu:
        if worst.requested_bytes > g.memory_bytes:
            problems.append(
                f"weights {gib(worst.weights_bytes)} + KV cache {gib(worst.kv_budget_bytes)} + overheads "
                f"{gib(ctx + act)} = {gib(worst.requested_bytes)} exceed {gib(g.memory_bytes)} of RAM"
            )
    else:
        if worst.weights_bytes + act >= requested_total:
            problems.append(
                f"weights {gib(worst.weights_bytes)} + activations {gib(act)} do not fit in "
                f"{req.gpu_memory_utilization:g} x {gib(g.memory_bytes)} = {gib(requested_total)}"
            )
        elif not req.kv_cache_memory_bytes and requested_total > g.memory_bytes - ctx:
            problems.append(
                f"gpu_memory_utilization {req.gpu_memory_utilization:g} asks for "
                f"{gib(requested_total)}, but only {gib(g.memory_bytes - ctx)} is free after the CUDA "
                "context: vLLM refuses to start"
            )
        elif first.vllm_kv_budget_bytes > first.kv_budget_bytes:
            over = first.vllm_kv_budget_bytes - first.kv_budget_bytes
            problems.append(
                f"vLLM would accept this and size the KV cache to {gib(first.vllm_kv_budget_bytes)}, "
                f"but CUDA graphs ({gib(graphs)}) are outside its budget: the process would need "
                f"{gib(over)} more than {where} has and run out of memory"
            )
        elif req.kv_cache_memory_bytes and first.used_bytes > g.memory_bytes:
            problems.append(
                f"kv_cache_memory_bytes {gib(req.kv_cache_memory_bytes)} + weights + overheads = "
                f"{gib(first.used_bytes)} exceed {where} ({gib(g.memory_bytes)})"
            )
    problems += speed.host_problems(req.kv_offloading_size, req.host_memory_bytes, g.is_cpu)
    if not problems and blocks - 1 < per_seq_blocks:
        problems.append(
            f"the KV cache holds {blocks * block:,} tokens: not one request of max_model_len "
            f"{req.context:,} (vLLM refuses to start)"
        )
    if not problems and max_conc < req.concurrency:
        problems.append(
            f"{req.concurrency} users at {req.context:,} tokens need "
            f"{req.concurrency * per_seq_blocks * block:,} tokens of KV cache; it holds "
            f"{blocks * block:,} (max concurrency {math.floor(max_conc * 100) / 100:.2f})"
        )
    if not problems and req.max_num_seqs is not None and req.max_num_seqs < req.concurrency:
        problems.append(f"max_num_seqs {req.max_num_seqs} is below the {req.concurrency} users asked for")

    plan = Plan(
        request=req,
        weights_bytes=weights_bytes(s, req.quantization),
        kv_bytes_per_token=kv_bytes_per_token(s, kvb),
        kv_bytes_per_block=block * kv_bytes_per_token(s, kvb),
        block_size=block,
        kv_budget_bytes=budget_total,
        kv_blocks=blocks,
        kv_tokens=blocks * block,
        max_concurrency=max_conc,
        kv_cache_size_tokens=int(max_conc * req.context),
        vllm_kv_budget_bytes=max(0, first.vllm_kv_budget_bytes),
        vllm_kv_tokens=vllm_blocks * block,
        overheads=overheads,
        per_gpu=per_gpu,
        problems=problems,
        verdict="fits" if not problems else "does-not-fit",
    )
    from console.planner.formulas import formulas  # it reads the plan this module builds

    plan.formulas = formulas(plan, calibration)
    return plan


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
    return out
