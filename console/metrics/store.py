"""A thread-safe, bounded store of engine and device metrics.

vLLM calls our stat logger about once per engine step, on the engine thread; the GUI reads on its
own timer and the CLI/bench read at the end. Step records are folded into fixed-width time bins
(sums for token counts, last value for gauges, max for KV usage), so memory stays bounded
whatever the step rate, and the plots get evenly spaced points. Latency samples (TTFT,
inter-token) and finished-request records are kept in bounded deques.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterable, TypeVar


@dataclass
class MetricsBin:
    t: float  # bin start, wall-clock seconds (time.time())
    running: int = 0
    waiting: int = 0
    kv_usage: float = 0.0  # 0..1, max over the bin
    prompt_tokens: int = 0
    generation_tokens: int = 0
    preemptions: int = 0
    steps: int = 0
    prefix_hits: int = 0
    prefix_queries: int = 0
    # speculative decoding: vLLM's SpecDecodingStats summed over the bin
    spec_drafts: int = 0
    spec_draft_tokens: int = 0
    spec_accepted_tokens: int = 0


#: Counters summed into both a bin and the totals (speculative decoding's).
SPEC_COUNTERS = ("spec_drafts", "spec_draft_tokens", "spec_accepted_tokens")


def ratio(num: float, den: float) -> float | None:
    """num / den, None when nothing was counted (a hit rate of an idle bin is unknown, not 0)."""
    return num / den if den else None


def _count(b: MetricsBin | dict[str, float], key: str) -> float:
    """A counter of a bin (an attribute) or of the totals (a key; 0 where nothing was counted)."""
    return b.get(key, 0.0) if isinstance(b, dict) else float(getattr(b, key))


def prefix_hit_rate(b: MetricsBin | dict[str, float]) -> float | None:
    """Prefix-cache hits / queries (tokens) of a bin or of the totals."""
    return ratio(_count(b, "prefix_hits"), _count(b, "prefix_queries"))


def spec_acceptance(b: MetricsBin | dict[str, float]) -> tuple[float | None, float | None]:
    """(acceptance rate = accepted / drafted tokens, tokens per step = 1 + accepted / drafts), as
    vLLM's spec-decode logger defines them; (None, None) where nothing was drafted."""
    accepted = _count(b, "spec_accepted_tokens")
    rate = ratio(accepted, _count(b, "spec_draft_tokens"))
    per_draft = ratio(accepted, _count(b, "spec_drafts"))
    return rate, None if per_draft is None else 1.0 + per_draft


@dataclass(frozen=True)
class FinishedRecord:
    t: float
    request_id: str | None
    finish_reason: str
    e2e_s: float
    queued_s: float
    prefill_s: float
    decode_s: float
    prompt_tokens: int
    generation_tokens: int
    preemptions: int


@dataclass
class DeviceSample:
    t: float
    values: dict[str, float] = field(default_factory=dict)


def percentile(values: Iterable[float], q: float) -> float | None:
    """Linear-interpolated percentile (q in 0..100), as numpy's default; None when empty."""
    return percentiles(values, (q,))[q]


def percentiles(values: Iterable[float], qs: Iterable[float]) -> dict[float, float | None]:
    """:func:`percentile` for each of ``qs``, the values sorted once."""
    data = sorted(values)
    out: dict[float, float | None] = {}
    for q in qs:
        if not data:
            out[q] = None
            continue
        pos = (len(data) - 1) * q / 100.0
        lo, hi = math.floor(pos), math.ceil(pos)
        out[q] = data[lo] + (data[hi] - data[lo]) * (pos - lo)
    return out


class MetricsStore:
    def __init__(self, resolution_s: float = 0.5, history_s: float = 3600.0, max_samples: int = 50_000) -> None:
        self.resolution_s = resolution_s
        self._lock = threading.Lock()
        self._bins: deque[MetricsBin] = deque(maxlen=max(1, int(history_s / resolution_s)))
        self._ttft: deque[tuple[float, float]] = deque(maxlen=max_samples)
        self._itl: deque[tuple[float, float]] = deque(maxlen=max_samples)
        self._finished: deque[FinishedRecord] = deque(maxlen=max_samples)
        self._device: deque[DeviceSample] = deque(maxlen=max(1, int(history_s / resolution_s)))
        self.totals: dict[str, float] = {
            "prompt_tokens": 0,
            "generation_tokens": 0,
            "preemptions": 0,
            "steps": 0,
            "finished_requests": 0,
            "peak_kv_usage": 0.0,
            "peak_running": 0,
            "peak_waiting": 0,
            "prefix_hits": 0,
            "prefix_queries": 0,
            **{k: 0 for k in SPEC_COUNTERS},
        }
        self.records = 0  # number of record() calls received (tests watch this)

    @classmethod
    def from_series(
        cls,
        resolution_s: float,
        *,
        bins: Iterable[MetricsBin] = (),
        device: Iterable[DeviceSample] = (),
        finished: Iterable[FinishedRecord] = (),
        ttft: Iterable[tuple[float, float]] = (),
        itl: Iterable[tuple[float, float]] = (),
        totals: dict[str, float] | None = None,
    ) -> "MetricsStore":
        """A store holding exactly these series (a saved recording loaded back), sized so that
        none of them is cut: the history covers their whole span."""
        bins_l = sorted(bins, key=lambda b: b.t)
        device_l = sorted(device, key=lambda d: d.t)
        finished_l, ttft_l, itl_l = list(finished), list(ttft), list(itl)
        times = [b.t for b in bins_l] + [d.t for d in device_l]
        span = max(times) - min(times) if times else 0.0
        history = max(3600.0, span + resolution_s, (max(len(bins_l), len(device_l)) + 1) * resolution_s)
        store = cls(
            resolution_s=resolution_s,
            history_s=history,
            max_samples=max(50_000, len(ttft_l), len(itl_l), len(finished_l)),
        )
        with store._lock:
            store._bins.extend(bins_l)
            store._device.extend(device_l)
            store._finished.extend(finished_l)
            store._ttft.extend(ttft_l)
            store._itl.extend(itl_l)
            store.totals.update(totals or {})
        return store

    # -- writers (engine thread) -------------------------------------------------------------
    def _bin_for(self, t: float) -> MetricsBin:
        start = t - (t % self.resolution_s)
        if not self._bins or self._bins[-1].t < start:
            self._bins.append(MetricsBin(t=start))
        return self._bins[-1]

    def record_step(
        self,
        *,
        t: float | None = None,
        running: int | None = None,
        waiting: int | None = None,
        kv_usage: float | None = None,
        prompt_tokens: int = 0,
        generation_tokens: int = 0,
        preemptions: int = 0,
        prefix_hits: int = 0,
        prefix_queries: int = 0,
        ttfts: Iterable[float] = (),
        itls: Iterable[float] = (),
        finished: Iterable[FinishedRecord] = (),
        spec: dict[str, int] | None = None,
    ) -> None:
        """One engine step (or one scrape). ``spec``: counts keyed by :data:`SPEC_COUNTERS`."""
        t = time.time() if t is None else t
        with self._lock:
            self.records += 1
            b = self._bin_for(t)
            b.steps += 1
            if running is not None:
                b.running = running
                self.totals["peak_running"] = max(self.totals["peak_running"], running)
            if waiting is not None:
                b.waiting = waiting
                self.totals["peak_waiting"] = max(self.totals["peak_waiting"], waiting)
            if kv_usage is not None:
                b.kv_usage = max(b.kv_usage, kv_usage)
                self.totals["peak_kv_usage"] = max(self.totals["peak_kv_usage"], kv_usage)
            b.prompt_tokens += prompt_tokens
            b.generation_tokens += generation_tokens
            b.preemptions += preemptions
            b.prefix_hits += prefix_hits
            b.prefix_queries += prefix_queries
            self.totals["prompt_tokens"] += prompt_tokens
            self.totals["generation_tokens"] += generation_tokens
            self.totals["preemptions"] += preemptions
            self.totals["prefix_hits"] += prefix_hits
            self.totals["prefix_queries"] += prefix_queries
            self.totals["steps"] += 1
            for key, value in (spec or {}).items():
                setattr(b, key, getattr(b, key) + value)
                self.totals[key] += value
            for v in ttfts:
                self._ttft.append((t, v))
            for v in itls:
                self._itl.append((t, v))
            for f in finished:
                self._finished.append(f)
                self.totals["finished_requests"] += 1

    def record_device(self, values: dict[str, float], t: float | None = None) -> None:
        with self._lock:
            self._device.append(DeviceSample(time.time() if t is None else t, dict(values)))

    # -- readers (any thread) ------------------------------------------------------------------
    def bins(self, since: float | None = None) -> list[MetricsBin]:
        """Copies of the bins from ``since`` on (all without it), oldest first. Bins are held in
        time order, so ``since`` walks back from the newest: the Monitor asks 8 times a second
        for the one or two new bins while the store holds an hour of them."""
        with self._lock:
            held = self._bins if since is None else _newest_while(self._bins, lambda b: b.t >= since)
            return [MetricsBin(**asdict(b)) for b in held]

    def device_samples(self, since: float | None = None) -> list[DeviceSample]:
        """Copies of the device samples from ``since`` on, oldest first (as :meth:`bins`)."""
        with self._lock:
            held = self._device if since is None else _newest_while(self._device, lambda d: d.t >= since)
            return [DeviceSample(s.t, dict(s.values)) for s in held]

    def finished(self, since: float | None = None) -> list[FinishedRecord]:
        with self._lock:
            return [f for f in self._finished if since is None or f.t >= since]

    def latency_samples(self, kind: str, since: float | None = None) -> list[float]:
        """The raw latency samples (seconds) of ``kind`` (``"ttft"`` or ``"itl"``), oldest first."""
        src = {"ttft": self._ttft, "itl": self._itl}[kind]
        with self._lock:
            return [v for (t, v) in src if since is None or t >= since]

    def latency_after(self, kind: str, after: float) -> list[tuple[float, float]]:
        """``(t, seconds)`` samples of ``kind`` recorded at a time later than ``after``, oldest
        first. Walks back from the newest, so it costs what is new, not what is held (the
        Monitor asks several times a second while the store holds up to ``max_samples``)."""
        src = {"ttft": self._ttft, "itl": self._itl}[kind]
        with self._lock:
            return _newest_while(src, lambda sample: sample[0] > after)

    def latency_percentiles(
        self, kind: str, qs: Iterable[float] = (50, 95, 99), since: float | None = None
    ) -> dict[float, float | None]:
        vals = self.latency_samples(kind, since)
        return percentiles(vals, qs)

    def totals_snapshot(self) -> dict[str, float]:
        """A consistent copy of the running totals (tokens, steps, peaks)."""
        with self._lock:
            return dict(self.totals)

    def rate(self, key: str, window_s: float = 5.0, now: float | None = None) -> float:
        """Tokens (or preemptions) per second over the last ``window_s`` seconds."""
        now = time.time() if now is None else now
        with self._lock:
            total = sum(float(getattr(b, key)) for b in self._bins if b.t >= now - window_s)
        return total / window_s

    def latest(self) -> MetricsBin | None:
        with self._lock:
            return MetricsBin(**asdict(self._bins[-1])) if self._bins else None

    def clear(self) -> None:
        with self._lock:
            self._bins.clear()
            self._ttft.clear()
            self._itl.clear()
            self._finished.clear()
            self._device.clear()
            for k in self.totals:
                self.totals[k] = 0
            self.records = 0

    def to_json(self) -> dict[str, Any]:
        """The whole history, for session recordings and GPU evidence files."""
        with self._lock:
            return {
                "resolution_s": self.resolution_s,
                "bins": [asdict(b) for b in self._bins],
                "ttft": list(self._ttft),
                "itl": list(self._itl),
                "finished": [asdict(f) for f in self._finished],
                "device": [asdict(s) for s in self._device],
                "totals": dict(self.totals),
            }


_T = TypeVar("_T")


def _newest_while(held: deque[_T], keep: Callable[[_T], bool]) -> list[_T]:
    """The newest items of ``held`` (kept in time order) for which ``keep`` holds, oldest first:
    a walk back from the newest that stops at the first one it fails, so it costs what is new,
    not what is held."""
    out: list[_T] = []
    for item in reversed(held):
        if not keep(item):
            break
        out.append(item)
    out.reverse()
    return out
