"""A vLLM server's Prometheus ``/metrics`` turned into :class:`MetricsStore` steps.

The in-process engine feeds the store once per engine step; a server only exposes cumulative
counters, gauges and histograms. Each poll is diffed against the previous one: counter deltas
become token counts, gauge values become running/waiting/KV usage, and histogram bucket deltas
become latency samples (each new observation at its bucket's midpoint: exact enough for the
monitor's percentiles, which is all the server tells us). A counter that goes down means the
server restarted; its new value is then the delta.

Parsing uses ``prometheus_client.parser``; metric names are vLLM's (with the older spellings
where vLLM renamed them).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Protocol

from prometheus_client.parser import text_string_to_metric_families

from console.metrics.store import SPEC_COUNTERS, FinishedRecord, MetricsStore

#: At most this many latency samples per histogram per poll (spread in proportion over buckets).
MAX_SAMPLES_PER_POLL = 400

_KV = ("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc")
_ITL = ("vllm:inter_token_latency_seconds", "vllm:time_per_output_token_seconds")


@dataclass
class Snapshot:
    """Sample values summed over label sets (engines, models); histogram buckets by upper bound."""

    values: dict[str, float] = field(default_factory=dict)
    buckets: dict[str, dict[float, float]] = field(default_factory=dict)
    labels: dict[str, dict[str, str]] = field(default_factory=dict)  # *_info gauges: their labels

    def get(self, *names: str) -> float | None:
        for name in names:
            if name in self.values:
                return self.values[name]
        return None


def parse(text: str) -> Snapshot:
    snap = Snapshot()
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.name.endswith("_bucket") and "le" in s.labels:
                base = s.name[: -len("_bucket")]
                le = float(s.labels["le"])
                hist = snap.buckets.setdefault(base, {})
                hist[le] = hist.get(le, 0.0) + float(s.value)
                continue
            if s.name.endswith("_info"):
                snap.labels[s.name] = dict(s.labels)
            snap.values[s.name] = snap.values.get(s.name, 0.0) + float(s.value)
    return snap


def _delta(new: float | None, old: float | None) -> float:
    if new is None:
        return 0.0
    if old is None or new < old:  # first sight is handled by the caller; lower = restarted server
        return new
    return new - old


def histogram_samples(
    new: dict[float, float] | None, old: dict[float, float] | None, cap: int = MAX_SAMPLES_PER_POLL
) -> list[float]:
    """Observations added between two cumulative bucket maps, each at its bucket's midpoint."""
    if not new:
        return []
    restarted = old is not None and new.get(math.inf, 0.0) < old.get(math.inf, 0.0)
    base = {} if (old is None or restarted) else old
    bounds = sorted(new)
    counts: list[tuple[float, int]] = []
    prev_bound, prev_new, prev_old = 0.0, 0.0, 0.0
    for le in bounds:
        added = (new[le] - prev_new) - (base.get(le, 0.0) - prev_old)
        prev_new, prev_old = new[le], base.get(le, 0.0)
        value = prev_bound if math.isinf(le) else (prev_bound + le) / 2
        if added > 0:
            counts.append((value, int(round(added))))
        if not math.isinf(le):
            prev_bound = le
    total = sum(n for _, n in counts)
    if total > cap:
        counts = [(v, max(1, round(n * cap / total))) for v, n in counts]
    return [v for v, n in counts for _ in range(n)]


class ServerPoller(Protocol):
    """What the server engines poll ``/metrics`` with: vLLM's Prometheus text
    (:class:`MetricsPoller`) or TensorRT-LLM's iteration statistics
    (``console.metrics.trtllm_stats.TrtllmStatsPoller``)."""

    def reset(self) -> None: ...

    def feed(self, text: str, t: float | None = None) -> Snapshot: ...


class MetricsPoller:
    """Diffs successive ``/metrics`` texts into ``store``. Not thread-safe; one caller."""

    def __init__(self, store: MetricsStore) -> None:
        self.store = store
        self.last: Snapshot | None = None

    def reset(self) -> None:
        self.last = None

    def feed(self, text: str, t: float | None = None) -> Snapshot:
        snap = parse(text)
        old = self.last
        self.last = snap
        t = time.time() if t is None else t
        kv = snap.get(*_KV)
        running = snap.get("vllm:num_requests_running")
        waiting = snap.get("vllm:num_requests_waiting")
        if old is None:
            # First sight: the counters hold the server's whole past; only the gauges count now.
            self.store.record_step(
                t=t,
                running=None if running is None else int(running),
                waiting=None if waiting is None else int(waiting),
                kv_usage=kv,
            )
            return snap

        def d(name: str) -> int:
            return int(round(_delta(snap.values.get(name), old.values.get(name))))

        ttfts = histogram_samples(
            snap.buckets.get("vllm:time_to_first_token_seconds"), old.buckets.get("vllm:time_to_first_token_seconds")
        )
        itl_name = next((n for n in _ITL if n in snap.buckets), _ITL[0])
        itls = histogram_samples(snap.buckets.get(itl_name), old.buckets.get(itl_name))
        e2es = histogram_samples(
            snap.buckets.get("vllm:e2e_request_latency_seconds"), old.buckets.get("vllm:e2e_request_latency_seconds")
        )
        finished = [
            FinishedRecord(
                t=t,
                request_id=None,
                finish_reason="",
                e2e_s=v,
                queued_s=0.0,
                prefill_s=0.0,
                decode_s=0.0,
                prompt_tokens=0,
                generation_tokens=0,
                preemptions=0,
            )
            for v in e2es
        ]
        self.store.record_step(
            t=t,
            running=None if running is None else int(running),
            waiting=None if waiting is None else int(waiting),
            kv_usage=kv,
            prompt_tokens=d("vllm:prompt_tokens_total"),
            generation_tokens=d("vllm:generation_tokens_total"),
            preemptions=d("vllm:num_preemptions_total"),
            prefix_hits=d("vllm:prefix_cache_hits_total"),
            prefix_queries=d("vllm:prefix_cache_queries_total"),
            ttfts=ttfts,
            itls=itls,
            finished=finished,
            spec={key: d(f"vllm:spec_decode_num_{key.removeprefix('spec_')}_total") for key in SPEC_COUNTERS},
        )
        return snap


def cache_info(snap: Snapshot) -> tuple[int | None, int | None]:
    """(num KV blocks, block size) from vLLM's ``cache_config_info`` gauge, or from TensorRT-LLM's
    ``kvCacheStats`` (``maxNumBlocks``, ``tokensPerBlock``), when they are there."""
    if "trtllm:kv.maxNumBlocks" in snap.values:
        size = snap.values.get("trtllm:kv.tokensPerBlock")
        return int(snap.values["trtllm:kv.maxNumBlocks"]), None if size is None else int(size)
    labels = snap.labels.get("vllm:cache_config_info", {})

    def num(key: str) -> int | None:
        try:
            return int(float(labels[key]))
        except (KeyError, ValueError):
            return None

    return num("num_gpu_blocks"), num("block_size")


__all__ = ["MetricsPoller", "ServerPoller", "Snapshot", "cache_info", "histogram_samples", "parse"]
