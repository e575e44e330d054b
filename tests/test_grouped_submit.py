"""Batch and bench give the engine their requests together, as vLLM's offline batch does.

On the shared tiny engine: a group submitted with ``submit_many`` is scheduled in one engine step
(vLLM's own per-request ``scheduled_ts``), identical greedy requests in it answer alike, and a
request already running when the group arrives is held, not aborted; requests submitted apart are
scheduled apart (the control that shows the measurement can tell). ``ManyRequests`` (batch, bench)
hands everything that is due to ``submit_many`` as one group, and a batch runs every line at once
by default.
"""

from __future__ import annotations

import asyncio
import functools
import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from console.batch.formats import parse_jsonl
from console.batch.runner import run_batch
from console.sampling import SamplingSettings
from console.engine.many import ManyRequests
from console.engine.types import GenerationRequest, RequestFinished, TokenDelta

pytestmark = pytest.mark.engine


def _req(text: str, max_tokens: int = 8, stream: bool = False) -> GenerationRequest:
    return GenerationRequest(
        messages=[{"role": "user", "content": text}],
        stream=stream,
        sampling=SamplingSettings(max_tokens=max_tokens, temperature=0.0, ignore_eos=True),
    )


class GroupRecorder:
    """The real engine, with the size of every ``submit_many`` group recorded."""

    def __init__(self, engine: Any) -> None:
        self._engine = engine
        self.groups: list[int] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._engine, name)

    def submit_many(self, requests: Any, sinks: Any = None) -> Any:
        self.groups.append(len(requests))
        return self._engine.submit_many(requests, sinks)


def test_a_group_starts_in_one_step_and_identical_requests_answer_alike(tiny_engine: Any) -> None:
    started = threading.Event()
    running = tiny_engine.submit(
        _req("Tell a long story.", max_tokens=160, stream=True),
        lambda ev: started.set() if isinstance(ev, TokenDelta) else None,
    )
    assert started.wait(120), "the running request produced no token"
    # 32: enough that, unheld, their adds span several of the tiny model's steps (8 could land in one)
    group = [_req("What is the capital of France?") for _ in range(4)] + [_req(f"Count to {i}.") for i in range(28)]
    results = [h.result(180) for h in tiny_engine.submit_many(group)]
    assert all(isinstance(r, RequestFinished) and r.finish_reason == "length" for r in results), results
    scheduled = {r.engine_scheduled_ts for r in results}
    assert None not in scheduled and len(scheduled) == 1, f"the group was scheduled over {len(scheduled)} steps"
    assert len({r.text for r in results[:4]}) == 1, [r.text for r in results[:4]]
    long = running.result(180)  # held while the group was added, then went on: not aborted
    assert isinstance(long, RequestFinished) and long.finish_reason == "length" and long.output_tokens == 160


def test_requests_submitted_apart_are_scheduled_apart(tiny_engine: Any) -> None:
    handles = []
    for i in range(3):
        handles.append(tiny_engine.submit(_req(f"Question {i}?")))
        time.sleep(0.3)
    results = [h.result(120) for h in handles]
    assert len({r.engine_scheduled_ts for r in results}) == 3


def test_many_requests_hands_over_what_is_due_as_one_group(tiny_engine: Any) -> None:
    requests = [(i, _req(f"Line {i}", max_tokens=4)) for i in range(7)]
    all_at_once = GroupRecorder(tiny_engine)
    done = list(ManyRequests(all_at_once, requests))
    assert all_at_once.groups == [7] and len(done) == 7
    assert len({d.event.engine_scheduled_ts for d in done}) == 1

    capped = GroupRecorder(tiny_engine)
    done = list(ManyRequests(capped, [(i, _req(f"Line {i}", max_tokens=4)) for i in range(7)], concurrency=3))
    assert capped.groups[0] == 3 and sum(capped.groups) == 7 and max(capped.groups) <= 3 and len(done) == 7


def test_a_batch_gives_the_engine_every_line_at_once_by_default(tiny_engine: Any, tmp_path: Path) -> None:
    lines = [
        {
            "custom_id": f"r{i}",
            "method": "POST",
            "url": "/v1/chat/completions",
            "body": {"messages": [{"role": "user", "content": f"Say {i}"}], "max_tokens": 4, "temperature": 0},
        }
        for i in range(5)
    ]
    parsed = parse_jsonl("\n".join(json.dumps(x) for x in lines))
    recorder = GroupRecorder(tiny_engine)
    summary = run_batch(recorder, parsed.requests, tmp_path / "out.jsonl")
    assert summary.succeeded == 5 and recorder.groups == [5]


def test_the_engine_gets_vllms_offline_batch_defaults_and_the_planner_knows_them(tiny_engine: Any) -> None:
    """Built with vLLM's bare in-process context the engine had 2,048 batched tokens and 128
    sequences, where vLLM's offline batch on the same machine has more (0.44 of
    ``LLM.generate`` on an H200). The engine now has the offline defaults, and the planner's
    figure for an engine with no such knob set is the engine's."""
    from console.planner.defaults import scheduler_defaults
    from console.planner.gpus import get_gpu

    assert tiny_engine.config.max_num_batched_tokens is None and tiny_engine.config.max_num_seqs is None
    sc = tiny_engine._engine.vllm_config.scheduler_config
    assert (sc.max_num_batched_tokens, sc.max_num_seqs) == scheduler_defaults(get_gpu("cpu"))
    assert (sc.max_num_batched_tokens, sc.max_num_seqs) != (2048, 128)


def test_the_hold_lasts_only_the_adds(tiny_engine: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A group's prompts are rendered, tokenized and processed into vLLM's requests while the
    scheduler still runs; it is held (the engine core's pause, without ``pause_generation``'s
    20 ms sleep) only while the prepared requests are added. Before, every request rendered its
    chat template after the pause, so a running request waited for the whole group's front end."""
    engine = tiny_engine._engine
    seen: dict[str, list[float]] = {"render": [], "process": [], "pause": [], "pause_generation": []}

    def spy_async(owner: Any, attr: str, name: str, at_start: bool = False) -> None:
        fn = getattr(owner, attr)

        @functools.wraps(fn)  # keeps the signature (the engine checks pause_generation's)
        async def timed(*args: Any, **kwargs: Any) -> Any:
            if at_start:
                seen[name].append(time.perf_counter())
            try:
                return await fn(*args, **kwargs)
            finally:
                if not at_start:
                    seen[name].append(time.perf_counter())

        monkeypatch.setattr(owner, attr, timed)

    def spy_sync(owner: Any, attr: str, name: str) -> None:
        fn = getattr(owner, attr)

        @functools.wraps(fn)
        def timed(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            finally:
                seen[name].append(time.perf_counter())

        monkeypatch.setattr(owner, attr, timed)

    spy_async(tiny_engine._prompts, "engine_input_and_constraint", "render")  # what the engine awaits per request
    spy_sync(engine.input_processor, "process_inputs", "process")
    spy_async(engine.engine_core, "pause_scheduler_async", "pause", at_start=True)
    spy_async(engine, "pause_generation", "pause_generation", at_start=True)
    started = threading.Event()
    running = tiny_engine.submit(
        _req("Tell a long story.", max_tokens=120, stream=True),
        lambda ev: started.set() if isinstance(ev, TokenDelta) else None,
    )
    try:
        assert started.wait(120), "the running request produced no token"
        results = [h.result(180) for h in tiny_engine.submit_many([_req(f"Name {i} colours.") for i in range(6)])]
    finally:
        end = running.result(180)  # the next test must find the engine idle
    assert all(isinstance(r, RequestFinished) for r in results), results
    assert len({r.engine_scheduled_ts for r in results}) == 1
    assert len(seen["pause"]) == 1 and seen["pause_generation"] == [], seen  # the core's pause, no sleep
    paused = seen["pause"][0]  # when the pause was sent
    assert len(seen["render"]) == 7 and max(seen["render"]) < paused, "a prompt was rendered inside the hold"
    assert len(seen["process"]) == 7 and max(seen["process"]) < paused, "input processing ran inside the hold"
    timing = tiny_engine.last_group
    assert timing is not None and timing.size == 6 and timing.prepared is not None and timing.prepared <= paused
    assert timing.added is not None and timing.resumed is not None and timing.held_s > 0
    assert isinstance(end, RequestFinished) and end.output_tokens == 120  # held, not aborted


def test_the_hold_takes_what_the_first_step_can_start(tiny_engine: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A group larger than one engine step can start is held only for the first step's requests;
    the rest are added after it, while the engine runs, as ``LLM.generate`` adds requests. Here the
    step is made three sequences wide; unchanged, all seven would be held (the control)."""
    from console import vllm_compat

    results = [h.result(180) for h in tiny_engine.submit_many([_req(f"Name {i} rivers.") for i in range(7)])]
    assert tiny_engine.last_group.held == 7  # the control: the real step takes all seven

    monkeypatch.setattr(vllm_compat, "scheduler_limits", lambda engine: (1_000_000, 3))
    results = [h.result(180) for h in tiny_engine.submit_many([_req(f"Name {i} lakes.") for i in range(7)])]
    assert all(isinstance(r, RequestFinished) and r.output_tokens == 8 for r in results), results
    timing = tiny_engine.last_group
    assert timing.size == 7 and timing.held == 3 and timing.held_s > 0
    held = {r.engine_scheduled_ts for r in results[:3]}
    assert len(held) == 1, "the first step's requests were not scheduled together"
    assert all(r.engine_scheduled_ts >= min(held) for r in results[3:])  # added after the held ones


def test_a_gate_counts_the_first_steps_tokens_and_sequences() -> None:
    """The gate's arithmetic alone (no engine): who joins the hold and when it closes."""
    from console.engine.grouped import FirstStep, SchedulerGate

    async def go() -> None:
        by_tokens = SchedulerGate(5, FirstStep(tokens=100, seqs=10))
        assert [by_tokens.join(n) for n in (60, 30)] == [True, True] and not by_tokens.full
        assert by_tokens.join(20) and by_tokens.full  # the request that crosses the budget starts too
        assert by_tokens.join(5) is False and by_tokens.timing.held == 3
        by_seqs = SchedulerGate(4, FirstStep(tokens=10_000, seqs=2))
        assert [by_seqs.join(1) for _ in range(4)] == [True, True, False, False]
        everyone = SchedulerGate(3, None)  # no limits known: the whole group is held
        everyone.join(10_000)
        everyone.leave()  # failed before it was prepared: the hold must not wait for it
        assert not everyone.full and everyone.join(1) and everyone.full and everyone.timing.held == 2
        for gate in (by_tokens, by_seqs, everyone):
            assert gate.timing.prepared is not None

    asyncio.run(go())
