"""Statistics over per-request timings: rates, percentiles and the Pareto front.

Pure functions on plain numbers so they are tested on synthetic timings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from console.metrics.store import percentiles

QUANTILES = (50, 90, 95, 99)


@dataclass(frozen=True)
class RequestTiming:
    prompt_tokens: int
    output_tokens: int
    start_s: float  # when the request was sent, seconds from the run's start
    ttft_s: float | None
    e2e_s: float
    ok: bool = True
    #: time to first token inside the engine (queued by the engine core -> first token; None: unknown)
    engine_ttft_s: float | None = None

    @property
    def itl_s(self) -> float | None:
        """Mean inter-token latency of this request (decode time / (tokens - 1))."""
        if self.ttft_s is None or self.output_tokens < 2:
            return None
        return (self.e2e_s - self.ttft_s) / (self.output_tokens - 1)


def pcts(values: Iterable[float | None], qs: Sequence[float] = QUANTILES) -> dict[str, float | None]:
    vals = [v for v in values if v is not None]
    return {f"p{int(q)}": v for q, v in percentiles(vals, qs).items()} | {
        "mean": (sum(vals) / len(vals)) if vals else None
    }


def summarize(timings: Sequence[RequestTiming], duration_s: float) -> dict[str, Any]:
    """Throughput and latency figures of one run (``duration_s``: first send to last finish)."""
    ok = [t for t in timings if t.ok]
    out_tokens = sum(t.output_tokens for t in ok)
    in_tokens = sum(t.prompt_tokens for t in ok)
    rate = (lambda x: x / duration_s) if duration_s > 0 else (lambda x: 0.0)
    return {
        "requests": len(timings),
        "failed": len(timings) - len(ok),
        "duration_s": duration_s,
        "prompt_tokens": in_tokens,
        "output_tokens": out_tokens,
        "output_tokens_per_s": rate(out_tokens),
        "total_tokens_per_s": rate(out_tokens + in_tokens),
        "requests_per_s": rate(len(ok)),
        "ttft_s": pcts(t.ttft_s for t in ok),
        "engine_ttft_s": pcts(t.engine_ttft_s for t in ok),
        "itl_s": pcts(t.itl_s for t in ok),
        # vLLM's TPOT (time per output token after the first): each request's decode time over its
        # tokens after the first, the same per-request figure as ``itl_s``, under the name limits use
        "tpot_s": pcts(t.itl_s for t in ok),
        "e2e_s": pcts(t.e2e_s for t in ok),
        "longest_prompt": longest_prompt(ok),
    }


def longest_prompt(timings: Sequence[RequestTiming]) -> dict[str, Any] | None:
    """The request with the most prompt tokens: its length and its time to the first token (what
    one person waits before a long pasted prompt starts answering)."""
    if not timings:
        return None
    t = max(timings, key=lambda t: t.prompt_tokens)
    return {"prompt_tokens": t.prompt_tokens, "ttft_s": t.ttft_s}


def pareto_front(points: Sequence[tuple[float, float]]) -> list[int]:
    """Indices of points not dominated when maximising x (throughput) and minimising y (p99
    latency), sorted by x."""
    front = []
    for i, (x, y) in enumerate(points):
        dominated = any((x2 >= x and y2 <= y) and (x2 > x or y2 < y) for j, (x2, y2) in enumerate(points) if j != i)
        if not dominated:
            front.append(i)
    return sorted(front, key=lambda i: points[i][0])


def ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None
