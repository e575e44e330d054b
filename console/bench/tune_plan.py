"""Auto-tune's plan: which points of a knob grid are worth an engine load, decided
before anything loads, and in which order to try them.

* Folded: ``max_num_seqs`` only caps the batch. On one load a lower cap is measured by keeping
  that many requests in flight (the run's ``max_concurrency``, no reload), so points that differ
  only in it share one load; caps above the requests the workload can have in flight equal that
  number.
* Pruned, each with its reason (the planner's arithmetic, ``console.planner.core``): a point that
  does not fit the card (weights + activations over the budget, a memory fraction that leaves no
  room for the CUDA context and graphs, a KV cache that cannot hold one request of the user's
  context); and a point dominated by another that differs in one knob that cannot help this
  workload: a ``max_num_batched_tokens`` above every prompt token it can have in flight when a
  smaller value already covers them, prefix caching on prompts that share no prefix, eager mode
  where CUDA graphs fit, a memory fraction above one whose KV cache already holds every request
  in flight.
* Ranked by the planner's throughput ceiling (``planner.roofline``) at the batch the KV cache
  holds; ties go to the larger prefill budget.

A memory fraction in the grid is a fraction of the *card* (``card``): on a bigger device that
emulates it (the GPU benchmarks' 24 GB card on an H200) it becomes the device's
``gpu_memory_utilization`` by ``card bytes / device bytes``. Pure arithmetic, no engine, no Qt.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from console.bench.workload import Workload
from console.config import VLLM_GPU_MEMORY_UTILIZATION, EngineConfig
from console.planner import compute, get_gpu, request_from_engine, shape_for, ShapeError
from console.planner.roofline import roofline

FRACTION = "gpu_memory_utilization"
#: vLLM's own gpu_memory_utilization when none is given
VLLM_DEFAULT_UTILIZATION = VLLM_GPU_MEMORY_UTILIZATION
#: tokens two prompts must share at their start for vLLM's prefix cache to serve any (a GPU block)
PREFIX_BLOCK = 16


@dataclass(frozen=True)
class WorkloadShape:
    """What the planner needs from a workload: its sizes and whether prompts share a prefix."""

    num_prompts: int
    input_len: int
    output_len: int
    max_concurrency: int | None = None
    shared_prefix: bool = False

    @property
    def concurrency(self) -> int:
        """Requests that can be in flight at once."""
        return max(1, min(self.num_prompts, self.max_concurrency or self.num_prompts))

    @property
    def context(self) -> int:
        return self.input_len + self.output_len

    @property
    def prompt_tokens_in_flight(self) -> int:
        """The most prompt tokens one engine step could ever be asked to prefill (+1 decode token each)."""
        return self.concurrency * (self.input_len + 1)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def workload_shape(w: Workload, max_concurrency: int | None = None) -> WorkloadShape:
    """Token-id prompts are measured exactly; chat prompts are estimated at 4 characters a token
    (+ 16 for the chat template) and assumed to share a prefix (the template's own tokens)."""
    if w.prompt_token_ids:
        heads = [tuple(p[:PREFIX_BLOCK]) for p in w.prompt_token_ids if len(p) >= PREFIX_BLOCK]
        return WorkloadShape(
            len(w.prompt_token_ids),
            max(len(p) for p in w.prompt_token_ids),
            max(w.output_lens, default=w.output_len),
            max_concurrency,
            len(set(heads)) < len(heads),
        )
    chars = max((sum(len(str(m.get("content", ""))) for m in msgs) for msgs in w.messages), default=0)
    return WorkloadShape(
        len(w.messages), chars // 4 + 16, max(w.output_lens, default=w.output_len), max_concurrency, True
    )


@dataclass
class Candidate:
    """One engine load worth making."""

    knobs: dict[str, Any]  # as loaded (a memory fraction already on the device's scale)
    levels: list[int]  # requests in flight for each measured run on this load, highest first
    predicted_tok_s: float | None = None  # the planner's ceiling, for the order only
    kv_tokens: int | None = None  # the planner's KV cache size for this point
    grid_point: dict[str, Any] = field(default_factory=dict)  # as the grid wrote it (fraction of the card)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Pruned:
    point: dict[str, Any]
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class TunePlan:
    default_knobs: dict[str, Any]  # vLLM's defaults for the grid's knobs on this card
    candidates: list[Candidate]  # ranked, best guess first
    pruned: list[Pruned]
    card: str | None
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "default_knobs": self.default_knobs,
            "candidates": [c.to_dict() for c in self.candidates],
            "pruned": [p.to_dict() for p in self.pruned],
            "card": self.card,
            "notes": self.notes,
        }


def points_of(grid: dict[str, list[Any]] | list[dict[str, Any]]) -> list[dict[str, Any]]:
    if isinstance(grid, list):
        return [dict(p) for p in grid]
    keys = list(grid)
    return [dict(zip(keys, combo)) for combo in itertools.product(*(grid[k] for k in keys))]


def default_grid(device: str, native_fp8: bool = False, prequantized: bool = False) -> dict[str, list[Any]]:
    """The knobs that matter. On a GPU: FP8 weights (on cards with FP8 tensor cores, for a
    16-bit checkpoint), FP8 KV, batch cap, prefill budget, memory fraction, prefix caching; CUDA
    graphs stay on (eager is dominated wherever graphs fit). On CPU, only what its engine honours."""
    if device == "cuda":
        grid: dict[str, list[Any]] = {}
        if native_fp8 and not prequantized:
            grid["quantization"] = [None, "fp8"]
        grid.update(
            {
                "kv_cache_dtype": ["auto", "fp8"],
                "max_num_seqs": [64, 128, 256, 512],
                "max_num_batched_tokens": [4096, 8192, 16384],
                FRACTION: [0.9, 0.95],
                "enable_prefix_caching": [True, False],
            }
        )
        return grid
    return {"max_num_seqs": [8, 32, 64], "max_num_batched_tokens": [1024, 4096]}


def grid_text(grid: dict[str, list[Any]]) -> str:
    """``{"max_num_seqs": [8, 32]}`` -> ``"max_num_seqs=8,32"`` (entries joined by "; ")."""
    import json

    return "; ".join(f"{k}={','.join(json.dumps(v) for v in vs)}" for k, vs in grid.items())


def parse_grid(text: str) -> dict[str, list[Any]]:
    """The inverse of :func:`grid_text`; values are JSON (numbers, true/false, null, "strings") or
    bare words. Raises ValueError naming the offending entry or knob."""
    import json

    grid: dict[str, list[Any]] = {}
    for entry in filter(None, (e.strip() for e in text.split(";"))):
        key, sep, values = entry.partition("=")
        if not sep or not key.strip() or not values.strip():
            raise ValueError(f"'{entry}': write knob=value1,value2")
        out = []
        for v in values.split(","):
            try:
                out.append(json.loads(v.strip()))
            except json.JSONDecodeError:
                out.append(v.strip())
        grid[key.strip()] = out
    if not grid:
        raise ValueError("no knobs to sweep")
    unknown = sorted(set(grid) - set(EngineConfig.field_names()))
    if unknown:
        raise ValueError(f"unknown engine knob(s) {', '.join(unknown)} (vLLM's argument names, e.g. max_num_seqs)")
    return grid


def device_fraction(fraction: float, card_bytes: int | None, device_bytes: int | None) -> float:
    """A fraction of the card as the device's ``gpu_memory_utilization`` (the same when the card is the device)."""
    if not card_bytes or not device_bytes or card_bytes == device_bytes:
        return fraction
    return round(fraction * card_bytes / device_bytes, 4)


def _same_but(a: dict[str, Any], b: dict[str, Any], key: str) -> bool:
    return a.get(key) != b.get(key) and {k: v for k, v in a.items() if k != key} == {
        k: v for k, v in b.items() if k != key
    }


def _fold_max_num_seqs(points: list[dict[str, Any]], ws: WorkloadShape) -> list[tuple[dict[str, Any], list[int]]]:
    """Points differing only in max_num_seqs -> one point with the largest useful cap and the
    caps to measure as requests in flight."""
    groups: dict[str, tuple[dict[str, Any], set[int]]] = {}
    for p in points:
        rest = {k: v for k, v in p.items() if k != "max_num_seqs"}
        key = repr(sorted(rest.items(), key=lambda kv: kv[0]))
        level = min(int(p["max_num_seqs"]), ws.concurrency) if p.get("max_num_seqs") else ws.concurrency
        groups.setdefault(key, (rest, set()))[1].add(level)
    out = []
    for rest, levels in groups.values():
        point = dict(rest)
        if any(p.get("max_num_seqs") for p in points):
            point["max_num_seqs"] = max(levels)
        out.append((point, sorted(levels, reverse=True)))
    return out


def plan_tune(
    base: EngineConfig,
    grid: dict[str, list[Any]] | list[dict[str, Any]],
    ws: WorkloadShape,
    *,
    device: str,
    card: Any = None,
    device_bytes: int | None = None,
) -> TunePlan:
    """Fold, prune and rank ``grid`` for ``base`` (the user's model, context and card) and the
    workload ``ws``. ``card``: the planner's :class:`GpuProfile` (or its name) of the card the
    result is for; None when the planner does not know the device (nothing is pruned for fit)."""

    profile = get_gpu(card) if card is not None else None
    card_bytes = profile.memory_bytes if profile is not None and not profile.is_cpu else None
    notes: list[str] = []
    try:
        model_shape = shape_for(base.model)
    except (ShapeError, OSError, ValueError) as exc:
        model_shape, profile = None, None
        notes.append(f"the planner cannot read this model ({exc}): no point pruned for fit, none ranked")
    if profile is None and model_shape is not None:
        notes.append("this device is not in the planner's table: no point pruned for fit, none ranked")
    raw = points_of(grid)
    default_knobs: dict[str, Any] = {k: None for p in raw for k in p}
    if FRACTION in default_knobs and card_bytes and device_bytes and card_bytes != device_bytes:
        default_knobs[FRACTION] = device_fraction(VLLM_DEFAULT_UTILIZATION, card_bytes, device_bytes)
    pruned: list[Pruned] = []
    folded = _fold_max_num_seqs(raw, ws)
    fits: list[tuple[dict[str, Any], list[int], Any]] = []
    for point, levels in folded:
        reason, fit_plan = _fit(base, point, ws, profile, model_shape, device)
        if reason:
            pruned.append(Pruned(point, reason))
        else:
            fits.append((point, levels, fit_plan))
    kept: list[tuple[dict[str, Any], list[int], Any]] = []
    for point, levels, fit_plan in fits:
        reason = _dominated(point, fit_plan, [(p, fp) for p, _, fp in fits if p is not point], ws, device, profile)
        if reason:
            pruned.append(Pruned(point, reason))
        else:
            kept.append((point, levels, fit_plan))
    candidates = []
    for point, levels, fit_plan in kept:
        knobs = dict(point)
        if FRACTION in knobs and knobs[FRACTION] is not None:
            knobs[FRACTION] = device_fraction(float(knobs[FRACTION]), card_bytes, device_bytes)
        predicted = _predicted(base, point, ws, levels[0], profile, model_shape)
        candidates.append(Candidate(knobs, levels, predicted, fit_plan.kv_tokens if fit_plan else None, point))
    candidates.sort(
        key=lambda c: (
            -(c.predicted_tok_s or 0.0),
            -int(c.knobs.get("max_num_batched_tokens") or 0),
            bool(c.knobs.get("enable_prefix_caching", True)),
        )
    )
    return TunePlan(default_knobs, candidates, pruned, profile.name if profile is not None else None, notes)


def _request(
    base: EngineConfig, point: dict[str, Any], profile: Any, model_shape: Any, max_model_len: int, concurrency: int
) -> Any:
    engine = {**base.engine_kwargs(), **{k: v for k, v in point.items() if v is not None}}
    engine["max_model_len"] = max_model_len
    if profile.is_cpu:
        for key in ("gpu_memory_utilization", "enforce_eager"):
            engine.pop(key, None)
    return request_from_engine(model_shape, profile, engine, concurrency=concurrency).with_changes(calibration=False)


def _fit(
    base: EngineConfig, point: dict[str, Any], ws: WorkloadShape, profile: Any, model_shape: Any, device: str
) -> tuple[str | None, Any]:
    """(why the point cannot run, None) or (None, the planner's figures for it)."""

    if profile is None or model_shape is None:
        return None, None
    context = int(base.max_model_len or ws.context)
    try:
        p = compute(_request(base, point, profile, model_shape, context, 1))
    except ValueError as exc:
        return f"refused: {exc}", None
    if p.problems:
        return "does not fit: " + p.problems[0], None
    if p.kv_tokens < ws.context:
        return (
            f"does not fit: the KV cache holds {p.kv_tokens:,} tokens, not one request of the workload's {ws.context:,}"
        ), None
    return None, p


def _dominated(
    point: dict[str, Any],
    fit_plan: Any,
    others: list[tuple[dict[str, Any], Any]],
    ws: WorkloadShape,
    device: str,
    profile: Any,
) -> str | None:
    cap = point.get("max_num_batched_tokens")
    if cap is not None and cap > ws.prompt_tokens_in_flight:
        covering = [
            int(o["max_num_batched_tokens"])
            for o, _ in others
            if _same_but(o, point, "max_num_batched_tokens")
            and o.get("max_num_batched_tokens") is not None
            and ws.prompt_tokens_in_flight <= o["max_num_batched_tokens"] < cap
        ]
        if covering:
            return (
                f"dominated: max_num_batched_tokens {cap:,} is more than the {ws.prompt_tokens_in_flight:,} prompt "
                f"tokens the workload can have in flight; {min(covering):,} already covers them"
            )
    if (
        point.get("enable_prefix_caching", True) is not False
        and not ws.shared_prefix
        and any(
            _same_but(o, point, "enable_prefix_caching") and o.get("enable_prefix_caching") is False for o, _ in others
        )
    ):
        return "dominated: the prompts share no prefix, so prefix caching cannot pay (the point without it is kept)"
    if (
        device == "cuda"
        and point.get("enforce_eager")
        and any(_same_but(o, point, "enforce_eager") and not o.get("enforce_eager") for o, _ in others)
    ):
        return "dominated: CUDA graphs fit with these knobs, and eager mode only makes each decode step slower"
    frac = point.get(FRACTION)
    if frac is not None and fit_plan is not None:
        need = ws.concurrency * math.ceil(ws.context / fit_plan.block_size) * fit_plan.block_size
        lower = [
            (o[FRACTION], fp.kv_tokens)
            for o, fp in others
            if _same_but(o, point, FRACTION)
            and o.get(FRACTION) is not None
            and fp is not None
            and o[FRACTION] < frac
            and fp.kv_tokens >= need
        ]
        if lower:
            f, tokens = min(lower)
            return (
                f"dominated: memory fraction {f:g} already holds every request in flight ({tokens:,} KV tokens "
                f"for the {need:,} needed); more of the card buys nothing here"
            )
    return None


def _predicted(
    base: EngineConfig, point: dict[str, Any], ws: WorkloadShape, level: int, profile: Any, model_shape: Any
) -> float | None:
    """The planner's batched decode ceiling at this point's batch, with the workload's own context."""

    if profile is None or model_shape is None:
        return None
    fit_context = int(base.max_model_len or ws.context)
    try:
        fit = compute(_request(base, point, profile, model_shape, fit_context, 1))
        req = _request(base, point, profile, model_shape, ws.context, level)
        p = compute(req)
    except ValueError:
        return None
    # the batch the cache holds at the workload's context, not at the user's max_model_len
    held = fit.kv_tokens // max(1, ws.context)
    p.max_concurrency = float(min(level, held))
    return float(roofline(p)["batched_tok_s_bound"])


def rung_sizes(num_prompts: int, eta: int, rungs: int = 2) -> list[int]:
    """Prompts measured at each rung: the whole workload last, each earlier one ``1/eta`` of the next."""
    sizes = [max(1, math.ceil(num_prompts / eta ** (rungs - 1 - k))) for k in range(rungs)]
    return sorted(set(sizes))


def head(workload: Workload, n: int) -> Workload:
    """The first ``n`` prompts of ``workload`` (a short run)."""
    if n >= workload.num_prompts:
        return workload
    return replace(
        workload,
        name=f"{workload.name} (first {n})",
        prompt_token_ids=workload.prompt_token_ids[:n],
        messages=workload.messages[:n],
        output_lens=workload.output_lens[:n],
    )
