"""Evaluate advisor rules over a :class:`MetricsStore` (live, or loaded from a recording).

Each rule kind is a small function over the store's series within a time span; a sustained
condition must hold over consecutive samples for the rule's ``window_s``. A rule that lacks the
series it needs (no NVML on a CPU machine, no known engine budget) is reported as not evaluated,
with the reason, rather than silently passing.
"""

from __future__ import annotations

import statistics
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Sequence

from console.advisor.rules import Rule, RuleSet
from console.messages import Message, MessageError
from console.metrics.store import DeviceSample, FinishedRecord, MetricsBin, MetricsStore, percentile

GiB = 1024**3


class NotEvaluable(MessageError):
    """The data this rule needs is not in the series; the message says which."""


@dataclass(frozen=True)
class AdvisorContext:
    """What the advisor knows beyond the series: the engine's current settings (vLLM names;
    unset knobs take the rule file's defaults) and, when known, its GPU memory budget."""

    engine: dict[str, Any] = field(default_factory=dict)
    budget_bytes: float | None = None


@dataclass(frozen=True)
class Finding:
    rule_id: str
    title: str
    severity: str
    what: str
    why: str
    start_t: float
    duration_s: float
    evidence: dict[str, float]
    change: dict[str, Any]
    change_says: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Report:
    findings: list[Finding]
    silent: list[str]
    not_evaluated: dict[str, str]

    def fired(self) -> set[str]:
        return {f.rule_id for f in self.findings}

    def to_dict(self) -> dict[str, Any]:
        return {
            "findings": [f.to_dict() for f in self.findings],
            "silent": list(self.silent),
            "not_evaluated": dict(self.not_evaluated),
        }


@dataclass
class Series:
    bins: list[MetricsBin]
    device: list[DeviceSample]
    finished: list[FinishedRecord]
    resolution_s: float
    ctx: AdvisorContext
    defaults: dict[str, Any]

    @property
    def device_period(self) -> float:
        ts = [s.t for s in self.device]
        gaps = [b - a for a, b in zip(ts, ts[1:]) if b > a]
        return statistics.median(gaps) if gaps else self.resolution_s

    def device_values(self, key: str) -> list[tuple[float, float]]:
        return [(s.t, s.values[key]) for s in self.device if key in s.values]


Evidence = dict[str, float]


def longest_run(points: Sequence[tuple[float, bool]], period: float) -> tuple[float, float, int, int]:
    """The longest stretch of consecutive true points (a gap over 1.5 periods breaks it):
    (start, duration, first index, last index); duration 0 when none is true."""
    best = (0.0, 0.0, -1, -1)
    start_i: int | None = None
    for i, (t, ok) in enumerate(points):
        if ok and start_i is not None and t - points[i - 1][0] > 1.5 * period:
            start_i = None
        if ok and start_i is None:
            start_i = i
        if not ok:
            start_i = None
            continue
        assert start_i is not None
        duration = t - points[start_i][0] + period
        if duration > best[1]:
            best = (points[start_i][0], duration, start_i, i)
    return best


def _kv_saturation(rule: Rule, s: Series) -> Evidence | None:
    thr = rule.param("kv_threshold")
    pts = [(b.t, b.kv_usage >= thr) for b in s.bins]
    start, dur, i, j = longest_run(pts, s.resolution_s)
    if dur < max(rule.window_s, s.resolution_s):
        return None
    peak = max(b.kv_usage for b in s.bins[i : j + 1])
    return {"start": start, "duration_s": dur, "threshold_pct": thr * 100, "peak_pct": peak * 100}


def _preemptions(rule: Rule, s: Series) -> Evidence | None:
    hit = [b for b in s.bins if b.preemptions > 0]
    count = sum(b.preemptions for b in hit)
    if not hit or count < rule.param("min_preemptions"):
        return None
    dur = hit[-1].t - hit[0].t + s.resolution_s
    if dur < rule.window_s:
        return None
    return {"start": hit[0].t, "duration_s": dur, "count": float(count)}


def _queue_wait(rule: Rule, s: Series) -> Evidence | None:
    thr = rule.param("queued_threshold_s")
    q = rule.param("quantile")
    waiting_run = longest_run([(b.t, b.waiting > 0) for b in s.bins], s.resolution_s)
    peak_waiting = float(max((b.waiting for b in s.bins), default=0))
    queued = [f.queued_s for f in s.finished]
    value = percentile(queued, q) if len(queued) >= rule.param("min_requests") else None
    if value is not None and value >= thr:
        late = [f for f in s.finished if f.queued_s >= thr]
        start = min(f.t - f.e2e_s for f in late)
        return {
            "start": start,
            "duration_s": max(f.t for f in late) - start,
            "quantile": q,
            "requests": float(len(queued)),
            "queued_s": value,
            "threshold_s": thr,
            "peak_waiting": peak_waiting,
        }
    if rule.window_s > 0 and waiting_run[1] >= rule.window_s:  # nothing finished yet, but a queue stands
        return {
            "start": waiting_run[0],
            "duration_s": waiting_run[1],
            "quantile": q,
            "requests": float(len(queued)),
            "queued_s": waiting_run[1],
            "threshold_s": thr,
            "peak_waiting": peak_waiting,
            "standing": 1.0,
        }
    return None


def _util_near(samples: list[tuple[float, float]], t0: float, t1: float, reach: float) -> float | None:
    inside = [v for (t, v) in samples if t0 <= t < t1]
    if inside:
        return sum(inside) / len(inside)
    near = [(abs(t - (t0 + t1) / 2), v) for (t, v) in samples if t0 - reach <= t < t1 + reach]
    return min(near)[1] if near else None


def _low_util_waiting(rule: Rule, s: Series) -> Evidence | None:
    util = s.device_values("gpu_util_pct")
    if not util:
        raise NotEvaluable(Message("no GPU utilisation series (NVML): not an NVIDIA GPU"))
    thr, kv_below = rule.param("util_threshold_pct"), rule.param("kv_below")
    reach = s.device_period
    per_bin = [_util_near(util, b.t, b.t + s.resolution_s, reach) for b in s.bins]
    pts = [
        (b.t, b.waiting > 0 and b.kv_usage < kv_below and u is not None and u < thr) for b, u in zip(s.bins, per_bin)
    ]
    start, dur, i, j = longest_run(pts, s.resolution_s)
    if dur < max(rule.window_s, s.resolution_s):
        return None
    vals = [u for u in per_bin[i : j + 1] if u is not None]
    return {
        "start": start,
        "duration_s": dur,
        "threshold_pct": thr,
        "mean_util": sum(vals) / len(vals),
        "peak_waiting": float(max(b.waiting for b in s.bins[i : j + 1])),
    }


def _long_prompt_ttft(rule: Rule, s: Series) -> Evidence | None:
    slow = [f for f in s.finished if f.queued_s + f.prefill_s >= rule.param("ttft_threshold_s")]
    if len(slow) < rule.param("min_requests"):
        return None
    share = statistics.median(f.prefill_s / (f.queued_s + f.prefill_s) for f in slow)
    prompt = statistics.median(f.prompt_tokens for f in slow)
    if share < rule.param("prefill_share") or prompt < rule.param("long_prompt_tokens"):
        return None
    start = min(f.t - f.e2e_s for f in slow)
    return {
        "start": start,
        "duration_s": max(f.t for f in slow) - start,
        "requests": float(len(slow)),
        "ttft_s": statistics.median(f.queued_s + f.prefill_s for f in slow),
        "share_pct": share * 100,
        "prompt_tokens": float(prompt),
    }


def _throttle(rule: Rule, s: Series) -> Evidence | None:
    keys = {"throttle_reasons", "temperature_c", "power_w"}
    samples = [d for d in s.device if keys & set(d.values)]
    if not samples:
        raise NotEvaluable(Message("no throttle, temperature or power series (NVML): not an NVIDIA GPU"))
    mask = int(rule.param("reason_mask"))
    temp_c = rule.params.get("temperature_c")
    power_frac = rule.params.get("power_fraction")

    def hot(v: dict[str, float]) -> bool:
        if int(v.get("throttle_reasons", 0)) & mask:
            return True
        if temp_c is not None and v.get("temperature_c", 0.0) >= temp_c:
            return True
        limit = v.get("power_limit_w") or 0.0
        return bool(power_frac is not None and limit > 0 and v.get("power_w", 0.0) >= power_frac * limit)

    start, dur, i, j = longest_run([(d.t, hot(d.values)) for d in samples], s.device_period)
    if dur < max(rule.window_s, s.device_period):
        return None
    run = [d.values for d in samples[i : j + 1]]
    return {
        "start": start,
        "duration_s": dur,
        "peak_temperature": max(v.get("temperature_c", 0.0) for v in run),
        "min_sm_clock": min(v.get("sm_clock_mhz", 0.0) for v in run),
        "peak_power": max(v.get("power_w", 0.0) for v in run),
        "power_limit": max(v.get("power_limit_w", 0.0) for v in run),
    }


def _vram_foreign(rule: Rule, s: Series) -> Evidence | None:
    samples = [d for d in s.device if "mem_used_bytes" in d.values and "mem_total_bytes" in d.values]
    if not samples:
        raise NotEvaluable(Message("no GPU memory series (NVML): not an NVIDIA GPU"))
    budget = s.ctx.budget_bytes
    if budget is None:
        util = s.ctx.engine.get("gpu_memory_utilization") if s.ctx.engine else None
        if util is None and s.ctx.engine:
            util = s.defaults.get("gpu_memory_utilization")
        if util is None:
            raise NotEvaluable(Message("the engine's memory budget is unknown (no engine settings given)"))
        budget = float(util) * samples[-1].values["mem_total_bytes"]
    limit = rule.param("excess_gib") * GiB
    pts = [(d.t, d.values["mem_used_bytes"] - budget >= limit) for d in samples]
    start, dur, i, j = longest_run(pts, s.device_period)
    if dur < max(rule.window_s, s.device_period):
        return None
    used = max(d.values["mem_used_bytes"] for d in samples[i : j + 1])
    return {
        "start": start,
        "duration_s": dur,
        "used_gib": used / GiB,
        "excess_gib": (used - budget) / GiB,
        "budget_gib": budget / GiB,
    }


EVALUATORS: dict[str, Callable[[Rule, Series], Evidence | None]] = {
    "kv_saturation": _kv_saturation,
    "preemptions": _preemptions,
    "queue_wait": _queue_wait,
    "low_util_waiting": _low_util_waiting,
    "long_prompt_ttft": _long_prompt_ttft,
    "throttle": _throttle,
    "vram_foreign": _vram_foreign,
}


def current_knobs(rules: RuleSet, ctx: AdvisorContext) -> dict[str, Any]:
    return {**rules.defaults, **{k: v for k, v in ctx.engine.items() if v is not None}}


def _format(template: str, evidence: Evidence) -> str:
    try:
        return template.format(**evidence)
    except (KeyError, ValueError, IndexError):
        return template  # a hand-edited template with a wrong field still says something


def evaluate(
    store: MetricsStore,
    rules: RuleSet,
    ctx: AdvisorContext | None = None,
    since: float | None = None,
    translate: Callable[[str], str] | None = None,
) -> Report:
    """Run every rule over the store's series from ``since`` (all of it when None).

    ``translate`` maps each rule text (title, the what/why templates, the action's words) to the
    user's language before the evidence is formatted in; the UI passes Qt's catalogue lookup."""
    ctx = ctx or AdvisorContext()
    tr = translate or (lambda text: text)
    res = store.resolution_s
    # a bin is labelled by its start: keep the one that ``since`` falls inside
    bins = store.bins(None if since is None else since - res)
    bins = [b for b in bins if since is None or b.t + res > since]
    series = Series(bins, store.device_samples(since), store.finished(since), res, ctx, rules.defaults)
    knobs = current_knobs(rules, ctx)
    report = Report([], [], {})
    for rule in rules.rules:
        try:
            ev = EVALUATORS[rule.kind](rule, series)
        except NotEvaluable as exc:
            report.not_evaluated[rule.id] = exc.message
            continue
        if ev is None:
            report.silent.append(rule.id)
            continue
        change: dict[str, Any] = {}
        says = ""
        for action in rule.actions:
            change = action.changes(knobs)
            if change:
                says = tr(action.says)
                break
        what = rule.what_standing if ev.get("standing") and rule.what_standing else rule.what
        report.findings.append(
            Finding(
                rule_id=rule.id,
                title=tr(rule.title),
                severity=rule.severity,
                what=_format(tr(what), ev),
                why=tr(rule.why),
                start_t=ev.get("start", 0.0),
                duration_s=ev.get("duration_s", 0.0),
                evidence={k: round(float(v), 4) for k, v in ev.items()},
                change=change,
                change_says=says,
            )
        )
    return report
