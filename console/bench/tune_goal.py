"""What auto-tune optimises, and how a trial is judged and chosen:

- ``throughput``: the most output tokens/s on the workload (a synthetic batch, by default);
- ``one-user``: the lowest time per output token (TPOT, median over the requests) with one
  request in flight, as one person chatting or one coding agent runs; the time to the first token
  on the workload's longest prompt is reported beside it;
- ``many``: the most output tokens/s whose p95 TTFT and p95 TPOT stay under the user's limits. A
  trial over a limit is marked (``Trial.over_limits``) and never chosen; when none meets them,
  none is chosen and the result says so.

Scores are "higher is better" so the search's successive halving and its choice of the best
level on a load read them the same way for every goal. Plain data, no engine.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

GOALS = ("throughput", "one-user", "many")


def tpot_ms(figures: dict[str, Any], p: str = "p50") -> float | None:
    v = (figures.get("tpot_s") or figures.get("itl_s") or {}).get(p)
    return None if v is None else 1000.0 * float(v)


def ttft_ms(figures: dict[str, Any], p: str = "p95") -> float | None:
    v = (figures.get("ttft_s") or {}).get(p)
    return None if v is None else 1000.0 * float(v)


def longest_prompt_ttft_ms(figures: dict[str, Any]) -> float | None:
    lp = figures.get("longest_prompt") or {}
    return None if lp.get("ttft_s") is None else 1000.0 * float(lp["ttft_s"])


@dataclass(frozen=True)
class Goal:
    kind: str = "throughput"
    max_ttft_ms: float | None = None  # "many": p95 time to first token at most this
    max_tpot_ms: float | None = None  # "many": p95 time per output token at most this

    def __post_init__(self) -> None:
        if self.kind not in GOALS:
            raise ValueError(f"unknown goal '{self.kind}' (one of {', '.join(GOALS)})")
        if self.kind == "many" and self.max_ttft_ms is None and self.max_tpot_ms is None:
            raise ValueError("goal 'many' needs a limit: --max-ttft-ms and/or --max-tpot-ms")
        for v in (self.max_ttft_ms, self.max_tpot_ms):
            if v is not None and v <= 0:
                raise ValueError("latency limits must be above 0 ms")

    @property
    def in_flight(self) -> int | None:
        """Requests in flight the goal fixes (one user: 1); None: the workload's own."""
        return 1 if self.kind == "one-user" else None

    def over_limits(self, figures: dict[str, Any]) -> str | None:
        """Why a run breaks the limits ("p95 TPOT 41.0 ms over the 40 ms limit"), None when it keeps them."""
        if self.kind != "many":
            return None
        out = []
        for name, limit, value in (
            ("TTFT", self.max_ttft_ms, ttft_ms(figures, "p95")),
            ("TPOT", self.max_tpot_ms, tpot_ms(figures, "p95")),
        ):
            if limit is None:
                continue
            if value is None:
                out.append(f"no p95 {name} measured (limit {limit:g} ms)")
            elif value > limit:
                out.append(f"p95 {name} {value:.1f} ms over the {limit:g} ms limit")
        return "; ".join(out) or None

    def score(self, figures: dict[str, Any]) -> float:
        """Higher is better; ``-inf`` for a run that cannot be chosen (over a limit, nothing measured)."""
        if self.kind == "one-user":
            t = tpot_ms(figures)
            return -t if t is not None else -math.inf
        if self.over_limits(figures):
            return -math.inf
        return float(figures.get("output_tokens_per_s") or 0.0)

    def score_text(self, figures: dict[str, Any]) -> str:
        if self.kind == "one-user":
            t = tpot_ms(figures)
            return "no TPOT measured" if t is None else f"TPOT {t:.1f} ms"
        return f"{float(figures.get('output_tokens_per_s') or 0.0):,.1f} tok/s"

    def text(self) -> str:
        """The goal in words, for the result, the report and a preset's text."""
        if self.kind == "one-user":
            return "one user: the lowest time per output token (TPOT) with one request in flight"
        if self.kind == "many":
            return "many users: the most output tok/s with " + self.limits_text()
        return "throughput: the most output tok/s"

    def limits_text(self) -> str:
        parts = [f"p95 {n} at most {v:g} ms" for n, v in (("TTFT", self.max_ttft_ms), ("TPOT", self.max_tpot_ms)) if v]
        return " and ".join(parts) or "no limits"

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "text": self.text()}

    @classmethod
    def from_dict(cls, d: dict[str, Any] | None) -> "Goal":
        d = d or {}
        return cls(d.get("kind", "throughput"), d.get("max_ttft_ms"), d.get("max_tpot_ms"))


def choose(trials: list[Any], goal: Goal) -> int | None:
    """The trial the goal picks among those measured on the whole workload (a confirmation run is
    not a separate choice); None when none qualifies (for "many": none within the limits)."""
    ok = [i for i, t in enumerate(trials) if t.status == "ok" and t.label != "confirmation"]
    scored = [(goal.score(trials[i].figures), i) for i in ok]
    scored = [(s, i) for s, i in scored if s != -math.inf]
    if not scored:
        return None
    return max(scored, key=lambda si: (si[0], -si[1]))[1]
