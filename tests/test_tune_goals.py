"""Auto-tune goals without an engine: how each goal chooses among recorded trials (a trial over a
"many" limit is never chosen, none when none keeps them), the user's own workloads (a batch file,
saved conversations replayed turn by turn), the one-user grid and what it leaves out and why, the
EAGLE-3 draft head found in the model store, and the preset text that says goal, workload and limits."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from console.bench.tune_goal import Goal, choose
from console.bench.tune_one_user import cpu_fp8_kv_refusal, find_eagle3_head, one_user_grid
from console.bench.tune_result import Trial, TuneResult, best_line, describe
from console.bench.user_workloads import from_conversations, from_prompts_file
from console.chat.conversations import ConversationStore
from console.config import EngineConfig
from console.models.store import ModelEntry, ModelStore
from tests.fixtures.stand_in import StandInLoader


def _figures(tok_s: float, tpot_ms: float, ttft_ms: float, longest_ttft_ms: float = 0.0) -> dict:
    return {
        "output_tokens_per_s": tok_s,
        "tpot_s": {"p50": tpot_ms / 1000 * 0.9, "p95": tpot_ms / 1000},
        "ttft_s": {"p50": ttft_ms / 2000, "p95": ttft_ms / 1000, "p99": ttft_ms / 1000},
        "longest_prompt": {"prompt_tokens": 900, "ttft_s": longest_ttft_ms / 1000},
    }


def _trials() -> list[Trial]:
    return [
        Trial({}, "ok", figures=_figures(100.0, 20.0, 300.0, 800.0), label="default"),
        Trial({"max_num_seqs": 64}, "ok", figures=_figures(300.0, 45.0, 900.0)),  # the most tok/s, slow per token
        Trial({"max_num_seqs": 16}, "ok", figures=_figures(200.0, 30.0, 500.0)),
        Trial({"speculative_method": "ngram"}, "ok", figures=_figures(90.0, 12.0, 350.0, 700.0)),  # one user's
        Trial({"max_num_seqs": 128}, "failed", error="out of memory"),
        Trial({"max_num_seqs": 64}, "ok", figures=_figures(400.0, 10.0, 10.0), label="confirmation"),
    ]


def test_each_goal_chooses_by_its_own_figure() -> None:
    trials = _trials()
    assert choose(trials, Goal()) == 1  # the most output tok/s (the confirmation is no choice of its own)
    assert choose(trials, Goal("one-user")) == 3  # the lowest TPOT
    assert choose(trials, Goal("many", max_tpot_ms=40.0)) == 2  # trial 2 (45 ms p95 TPOT) is over the limit
    assert choose(trials, Goal("many", max_tpot_ms=40.0, max_ttft_ms=400.0)) == 0
    assert choose(trials, Goal("many", max_tpot_ms=5.0)) is None  # none within the limits: none chosen
    over = Goal("many", max_tpot_ms=40.0).over_limits(trials[1].figures)
    assert over == "p95 TPOT 45.0 ms over the 40 ms limit"
    line = best_line(trials, 0, Goal("one-user"))
    assert "trial 4" in line and "TPOT 10.8 ms" in line and "TTFT on the longest prompt 700 ms" in line
    assert "no trial within the limits" in best_line(trials, 0, Goal("many", max_ttft_ms=1.0))


def test_goal_checks_its_limits() -> None:
    with pytest.raises(ValueError, match="needs a limit"):
        Goal("many")
    with pytest.raises(ValueError, match="unknown goal"):
        Goal("fastest")
    assert Goal("one-user").in_flight == 1 and Goal("many", 10.0).in_flight is None


def test_preset_text_says_goal_workload_and_limits() -> None:
    trials = _trials()
    goal = Goal("many", max_ttft_ms=600.0, max_tpot_ms=40.0)
    result = TuneResult(
        trials=trials,
        pareto=[1, 2, 3],
        best=choose(trials, goal),
        default=0,
        workload={"name": "your conversations: 7 answers of 2 conversation(s)", "source": "your conversations"},
        device="cpu",
        vllm_version="0.32.0",
        goal=goal.to_dict(),
    )
    text = describe(result, 2)
    assert "many users" in text and "p95 TTFT at most 600 ms and p95 TPOT at most 40 ms" in text
    assert "your conversations: 7 answers" in text and "its own output lengths" in text
    assert "measured p95 TTFT 500 ms, p95 TPOT 30.0 ms" in text
    one = TuneResult(trials, [], 3, default=0, workload={"name": "synthetic 4x64->16"}, goal=Goal("one-user").to_dict())
    text = describe(one, 3)
    assert "one user" in text and "TPOT 10.8 ms at one request in flight" in text
    assert "0.60x vLLM's defaults' 18.0 ms" in text and "TTFT on the longest prompt 700 ms" in text


def test_prompts_file_workload_keeps_each_line_and_its_length(tmp_path: Path) -> None:
    f = tmp_path / "mine.jsonl"
    lines = [
        {"messages": [{"role": "user", "content": "Rewrite: " + "word " * 50}], "max_tokens": 40},
        {"prompt": "Complete this", "max_tokens": 7},
        {"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]},
    ]
    f.write_text("\n".join(json.dumps(x) for x in lines), encoding="utf-8")
    w = from_prompts_file(f, output_len=16)
    assert w.source == "your prompts" and "mine.jsonl" in w.name and w.num_prompts == 3
    assert w.output_lens == [40, 7, 16] and w.output_len == 40
    assert w.messages[1] == [{"role": "user", "content": "Complete this"}]
    assert w.messages[2][0] == {"role": "system", "content": "Be brief."}


def test_conversations_replay_each_answer_with_the_conversation_before_it(home: Path) -> None:
    store = ConversationStore()
    try:
        a = store.create("code", system_prompt="You edit code.")
        store.append(a.id, "user", "Fix this: def f(): return 1")
        store.append(a.id, "assistant", "def f():\n    return 1", output_tokens=11)
        store.append(a.id, "user", "Now rename f to g")
        store.append(a.id, "assistant", "def g():\n    return 1", output_tokens=9)
        b = store.create("chat")
        store.append(b.id, "user", "Hello")
        store.append(b.id, "assistant", "x" * 40)  # no saved count: 40 characters, ~10 tokens
        store.create("empty")  # no answer: nothing to replay
        w = from_conversations(store)
        assert w.source == "your conversations" and w.num_prompts == 3 and "of 2 conversation(s)" in w.name
        assert w.output_lens == [11, 9, 10]
        first, second, third = w.messages
        assert first == [
            {"role": "system", "content": "You edit code."},
            {"role": "user", "content": "Fix this: def f(): return 1"},
        ]
        # the second turn's prompt starts with the whole first exchange: a shared prefix
        assert second[: len(first)] == first and second[len(first)] == {
            "role": "assistant",
            "content": "def f():\n    return 1",
        }
        assert second[-1] == {"role": "user", "content": "Now rename f to g"}
        assert third == [{"role": "user", "content": "Hello"}]
        assert from_conversations(store, max_requests=2).output_lens == [9, 10]  # the most recent answers
    finally:
        store.close()


def test_no_saved_conversation_says_so(home: Path) -> None:
    store = ConversationStore()
    try:
        with pytest.raises(ValueError, match="no saved conversation"):
            from_conversations(store)
    finally:
        store.close()


def test_one_user_grid_and_what_it_leaves_out(tiny_model: Path, home: Path) -> None:
    base = EngineConfig(model=str(tiny_model), device="cpu")
    points, pruned = one_user_grid(base, "cpu", store=ModelStore(), cpu_flags=set())
    reasons = {next(iter(p.point)): p.reason for p in pruned}
    assert "AVX-512 or AMX" in reasons["kv_cache_dtype"]  # a CPU without them: vLLM refuses FP8 KV
    assert "no EAGLE-3 draft head" in reasons["speculative_method"]
    assert "max_num_seqs barely matters" in reasons["max_num_seqs"]
    assert "checkpoint's own precision" in reasons["quantization"]
    assert {p.get("num_speculative_tokens") for p in points} == {None, 2, 4, 8}
    assert {p["kv_cache_dtype"] for p in points} == {"auto"} and all("max_num_seqs" not in p for p in points)
    points, _ = one_user_grid(base, "cpu", store=ModelStore(), cpu_flags={"avx512f"})
    assert {p["kv_cache_dtype"] for p in points} == {"auto", "fp8"}
    assert cpu_fp8_kv_refusal(48, {"avx512f"}, "x86_64") is not None  # head size not a multiple of 32
    assert cpu_fp8_kv_refusal(64, {"amx_tile"}, "x86_64") is None
    assert cpu_fp8_kv_refusal(64, {"avx512f"}, "aarch64") is not None
    gpu_points, gpu_pruned = one_user_grid(base, "cuda", native_fp8=True, store=ModelStore())
    assert {p.get("quantization") for p in gpu_points} == {None, "fp8"}
    assert {p["kv_cache_dtype"] for p in gpu_points} == {"auto", "fp8"}


def test_an_eagle3_head_in_the_store_is_found_and_tried(tiny_model: Path, home: Path) -> None:
    store = ModelStore()
    store.register(ModelEntry("tiny", str(tiny_model), "LlamaForCausalLM", 1, "float32", None, 1, 512, "org/tiny-chat"))
    head = home / "heads" / "tiny-eagle3"
    head.mkdir(parents=True)
    (head / "config.json").write_text(
        json.dumps(
            {
                "architectures": ["Eagle3Speculator"],
                "speculators_model_type": "eagle3",
                "speculators_config": {"verifier": {"name_or_path": "org/tiny-chat"}},
            }
        ),
        encoding="utf-8",
    )
    other = home / "heads" / "other-eagle3"
    other.mkdir(parents=True)
    (other / "config.json").write_text(
        json.dumps(
            {
                "architectures": ["LlamaForCausalLMEagle3"],
                "speculators_config": {"verifier": {"name_or_path": "org/other"}},
            }
        ),
        encoding="utf-8",
    )
    assert find_eagle3_head(str(tiny_model), store) is None
    store.register(ModelEntry("other-eagle3", str(other), "LlamaForCausalLMEagle3", 1, "bfloat16", None, 1, None, "hf"))
    assert find_eagle3_head(str(tiny_model), store) is None  # a head for another model
    store.register(ModelEntry("tiny-eagle3", str(head), "Eagle3Speculator", 1, "bfloat16", None, 1, None, "hf"))
    found = find_eagle3_head(str(tiny_model), store)
    assert found is not None and found.name == "tiny-eagle3"
    points, pruned = one_user_grid(EngineConfig(model=str(tiny_model), device="cpu"), "cpu", store=store)
    eagle = [p for p in points if p.get("speculative_method") == "eagle3"]
    assert eagle and all(p["speculative_model"] == str(head) and p["num_speculative_tokens"] == 3 for p in eagle)
    assert not any("EAGLE-3" in p.reason for p in pruned)


def test_cli_refuses_goal_flags_without_tune_or_limits(
    capsys: pytest.CaptureFixture[str], home: Path, tiny_model: Path
) -> None:
    from console.cli.main import main

    assert main(["bench", "--goal", "one-user", "--baselines", "none"]) == 2
    assert "--goal: only with --tune" in capsys.readouterr().err
    assert main(["bench", "--tune", "--goal", "many"]) == 2
    assert "needs a limit" in capsys.readouterr().err
    assert main(["bench", "--tune", "--max-tpot-ms", "30"]) == 2
    assert "limits of --goal many" in capsys.readouterr().err
    assert main(["bench", "--tune", "--model", str(tiny_model), "--tune-prompts", str(home / "none.jsonl")]) == 2
    assert "--tune-prompts" in capsys.readouterr().err


@pytest.mark.parametrize(("prompts", "stopped"), [(3, False), (6, True)])
def test_a_one_request_short_run_stops_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, prompts: int, stopped: bool
) -> None:
    """A 3-prompt workload's short run is one request: n-gram speculation, slower per token there
    and faster on the whole workload, is measured to the end (CI stopped it on one request's
    noise). With 6 prompts the short run is two requests, and the same figures stop it (the
    halving alone: the stand-in loads in no time, so the load's cost does not keep it going)."""
    monkeypatch.setattr("console.bench.tune_cost.STOP_SAVES_SHARE", 0.0)
    from console.bench.tune import tune
    from console.bench.workload import synthetic

    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text("{}")
    engine = StandInLoader(tmp_path / "m")

    def measure(eng: Any, workload: Any, in_flight: int | None) -> dict:
        spec = eng.config.speculative_method == "ngram"
        short = workload.num_prompts < prompts
        tpot = (14.0 if short else 8.0) if spec else 12.0
        return _figures(50.0, tpot, 100.0)

    w = synthetic(prompts, 16, 8, vocab_size=512, seed=1)
    grid = [{"speculative_method": "ngram", "num_speculative_tokens": 4}]
    result = tune(engine, engine.config, grid, w, budget_s=600, measure=measure, goal=Goal("one-user"))
    default, spec = result.trials
    assert default.status == "ok" and spec.knobs["speculative_method"] == "ngram"
    if stopped:
        assert spec.status == "stopped" and "short run" in (spec.error or "")
    else:
        assert spec.status == "ok", spec.error
        assert result.trials[result.best] is spec  # type: ignore[index]
