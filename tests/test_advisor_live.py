"""The advisor, the recording and the /metrics endpoint on a short live series from the real
vLLM CPU engine (the session's tiny model)."""

from __future__ import annotations

import dataclasses
import time
import urllib.request
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from console.advisor import AdvisorContext, evaluate, load_rules
from console.sampling import SamplingSettings
from console.engine.in_process import InProcessEngine
from console.metrics.recording import load_recording, save_recording
from console.engine.types import GenerationRequest, RequestFinished
from console.metrics.device import DeviceSampler, ProcessSource
from console.metrics.prometheus import MetricsServer
from tests.conftest import wait_for

pytestmark = pytest.mark.engine
GPU_RULES = {"low-gpu-util-with-waiting", "thermal-throttling", "power-throttling", "vram-foreign"}


def test_live_series_through_rules_recording_and_metrics(tiny_engine: InProcessEngine, tmp_path: Path) -> None:
    store = tiny_engine.metrics
    since = time.time()
    sampler = DeviceSampler(store, source=ProcessSource())  # what a machine without NVML samples
    sampler.sample_once()
    handles = [
        tiny_engine.submit(
            GenerationRequest(
                messages=[{"role": "user", "content": f"Tell me about GPUs, part {i}."}],
                sampling=SamplingSettings(temperature=0.0, max_tokens=24, ignore_eos=True),
            )
        )
        for i in range(8)
    ]
    for h in handles:
        assert isinstance(h.result(timeout=120), RequestFinished)
    sampler.sample_once()
    wait_for(lambda: len(store.finished(since)) >= 8, 30, "the stat logger (it lags a step)")

    rules = load_rules()
    ctx = AdvisorContext(engine={k: v for k, v in dataclasses.asdict(tiny_engine.config).items() if v is not None})
    report = evaluate(store, rules, ctx, since=since)
    assert report.findings == [], report.to_dict()  # 8 short requests on a roomy cache: nothing to tune
    assert set(report.not_evaluated) == GPU_RULES  # no NVML on this machine, and it says so
    assert all("NVIDIA" in why for why in report.not_evaluated.values())

    # the same live series with thresholds at the floor: the rules do see the engine's numbers
    eager = (
        rules.with_params("kv-cache-saturation", kv_threshold=1e-6, window_s=0.0)
        .with_params("long-queue-wait", queued_threshold_s=0.0)
        .with_params("long-prompt-ttft", ttft_threshold_s=0.0, prefill_share=0.0, long_prompt_tokens=1)
    )
    fired = {f.rule_id: f for f in evaluate(store, eager, ctx, since=since).findings}
    assert {"long-queue-wait", "long-prompt-ttft"} <= set(fired)
    assert fired["long-queue-wait"].evidence["requests"] >= 8
    prompts = sorted(f.prompt_tokens for f in store.finished(since))
    assert fired["long-prompt-ttft"].evidence["prompt_tokens"] == prompts[len(prompts) // 2] > 5
    kv_peak = max(
        b.kv_usage for b in store.bins(since - store.resolution_s) if b.t + store.resolution_s > since
    )  # vLLM reports it per step; may round to 0 here
    assert ("kv-cache-saturation" in fired) == (kv_peak > 1e-6)
    if kv_peak > 1e-6:
        assert fired["kv-cache-saturation"].evidence["peak_pct"] == pytest.approx(kv_peak * 100, abs=1e-3)

    # recorded and replayed: the same verdicts
    path = save_recording(store, tmp_path / "live.json", meta={"model": "tiny", "engine": ctx.engine})
    replay, meta = load_recording(path)
    assert meta["engine"]["max_model_len"] == 1024
    assert evaluate(replay, eager, AdvisorContext(engine=meta["engine"]), since=since).fired() == set(fired)

    # and scraped from /metrics while the engine is up
    server = MetricsServer(store, port=0, model_name="tiny")
    server.start()
    try:
        text = urllib.request.urlopen(server.url, timeout=10).read().decode()
    finally:
        server.stop()
    values = {
        s.name: s.value for fam in text_string_to_metric_families(text) for s in fam.samples if not s.labels.get("le")
    }
    assert values["vllm:generation_tokens_total"] == store.totals["generation_tokens"] >= 8 * 24
    assert values["console_process_rss_bytes"] > 0
