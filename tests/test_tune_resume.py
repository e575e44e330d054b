"""A tune saved after every trial goes on where it stopped: what it measured is kept, the rest is
tried, and the search decides as if it had never stopped (its halving scores rebuilt from the saved
runs). The search's bookkeeping is tested on a stand-in engine with set figures
(``tests.fixtures.stand_in.StandInLoader``: no vLLM, ``load`` becomes the configuration); the
last test resumes a tune on the real CPU engine."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from console.bench.tune import tune
from console.bench.tune_goal import Goal
from console.bench.tune_resume import (
    ResumeMismatch,
    load_state,
    result_from_dict,
    resumable,
    save_state,
    unfinished,
)
from console.bench.workload import synthetic
from console.config import EngineConfig
from console.jobs import TaskState
from tests.fixtures.stand_in import StandInLoader

#: each point's output tok/s on the whole workload and on its short run (the halving reads the latter)
SPEED = {512: (90.0, 95.0), 1024: (120.0, 118.0), 2048: (60.0, 40.0), 4096: (130.0, 125.0)}
GRID = {"max_num_batched_tokens": [512, 1024, 2048, 4096]}


def _measure(engine: StandInLoader, workload: Any, in_flight: int | None) -> dict[str, Any]:
    whole, short = SPEED.get(engine.config.max_num_batched_tokens or 0, (100.0, 100.0))
    tok_s = whole if workload.num_prompts >= 9 else short
    return {"output_tokens_per_s": tok_s, "tpot_s": {"p50": 1 / tok_s, "p95": 1.1 / tok_s}, "ttft_s": {"p95": 0.1}}


def _engine(tmp_path: Path) -> StandInLoader:
    (tmp_path / "m").mkdir(exist_ok=True)
    (tmp_path / "m" / "config.json").write_text("{}")
    return StandInLoader(tmp_path / "m")


def _outcome(result: Any) -> list[tuple[Any, str, str]]:
    return [(t.knobs.get("max_num_batched_tokens"), t.status, t.label) for t in result.trials]


def test_a_resumed_tune_decides_as_an_uninterrupted_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the halving alone (the stand-in loads in no time)
    monkeypatch.setattr("console.bench.tune_cost.STOP_SAVES_SHARE", 0.0)
    w = synthetic(9, 1000, 8, vocab_size=512, seed=1)
    whole = tune(_engine(tmp_path), EngineConfig(model=str(tmp_path / "m"), device="cpu"), GRID, w, measure=_measure)
    # the control: the halving stopped 2,048 on its short run, against the short runs before it
    # (resumed with no memory of them, the 40 tok/s would be the best short run so far and go on)
    assert _outcome(whole)[2] == (2048, "stopped", "")

    engine = _engine(tmp_path)
    task = TaskState()
    state = tmp_path / "tune-state.json"

    def stop_after_two(r: Any) -> None:
        save_state(state, r)
        if len(r.trials) >= 2:
            task.cancel()

    base = EngineConfig(model=str(tmp_path / "m"), device="cpu")
    first = tune(engine, base, GRID, w, measure=_measure, task=task, on_trial=stop_after_two)
    assert first.cancelled and [t.status for t in first.trials[:2]] == ["ok", "ok"]
    prior = load_state(state)
    assert prior is not None and len(prior.trials) == 2  # saved after each trial: the cancelled rest is not
    assert unfinished(prior) and unfinished(first) and not unfinished(whole)  # a crash's state too
    assert resumable(prior, dict(base.engine_kwargs())) and not resumable(whole, dict(base.engine_kwargs()))
    assert not resumable(prior, dict(base.replace(max_model_len=4096).engine_kwargs()))  # other settings loaded
    loads_before = len(engine.loads)
    resumed = tune(engine, base, GRID, w, measure=_measure, resume=prior)

    assert _outcome(resumed) == _outcome(whole)  # the same points, statuses and order as never stopped
    assert resumed.best == whole.best and resumed.trials[:2] == prior.trials  # kept as measured, not re-run
    measured_again = [c.max_num_batched_tokens for c in engine.loads[loads_before:]]
    assert sorted(x for x in measured_again if x) == sorted(
        t.knobs["max_num_batched_tokens"] for t in whole.trials[2:]
    )  # only the points the first part had not reached were loaded
    assert resumed.resumed == [{"trials_kept": 2, "after_s": first.tune_seconds}]
    assert resumed.tune_seconds >= first.tune_seconds and resumed.started_utc == first.started_utc

    again = tune(engine, base, GRID, w, measure=_measure, resume=resumed)  # nothing left: nothing loads
    assert _outcome(again) == _outcome(whole) and len(engine.loads) == loads_before + len(measured_again)
    assert len(again.resumed) == 2


def test_a_saved_tune_reads_back_as_it_was(tmp_path: Path) -> None:
    w = synthetic(9, 1000, 8, vocab_size=512, seed=1)
    result = tune(_engine(tmp_path), EngineConfig(model=str(tmp_path / "m"), device="cpu"), GRID, w, measure=_measure)
    save_state(tmp_path / "s.json", result)
    back = load_state(tmp_path / "s.json")
    assert back is not None and back.to_dict() == json.loads(json.dumps(result.to_dict()))
    assert result_from_dict({**result.to_dict(), "command": "a script's own key"}).trials == back.trials
    assert load_state(tmp_path / "none.json") is None
    (tmp_path / "bad.json").write_text('{"not": "a tune"}')
    with pytest.raises(ValueError, match="not a saved tune"):
        load_state(tmp_path / "bad.json")


def test_another_goal_or_workload_is_not_continued(tmp_path: Path) -> None:
    w = synthetic(9, 1000, 8, vocab_size=512, seed=1)
    engine = _engine(tmp_path)
    base = EngineConfig(model=str(tmp_path / "m"), device="cpu")
    prior = tune(engine, base, GRID, w, measure=_measure)
    loads = len(engine.loads)
    with pytest.raises(ResumeMismatch, match="goal"):
        tune(engine, base, GRID, w, measure=_measure, goal=Goal("one-user"), resume=prior)
    other = synthetic(12, 1000, 8, vocab_size=512, seed=1)
    with pytest.raises(ResumeMismatch, match="workload|number of prompts"):
        tune(engine, base, GRID, other, measure=_measure, resume=prior)
    (tmp_path / "m2").mkdir()
    (tmp_path / "m2" / "config.json").write_text("{}")
    with pytest.raises(ResumeMismatch, match=r"other engine arguments \(model\)"):  # another model
        tune(engine, base.replace(model=str(tmp_path / "m2")), GRID, w, measure=_measure, resume=prior)
    assert len(engine.loads) == loads  # refused before anything loaded


def test_the_cli_refuses_a_state_file_that_is_no_tune_before_loading(
    capsys: pytest.CaptureFixture[str], home: Path, tiny_model: Path
) -> None:
    from console.cli.main import main

    bad = home / "notes.json"
    bad.parent.mkdir(parents=True, exist_ok=True)
    bad.write_text("[1, 2]")
    assert main(["bench", "--tune", "--model", str(tiny_model), "--tune-state", str(bad)]) == 2
    assert "--tune-state" in (err := capsys.readouterr().err) and "not a saved tune" in err
    assert main(["bench", "--model", str(tiny_model), "--tune-state", str(bad), "--baselines", "none"]) == 2
    assert "--tune-state: only with --tune" in capsys.readouterr().err


@pytest.mark.engine
def test_resume_on_the_cpu_engine(tiny_engine: Any, tmp_path: Path) -> None:
    """Cancelled after vLLM's defaults were measured on the tiny model, then resumed: the defaults
    are not measured again and the two loads the first part never reached run now."""
    base = tiny_engine.requested_config
    w = synthetic(4, 600, 8, vocab_size=tiny_engine.tokenizer.vocab_size, seed=4)  # 2,400 tokens: neither dominated
    grid = {"max_num_batched_tokens": [512, 2048]}
    task = TaskState()
    first = tune(tiny_engine, base, grid, w, budget_s=600, task=task, on_trial=lambda r: task.cancel())
    assert first.cancelled and first.trials[0].label == "default" and first.trials[0].status == "ok"
    save_state(tmp_path / "state.json", first)
    prior = load_state(tmp_path / "state.json")
    assert prior is not None
    result = tune(tiny_engine, base, grid, w, budget_s=600, resume=prior)
    default, *points = result.trials
    assert default.runs == first.trials[0].runs and default.load_seconds is None  # kept, not run again
    assert sorted(p.knobs["max_num_batched_tokens"] for p in points) == [512, 2048]
    assert all(p.status in ("ok", "stopped") and p.load_seconds for p in points), [p.error for p in points]
    assert not result.cancelled and result.resumed[0]["trials_kept"] == 1
