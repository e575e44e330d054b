"""The in-process engine against the real vLLM CPU engine on the tiny random model: streaming, stats,
abort, concurrency, per-request errors, unload + second load, and a dead engine child."""

from __future__ import annotations

import os
import queue
import signal
import threading
from pathlib import Path

import psutil
import pytest

from console.config import EngineConfig
from console.sampling import SamplingSettings
from console.engine.in_process import InProcessEngine
from console.engine.types import (
    EngineBusy,
    EngineError,
    EngineState,
    GenerationRequest,
    RequestFailed,
    RequestFinished,
    TokenDelta,
)
from tests.conftest import TEST_KV_BYTES, HoldAtFirstToken, wait_for

pytestmark = pytest.mark.engine


def _req(n: int, prompt: str = "Hello there, tell me about GPUs.") -> GenerationRequest:
    return GenerationRequest(
        messages=[{"role": "user", "content": prompt}],
        sampling=SamplingSettings(temperature=0.0, max_tokens=n, ignore_eos=True),
    )


def test_stream_delivers_deltas_then_one_terminal_event(tiny_engine: InProcessEngine) -> None:
    events = list(tiny_engine.stream(_req(16), timeout=60))
    deltas = [e for e in events if isinstance(e, TokenDelta)]
    final = events[-1]
    assert isinstance(final, RequestFinished)
    assert final.finish_reason == "length" and final.output_tokens == 16
    assert sum(d.num_tokens for d in deltas) == 16 and len(deltas) > 1  # streamed, not one blob
    assert "".join(d.text for d in deltas) == final.text
    tok = tiny_engine.tokenizer
    text = tok.apply_chat_template(_req(1).messages, tokenize=False, add_generation_prompt=True)
    assert final.prompt_token_ids == tuple(tok.encode(text, add_special_tokens=False))
    assert final.prompt_tokens == len(final.prompt_token_ids) == tiny_engine.count_prompt_tokens(_req(1))
    assert final.ttft_s is not None and 0 < final.ttft_s <= final.e2e_s


def test_stat_logger_receives_real_engine_stats(tiny_engine: InProcessEngine) -> None:
    m = tiny_engine.metrics
    before_records, before_gen = m.records, m.totals["generation_tokens"]
    before_finished = len(m.finished())
    tiny_engine.generate(_req(12), timeout=60)
    # The last record() lands right after the final output: wait for it, not for a fixed time.
    wait_for(
        lambda: len(m.finished()) > before_finished and m.totals["generation_tokens"] - before_gen >= 12,
        30,
        "the stat logger's record of the request",
    )
    assert m.records > before_records
    fin = m.finished()[before_finished:]
    assert fin and fin[-1].generation_tokens == 12 and fin[-1].e2e_s > 0
    assert m.totals["peak_kv_usage"] > 0
    assert m.latency_percentiles("ttft")[50] is not None


def test_abort_keeps_partial_text_and_engine_stays_usable(tiny_engine: InProcessEngine) -> None:
    hold = HoldAtFirstToken()  # the cancel lands before the request can read on: no race
    handle = tiny_engine.submit(_req(900), hold)
    hold.cancel_and_release(handle)
    final = handle.result(timeout=60)
    assert isinstance(hold.events[0], TokenDelta)
    assert isinstance(final, RequestFinished) and final.finish_reason == "abort"
    assert 0 < final.output_tokens < 900 and final.text == hold.events[0].text
    assert isinstance(tiny_engine.generate(_req(4), timeout=60), RequestFinished)


def test_many_concurrent_requests_and_cancelling_one_leaves_others(tiny_engine: InProcessEngine) -> None:
    handles = [tiny_engine.submit(_req(24, f"question {i}")) for i in range(8)]
    hold = HoldAtFirstToken()  # cancelled at its first token, so it cannot finish first
    victim = tiny_engine.submit(_req(900, "long one"), hold)
    hold.cancel_and_release(victim)
    results = [h.result(timeout=120) for h in handles]
    assert all(isinstance(r, RequestFinished) and r.output_tokens == 24 for r in results)
    v = victim.result(timeout=60)
    assert isinstance(v, RequestFinished) and v.finish_reason == "abort"


def test_a_request_cancelled_before_it_starts_still_ends(tiny_engine: InProcessEngine) -> None:
    """A cancel that reaches the engine loop in the same turn as the submit cancels the task before
    its first step, so the request's own code never runs. Its handle must still resolve (a batch
    waiting on it hung CI for 75 minutes) and its sink must still get a terminal event."""
    blocked = threading.Event()
    queued = threading.Event()

    async def hold_the_loop() -> None:
        blocked.set()
        assert queued.wait(30)  # blocks the loop until the submit and cancel below are queued

    tiny_engine.run_coroutine(hold_the_loop())
    assert blocked.wait(10)
    events: queue.Queue = queue.Queue()
    handle = tiny_engine.submit(_req(64), events.put)
    handle.cancel()
    queued.set()
    final = handle.result(timeout=30)
    assert isinstance(final, RequestFinished) and final.finish_reason == "abort"
    assert final.output_tokens == 0
    assert events.get(timeout=5) == final
    assert isinstance(tiny_engine.generate(_req(4), timeout=60), RequestFinished)


def test_prompt_longer_than_context_is_a_per_request_error(tiny_engine: InProcessEngine) -> None:
    long_prompt = " ".join(["capital"] * 3000)  # far beyond max_model_len 1024
    ev = tiny_engine.generate(_req(4, long_prompt), timeout=60)
    assert isinstance(ev, RequestFailed)
    assert "length" in ev.message.lower() or "long" in ev.message.lower()
    assert tiny_engine.status.state == EngineState.READY
    assert isinstance(tiny_engine.generate(_req(4), timeout=60), RequestFinished)


def test_missing_model_folder_fails_fast_with_a_clear_message(tmp_path: Path) -> None:
    engine = InProcessEngine()
    try:
        with pytest.raises(EngineError, match="no config.json"):
            engine.load(EngineConfig(model=str(tmp_path / "gone"), device="cpu")).result(timeout=120)
        assert engine.status.state == EngineState.FAILED
        assert "no config.json" in (engine.status.error or "")
    finally:
        engine.close()


def _engine_children(before: set[int]) -> list[psutil.Process]:
    """Processes started since ``before``, minus multiprocessing's long-lived resource tracker."""
    out = []
    for p in psutil.Process().children(recursive=True):
        try:
            if p.pid not in before and "resource_tracker" not in " ".join(p.cmdline()):
                out.append(p)
        except psutil.NoSuchProcess:
            pass
    return out


def test_unload_second_load_and_dead_engine_recovery(
    tiny_model: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One dedicated engine: load → stream → unload → load with another KV size → kill the engine
    child mid-stream → clear error, FAILED → load again and answer, all in one process. Its three
    loads are recorded for the planner's self-calibration (this was
    test_planner_selfcal.py::test_in_process_engine_records_the_load and its own two loads): vLLM's
    engine-core process logs its KV line into our file, each load its own."""
    from console.planner.selfcal import read_loads

    monkeypatch.setenv("INFERENCE_CONSOLE_RECORD_LOADS", "1")
    monkeypatch.delenv("VLLM_LOGGING_CONFIG_PATH", raising=False)
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    engine = InProcessEngine()
    statuses: list[EngineState] = []
    failed = threading.Event()
    engine.add_status_listener(lambda s: (statuses.append(s.state), s.state == EngineState.FAILED and failed.set()))
    passed: list[tuple[str, ...]] = []  # the phases passed, as each status while loading said them
    engine.add_status_listener(lambda s: s.phases is not None and passed.append(tuple(p.name for p in s.phases.done)))
    cfg = EngineConfig(model=str(tiny_model), kv_cache_memory_bytes=TEST_KV_BYTES // 2, max_model_len=512, device="cpu")
    try:
        fut = engine.load(cfg, "tiny")
        with pytest.raises(EngineBusy):  # nothing else may load while one load runs
            engine.load(cfg, "tiny")
        info1 = fut.result(timeout=600)
        # vLLM's phases reached the listeners while it loaded, one after another (load_phases.py)
        assert len(set(passed)) >= 2 and passed[0][0] == "start", passed  # streamed, not all at the end
        assert all(b[: len(a)] == a for a, b in zip(passed, passed[1:])), passed  # each adds to the one before
        assert [p.name for p in info1.load_phases][:2] == ["start", "weights"]
        # the first chat's rendering is done after the load, before anything is asked (ChatWarmUp)
        warm = engine._chat_warm.task
        assert warm is not None and engine._tokenizer is not None  # the tokenizer: front_prep.py's
        wait_for(warm.done, 30, "the chat renderer's warm-up")
        assert not warm.cancelled() and engine._prompts._engine is engine._engine and "" in engine._prompts._renderers
        assert isinstance(engine.generate(_req(8), timeout=60), RequestFinished)
        engine.unload().result(timeout=120)
        assert engine.status.state == EngineState.STOPPED
        assert engine._chat_warm.task is None and engine._prompts._engine is None  # nothing of it kept
        wait_for(
            lambda: not [p for p in _engine_children(before) if p.is_running() and p.status() != psutil.STATUS_ZOMBIE],
            30,
            "the unloaded engine's processes to exit",
        )

        info2 = engine.load(cfg.replace(kv_cache_memory_bytes=TEST_KV_BYTES), "tiny").result(timeout=600)
        assert info2.kv_cache_tokens == 2 * info1.kv_cache_tokens  # really a new engine

        q: queue.Queue = queue.Queue()
        handle = engine.submit(_req(5000 // 10), q.put)
        assert isinstance(q.get(timeout=60), TokenDelta)
        for p in _engine_children(before):
            try:
                p.send_signal(signal.SIGKILL)
            except psutil.NoSuchProcess:
                pass
        final = handle.result(timeout=120)
        assert isinstance(final, (RequestFailed, RequestFinished))
        assert failed.wait(60), "the engine never reported the dead engine"
        assert engine.status.state == EngineState.FAILED
        assert "engine process stopped" in (engine.status.error or "")
        if isinstance(final, RequestFinished):  # the kill raced the last token: still not "ok"
            assert final.finish_reason == "abort"

        info3 = engine.load(cfg, "tiny").result(timeout=600)
        assert isinstance(engine.generate(_req(4), timeout=60), RequestFinished)
        assert statuses.count(EngineState.READY) >= 3
    finally:
        engine.close()
    # The recording (a second load in the same process: the first load's deleted capture files
    # must not linger, nor its report be read again).
    assert "VLLM_LOGGING_CONFIG_PATH" not in os.environ  # restored after each load
    records = read_loads("cpu")
    assert [r.kv_tokens for r in records] == [i.num_kv_blocks * i.block_size for i in (info1, info2, info3)]
    assert records[0].kv_tokens != records[1].kv_tokens  # each load's own report, not the first one twice
    r = records[1]
    assert r.device == "cpu" and r.kv_tokens == info2.num_kv_blocks * info2.block_size
    assert r.report.kv_tokens == r.kv_tokens  # parsed from the child's "CPU KV cache size" line
    assert r.report.cpu_kv_gib == pytest.approx(64 / 1024, abs=0.006)
    assert r.report.vllm_version == info2.vllm_version
    assert r.engine_args["max_model_len"] == 512 and r.engine_args["kv_cache_memory_bytes"] == TEST_KV_BYTES
    assert records[0].engine_args["kv_cache_memory_bytes"] == TEST_KV_BYTES // 2
    assert r.shape["layers"] == 2 and r.shape["head_dim"] == 64
    # the CPU's KV budget is exact: recorded, but no fit replaces the shipped cpu.json
    assert not list((home / "calibration" / "cpu").glob("vllm-*.json"))


def test_non_streaming_request_gives_one_final_event_with_the_same_text(tiny_engine: InProcessEngine) -> None:
    streamed = tiny_engine.generate(_req(20), timeout=60)
    quiet = _req(20)
    quiet.stream = False
    events = list(tiny_engine.stream(quiet, timeout=60))
    assert len(events) == 1 and isinstance(events[0], RequestFinished)
    final = events[0]
    assert isinstance(streamed, RequestFinished)
    assert final.text == streamed.text and final.output_tokens == 20  # greedy: same answer
    assert final.ttft_s is not None and 0 < final.ttft_s < final.e2e_s  # from vLLM's own metrics


def test_only_the_consoles_stat_logger_runs_in_the_engine(tiny_engine: InProcessEngine) -> None:
    """vLLM's default stat loggers (a log line every 5 s, Prometheus histograms fed per token) cost
    front-end time on every step and nothing reads them (the console's /metrics is built from its
    MetricsStore). The console's logger must be there, vLLM's real Prometheus logger must not."""
    from vllm.v1.metrics.loggers import LoggingStatLogger, PrometheusStatLogger

    def unwrap(logger: object) -> list[object]:
        inner = getattr(logger, "per_engine_stat_loggers", None)
        return list(inner.values()) if isinstance(inner, dict) else [logger]

    loggers = [x for lg in tiny_engine._engine.logger_manager.stat_loggers for x in unwrap(lg)]
    names = [type(x).__name__ for x in loggers]
    assert "ConsoleStatLogger" in names, names
    assert not any(isinstance(x, LoggingStatLogger) for x in loggers), names
    assert [type(x).__name__ for x in loggers if isinstance(x, PrometheusStatLogger)] == [
        "SilentPrometheusStatLogger"
    ], names
