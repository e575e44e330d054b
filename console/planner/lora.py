"""The planner's share of LoRA: the device memory of vLLM's adapter slots.

With ``enable_lora`` vLLM allocates, with the model, stacked A and B matrices for ``max_loras``
adapters at ``max_lora_rank`` on every adaptable projection; the profile run counts them, so they
come out of the KV-cache budget like weights do.
"""

from __future__ import annotations

from typing import Any, Protocol

from console.config import VLLM_LORA_RANKS
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


def projection_shapes(config: dict[str, Any]) -> dict[str, tuple[int, int]]:
    """(in, out) features of each adaptable projection of a Llama-style decoder layer."""
    nested = config.get("text_config")
    cfg = nested if isinstance(nested, dict) else config
    hidden = int(cfg.get("hidden_size") or 0)
    heads = int(cfg.get("num_attention_heads") or 1)
    kv_heads = int(cfg.get("num_key_value_heads") or heads)
    head_dim = int(cfg.get("head_dim") or (hidden // heads if heads else 0))
    inter = int(cfg.get("intermediate_size") or 0)
    return {
        "q_proj": (hidden, heads * head_dim),
        "k_proj": (hidden, kv_heads * head_dim),
        "v_proj": (hidden, kv_heads * head_dim),
        "o_proj": (heads * head_dim, hidden),
        "gate_proj": (hidden, inter),
        "up_proj": (hidden, inter),
        "down_proj": (inter, hidden),
    }


def num_layers(config: dict[str, Any]) -> int:
    nested = config.get("text_config")
    cfg = nested if isinstance(nested, dict) else config
    return int(cfg.get("num_hidden_layers") or 0)


def slot_bytes(config: dict[str, Any], max_loras: int, max_lora_rank: int, dtype_bytes: float) -> int:
    """Device memory vLLM reserves for the LoRA slots: for every adaptable projection of every
    layer, ``max_loras`` stacked A (rank x in) and B (out x rank) matrices at ``max_lora_rank``,
    in the model's dtype, whether or not adapters are loaded."""
    per_layer = sum(fan_in + fan_out for fan_in, fan_out in projection_shapes(config).values())
    return int(num_layers(config) * per_layer * max_lora_rank * max_loras * dtype_bytes)
