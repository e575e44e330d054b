"""The one bounded-concurrency "run many requests" loop (console/engine/many.py) on the real CPU
engine (tiny model): the bound holds, cancel returns every request's terminal event, and an
engine that refuses requests stops the submits with the reason."""

from __future__ import annotations

from typing import Any

import pytest

from console.sampling import SamplingSettings
from console.engine.in_process import InProcessEngine
from console.engine.many import ManyRequests
from console.engine.types import EngineNotReady, GenerationRequest, RequestFinished
from console.jobs import TaskState

pytestmark = pytest.mark.engine


def _requests(n: int, max_tokens: int) -> list[tuple[int, GenerationRequest]]:
    s = SamplingSettings(temperature=0.0, max_tokens=max_tokens, ignore_eos=True)
    return [(i, GenerationRequest(prompt_token_ids=[5 + i, 6, 7, 8], sampling=s, stream=False)) for i in range(n)]


def test_at_most_concurrency_in_flight_and_every_request_done(tiny_engine: Any) -> None:
    many = ManyRequests(tiny_engine, _requests(7, 6), concurrency=2)
    keys = []
    for done in many:
        assert many.in_flight <= 2
        keys.append(done.key)
        assert isinstance(done.event, RequestFinished) and done.event.output_tokens == 6
        assert 0 <= done.sent_s <= done.done_s
    assert sorted(keys) == list(range(7))
    assert many.submit_error is None and not many.cancelled


def test_cancel_aborts_what_is_in_flight_and_yields_it(tiny_engine: Any) -> None:
    task = TaskState()
    # A 2-token request finishes first; the cancel follows its result, and the 1000-token ones
    # (ignore_eos: they cannot stop early) are hundreds of steps from their end by then.
    short = _requests(1, 2)
    long = [(i + 1, r) for i, (_, r) in enumerate(_requests(3, 1000))]
    many = ManyRequests(tiny_engine, short + long, concurrency=4, task=task)
    results = []
    for done in many:
        results.append(done)
        if done.key == 0:
            task.cancel()
    assert many.cancelled
    assert [d.key for d in results][0] == 0
    assert sorted(d.key for d in results) == [0, 1, 2, 3]  # nothing left behind, nothing lost
    assert all(isinstance(d.event, RequestFinished) and d.event.finish_reason == "abort" for d in results[1:])


def test_an_engine_that_refuses_stops_the_submits() -> None:
    engine = InProcessEngine()  # nothing loaded: every submit is refused
    try:
        many = ManyRequests(engine, _requests(3, 4), concurrency=2)
        assert list(many) == []
        assert isinstance(many.submit_error, EngineNotReady)
    finally:
        engine.close()
