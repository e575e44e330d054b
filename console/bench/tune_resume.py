"""A tune that goes on where it stopped: its state saved after every trial (the result as
``TuneResult.to_dict`` writes it), read back by a later tune of the same goal and workload, which
keeps the measured trials as they were and tries the points still untried.

What carries over: every trial measured (whole workload, stopped by the halving, or failed), the
search's state rebuilt from their runs (each rung's scores, the compile keys already loaded), the
seconds already spent. What runs again: points that were skipped (budget) or cancelled, and vLLM's
defaults if they were never measured. A tune cut short (a closed window, a crash, a machine's time
limit) so loses at most the trial it was in. Plain data, no engine, no Qt."""

from __future__ import annotations

import json
import logging
import math
from dataclasses import fields
from pathlib import Path
from typing import Any

from console.atomic import atomic_write_text
from console.paths import data_home
from console.bench.tune_goal import Goal
from console.bench.tune_result import Trial, TuneResult

log = logging.getLogger(__name__)

#: the statuses a resumed tune keeps; "skipped" and "cancelled" points are tried again
KEPT = ("ok", "stopped", "failed")


class ResumeMismatch(ValueError):
    """A saved tune of another goal, workload, device or card: it cannot be continued."""


def result_from_dict(d: dict[str, Any]) -> TuneResult:
    """A result as :meth:`TuneResult.to_dict` wrote it (keys it does not know, such as a script's
    own additions, are ignored)."""
    known = {f.name for f in fields(TuneResult)} - {"trials"}
    trial_keys = {f.name for f in fields(Trial)}
    trials = [Trial(**{k: v for k, v in t.items() if k in trial_keys}) for t in d.get("trials", [])]
    return TuneResult(trials=trials, **{k: v for k, v in d.items() if k in known})


def load_state(path: Path) -> TuneResult | None:
    """The tune saved in ``path``; None when there is none. A file that is not a saved tune raises
    ValueError saying so."""
    if not path.is_file():
        return None
    try:
        d = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(d, dict) or not isinstance(d.get("trials"), list):
            raise ValueError("no trials in it")
        return result_from_dict(d)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{path} is not a saved tune ({exc})") from None


def last_tune_path() -> Path:
    """Where the window keeps its last tune, saved after every trial."""
    return data_home() / "tune" / "last-tune.json"


def read_last() -> TuneResult | None:
    """The window's last tune; None when there is none or it cannot be read (said in the log)."""
    try:
        return load_state(last_tune_path())
    except (ValueError, OSError) as exc:
        log.warning("the last tune cannot be read back: %s", exc)
        return None


def unfinished(result: TuneResult) -> bool:
    """Whether ``result`` left points it never reached (skipped for the budget, cancelled, or not
    yet started when the state was saved): fewer measured than vLLM's defaults and the plan's loads."""
    measured = [t for t in result.trials if t.status in KEPT and t.label != "confirmation"]
    return len(measured) < 1 + len(result.plan.get("candidates", []))


def save_state(path: Path, result: TuneResult) -> None:
    """Write ``result`` to ``path`` whole or not at all (a crash mid-write keeps the last state)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(result.to_dict(), indent=1, default=str))


def keep_state(path: Path, result: TuneResult) -> bool:
    """:func:`save_state` for the window: a disk that refuses costs the resume, not the tune (logged)."""
    try:
        save_state(path, result)
    except OSError as exc:
        log.warning("the tune could not be saved to %s: %s", path, exc)
        return False
    return True


def resumable(saved: TuneResult | None, base: dict[str, Any]) -> bool:
    """Whether ``saved`` left points untried and searched around ``base`` (the engine arguments
    loaded now): what the window's "Go on" needs."""
    return saved is not None and unfinished(saved) and plain(saved.base) == plain(base)


def plain(value: Any) -> Any:
    """``value`` as it reads back from a saved tune (tuples as lists, other objects as text)."""
    return json.loads(json.dumps(value, default=str))


def mismatch(
    prior: TuneResult, base: dict[str, Any], goal: Goal, workload: dict[str, Any], device: str, card: str | None
) -> str | None:
    """Why ``prior`` cannot be continued by a tune around ``base`` (engine arguments, the model
    among them) of ``goal`` on ``workload`` (its shape's ``name`` and ``num_prompts``), ``device``
    and ``card``; None when it can."""
    if plain(prior.base) != plain(base):
        changed = sorted(k for k in set(prior.base) | set(base) if plain(prior.base.get(k)) != plain(base.get(k)))
        return f"it searched around other engine arguments ({', '.join(changed)})"
    checks = (
        ("goal", prior.goal.get("text"), goal.to_dict().get("text")),
        ("workload", prior.workload.get("name"), workload.get("name")),
        ("number of prompts", prior.workload.get("num_prompts"), workload.get("num_prompts")),
        ("device", prior.device, device),
        ("card", prior.card, card),
    )
    for what, was, now in checks:
        if was != now:
            return f"the saved tune's {what} was {was!r}, this one's is {now!r}"
    return None


def run_score(run: dict[str, Any], goal: Goal) -> float:
    """A run's score as the search gave it, from what a trial keeps of the run."""
    tpot = {p: run.get(f"tpot_{p}_ms") for p in ("p50", "p95")}
    figures = {
        "output_tokens_per_s": run.get("output_tokens_per_s"),
        "tpot_s": {p: None if v is None else v / 1000.0 for p, v in tpot.items()},
        "ttft_s": {"p95": run.get("ttft_p95_s")},
    }
    return goal.score(figures)


def rung_scores(trials: list[Trial], goal: Goal, rungs: int) -> list[list[float]]:
    """Each rung's scores as the search appends them: a trial's best run on that rung."""
    out: list[list[float]] = [[] for _ in range(rungs)]
    for t in trials:
        best: dict[int, float] = {}
        for r in t.runs:
            rung = int(r.get("rung", 0))
            best[rung] = max(best.get(rung, -math.inf), run_score(r, goal))
        for rung, score in sorted(best.items()):
            if rung < rungs:
                out[rung].append(score)
    return out


__all__ = [
    "KEPT",
    "ResumeMismatch",
    "keep_state",
    "last_tune_path",
    "load_state",
    "mismatch",
    "plain",
    "read_last",
    "result_from_dict",
    "resumable",
    "rung_scores",
    "run_score",
    "save_state",
    "unfinished",
]
