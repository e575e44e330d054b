"""A server's Prometheus text -> MetricsStore steps: counter deltas, gauges, histogram samples,
and a counter that goes down (the server restarted)."""

from __future__ import annotations

from console.metrics.store import MetricsStore
from console.metrics.scrape import MetricsPoller, cache_info, histogram_samples, parse


def text(prompt: float, gen: float, running: float, kv: float, ttft: tuple[float, float, float]) -> str:
    b1, b2, inf = ttft
    return f"""# HELP vllm:prompt_tokens Number of prefill tokens processed.
# TYPE vllm:prompt_tokens counter
vllm:prompt_tokens_total{{engine="0",model_name="tiny"}} {prompt}
# TYPE vllm:generation_tokens counter
vllm:generation_tokens_total{{engine="0",model_name="tiny"}} {gen}
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{{engine="0",model_name="tiny"}} {running}
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{{engine="0",model_name="tiny"}} 0.0
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{{engine="0",model_name="tiny"}} {kv}
# TYPE vllm:cache_config_info gauge
vllm:cache_config_info{{block_size="128",engine="0",num_gpu_blocks="1024"}} 1.0
# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{{engine="0",le="0.1",model_name="tiny"}} {b1}
vllm:time_to_first_token_seconds_bucket{{engine="0",le="0.5",model_name="tiny"}} {b2}
vllm:time_to_first_token_seconds_bucket{{engine="0",le="+Inf",model_name="tiny"}} {inf}
vllm:time_to_first_token_seconds_count{{engine="0",model_name="tiny"}} {inf}
vllm:time_to_first_token_seconds_sum{{engine="0",model_name="tiny"}} 1.0
"""


def test_deltas_gauges_and_histograms() -> None:
    store = MetricsStore()
    poller = MetricsPoller(store)
    snap = poller.feed(text(100, 500, 0, 0.0, (1, 2, 2)), t=1000.0)
    assert cache_info(snap) == (1024, 128)
    assert store.totals["generation_tokens"] == 0  # the server's past is not "now"
    poller.feed(text(130, 560, 3, 0.25, (3, 5, 6)), t=1001.0)
    assert store.totals["prompt_tokens"] == 30 and store.totals["generation_tokens"] == 60
    last = store.latest()
    assert last is not None and last.running == 3 and last.kv_usage == 0.25
    p = store.latency_percentiles("ttft", (0, 100))
    assert p[0] == 0.05 and p[100] == 0.5  # two in (0, 0.1], two in (0.1, 0.5], one above 0.5
    poller.feed(text(10, 20, 1, 0.1, (1, 1, 1)), t=1002.0)  # restarted: counters start over
    assert store.totals["generation_tokens"] == 80


def test_histogram_samples_are_capped() -> None:
    new = {0.1: 10_000.0, float("inf"): 10_000.0}
    assert len(histogram_samples(new, None, cap=100)) == 100


def test_parse_sums_label_sets() -> None:
    snap = parse(
        '# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{engine="0"} 2\n'
        'vllm:num_requests_running{engine="1"} 3\n'
    )
    assert snap.get("vllm:num_requests_running") == 5


def spec_text(drafts: float, drafted: float, accepted: float, hits: float, queries: float) -> str:
    """vLLM's spec-decode and prefix-cache counters as a server exposes them."""
    labels = '{engine="0",model_name="tiny"}'
    return "\n".join(
        [
            "# TYPE vllm:spec_decode_num_drafts counter",
            f"vllm:spec_decode_num_drafts_total{labels} {drafts}",
            "# TYPE vllm:spec_decode_num_draft_tokens counter",
            f"vllm:spec_decode_num_draft_tokens_total{labels} {drafted}",
            "# TYPE vllm:spec_decode_num_accepted_tokens counter",
            f"vllm:spec_decode_num_accepted_tokens_total{labels} {accepted}",
            "# TYPE vllm:prefix_cache_hits counter",
            f"vllm:prefix_cache_hits_total{labels} {hits}",
            "# TYPE vllm:prefix_cache_queries counter",
            f"vllm:prefix_cache_queries_total{labels} {queries}",
            "",
        ]
    )


def test_a_servers_spec_decode_and_prefix_counters_become_rates() -> None:
    from console.metrics.store import prefix_hit_rate, spec_acceptance

    store = MetricsStore()
    poller = MetricsPoller(store)
    poller.feed(spec_text(10, 40, 20, 100, 400), t=1000.0)  # the server's past: not counted
    assert spec_acceptance(store.totals_snapshot()) == (None, None)
    poller.feed(spec_text(14, 56, 32, 160, 480), t=1001.0)
    totals = store.totals_snapshot()
    assert (totals["spec_drafts"], totals["spec_draft_tokens"], totals["spec_accepted_tokens"]) == (4, 16, 12)
    assert spec_acceptance(totals) == (0.75, 4.0)
    assert prefix_hit_rate(totals) == 60 / 80
