"""The smallest changes that make a plan fit, and the hardware that fits it unchanged.

Changes are tried as sets, cheapest first: a safe ``gpu_memory_utilization`` (free; below what other
programs leave free on the card, :mod:`console.planner.free_memory`), eager mode,
FP8 KV cache, FP8 weights, AWQ int4 weights. A set that fits the whole request (context and
users) is kept unless a cheaper subset already fits. Suggestions are ordered by what they cost
the user (context before precision): a shorter context or fewer users at full
precision first, then FP8 KV (with a shorter context where it still needs one), then quantized
weights, then a smaller model of the same family; hardware answers (tensor parallelism, a
larger card) come last.
"""

from __future__ import annotations

from console.config import VLLM_GPU_MEMORY_UTILIZATION

import itertools
import math
import re
from dataclasses import dataclass, field
from typing import Any

from console.messages import Message
from console.planner.core import Plan, PlanRequest, Verdict, compute
from console.planner.engine_args import engine_args
from console.planner import free_memory
from console.planner.request import tower_bytes
from console.planner.vision import tower_modalities
from console.planner.gpus import GPU_PROFILES, GiB
from console.planner.shapes import KNOWN_SHAPES

#: Cost of each change: how much the user gives up (speed, quality, a new checkpoint).
_COSTS = {"kv_space": 1, "util": 1, "kv_fp8": 1, "eager": 2, "text_only": 2, "fp8": 2, "awq": 4}
_LABELS = {
    "eager": Message("eager mode (no CUDA graphs)"),
    "kv_fp8": Message("FP8 KV cache"),
    "fp8": Message("FP8 weights"),
    "awq": Message("AWQ int4 weights (an AWQ checkpoint)"),
    "text_only": Message("text only (no pictures: vLLM leaves the vision tower out)"),
}
MIN_CONTEXT = 2048  # shorter than this is not a useful answer to "does it fit"
MAX_SUGGESTIONS = 6


@dataclass(frozen=True)
class Suggestion:
    kind: str  # "settings" (same hardware and model) | "model" (a smaller one) | "hardware"
    summary: str
    changes: dict[str, Any]
    max_model_len: int
    users: int  # sequences of max_model_len that fit at once
    kv_tokens: int
    max_concurrency: float
    cost: int
    engine_args: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "summary": self.summary,
            "changes": self.changes,
            "max_model_len": self.max_model_len,
            "users": self.users,
            "kv_tokens": self.kv_tokens,
            "max_concurrency": round(self.max_concurrency, 3),
            "cost": self.cost,
            "engine_args": self.engine_args,
        }


def _repair(req: PlanRequest) -> tuple[PlanRequest, dict[str, Any]]:
    """Changes any fix needs: a context the model has, room for graphs, enough max_num_seqs."""
    changes: dict[str, Any] = {}
    s, g = req.shape, req.profile
    if req.context > s.max_position_embeddings:
        changes["max_model_len"] = s.max_position_embeddings
    if req.max_num_seqs is not None and req.max_num_seqs < req.concurrency:
        changes["max_num_seqs"] = req.concurrency
    if not g.is_cpu:
        if req.kv_cache_memory_bytes:
            changes["kv_cache_memory_bytes"] = None  # let the planner's safe budget decide
        probe = compute(req.with_changes(**changes)) if changes else compute(req)
        safe = free_memory.usable_utilization(req, probe.overheads)  # less where other programs hold memory
        if req.gpu_memory_utilization > safe:
            changes["gpu_memory_utilization"] = safe
    return (req.with_changes(**changes) if changes else req), changes


def _apply(req: PlanRequest, levers: tuple[str, ...]) -> tuple[PlanRequest, dict[str, Any]]:
    changes: dict[str, Any] = {}
    if "eager" in levers:
        changes["enforce_eager"] = True
    if "kv_fp8" in levers:
        changes["kv_cache_dtype"] = "fp8"
    for q in ("fp8", "awq"):
        if q in levers:
            changes["quantization"] = q
    if "text_only" in levers:  # every modality of the tower at 0 a prompt: vLLM skips loading it
        off = {m: 0 for m in tower_modalities(req.shape.vision_kind)}
        changes["limit_mm_per_prompt"] = {**(req.limit_mm_per_prompt or {}), **off}
    new = req.with_changes(**changes) if changes else req
    new, repairs = _repair(new)
    changes.update(repairs)
    if "kv_space" in levers:  # CPU: a KV cache just large enough for the users asked for
        per_seq = math.ceil(new.context / new.profile.block_size)
        base = compute(new)
        need = (new.concurrency * per_seq + 1) * base.kv_bytes_per_block
        changes["kv_cache_memory_bytes"] = need
        new = new.with_changes(kv_cache_memory_bytes=need)
    if "util" in levers:
        safe = free_memory.usable_utilization(new, compute(new).overheads)
        changes["gpu_memory_utilization"] = safe
        new = new.with_changes(gpu_memory_utilization=safe)
    return new, changes


def _levers(req: PlanRequest) -> list[str]:
    g, s = req.profile, req.shape
    out = ["kv_space"] if g.is_cpu else []
    if not g.is_cpu and not req.kv_cache_memory_bytes:
        out.append("util")
    if not g.is_cpu and not req.enforce_eager:
        out.append("eager")
    if req.kv_cache_dtype != "fp8" and not g.is_cpu:
        out.append("kv_fp8")
    if tower_bytes(req):
        out.append("text_only")
    if s.quantization is None and not g.is_cpu:  # a quantized checkpoint is what it is
        if req.quantization is None:
            out.append("fp8")
        if req.quantization in (None, "fp8"):
            out.append("awq")
    return out


def _label(lever: str, new: PlanRequest) -> str:
    if lever == "kv_space":  # a knob and its figure: the same in every language
        return f"kv_cache_memory_bytes {(new.kv_cache_memory_bytes or 0) / GiB:.2f} GiB"
    if lever == "util":
        return _utilization(new) or Message("use {0} of the card", f"{new.gpu_memory_utilization:g}")
    return _LABELS[lever]


def _utilization(new: PlanRequest) -> str | None:
    """A utilization set to what other programs leave free, said with that free memory (else None)."""
    if not free_memory.applies(new):
        return None
    overheads = compute(new).overheads
    return free_memory.fix_label(new, overheads) if free_memory.limits(new, overheads) else None


def _describe(levers: tuple[str, ...], new: PlanRequest, extra: str = "") -> str:
    parts = [_label(x, new) for x in levers]
    if "util" not in levers and new.gpu_memory_utilization != VLLM_GPU_MEMORY_UTILIZATION and not new.profile.is_cpu:
        parts.insert(0, _utilization(new) or f"gpu_memory_utilization {new.gpu_memory_utilization:g}")
    if extra:
        parts.append(extra)
    if not parts:
        return Message("as asked")
    out = parts[0]
    for part in parts[1:]:  # one message, each lever translated on its own
        out = Message("{0} + {1}", out, part)
    return out


def _repairs(changes: dict[str, Any]) -> str:
    """The context or sequences a fix sets beside its levers, named ("as asked" says nothing)."""
    parts = [f"{k} {changes[k]:,}" for k in ("max_model_len", "max_num_seqs") if changes.get(k)]
    return " + ".join(parts)


def _suggestion(kind: str, summary: str, changes: dict[str, Any], p: Plan, cost: int) -> Suggestion:
    req = p.request
    one_fits = p.kv_blocks - 1 >= math.ceil(req.context / p.block_size)  # vLLM's start-up check
    users = int(p.max_concurrency) if one_fits else 0
    return Suggestion(
        kind, summary, changes, req.context, users, p.kv_tokens, p.max_concurrency, cost, engine_args(req)
    )


def _shorter_context(req: PlanRequest, p: Plan) -> int:
    """The longest max_model_len at which ``req.concurrency`` users fit in ``p``'s KV blocks."""
    blocks = min(p.kv_blocks // req.concurrency, p.kv_blocks - 1)
    tokens = blocks * p.block_size
    step = 1024 if tokens >= 4096 else p.block_size
    return min(tokens // step * step, req.shape.max_position_embeddings)


#: What each lever gives up, in the order a user minds it: nothing or some speed (tier 0), KV
#: precision or a vision model's pictures (1), weight precision (2: FP8, 3: an AWQ checkpoint).
#: A shorter context or fewer users on a tier comes before any fit that needs a higher one.
_TIERS = {"kv_space": 0, "util": 0, "eager": 0, "kv_fp8": 1, "text_only": 1, "fp8": 2, "awq": 3}
TRADE_COST = 5


def _tier(combo: tuple[str, ...]) -> int:
    return max((_TIERS[x] for x in combo), default=0)


def suggest(req: PlanRequest, base: Plan) -> tuple[Verdict, list[Suggestion]]:
    """(verdict, suggestions) for a request whose plan ``base`` does not fit as asked, ordered by
    what they cost the user: a shorter context or fewer users before FP8 KV, FP8 KV before
    quantized weights, then a smaller model of the same family, then other hardware."""
    levers = _levers(req)
    combos = [
        c for n in range(len(levers) + 1) for c in itertools.combinations(levers, n) if not ("fp8" in c and "awq" in c)
    ]
    combos.sort(key=lambda c: (sum(_COSTS[x] for x in c), len(c)))
    full: list[tuple[tuple[str, ...], Suggestion]] = []
    evaluated: list[tuple[tuple[str, ...], PlanRequest, Plan, dict[str, Any]]] = []
    for combo in combos:
        if any(set(done) <= set(combo) for done, _ in full):
            continue  # a cheaper subset already fits
        new, changes = _apply(req, combo)
        p = compute(new)
        evaluated.append((combo, new, p, changes))
        if p.fits:
            cost = sum(_COSTS[x] for x in combo)
            full.append((combo, _suggestion("settings", _describe(combo, new, _repairs(changes)), changes, p, cost)))
    full.sort(key=lambda f: (_tier(f[0]), f[1].cost))
    ranked = [(_tier(c), 0, s) for c, s in full[:3]]
    fit_tier = min((t for t, _, _ in ranked), default=len(_TIERS))
    # trade context or users on each tier below the first that fits as asked: the combination of
    # that tier with the most KV room (no eager mode unless only eager mode leaves room)
    for tier in range(fit_tier):
        options = [
            e
            for e in evaluated
            if _tier(e[0]) == tier
            and (tier == 0 or any(_TIERS[x] == tier for x in e[0]))
            and e[2].kv_blocks >= 2
            and _hardware_ok(e[2])
        ]
        if options:
            combo, new, p, changes = min(options, key=lambda e: ("eager" in e[0], -e[2].kv_blocks, len(e[0])))
            ranked.extend((tier, 1, s) for s in _traded(combo, new, p, changes, req.context))
    ranked.sort(key=lambda r: (r[0], r[1], r[2].cost, -r[2].max_model_len * max(r[2].users, 1)))
    out = [s for _, _, s in ranked]
    verdict: Verdict = "fits-with-changes" if out else "does-not-fit"
    return verdict, out[:MAX_SUGGESTIONS] + smaller_model(req) + hardware(req)


def _traded(
    combo: tuple[str, ...], new: PlanRequest, p: Plan, changes: dict[str, Any], asked_context: int
) -> list[Suggestion]:
    """``combo`` with a shorter context for all users, and with fewer users at the full context."""
    out = []
    cost = sum(_COSTS[x] for x in combo) + TRADE_COST
    ctx = _shorter_context(new, p)
    if ctx >= min(asked_context, MIN_CONTEXT):
        shorter = compute(new.with_changes(max_model_len=ctx))
        if shorter.fits:
            out.append(
                _suggestion(
                    "settings",
                    _describe(combo, new, f"max_model_len {ctx:,}"),
                    {**changes, "max_model_len": ctx},
                    shorter,
                    cost,
                )
            )
    users = int(p.max_concurrency)
    if users >= 1:
        fewer = compute(new.with_changes(concurrency=users))
        if fewer.fits:
            out.append(
                _suggestion(
                    "settings",
                    _describe(combo, new, Message("{0} users at {1} tokens", users, f"{new.context:,}")),
                    {**changes, "concurrency": users},
                    fewer,
                    cost,
                )
            )
    return out


def _hardware_ok(p: Plan) -> bool:
    """True when the weights and overheads fit at all (KV space is then the only question)."""
    return not any("do not fit" in x or "exceed" in x or "attention heads" in x for x in p.problems)


def _family(name: str) -> str:
    """``Llama-3.1-8B`` -> ``llama-3`` (Llama-3.2-3B is its sibling), ``Gemma-2-9B`` -> ``gemma-2``,
    ``Qwen2.5-14B`` -> ``qwen2.5``, ``Mistral-7B`` -> ``mistral``: what a smaller sibling shares."""
    parts = name.lower().split("-")
    if len(parts) > 2 and re.fullmatch(r"\d+(\.\d+)?", parts[1]):
        return f"{parts[0]}-{parts[1].split('.')[0]}"
    return parts[0]


def smaller_model(req: PlanRequest) -> list[Suggestion]:
    """The largest known model of the same family, smaller than this one, that fits as asked
    (context, users and precision unchanged); none for a model the planner has no family for."""

    s = req.shape
    family = _family(s.name) if s.name else ""
    siblings = [x for x in KNOWN_SHAPES.values() if family and _family(x.name) == family and x.params < s.params]
    for other in sorted(siblings, key=lambda x: -x.params):
        if other.max_position_embeddings < req.context:
            continue  # not as asked
        new, changes = _repair(req.with_changes(shape=other))
        p = compute(new)
        if p.fits:
            summary = Message("a smaller model: {0} as asked", other.name)
            return [_suggestion("model", summary, {**changes, "model": other.name}, p, 30)]
    return []


def hardware(req: PlanRequest) -> list[Suggestion]:
    """The smallest tensor-parallel size on this GPU, and the smallest GPU, that fit as asked."""
    out: list[Suggestion] = []
    g = req.profile
    if g.is_cpu:
        return out
    for tp in (2, 4, 8):
        if tp <= req.tensor_parallel_size:
            continue
        new, changes = _repair(req.with_changes(tensor_parallel_size=tp))
        p = compute(new)
        if p.fits:
            out.append(
                _suggestion(
                    "hardware",
                    Message("{0} x {1} with tensor_parallel_size {2}", tp, g.name, tp),
                    {**changes, "tensor_parallel_size": tp},
                    p,
                    10 + tp,
                )
            )
            break
    for other in sorted(GPU_PROFILES.values(), key=lambda x: x.memory_bytes):
        if other.is_cpu or other.memory_bytes < 1.2 * g.memory_bytes:  # a real step up, not 12 MiB more
            continue
        # another card: what other programs hold on this one does not carry over
        other_card = req.with_changes(
            gpu=other, tensor_parallel_size=1, pipeline_parallel_size=1, in_use_bytes=None, in_use_by=()
        )
        new, changes = _repair(other_card)
        p = compute(new)
        if p.fits:
            out.append(
                _suggestion(
                    "hardware",
                    Message("one {0} as asked", other.label),
                    {**changes, "gpu": other.name, "tensor_parallel_size": 1},
                    p,
                    20,
                )
            )
            break
    return out
