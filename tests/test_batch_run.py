"""Batches on the real CPU engine (tiny random model, the session's shared engine): per-request
errors don't stop the batch, results are on disk as they finish, cancel keeps what finished,
resume skips what is done, concurrency is bounded."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from console.batch.formats import parse_jsonl
from console.batch.results import completed_ids, export_csv, iter_output
from console.batch.runner import BatchProgress, run_batch
from console.sampling import SamplingSettings
from console.jobs import TaskState

pytestmark = pytest.mark.engine


def line(cid: str, content: str, **body: Any) -> str:
    return json.dumps(
        {
            "custom_id": cid,
            "method": "POST",
            "url": "/v1/chat/completions",
            "body": {"messages": [{"role": "user", "content": content}], **body},
        }
    )


class CountingEngine:
    """The real engine, with the number of requests in flight counted (to check the bound)."""

    def __init__(self, engine: Any) -> None:
        self._engine = engine
        self._lock = threading.Lock()
        self.in_flight = 0
        self.peak = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._engine, name)

    def submit(self, request: Any, on_event: Any = None) -> Any:
        return self.submit_many([request], [on_event])[0]

    def submit_many(self, requests: Any, sinks: Any = None) -> Any:
        handles = self._engine.submit_many(requests, sinks)
        with self._lock:
            self.in_flight += len(handles)
            self.peak = max(self.peak, self.in_flight)

        def done(_: Any) -> None:
            with self._lock:
                self.in_flight -= 1

        for handle in handles:
            handle.future.add_done_callback(done)
        return handles


def test_batch_with_bad_lines_too_long_prompt_and_wrong_model(tiny_engine: Any, tmp_path: Path) -> None:
    text = "\n".join(
        [
            line("a", "Hello there", max_tokens=8, ignore_eos=True),
            "{broken",
            line("long", "word " * 3000, max_tokens=4),  # > max_model_len 1024
            line("b", "How are you?", max_tokens=6, ignore_eos=True),
            line("other", "hi", model="no-such-model"),
            json.dumps({"prompt": "plain", "custom_id": "c", "max_tokens": 5, "ignore_eos": True}),
        ]
    )
    parsed = parse_jsonl(text, SamplingSettings(temperature=0.0, max_tokens=16))
    assert [e.line for e in parsed.errors] == [2]
    out = tmp_path / "out.jsonl"
    progress: list[BatchProgress] = []
    seen_on_disk: list[bool] = []
    task_reports: list[Any] = []

    def on_result(r: Any) -> None:  # the line is on disk before the callback runs
        seen_on_disk.append(r.custom_id in completed_ids(out))

    summary = run_batch(
        tiny_engine,
        parsed.requests,
        out,
        TaskState(task_reports.append),
        concurrency=2,
        on_result=on_result,
        on_progress=progress.append,
    )
    assert (summary.succeeded, summary.failed, summary.not_run, summary.cancelled) == (3, 2, 0, False)
    assert all(seen_on_disk) and len(seen_on_disk) == 5
    by_id = {o["custom_id"]: o for o in iter_output(out)}
    assert set(by_id) == {"a", "long", "b", "other", "c"}
    assert by_id["a"]["response"]["body"]["usage"]["completion_tokens"] == 8
    assert by_id["b"]["response"]["body"]["choices"][0]["finish_reason"] == "length"
    assert by_id["c"]["metrics"]["output_tokens"] == 5 and by_id["c"]["metrics"]["ttft_s"] > 0
    assert by_id["a"]["metrics"]["latency_s"] >= by_id["a"]["metrics"]["ttft_s"]
    long_err = by_id["long"]["error"]
    assert by_id["long"]["response"]["status_code"] == 400
    assert long_err["code"] == "context_length_exceeded" and "max_model_len 1024" in long_err["message"]
    assert by_id["other"]["error"]["code"] == "model_not_found"
    assert progress[-1].done == 5 and progress[-1].total == 5 and progress[-1].eta_s == 0.0
    assert progress[-1].output_tokens == 19 and progress[-1].tokens_per_s > 0
    assert task_reports[-1].fraction == 1.0 and "5/5" in task_reports[-1].message
    # CSV export of the same results.
    assert export_csv(out, tmp_path / "out.csv", {r.custom_id: r.display_prompt for r in parsed.requests}) == 5
    # Re-running resumes: nothing left to do, nothing duplicated.
    again = run_batch(tiny_engine, parsed.requests, out)
    assert (again.skipped, again.succeeded, again.failed) == (5, 0, 0)
    assert len(out.read_text(encoding="utf-8").splitlines()) == 5


def test_cancel_keeps_finished_and_resume_completes(tiny_engine: Any, tmp_path: Path) -> None:
    n = 12
    text = "\n".join(line(f"r{i}", f"Count to {i}", max_tokens=24, ignore_eos=True) for i in range(n))
    requests = parse_jsonl(text).requests
    out = tmp_path / "out.jsonl"
    task = TaskState()
    engine = CountingEngine(tiny_engine)

    def on_result(r: Any) -> None:
        if len(completed_ids(out)) >= 3:
            task.cancel()

    first = run_batch(engine, requests, out, task, concurrency=3, on_result=on_result)
    assert first.cancelled and 3 <= first.succeeded < n
    assert engine.peak <= 3
    written = [o["custom_id"] for o in iter_output(out)]
    assert len(written) == first.succeeded == len(set(written))  # aborted ones were not written
    assert all(o["response"]["body"]["usage"]["completion_tokens"] == 24 for o in iter_output(out))
    second = run_batch(tiny_engine, requests, out, concurrency=4)
    assert second.skipped == first.succeeded and second.succeeded == n - first.succeeded
    ids = [o["custom_id"] for o in iter_output(out)]
    assert sorted(ids) == sorted(f"r{i}" for i in range(n))
