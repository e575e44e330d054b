"""The planner's share of LoRA: the device memory of vLLM's adapter slots.

With ``enable_lora`` vLLM allocates, with the model, stacked A and B matrices for ``max_loras``
adapters at ``max_lora_rank`` on every adaptable projection; the profile run counts them, so they
come out of the KV-cache budget like weights do.
"""

from __future__ import annotations

from typing import Any, Protocol

from console.config import VLLM_LORA_RANKS
from console.models.lora import projection_shapes, slot_bytes
from console.planner.gpus import GiB
from console.planner.shapes import ModelShape


class PlanRequest(Protocol):
    """What this module reads of a :class:`console.planner.request.PlanRequest`."""

    @property
    def shape(self) -> ModelShape: ...
    @property
    def max_loras(self) -> int: ...
    @property
    def max_lora_rank(self) -> int: ...
    @property
    def tensor_parallel_size(self) -> int: ...


def lora_slot_bytes(req: "PlanRequest") -> tuple[int, str]:
    """What vLLM reserves per GPU for ``max_loras`` adapters at ``max_lora_rank`` (0 with LoRA off)."""
    if not req.max_loras:
        return 0, "0: LoRA off"
    s = req.shape
    config = {
        "hidden_size": s.hidden_size,
        "num_attention_heads": s.num_attention_heads,
        "head_dim": s.head_dim,
        "num_key_value_heads": s.num_kv_heads,
        "intermediate_size": s.intermediate_size,
        "num_hidden_layers": s.layers,
    }
    per_layer = sum(a + b for a, b in projection_shapes(config).values())
    value = slot_bytes(config, req.max_loras, req.max_lora_rank, s.weight_bytes) // req.tensor_parallel_size
    return value, (
        f"layers x sum(in + out of q,k,v,o,gate,up,down) x max_lora_rank x max_loras x {s.weight_bytes}"
        f" B / TP = {s.layers} x {per_layer} x {req.max_lora_rank} x {req.max_loras} x {s.weight_bytes}"
        f" / {req.tensor_parallel_size} = {value / GiB:.3f} GiB (adapters beyond the slots wait in host"
        " RAM, max_cpu_loras)"
    )


def check_lora_request(req: "PlanRequest") -> None:
    """A request's LoRA slots are possible for vLLM (raises ValueError with the reason)."""
    if req.max_loras < 0 or (req.max_loras and req.max_lora_rank not in VLLM_LORA_RANKS):
        raise ValueError(f"max_loras must be >= 0 and max_lora_rank one of {', '.join(map(str, VLLM_LORA_RANKS))}")


def lora_engine_args(req: "PlanRequest") -> dict[str, Any]:
    """The engine arguments of a request's LoRA slots ({} with LoRA off)."""
    return dict(enable_lora=True, max_loras=req.max_loras, max_lora_rank=req.max_lora_rank) if req.max_loras else {}
