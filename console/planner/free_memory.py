"""Memory other programs hold on the card, as vLLM meets it when it starts.

vLLM measures the card's free memory once at start-up, after its own CUDA context exists, and
refuses to start when it is below ``total x gpu_memory_utilization`` ("Free memory on device (…)
on startup is less than desired GPU memory utilization (…)"); ``total`` is what CUDA reports (a
calibration's ``device_total_bytes``). Memory other programs hold does not change how vLLM sizes
its KV cache (measured with vLLM 0.26 on an H200, another process holding 25-48 GiB): it only
decides whether vLLM starts. A plan that knows what other programs hold
(``PlanRequest.in_use_bytes``) says when vLLM would refuse, and the largest utilization that fits
what is free: that free memory, less the CUDA graphs vLLM captures outside its budget (they too
need free memory), floored to two decimals and at most
:data:`~console.planner.overheads.MAX_SUGGESTED_UTILIZATION`, as
:func:`~console.planner.overheads.safe_utilization` does for an empty card.
"""

from __future__ import annotations

import math
from typing import Any

from console.messages import Message
from console.planner.gpus import GiB
from console.planner.overheads import MAX_SUGGESTED_UTILIZATION, safe_utilization
from console.planner.request import Overhead, PlanRequest, gib, resolve_calibration

#: The smallest utilization the planner writes (PlanRequest takes (0, 1]): below it nothing loads.
MIN_UTILIZATION = 0.01


def vllm_total_bytes(req: PlanRequest) -> int:
    """The total vLLM multiplies by the utilization: CUDA's, where a calibration knows it for this card."""
    calibration = resolve_calibration(req)
    if calibration is not None and calibration.device_total_bytes:
        return int(calibration.device_total_bytes)
    return req.profile.memory_bytes


def _outside_graphs(overheads: dict[str, Overhead]) -> int:
    graphs = overheads["cuda_graphs"]
    return 0 if graphs.inside_vllm_budget else graphs.bytes


def free_bytes(req: PlanRequest, total: int, overheads: dict[str, Overhead]) -> int:
    """What vLLM finds free at start-up: ``total`` less what other programs hold and its own CUDA context."""
    return total - int(req.in_use_bytes or 0) - overheads["cuda_context"].bytes


def applies(req: PlanRequest) -> bool:
    """Whether the check applies: a GPU plan sized by utilization that knows what other programs hold."""
    return req.in_use_bytes is not None and not req.profile.is_cpu and not req.kv_cache_memory_bytes


def largest_utilization(req: PlanRequest, overheads: dict[str, Overhead], total: int | None = None) -> float:
    """The largest gpu_memory_utilization (2 decimals) whose budget, with the CUDA graphs vLLM keeps
    outside it, fits what is free; at most the empty card's safe utilization."""
    total = vllm_total_bytes(req) if total is None else total
    room = free_bytes(req, total, overheads) - _outside_graphs(overheads)
    fits = math.floor(100 * room / total) / 100
    return max(MIN_UTILIZATION, min(MAX_SUGGESTED_UTILIZATION, safe_utilization(req, overheads), fits))


def usable_utilization(req: PlanRequest, overheads: dict[str, Overhead]) -> float:
    """The utilization a fix sets: the empty card's safe one, or less where other programs hold memory."""
    return largest_utilization(req, overheads) if applies(req) else safe_utilization(req, overheads)


def limits(req: PlanRequest, overheads: dict[str, Overhead]) -> bool:
    """Whether ``req``'s utilization is the one what is free allows, below the empty card's (the fix
    then names the free memory)."""
    if not applies(req):
        return False
    largest = largest_utilization(req, overheads)
    return largest < safe_utilization(req, overheads) and req.gpu_memory_utilization == largest


def startup_problem(req: PlanRequest, total: int, requested: int, overheads: dict[str, Overhead]) -> Message | None:
    """vLLM's start-up check against what other programs leave free (None: it passes, or not asked)."""
    if not applies(req):
        return None
    free = free_bytes(req, total, overheads)
    held, util = gib(int(req.in_use_bytes or 0)), f"{req.gpu_memory_utilization:g}"
    if requested > free:
        return Message(
            "other programs hold {0} of the card: {1} is free after vLLM's CUDA context, gpu_memory_utilization "
            "{2} asks for {3}: vLLM refuses to start",
            held,
            gib(free),
            util,
            gib(requested),
        )
    graphs = _outside_graphs(overheads)
    if requested + graphs > free:
        return Message(
            "other programs hold {0} of the card: {1} is free after vLLM's CUDA context, and gpu_memory_utilization "
            "{2} ({3}) with the CUDA graphs vLLM captures outside it ({4}) needs more: it runs out of memory "
            "while starting",
            held,
            gib(free),
            util,
            gib(requested),
            gib(graphs),
        )
    return None


def fix_label(req: PlanRequest, overheads: dict[str, Overhead]) -> Message:
    """How a fix that sets the utilization to what is free says it."""
    return Message(
        "gpu_memory_utilization {0} (the largest that fits the {1} free)",
        f"{req.gpu_memory_utilization:g}",
        gib(free_bytes(req, vllm_total_bytes(req), overheads)),
    )


def in_use_dict(req: PlanRequest) -> dict[str, Any]:
    """The plan's JSON: what other programs hold on the card and which ones, where known."""
    if req.in_use_bytes is None:
        return {}
    return {
        "in_use_bytes": int(req.in_use_bytes),
        "in_use_gib": round(req.in_use_bytes / GiB, 3),
        "in_use_by": [{"pid": pid, "name": name, "bytes": used} for pid, name, used in req.in_use_by],
    }


__all__ = [
    "MIN_UTILIZATION",
    "applies",
    "fix_label",
    "free_bytes",
    "in_use_dict",
    "largest_utilization",
    "limits",
    "startup_problem",
    "usable_utilization",
    "vllm_total_bytes",
]
