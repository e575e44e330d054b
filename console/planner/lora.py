"""The planner's share of LoRA (issue 22): the device memory of vLLM's adapter slots.

With ``enable_lora`` vLLM allocates, with the model, stacked A and B matrices for ``max_loras``
adapters at ``max_lora_rank`` on every adaptable projection; the profile run counts them, so they
come out of the KV-cache budget like weights do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from console.models.lora import projection_shapes, slot_bytes
from console.planner.gpus import GiB

if TYPE_CHECKING:
    from console.planner.core import PlanRequest


def lora_slot_bytes(req: "PlanRequest") -> tuple[int, str]:
    """What vLLM reserves per GPU for ``max_loras`` adapters at ``max_lora_rank`` (0 with LoRA off)."""
    if not req.max_loras:
        return 0, "0: LoRA off"
    s = req.shape
    config = {"hidden_size": s.hidden_size, "num_attention_heads": s.num_attention_heads, "head_dim": s.head_dim,
              "num_key_value_heads": s.num_kv_heads, "intermediate_size": s.intermediate_size,
              "num_hidden_layers": s.layers}
    per_layer = sum(a + b for a, b in projection_shapes(config).values())
    value = slot_bytes(config, req.max_loras, req.max_lora_rank, s.weight_bytes) // req.tensor_parallel_size
    return value, (f"layers x sum(in + out of q,k,v,o,gate,up,down) x max_lora_rank x max_loras x {s.weight_bytes} B / TP"
                   f" = {s.layers} x {per_layer} x {req.max_lora_rank} x {req.max_loras} x {s.weight_bytes}"
                   f" / {req.tensor_parallel_size} = {value / GiB:.3f} GiB (adapters beyond the slots wait in host RAM, "
                   "max_cpu_loras)")
