"""Bench statistics on synthetic timings, workloads and the Pareto front (no engine)."""

from __future__ import annotations

import math
import statistics

import pytest

from console.metrics.timings import RequestTiming, pareto_front, pcts, ratio, summarize
from console.bench.workload import arrival_offsets, synthetic


def test_summarize_rates_and_percentiles() -> None:
    # 100 requests: ttft = 0.01*i, decode 9 more tokens at 0.02 s each, 10 prompt tokens.
    timings = [RequestTiming(10, 10, 0.0, 0.01 * i, 0.01 * i + 9 * 0.02) for i in range(1, 101)]
    timings.append(RequestTiming(0, 0, 0.0, None, 5.0, ok=False))
    s = summarize(timings, duration_s=4.0)
    assert s["requests"] == 101 and s["failed"] == 1
    assert s["output_tokens_per_s"] == pytest.approx(1000 / 4.0)
    assert s["total_tokens_per_s"] == pytest.approx(2000 / 4.0)
    assert s["requests_per_s"] == pytest.approx(25.0)
    # numpy-style linear interpolation: p50 of 0.01..1.00 is 0.505, p99 is 0.9901
    assert s["ttft_s"]["p50"] == pytest.approx(0.505)
    assert s["ttft_s"]["p90"] == pytest.approx(0.901)
    assert s["ttft_s"]["p99"] == pytest.approx(0.9901)
    assert s["itl_s"]["p50"] == pytest.approx(0.02) and s["itl_s"]["p99"] == pytest.approx(0.02)
    assert s["e2e_s"]["p99"] == pytest.approx(0.9901 + 0.18)
    assert s["e2e_s"]["mean"] == pytest.approx(statistics.mean(t.e2e_s for t in timings[:-1]))
    assert s["ttft_s"]["p95"] == pytest.approx(0.9505)
    # TPOT: each request's decode time over its tokens after the first (9 x 0.02 s over 9 tokens)
    assert s["tpot_s"]["p95"] == pytest.approx(0.02) and s["tpot_s"]["p50"] == pytest.approx(0.02)


def test_longest_prompt_ttft() -> None:
    timings = [
        RequestTiming(10, 4, 0.0, 0.1, 0.4),
        RequestTiming(900, 4, 0.0, 0.7, 1.0),
        RequestTiming(50, 4, 0, 0.2, 0.5),
    ]
    assert summarize(timings, 1.0)["longest_prompt"] == {"prompt_tokens": 900, "ttft_s": 0.7}


def test_edge_cases() -> None:
    assert pcts([]) == {"p50": None, "p90": None, "p95": None, "p99": None, "mean": None}
    assert pcts([3.0])["p99"] == 3.0
    assert RequestTiming(1, 1, 0, 0.1, 0.1).itl_s is None  # one token: no inter-token latency
    assert summarize([], 0.0)["output_tokens_per_s"] == 0.0
    assert ratio(1.0, 0.0) is None and ratio(3.0, 2.0) == 1.5


def test_pareto_front() -> None:
    pts = [(100, 2.0), (200, 3.0), (150, 3.5), (200, 2.5), (50, 1.0), (300, 10.0)]
    assert pareto_front(pts) == [4, 0, 3, 5]  # (150,3.5) and (200,3.0) are dominated
    assert pareto_front([]) == []


def test_workloads() -> None:
    w = synthetic(8, 32, 16, vocab_size=49152, seed=1)
    assert w.num_prompts == 8 and all(len(p) == 32 for p in w.prompt_token_ids)
    assert all(100 <= t < 49152 - 100 for p in w.prompt_token_ids for t in p)
    assert synthetic(8, 32, 16, 49152, seed=1).prompt_token_ids == w.prompt_token_ids
    with pytest.raises(ValueError):
        synthetic(0, 32, 16, 49152)
    assert arrival_offsets(4, None) == [0.0] * 4
    offs = arrival_offsets(4000, 20.0, seed=3)
    gaps = [b - a for a, b in zip(offs, offs[1:])]
    assert all(g >= 0 for g in gaps)
    assert statistics.mean(gaps) == pytest.approx(1 / 20.0, rel=0.05)  # Poisson: mean gap 1/R
    assert statistics.pstdev(gaps) == pytest.approx(1 / 20.0, rel=0.1)  # exponential: sd == mean
    assert not math.isinf(offs[-1])
