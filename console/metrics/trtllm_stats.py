"""``trtllm-serve``'s ``/metrics`` (TensorRT-LLM's iteration statistics) turned into
:class:`MetricsStore` steps.

``trtllm-serve`` answers ``/metrics`` with a JSON list of the executor's iteration statistics
queued since the last call (each call drains the queue; ``enable_iter_perf_stats: true`` in its
``--config`` fills it on the PyTorch backend). One entry per engine iteration, with the
executor's camelCase names: ``iter``, ``iterLatencyMS``, ``numActiveRequests``,
``numQueuedRequests``, ``gpuMemUsage``, ``kvCacheStats`` (``usedNumBlocks``, ``maxNumBlocks``,
``tokensPerBlock``, cumulative ``reusedBlocks`` / ``missedBlocks``),
``inflightBatchingStats`` (``numCtxTokens``, ``numGenRequests``, ...) and, with speculative
decoding, ``specDecodingStats`` (``numDraftTokens``, ``numAcceptedTokens``,
``numRequestsWithDraftTokens``). A field a release leaves out is simply not recorded.

Mapping onto the Monitor's series, per poll: running / waiting / KV usage of the busiest
iteration since the last poll; prompt tokens = the context tokens scheduled; generated tokens = one per generation
request per iteration plus the accepted draft tokens; prefix-cache hits and queries = the reused
and looked-up blocks (cumulative counters, diffed) times the block size; inter-token latency = the
latency of each iteration that decoded (every running request got one token from it). Time to
first token and per-request records are not in iteration statistics: those panels stay empty
for such a server (the bench measures TTFT from the client side).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from typing import Any, Literal

from console.metrics.scrape import MetricsPoller, ServerPoller, Snapshot
from console.metrics.store import MetricsStore

log = logging.getLogger(__name__)


def looks_like_iteration_stats(text: str) -> bool:
    """True for TensorRT-LLM's JSON list (vLLM's ``/metrics`` is Prometheus text)."""
    return text.lstrip().startswith("[")


def _num(d: dict[str, Any] | None, key: str) -> float | None:
    value = (d or {}).get(key)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _kv_usage(entry: dict[str, Any]) -> float | None:
    found = entry.get("kvCacheStats")
    kv = found if isinstance(found, dict) else None
    used, total = _num(kv, "usedNumBlocks"), _num(kv, "maxNumBlocks")
    return used / total if used is not None and total else None


def _most(entries: list[dict[str, Any]], value: Callable[[dict[str, Any]], float | None]) -> float | None:
    """The largest value over the iterations of one poll (the busiest one), None when none has it."""
    found = [v for v in map(value, entries) if v is not None]
    return max(found) if found else None


class TrtllmStatsPoller:
    """Feeds successive ``/metrics`` bodies of a ``trtllm-serve`` into ``store``. One caller."""

    def __init__(self, store: MetricsStore) -> None:
        self.store = store
        self.last_iter: int | None = None
        self._reused: float | None = None
        self._missed: float | None = None

    def reset(self) -> None:
        self.last_iter = None
        self._reused = self._missed = None

    def feed(self, text: str, t: float | None = None) -> Snapshot:
        """Record the iterations not seen before; return the newest one's figures as a snapshot
        (``trtllm:<field>`` values, ``kvCacheStats`` ones as ``trtllm:kv.<field>``)."""
        if not looks_like_iteration_stats(text):
            if text.strip() and self.last_iter is None:
                log.warning("/metrics is not TensorRT-LLM's iteration statistics (a JSON list); nothing recorded")
            return Snapshot()
        data = json.loads(text)
        entries = [e for e in (data if isinstance(data, list) else [data]) if isinstance(e, dict)]
        entries.sort(key=lambda e: int(e.get("iter", 0)))
        new = [e for e in entries if self.last_iter is None or int(e.get("iter", 0)) > self.last_iter]
        snap = Snapshot()
        if not new:
            return snap
        self.last_iter = int(new[-1].get("iter", 0))
        latest = new[-1]
        for key, value in latest.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                snap.values[f"trtllm:{key}"] = float(value)
        found = latest.get("kvCacheStats")
        kv_stats: dict[str, Any] = found if isinstance(found, dict) else {}
        for key, value in kv_stats.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                snap.values[f"trtllm:kv.{key}"] = float(value)
        self._record(new, kv_stats, time.time() if t is None else t)
        return snap

    def _record(self, new: list[dict[str, Any]], kv: dict[str, Any], t: float) -> None:
        running = _most(new, lambda e: _num(e, "numActiveRequests"))
        waiting = _most(new, lambda e: _num(e, "numQueuedRequests"))
        kv_usage = _most(new, _kv_usage)
        prompt = generated = drafted = accepted = with_drafts = 0
        itls: list[float] = []
        for entry in new:
            batch = entry.get("inflightBatchingStats") or {}
            spec = entry.get("specDecodingStats") or {}
            gen = int(_num(batch, "numGenRequests") or 0)
            prompt += int(_num(batch, "numCtxTokens") or 0)
            accepted_here = int(_num(spec, "numAcceptedTokens") or 0)
            generated += gen + accepted_here
            accepted += accepted_here
            drafted += int(_num(spec, "numDraftTokens") or 0)
            with_drafts += int(_num(spec, "numRequestsWithDraftTokens") or 0)
            latency = _num(entry, "iterLatencyMS")
            if latency is not None and (gen > 0 or not batch):
                itls.append(latency / 1000.0)
        hits = queries = 0
        block = _num(kv, "tokensPerBlock") or 0.0
        reused, missed = _num(kv, "reusedBlocks"), _num(kv, "missedBlocks")
        if reused is not None and missed is not None:
            if self._reused is not None and self._missed is not None and reused >= self._reused:
                d_reused, d_missed = reused - self._reused, max(0.0, missed - self._missed)
                hits, queries = int(d_reused * block), int((d_reused + d_missed) * block)
            self._reused, self._missed = reused, missed
        self.store.record_step(
            t=t,
            running=None if running is None else int(running),
            waiting=None if waiting is None else int(waiting),
            kv_usage=kv_usage,
            prompt_tokens=prompt,
            generation_tokens=generated,
            prefix_hits=hits,
            prefix_queries=queries,
            itls=itls,
            spec={"spec_drafts": with_drafts, "spec_draft_tokens": drafted, "spec_accepted_tokens": accepted},
        )


def poller_for(
    server: Literal["auto", "vllm", "trtllm"], first_body: str, store: MetricsStore
) -> tuple[ServerPoller, Literal["vllm", "trtllm"]]:
    """(the poller for a server's ``/metrics``, the server kind: "vllm" or "trtllm"). ``server``
    is the kind the user named, or "auto": then the first body decides (a JSON list is
    TensorRT-LLM's)."""
    if server == "trtllm" or (server == "auto" and looks_like_iteration_stats(first_body)):
        return TrtllmStatsPoller(store), "trtllm"
    return MetricsPoller(store), "vllm"


__all__ = ["TrtllmStatsPoller", "looks_like_iteration_stats", "poller_for"]
