"""The planner's share of speculative decoding and KV offload: a draft's memory on the device, and
KV offload's host memory.

* n-gram speculation has no draft model: it looks tokens up in the request itself (on the CPU,
  in the scheduler process), so it costs no device memory. Verification runs up to
  ``num_speculative_tokens + 1`` tokens per sequence per step inside ``max_num_batched_tokens``,
  which the activation estimate already covers.
* An EAGLE head is loaded beside the target, in the model's 16-bit dtype (not quantized with
  it), from the same budget vLLM sizes the KV cache from, and keeps its own KV cache: one decoder
  layer of the target's shape (the head reuses the target's embedding; EAGLE-3 adds a fused
  3 x hidden input projection and its own draft-vocabulary head).
* KV offload (``kv_offloading_size``) takes that many GiB of the host's RAM for KV blocks moved
  out of the GPU: they serve later prefix-cache hits; they do not raise the number of tokens
  that can be *running* at once (vLLM's maximum concurrency is still the GPU's KV cache).

Pure arithmetic on a shape; no import of ``console.planner.core`` (it calls this module).
"""

from __future__ import annotations

from typing import Any

from console.messages import Message
from console.planner.gpus import GiB
from console.planner.request import PlanRequest
from console.planner.shapes import ModelShape

#: EAGLE-3 heads published for Llama-3 predict over a 32k draft vocabulary.
EAGLE3_DRAFT_VOCAB = 32_000


def draft_params(shape: ModelShape, method: str | None, known: int = 0) -> int:
    """Parameters of the draft model: ``known`` when the head's folder told us, else an estimate
    from the target's shape; 0 for n-gram (no draft model) or no speculation."""
    if method not in ("eagle", "eagle3"):
        return 0
    if known:
        return int(known)
    layer = shape.linear_params_per_layer + shape.small_params_per_layer
    if method == "eagle":
        return layer + 2 * shape.hidden_size * shape.hidden_size  # fc: [embedding; hidden] -> hidden
    return layer + 3 * shape.hidden_size * shape.hidden_size + EAGLE3_DRAFT_VOCAB * shape.hidden_size


def draft_weights_bytes(shape: ModelShape, method: str | None, known: int = 0, tp: int = 1) -> int:
    """Device bytes of the draft's weights on one GPU (16-bit, split like the target over TP)."""
    return draft_params(shape, method, known) * 2 // max(1, tp)


def draft_kv_layers(method: str | None) -> int:
    """Decoder layers whose KV cache the draft keeps per token (an EAGLE head has one)."""
    return 1 if method in ("eagle", "eagle3") else 0


def host_problems(offload_gib: float | None, host_memory_bytes: int | None, is_cpu: bool = False) -> list[str]:
    """KV offload that would not fit in the host's RAM (leaving 4 GiB for the OS and the console),
    or that the CPU engine refuses (its KV cache is host memory already)."""
    if not offload_gib:
        return []
    if is_cpu:
        return [
            Message(
                "KV offload moves GPU KV blocks to host memory: the CPU engine refuses it (its KV cache is "
                "already in RAM; size it with kv_cache_memory_bytes)"
            )
        ]
    if not host_memory_bytes:
        return []
    need, have = int(offload_gib * GiB), int(host_memory_bytes) - 4 * GiB
    if need > have:
        return [
            Message(
                "KV offload of {0} GiB needs host memory; this machine has {1} GiB of RAM ({2} GiB after 4 GiB "
                "for the system)",
                f"{offload_gib:g}",
                f"{host_memory_bytes / GiB:.1f}",
                f"{max(0, have) / GiB:.1f}",
            )
        ]
    return []


def summary(req: PlanRequest, kv_bytes_per_token: int) -> dict[str, Any]:
    """The speed figures of a plan (``Plan.to_dict()["speed"]``, the CLI and the advisor)."""
    method = req.speculative_method
    out: dict[str, Any] = {}
    if method:
        draft = draft_weights_bytes(req.shape, method, req.draft_params, req.tensor_parallel_size)
        out["speculative"] = {
            "method": method,
            "num_speculative_tokens": req.num_speculative_tokens,
            "draft_weights_gib": round(draft / GiB, 3),
            "draft_kv_layers": draft_kv_layers(method),
        }
    offload = req.kv_offloading_size
    if offload:
        tokens = int(offload * GiB) // max(1, kv_bytes_per_token)
        out["kv_offload"] = {
            "host_gib": offload,
            "host_tokens": tokens,
            "host_memory_gib": (round(req.host_memory_bytes / GiB, 1) if req.host_memory_bytes else None),
        }
    return out


def notes(req: PlanRequest, kv_bytes_per_token: int) -> list[str]:
    """Plain sentences for the plan's notes."""
    figures = summary(req, kv_bytes_per_token)
    out: list[str] = []
    spec = figures.get("speculative")
    if spec and spec["method"] == "ngram":
        out.append(
            Message(
                "n-gram speculation ({0} draft tokens): no draft model, no device memory; faster when answers "
                "copy the prompt (code editing, summarising)",
                spec["num_speculative_tokens"],
            )
        )
    elif spec:
        out.append(
            Message(
                "{0} draft head: {1} GiB of weights and one layer of KV per token, counted in the budget above",
                spec["method"],
                f"{spec['draft_weights_gib']:.2f}",
            )
        )
    off = figures.get("kv_offload")
    if off:
        out.append(
            Message(
                "KV offload: {0} GiB of host RAM holds {1} more tokens of evicted KV for prefix-cache reuse (not "
                "more concurrent context)",
                f"{off['host_gib']:g}",
                f"{off['host_tokens']:,}",
            )
        )
    return out


def params_in_folder(folder: str | None) -> int:
    """A draft head's parameter count from its safetensors files (16-bit: 2 bytes each); 0 when
    there is no folder or no weights (then the shape-based estimate is used)."""
    from pathlib import Path

    if not folder or not Path(folder).is_dir():
        return 0
    return sum(p.stat().st_size for p in Path(folder).glob("*.safetensors")) // 2


def request_fields(config: Any, host_memory_bytes: int | None = None) -> dict[str, Any]:
    """The PlanRequest keywords of an EngineConfig's speed settings (fit table, plan of a preset)."""
    return {
        "speculative_method": config.speculative_method,
        "num_speculative_tokens": int(config.num_speculative_tokens or 0),
        "draft_params": params_in_folder(config.speculative_model),
        "kv_offloading_size": config.kv_offloading_size,
        "host_memory_bytes": host_memory_bytes if config.kv_offloading_size else None,
    }
