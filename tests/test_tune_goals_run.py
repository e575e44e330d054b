"""Auto-tune goals on the real CPU engine (tiny model): ``bench --tune --goal one-user`` with the
user's own prompts chooses by time per output token at one request in flight and reports the time
to the first token on the longest prompt; ``--goal many`` never chooses a trial over its limit
(the limit taken from a first run of the same engine, so trials fall on either side as timing has
it; what is asserted holds on both sides)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from conftest import TEST_KV_BYTES
from console.bench.runner import run_console
from console.bench.tune import tune
from console.bench.tune_goal import Goal, tpot_ms
from console.bench.workload import synthetic
from console.config import EngineConfig

pytestmark = pytest.mark.engine


def test_bench_tune_one_user_chooses_by_tpot(tiny_model: Path, home: Path, tmp_path: Path, capsys: Any) -> None:
    from console.cli.main import main

    prompts = tmp_path / "mine.jsonl"
    passage = " ".join(f"line {i}: the value is {i * 7}." for i in range(40))
    lines = [
        {"messages": [{"role": "user", "content": "Say hi."}], "max_tokens": 6},
        {"messages": [{"role": "user", "content": f"Repeat this passage:\n{passage}"}], "max_tokens": 12},
        {"prompt": "Edit: x = 1", "max_tokens": 8},
    ]
    prompts.write_text("\n".join(json.dumps(x) for x in lines), encoding="utf-8")
    report = tmp_path / "tune.json"
    rc = main(
        [
            "bench",
            "--model",
            str(tiny_model),
            "--preset",
            "cpu-default",
            "--device",
            "cpu",
            "--kv-cache-memory-bytes",
            str(TEST_KV_BYTES),
            "--max-model-len",
            "1024",
            "--tune",
            "--goal",
            "one-user",
            "--tune-prompts",
            str(prompts),
            "--tune-grid",
            "speculative_method=ngram; num_speculative_tokens=4",
            "--tune-budget-s",
            "600",
            "--report",
            str(report),
        ]
    )
    assert rc == 0
    tuned = json.loads(report.read_text(encoding="utf-8"))["tune"]
    assert tuned["goal"]["kind"] == "one-user"
    assert tuned["workload"]["source"] == "your prompts" and "mine.jsonl" in tuned["workload"]["name"]
    ok = [(i, t) for i, t in enumerate(tuned["trials"]) if t["status"] == "ok"]
    assert len(ok) == 2, [t["error"] for t in tuned["trials"]]  # vLLM's defaults and n-gram speculation
    assert tuned["trials"][0]["label"] == "default" and tuned["trials"][1]["knobs"]["speculative_method"] == "ngram"
    for _, t in ok:
        assert all(r["in_flight"] == 1 for r in t["runs"])  # one user: one request in flight
        assert t["figures"]["max_concurrency"] == 1
        assert t["figures"]["output_tokens"] == 26  # each answer as long as its line's max_tokens
        longest = t["figures"]["longest_prompt"]
        assert longest["prompt_tokens"] == max(longest["prompt_tokens"], 200) and longest["ttft_s"] > 0
        assert t["load_seconds"] > 0
    best = min(ok, key=lambda it: tpot_ms(it[1]["figures"]) or math.inf)[0]
    assert tuned["best"] == best  # the lowest TPOT, whatever its tok/s
    d, b = tuned["trials"][0]["figures"], tuned["trials"][best]["figures"]
    assert tuned["tpot_ratio_vs_default"] == pytest.approx(tpot_ms(b) / tpot_ms(d))
    out = capsys.readouterr().out
    assert "TTFT longest ms" in out and "goal: one user" in out and "load s" in out
    assert "no EAGLE-3 draft head" not in out  # a grid of the user's own: nothing of the one-user grid pruned


def test_goal_many_never_chooses_a_trial_over_the_limit(tiny_engine: Any) -> None:
    base = EngineConfig(
        model=tiny_engine.config.model, kv_cache_memory_bytes=TEST_KV_BYTES, max_model_len=1024, device="cpu"
    )
    w = synthetic(4, 32, 16, vocab_size=tiny_engine.tokenizer.vocab_size, seed=4)
    first = run_console(tiny_engine, w)
    limit = tpot_ms(first, "p95")
    assert limit is not None
    goal = Goal("many", max_tpot_ms=limit)
    try:
        result = tune(tiny_engine, base, {"max_num_seqs": [1, 4]}, w, budget_s=600, goal=goal)
    finally:
        tiny_engine.load(base, "tiny").result(timeout=600)  # the session's engine as conftest loaded it
    ok = [i for i, t in enumerate(result.trials) if t.status == "ok"]
    assert result.trials[0].status == "ok" and result.goal["max_tpot_ms"] == limit
    for t in result.trials[1:]:  # measured, or stopped after its short run (over the limit, or slower)
        assert t.status == "ok" or (t.status == "stopped" and "short run" in (t.error or "")), t.error
    for i in ok:
        t = result.trials[i]
        over = tpot_ms(t.figures, "p95") > limit  # type: ignore[operator]
        assert bool(t.over_limits) == over and (not over or result.best != i)
    if result.best is None:
        assert "no trial kept the limits" in result.note
    else:
        assert tpot_ms(result.trials[result.best].figures, "p95") <= limit  # type: ignore[operator]


def test_bench_tune_state_goes_on_after_a_short_first_part(
    tiny_model: Path, home: Path, tmp_path: Path, capsys: Any
) -> None:
    """``--tune-state``: a first part whose budget holds only vLLM's defaults saves them; the same
    command again goes on from the file, measures the two points never reached and not the defaults."""
    from console.cli.main import main

    state = tmp_path / "tune-state.json"

    def bench(budget_s: str) -> dict[str, Any]:
        report = tmp_path / f"r-{budget_s}.json"
        args = ["bench", "--model", str(tiny_model), "--preset", "cpu-default", "--device", "cpu"]
        args += ["--kv-cache-memory-bytes", str(TEST_KV_BYTES), "--max-model-len", "1024", "--baselines", "none"]
        args += ["--num-prompts", "4", "--input-len", "600", "--output-len", "8", "--tune", "--tune-budget-s", budget_s]
        args += ["--tune-grid", "max_num_batched_tokens=512,2048", "--tune-state", str(state), "--report", str(report)]
        assert main(args) == 0
        return dict(json.loads(report.read_text(encoding="utf-8"))["tune"])

    first = bench("0.001")
    assert [t["status"] for t in first["trials"]] == ["ok", "skipped", "skipped"]  # the budget held no load
    assert json.loads(state.read_text(encoding="utf-8"))["trials"][0]["runs"] == first["trials"][0]["runs"]
    capsys.readouterr()
    second = bench("600")
    err = capsys.readouterr().err
    assert f"going on from {state}: 1 trial(s) measured" in err
    default, *points = second["trials"]
    assert default["runs"] == first["trials"][0]["runs"]  # the defaults kept, not measured again
    assert sorted(p["knobs"]["max_num_batched_tokens"] for p in points) == [512, 2048]
    assert all(p["status"] in ("ok", "stopped") and p["load_seconds"] > 0 for p in points)
    assert second["resumed"][0]["trials_kept"] == 1 and second["tune_seconds"] >= first["tune_seconds"]
