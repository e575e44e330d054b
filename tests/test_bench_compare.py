"""A baseline's ratio compares runs of the same concurrency and arrival rate (no engine).

A plain-vLLM run of four prompts at once against the console's one-at-a-time run measured the
concurrency, not the path (0.264 on the CPU engine where one prompt each gave 1.09). The rule,
the wording, the HF batch chosen and the loop that drives vLLM's engine under a cap are pure
logic; the engine run of the same rule is in tests/test_bench_run.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from console.bench.baselines import hf_batch_size, run_windowed
from console.bench.report import add_comparison, compare, run_conditions
from console.messages import Message


def _fig(tps: float, cap: int | None = None, rate: float | None = None) -> dict[str, Any]:
    return {"output_tokens_per_s": tps, "max_concurrency": cap, "request_rate": rate}


def test_same_concurrency_gives_a_ratio() -> None:
    c = compare({"console": _fig(28.0, 1), "vllm": _fig(25.0, 1)}, num_prompts=4)
    assert c["conditions"]["console"] == c["conditions"]["vllm"] == {"concurrency": 1, "request_rate": None}
    assert c["ratios"]["console/vllm"] == pytest.approx(28.0 / 25.0)
    assert c["not_compared"] == {}


def test_other_concurrency_gives_no_ratio_and_says_why() -> None:
    """The old baseline: the console one at a time, plain vLLM every prompt at once."""
    c = compare({"console": _fig(28.4, 1), "vllm": _fig(107.5, None)}, num_prompts=4)
    assert c["conditions"]["console"]["concurrency"] == 1 and c["conditions"]["vllm"]["concurrency"] == 4
    assert c["ratios"] == {"console/vllm": None}
    why = c["not_compared"]["console/vllm"]
    assert isinstance(why, Message)  # the window translates it
    assert "at most 1 in flight" in why and "at most 4 in flight" in why and "no ratio" in why


def test_another_arrival_rate_gives_no_ratio() -> None:
    """HF's static batches cannot follow Poisson arrivals: it records every request at once."""
    results = {"console": _fig(20.0, 2, 3.0), "vllm": _fig(21.0, 2, 3.0), "hf": _fig(9.0, 2, None)}
    c = compare(results, num_prompts=6)
    assert c["ratios"]["console/vllm"] == pytest.approx(20.0 / 21.0)
    assert c["ratios"]["console/hf"] is None and c["ratios"]["vllm/hf"] is None
    assert "Poisson arrivals at 3 req/s" in c["not_compared"]["console/hf"]
    assert "every request sent at once" in c["not_compared"]["console/hf"]


def test_concurrency_is_bounded_by_the_prompts_and_vllms_max_num_seqs() -> None:
    # a cap above the prompt count is every prompt at once
    assert run_conditions("console", _fig(1.0, 8), 4, None)["concurrency"] == 4
    # vLLM's scheduler runs at most max_num_seqs; HF's batch is not bound by it
    assert run_conditions("vllm", _fig(1.0), 32, 8)["concurrency"] == 8
    assert run_conditions("hf", _fig(1.0, 16), 32, 8)["concurrency"] == 16
    c = compare({"console": _fig(1.0), "hf": _fig(1.0, 8)}, num_prompts=32, max_num_seqs=8)
    assert c["ratios"]["console/hf"] == 1.0


def test_failed_runs_are_left_out() -> None:
    c = compare({"console": _fig(1.0, 1), "vllm": {"error": "boom"}}, num_prompts=2)
    assert c["ratios"] == {} and "vllm" not in c["conditions"]


def test_the_report_and_its_text_state_each_runs_conditions(capsys: pytest.CaptureFixture[str]) -> None:
    """--json carries the ratio (null), the reason and each run's conditions; the text says them."""
    import json

    from console.cli.bench import _print_results

    report: dict[str, Any] = {
        "workload": {"num_prompts": 4},
        "engine_kwargs": {"max_num_seqs": 64},
        "results": {"console": _fig(28.4, 1), "vllm": _fig(107.5), "hf": _fig(10.0, 1)},
    }
    add_comparison(report)
    data = json.loads(json.dumps(report))
    assert data["ratios"]["console/vllm"] is None and "no ratio" in data["ratio_notes"]["console/vllm"]
    assert data["ratios"]["console/hf"] == pytest.approx(2.84)
    assert "console/hf" not in data["ratio_notes"]
    assert data["run_conditions"]["vllm"] == {"concurrency": 4, "request_rate": None}
    for r in report["results"].values():
        r.update(total_tokens_per_s=1.0, requests_per_s=1.0)
    _print_results(report)
    out = capsys.readouterr().out
    assert "console ran with at most 1 in flight, every request sent at once" in out
    assert "vllm ran with at most 4 in flight" in out
    assert "console/vllm: no ratio (" in out and "console/hf: 2.840" in out


def test_hf_batches_follow_the_runs_concurrency() -> None:
    assert hf_batch_size({"max_concurrency": 1}, 4) == 1
    assert hf_batch_size({}, 4) == 4  # every prompt at once
    assert hf_batch_size({"engine_kwargs": {"max_num_seqs": 2}}, 4) == 2
    assert hf_batch_size({"max_concurrency": 1, "hf_batch_size": 3}, 4) == 3  # asked for: no ratio then


class _FakeEngine:
    """An LLMEngine stand-in: each request takes ``steps`` steps; records what ran at each step."""

    def __init__(self, steps: int = 3) -> None:
        self.steps, self.left, self.running = steps, {}, []  # type: ignore[var-annotated]
        self.order: list[str] = []

    def add_request(self, rid: str, prompt: Any, params: Any) -> None:
        self.left[rid] = self.steps
        self.order.append(rid)

    def step(self) -> list[Any]:
        self.running.append(sorted(self.left))
        out = []
        for rid in list(self.left):
            self.left[rid] -= 1
            if not self.left[rid]:
                del self.left[rid]
                out.append(type("Out", (), {"finished": True, "request_id": rid})())
        return out


def test_the_vllm_loop_keeps_a_sliding_window_of_the_cap() -> None:
    engine = _FakeEngine(steps=3)
    outs, peak = run_windowed(engine, [{}] * 5, None, 2, [0.0] * 5)
    assert len(outs) == 5 and peak == 2
    assert max(len(r) for r in engine.running) == 2
    assert engine.order == ["w0", "w1", "w2", "w3", "w4"]  # in the workload's order
    one_at_a_time = _FakeEngine(steps=2)
    outs, peak = run_windowed(one_at_a_time, [{}] * 3, None, 1, [0.0] * 3)
    assert peak == 1 and all(len(r) == 1 for r in one_at_a_time.running)
    everything = _FakeEngine()
    assert run_windowed(everything, [{}] * 4, None, None, [0.0] * 4)[1] == 4


def test_the_vllm_loop_waits_for_each_arrival() -> None:
    import time

    engine = _FakeEngine(steps=1)
    t0 = time.perf_counter()
    outs, peak = run_windowed(engine, [{}] * 2, None, None, [0.0, 0.05])
    assert len(outs) == 2 and peak == 1  # the second arrived after the first had finished
    assert time.perf_counter() - t0 >= 0.05
