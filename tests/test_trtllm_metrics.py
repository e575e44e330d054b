"""TensorRT-LLM's iteration statistics (``trtllm-serve``'s ``/metrics``) mapped onto the Monitor's
series, on a recorded sample of the documented format (tests/data/trtllm_iteration_stats.json says
where it comes from)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from console.metrics.scrape import MetricsPoller, cache_info
from console.metrics.store import MetricsStore
from console.metrics.trtllm_stats import TrtllmStatsPoller, looks_like_iteration_stats, poller_for

SAMPLE = json.loads((Path(__file__).parent / "data" / "trtllm_iteration_stats.json").read_text())
POLLS = [json.dumps(body) for body in SAMPLE["polls"]]
MAX_BLOCKS = 101256


def test_each_poll_becomes_one_step_with_the_monitors_series() -> None:
    store = MetricsStore(resolution_s=1.0)
    poller = TrtllmStatsPoller(store)
    first = poller.feed(POLLS[0], t=100.0)
    assert cache_info(first) == (MAX_BLOCKS, 32)  # the KV cache's size for EngineInfo
    assert first.values["trtllm:iterLatencyMS"] == pytest.approx(7.00688362121582)
    b = store.latest()
    assert b is not None and (b.running, b.waiting) == (1, 0)
    assert b.kv_usage == pytest.approx(3 / MAX_BLOCKS)
    assert (b.prompt_tokens, b.generation_tokens) == (40, 1)  # context tokens; one per generating request
    assert store.latency_samples("itl") == [pytest.approx(0.00700688362121582)]  # only the decoding iteration

    poller.feed(POLLS[1], t=101.0)
    b = store.latest()
    assert b is not None and (b.running, b.waiting) == (3, 1)  # the busiest iteration of the poll
    assert (b.prompt_tokens, b.generation_tokens) == (64, 1 + 3 + 4)  # + the accepted draft tokens
    assert (b.prefix_hits, b.prefix_queries) == (2 * 32, (2 + 3) * 32)  # reused / looked-up blocks x block size
    assert (b.spec_drafts, b.spec_draft_tokens, b.spec_accepted_tokens) == (3, 9, 4)
    assert sorted(store.latency_samples("itl"))[-2:] == [pytest.approx(0.008), pytest.approx(0.025)]

    poller.feed(POLLS[2], t=102.0)  # iteration 156 again (already seen) and 157
    b = store.latest()
    assert b is not None and b.generation_tokens == 2 and (b.prefix_hits, b.prefix_queries) == (0, 64)
    assert b.kv_usage == pytest.approx(10 / MAX_BLOCKS)
    poller.feed(POLLS[3], t=103.0)  # an empty queue records nothing
    totals = store.totals
    assert totals["steps"] == 3 and totals["prompt_tokens"] == 104 and totals["generation_tokens"] == 11
    assert totals["peak_running"] == 3 and totals["peak_waiting"] == 1
    assert (totals["prefix_hits"], totals["prefix_queries"]) == (64, 224)


def test_the_body_says_which_server_it_is() -> None:
    store = MetricsStore()
    assert looks_like_iteration_stats(POLLS[0]) and looks_like_iteration_stats("[]")
    vllm_text = (
        "# HELP vllm:num_requests_running x\n# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running 1\n"
    )
    assert not looks_like_iteration_stats(vllm_text)
    poller, kind = poller_for("auto", POLLS[0], store)
    assert kind == "trtllm" and isinstance(poller, TrtllmStatsPoller)
    poller, kind = poller_for("auto", vllm_text, store)
    assert kind == "vllm" and isinstance(poller, MetricsPoller)
    poller, kind = poller_for("trtllm", vllm_text, store)  # named by the user: kept, and nothing recorded
    assert kind == "trtllm" and poller.feed(vllm_text).values == {} and store.records == 0
