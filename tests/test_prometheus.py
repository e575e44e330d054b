"""The /metrics endpoint: bound to 127.0.0.1 on a free port, scraped over HTTP, parsed with
prometheus_client's own parser, values equal to the store's; stopping frees the port."""

from __future__ import annotations

import socket
import urllib.request
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from console.metrics.recording import load_recording
from console.metrics.prometheus import MetricsServer, MetricsServerError

ROOT = Path(__file__).resolve().parents[1]


def _scrape(url: str) -> dict[str, dict[str, float]]:
    text = urllib.request.urlopen(url, timeout=10).read().decode()
    out: dict[str, dict[str, float]] = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            key = ",".join(f"{k}={v}" for k, v in sorted(s.labels.items()) if k in ("le", "quantile"))
            out.setdefault(s.name, {})[key] = s.value
    return out


def test_scrape_matches_the_store_and_stop_frees_the_port() -> None:
    store, _ = load_recording(ROOT / "benchmarks/gpu/results/series_8b_bf16.json.gz")
    server = MetricsServer(store, port=0, model_name="llama-8b")
    host, port = server.start()
    try:
        assert host == "127.0.0.1" and port > 0 and server.url == f"http://127.0.0.1:{port}/metrics"
        m = _scrape(server.url)
        latest = store.latest()
        assert latest is not None
        assert m["vllm:num_requests_running"][""] == latest.running
        assert m["vllm:kv_cache_usage_perc"][""] == pytest.approx(latest.kv_usage)
        assert m["vllm:prompt_tokens_total"][""] == store.totals["prompt_tokens"] == 131712
        assert m["vllm:generation_tokens_total"][""] == store.totals["generation_tokens"]
        assert m["vllm:num_preemptions_total"][""] == 80
        assert m["vllm:request_success_total"][""] == 258
        ttft = [v for _, v in store.to_json()["ttft"]]
        assert m["vllm:time_to_first_token_seconds_count"][""] == len(ttft)
        assert m["vllm:time_to_first_token_seconds_sum"][""] == pytest.approx(sum(ttft))
        assert m["vllm:time_to_first_token_seconds_bucket"]["le=1.0"] == sum(v <= 1.0 for v in ttft)
        assert m["vllm:request_queue_time_seconds_count"][""] == 258
        dev = store.device_samples()[-1].values
        assert m["console_gpu_memory_used_bytes"][""] == dev["mem_used_bytes"]
        assert m["console_gpu_power_limit_watts"][""] == 700
        assert m["console_gpu_throttle_reasons"][""] == dev["throttle_reasons"]
        store.record_step(running=7, waiting=3, prompt_tokens=5)  # read at scrape time
        m = _scrape(server.url)
        assert m["vllm:num_requests_waiting"][""] == 3
        assert m["vllm:prompt_tokens_total"][""] == 131717
        with pytest.raises(MetricsServerError, match="in use|cannot serve"):
            MetricsServer(store, port=port).start()
    finally:
        server.stop()
    assert not server.running
    with pytest.raises(OSError):  # nothing listens any more
        urllib.request.urlopen(server.url, timeout=2)
    with socket.socket() as s:  # the port can be listened on again (REUSEADDR: served connections linger in TIME_WAIT)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", port))
        s.listen()
    again = MetricsServer(store, port=port)
    assert again.start()[1] == port
    again.stop()


def test_default_is_localhost_only() -> None:
    from console.metrics.store import MetricsStore

    server = MetricsServer(MetricsStore(), port=0)
    server.start()
    try:
        assert server._server.server_address[0] == "127.0.0.1"
        m = _scrape(server.url)
        assert m["vllm:num_requests_running"][""] == 0
        assert not any(k.startswith("console_gpu") for k in m)  # no device samples yet: nothing invented
    finally:
        server.stop()


def test_grafana_dashboard_only_queries_metrics_the_endpoint_exposes() -> None:
    import json
    import re

    dash = json.loads((ROOT / "resources/grafana/console-dashboard.json").read_text())
    exprs = [t["expr"] for p in dash["panels"] for t in p["targets"]]
    used = {m for e in exprs for m in re.findall(r"\b((?:vllm:|console_)[a-z0-9_:]+)", e)}
    assert {
        "vllm:kv_cache_usage_perc",
        "vllm:num_requests_waiting",
        "console_gpu_power_watts",
        "console_gpu_throttle_reasons",
    } <= used
    store, _ = load_recording(ROOT / "benchmarks/gpu/results/series_8b_bf16.json.gz")
    server = MetricsServer(store, port=0)
    server.start()
    try:
        exposed = set(_scrape(server.url)) | {"console_process_rss_bytes"}  # RSS: CPU machines only
    finally:
        server.stop()
    assert used <= exposed, used - exposed
    assert len({p["id"] for p in dash["panels"]}) == len(dash["panels"])
