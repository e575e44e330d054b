"""Issue 28: batch and bench give the engine their requests together, as vLLM's offline batch does.

On the shared tiny engine: a group submitted with ``submit_many`` is scheduled in one engine step
(vLLM's own per-request ``scheduled_ts``), identical greedy requests in it answer alike, and a
request already running when the group arrives is held, not aborted; requests submitted apart are
scheduled apart (the control that shows the measurement can tell). ``ManyRequests`` (batch, bench)
hands everything that is due to ``submit_many`` as one group, and a batch runs every line at once
by default.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from console.batch.formats import parse_jsonl
from console.batch.runner import run_batch
from console.config import SamplingSettings
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

    def __init__(self, host: Any) -> None:
        self._host = host
        self.groups: list[int] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._host, name)

    def submit_many(self, requests: Any, sinks: Any = None) -> Any:
        self.groups.append(len(requests))
        return self._host.submit_many(requests, sinks)


def test_a_group_starts_in_one_step_and_identical_requests_answer_alike(engine_host: Any) -> None:
    started = threading.Event()
    running = engine_host.submit(
        _req("Tell a long story.", max_tokens=160, stream=True),
        lambda ev: started.set() if isinstance(ev, TokenDelta) else None,
    )
    assert started.wait(120), "the running request produced no token"
    group = [_req("What is the capital of France?") for _ in range(4)] + [_req(f"Count to {i}.") for i in range(4)]
    results = [h.result(180) for h in engine_host.submit_many(group)]
    assert all(isinstance(r, RequestFinished) and r.finish_reason == "length" for r in results), results
    scheduled = {r.engine_scheduled_ts for r in results}
    assert None not in scheduled and len(scheduled) == 1, f"the group was scheduled over {len(scheduled)} steps"
    assert len({r.text for r in results[:4]}) == 1, [r.text for r in results[:4]]
    long = running.result(180)  # held while the group was added, then went on: not aborted
    assert isinstance(long, RequestFinished) and long.finish_reason == "length" and long.output_tokens == 160


def test_requests_submitted_apart_are_scheduled_apart(engine_host: Any) -> None:
    handles = []
    for i in range(3):
        handles.append(engine_host.submit(_req(f"Question {i}?")))
        time.sleep(0.3)
    results = [h.result(120) for h in handles]
    assert len({r.engine_scheduled_ts for r in results}) == 3


def test_many_requests_hands_over_what_is_due_as_one_group(engine_host: Any) -> None:
    requests = [(i, _req(f"Line {i}", max_tokens=4)) for i in range(7)]
    all_at_once = GroupRecorder(engine_host)
    done = list(ManyRequests(all_at_once, requests))
    assert all_at_once.groups == [7] and len(done) == 7
    assert len({d.event.engine_scheduled_ts for d in done}) == 1

    capped = GroupRecorder(engine_host)
    done = list(ManyRequests(capped, [(i, _req(f"Line {i}", max_tokens=4)) for i in range(7)], concurrency=3))
    assert capped.groups[0] == 3 and sum(capped.groups) == 7 and max(capped.groups) <= 3 and len(done) == 7


def test_a_batch_gives_the_engine_every_line_at_once_by_default(engine_host: Any, tmp_path: Path) -> None:
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
    recorder = GroupRecorder(engine_host)
    summary = run_batch(recorder, parsed.requests, tmp_path / "out.jsonl")
    assert summary.succeeded == 5 and recorder.groups == [5]


def test_the_engine_gets_vllms_offline_batch_defaults_and_the_planner_knows_them(engine_host: Any) -> None:
    """Built with vLLM's bare in-process context the engine had 2,048 batched tokens and 128
    sequences, where vLLM's offline batch on the same machine has more (issue 28: 0.44 of
    ``LLM.generate`` on an H200). The engine now has the offline defaults, and the planner's
    figure for an engine with no such knob set is the engine's."""
    from console.planner.defaults import scheduler_defaults
    from console.planner.gpus import get_gpu

    assert engine_host.config.max_num_batched_tokens is None and engine_host.config.max_num_seqs is None
    sc = engine_host._engine.vllm_config.scheduler_config
    assert (sc.max_num_batched_tokens, sc.max_num_seqs) == scheduler_defaults(get_gpu("cpu"))
    assert (sc.max_num_batched_tokens, sc.max_num_seqs) != (2048, 128)
