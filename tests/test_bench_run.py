"""The bench runner on the real CPU engine (tiny model); auto-tune is tests/test_tune_run.py."""

from __future__ import annotations

from typing import Any

import pytest

from console.bench.runner import run_console
from console.bench.workload import synthetic
from console.jobs import TaskState

pytestmark = pytest.mark.engine


def test_console_path_figures(tiny_engine: Any) -> None:
    w = synthetic(6, 16, 8, vocab_size=tiny_engine.tokenizer.vocab_size, seed=0)
    reports: list[Any] = []
    r = run_console(tiny_engine, w, max_concurrency=2, task=TaskState(reports.append))
    assert r["requests"] == 6 and r["failed"] == 0
    assert r["output_tokens"] == 48 and r["prompt_tokens"] == 96  # ignore_eos: exact lengths
    assert r["output_tokens_per_s"] == pytest.approx(48 / r["duration_s"])
    assert 0 < r["ttft_s"]["p50"] <= r["ttft_s"]["p99"] <= r["e2e_s"]["p99"]
    assert r["itl_s"]["p50"] > 0
    assert 0 < r["engine"]["peak_kv_cache_usage"] <= 1 and r["engine"]["preemptions"] == 0
    assert r["peak_memory_bytes"] > 0
    assert reports[-1].fraction == 1.0
    # Poisson arrivals spread the sends out.
    r2 = run_console(tiny_engine, synthetic(4, 8, 4, tiny_engine.tokenizer.vocab_size), request_rate=20.0, seed=1)
    assert r2["requests"] == 4 and r2["duration_s"] > 0


@pytest.mark.parametrize("kind", ["vllm", "asyncllm", "hf"])
def test_baselines_run_the_same_workload_in_a_fresh_process(tiny_engine: Any, kind: str) -> None:
    """Each baseline (plain LLM.generate, vLLM's AsyncLLM without the console, HF generate) runs
    in its own process on the same prompts and reports the exact token counts the console path
    produces for them (ignore_eos: fixed lengths)."""
    from console.bench.baselines import run_baseline
    from console.engine.in_process import prepare_config

    w = synthetic(6, 16, 8, vocab_size=tiny_engine.tokenizer.vocab_size, seed=3)
    kwargs, _ = prepare_config(tiny_engine.config)
    r = run_baseline(kind, kwargs.engine_kwargs(), w, hf_batch_size=4, timeout_s=600)
    assert "error" not in r, r.get("error")
    assert (r["requests"], r["output_tokens"], r["prompt_tokens"]) == (6, 48, 96)
    assert r["output_tokens_per_s"] == pytest.approx(48 / r["duration_s"])


def test_each_run_starts_with_a_cold_prefix_cache(tiny_engine: Any) -> None:
    """A second identical run on one engine would be served from vLLM's prefix cache (measured on
    an H200: 1.6x faster); run_console resets the cache first and says so. vLLM's own hit
    counters make this deterministic where timing on the tiny model is noise."""
    # 300-token prompts: the CPU engine caches whole 128-token blocks only.
    w = synthetic(4, 300, 4, vocab_size=tiny_engine.tokenizer.vocab_size, seed=11)
    first = run_console(tiny_engine, w)
    again = run_console(tiny_engine, w)
    kept = run_console(tiny_engine, w, reset_prefix_cache=False)
    assert first["prefix_cache"] == again["prefix_cache"] == "reset before the run"
    assert "not reset" in kept["prefix_cache"]
    assert first["engine"]["prefix_cache_query_tokens"] >= 4 * 256
    assert first["engine"]["prefix_cache_hit_tokens"] == 0
    assert again["engine"]["prefix_cache_hit_tokens"] == 0
    # Without the reset the same prompts hit: the counter is live, so the zeros above mean something.
    assert kept["engine"]["prefix_cache_hit_tokens"] >= 4 * 256


def test_a_server_engine_says_its_prefix_cache_was_not_reset() -> None:
    """vLLM's server only offers a cache reset in its dev mode: the bench must not claim one."""
    from console.bench.runner import prefix_cache_before_run
    from console.engine.remote import RemoteEngine

    remote = RemoteEngine("http://127.0.0.1:9")
    try:
        assert remote.reset_prefix_cache().result(timeout=5) is False
        assert prefix_cache_before_run(remote).startswith("could not be reset")
    finally:
        remote.close()


def test_the_engines_ttft_leaves_out_the_front_end_and_the_report_says_which_ttft(
    tiny_engine: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bench's TTFT should measure the engine, not the queue in front of it. A front end
    made 1 s slower per request (a delay before each prompt reaches vLLM) shows in the client's
    TTFT of a streamed run and not in ``engine_ttft_s`` (vLLM's engine-core timestamps: queued ->
    first token); each report says what its ``ttft_s`` measures."""
    import asyncio

    from console.bench.runner import TTFT_FINAL, TTFT_STREAMED

    render = tiny_engine._prompts.engine_input_and_constraint  # what the engine awaits per request

    async def slow_render(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(1.0)
        return await render(*args, **kwargs)

    monkeypatch.setattr(tiny_engine._prompts, "engine_input_and_constraint", slow_render)
    w = synthetic(4, 16, 4, vocab_size=tiny_engine.tokenizer.vocab_size, seed=3)
    streamed = run_console(tiny_engine, w, stream=True)
    assert streamed["ttft_measured"] == TTFT_STREAMED and streamed["failed"] == 0
    assert streamed["ttft_s"]["p50"] >= 1.0
    engine = streamed["engine_ttft_s"]
    assert engine["p99"] is not None and 0 < engine["p50"] <= engine["p99"] < 1.0 <= streamed["ttft_s"]["p50"]
    final = run_console(tiny_engine, w)
    assert final["ttft_measured"] == TTFT_FINAL and 0 < final["engine_ttft_s"]["p50"] <= final["ttft_s"]["p99"]


def test_a_vllm_baseline_runs_under_the_consoles_concurrency(tiny_engine: Any) -> None:
    """Several prompts at ``--max-concurrency 1``: plain vLLM runs them one at a time too (its
    engine never holds two), each run records its concurrency, and the ratio compares the two."""
    from console.bench.baselines import run_baseline
    from console.bench.report import compare
    from console.engine.in_process import prepare_config

    w = synthetic(3, 16, 8, vocab_size=tiny_engine.tokenizer.vocab_size, seed=5)
    console = run_console(tiny_engine, w, max_concurrency=1)
    kwargs, _ = prepare_config(tiny_engine.config)
    vllm = run_baseline("vllm", kwargs.engine_kwargs(), w, max_concurrency=1, timeout_s=600)
    assert "error" not in vllm, vllm.get("error")
    assert (vllm["requests"], vllm["output_tokens"]) == (3, 24)
    assert vllm["max_concurrency"] == console["max_concurrency"] == 1 and vllm["peak_in_flight"] == 1
    c = compare({"console": console, "vllm": vllm}, w.num_prompts, kwargs.engine_kwargs().get("max_num_seqs"))
    assert c["conditions"]["console"] == c["conditions"]["vllm"] == {"concurrency": 1, "request_rate": None}
    assert c["ratios"]["console/vllm"] is not None and c["not_compared"] == {}
