"""The quality gate judges answers, not only perplexity.

- The shipped evaluation set loads and is well-formed.
- On the real engine with the bundled SmolLM2 (every third question of the set): an unchanged
  copy passes; a checkpoint whose digit and capital-city token rows are swapped (the embedding is
  tied, so this relabels those tokens: text without them is untouched, answers that need them
  flip) keeps its perplexity on the held-out text within the limit and is still rejected, with
  its right -> wrong questions.
  Both scoring kinds (greedy + regex, option log-probabilities) run on the engine there.
"""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest

from console.quant.evalset import (
    EvalScore,
    EvalSet,
    EvalSetError,
    ItemResult,
    compare,
    load_eval_set,
    load_shipped_eval_set,
)
from console.quant.gate import CPU_NOTE, MAX_ACC_DROP, MAX_REGRESSIONS, ModelReport, judge, rescored

#: SmolLM2 token pairs swapped in the "flipped" checkpoint: digits are single tokens there
#: ("7" = 39), city names after a space are too (" Paris" = 7042).
SWAPS = [("4", "7"), ("3", "8"), ("2", "5"), (" Paris", " London"), (" Tokyo", " Rome"), (" Berlin", " Madrid")]


def test_the_shipped_set_is_well_formed() -> None:
    items = load_eval_set()
    assert items.name == "quick-v2"  # new gates are scored on v2; quick-v1 stays for old reports
    assert 100 <= len(items) <= 300
    kinds = {i.kind for i in items.items}
    langs = {i.lang for i in items.items}
    assert kinds == {"regex", "choice"} and langs == {"en", "zh"}
    # each item's own pattern/choices: tests/test_evalset_v2.py::test_shipped_sets_are_well_formed (v1 and v2)


def test_a_broken_set_names_its_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    good = {"id": "a", "kind": "regex", "prompt": "2+2?", "answer": "4", "pattern": "4"}
    bad.write_text(json.dumps(good) + "\n" + json.dumps({**good, "id": "b", "pattern": "(4"}) + "\n")
    with pytest.raises(EvalSetError, match="bad.jsonl line 2"):
        load_eval_set(bad)
    bad.write_text(json.dumps({"id": "c", "kind": "choice", "prompt": "?", "choices": ["x", "y"], "answer": 2}))
    with pytest.raises(EvalSetError, match="line 1"):
        load_eval_set(bad)


def _report(ppl: float, correct: list[bool], items: EvalSet | None = None) -> ModelReport:
    items = items or load_eval_set()
    score = EvalScore(
        items.name, [ItemResult(i.id, ok, i.expected if ok else "?") for i, ok in zip(items.items, correct)]
    )
    return ModelReport(
        "m",
        "/x",
        ppl,
        400,
        [],
        1,
        1,
        1.0,
        1.0,
        accuracy=score.accuracy,
        eval=score.to_dict(),
        engine={"device": "cpu", "vllm_version": "0.32.0", "dtype": "float16"},
    )


def _by_fact(flags: list[bool]) -> list[bool]:
    """``flags`` given in the order of quick-v2's items grouped by fact, largest facts first (so
    the first ones lost are few facts, under the regression cap), returned in the set's order."""
    items = load_eval_set().items
    size = Counter(i.fact for i in items)
    order = sorted(range(len(items)), key=lambda k: (-size[items[k].fact], items[k].fact, k))
    out = [False] * len(items)
    for flag, k in zip(flags, order):
        out[k] = flag
    return out


def test_accuracy_drop_rejects_even_when_perplexity_is_fine() -> None:
    n = len(load_eval_set())
    before = [True] * 150 + [False] * (n - 150)
    limit = MAX_ACC_DROP["awq"]
    lost = int(limit * n) + 3  # with the 2 fixes below: net drop just over the limit
    after = [False] * lost + [True] * (150 - lost) + [True, True] + [False] * (n - 152)
    result = judge("awq", _report(10.0, _by_fact(before)), _report(10.1, _by_fact(after)))
    assert result.ppl_passed and not result.acc_passed and not result.passed
    assert len(result.regressions) == lost and len(result.fixes) == 2
    assert result.message.startswith("Rejected (accuracy)")
    assert f"{lost} of {n} questions right -> wrong" in result.message and CPU_NOTE in result.message
    rows = result.table()
    assert rows[1][0] == "accuracy (quick-v2)"
    flipped = [r for r in rows if r[0].startswith("✗")]
    assert len(flipped) == lost and flipped[0][2] == "?" and len(result.facts_lost) <= result.regression_limit
    saved = result.lineage()
    assert saved["accuracy_drop"] == pytest.approx((lost - 2) / n) and len(saved["regressions"]) == lost
    within = [False] * (lost - 4) + [True] * (150 - lost + 4) + [False] * (n - 150)
    assert judge("awq", _report(10.0, _by_fact(before)), _report(10.1, _by_fact(within))).passed


def test_many_regressions_reject_even_when_fixes_offset_them() -> None:
    """FP8 on the H200 lost 15 questions and won 12 back (net -1.2 points, inside the limit): the
    regression cap rejects that; an unchanged share of losses under the cap still passes. On
    quick-v1, where every item is its own fact, the cap counts items."""
    v1 = load_shipped_eval_set("quick-v1")
    n = len(v1)
    cap = int(MAX_REGRESSIONS["fp8"] * n)
    before = [True] * 120 + [False] * (n - 120)
    lost, won = cap + 1, cap - 1  # net drop of 2 questions: 0.8 points, inside fp8's 2 points
    after = [False] * lost + [True] * (120 - lost) + [True] * won + [False] * (n - 120 - won)
    result = judge("fp8", _report(10.0, before, v1), _report(10.1, after, v1))
    assert result.ppl_passed and result.acc_passed and not result.reg_passed and not result.passed
    assert result.message.startswith("Rejected (regressions)")
    assert f"{lost} of {n} questions right -> wrong (limit {cap})" in result.message
    at_cap = [False] * cap + [True] * (120 - cap) + [True] * won + [False] * (n - 120 - won)
    assert judge("fp8", _report(10.0, before, v1), _report(10.1, at_cap, v1)).passed


def test_the_regression_cap_counts_facts_not_items() -> None:
    """quick-v2: the regex and choice forms of a question and its English and Chinese twins are one
    fact, so losing all four items of a fact counts once. Four whole facts lost (16 questions,
    offset by 15 fixes elsewhere) is at fp8's cap of 4 facts and passes, where counting items
    (16 > 7) rejected it; a fifth fact lost rejects, and the message gives both counts."""
    items = load_eval_set()
    cap = int(MAX_REGRESSIONS["fp8"] * items.facts)
    assert (items.facts, cap) == (146, 4)
    groups: dict[str, list[str]] = {}
    for item in items.items:
        groups.setdefault(item.fact, []).append(item.id)
    four = [ids for ids in groups.values() if len(ids) == 4][:cap]
    single = [ids[0] for ids in groups.values() if len(ids) == 1]
    lost_ids = {i for ids in four for i in ids}
    wrong_before = set(single[1:17])  # wrong before, right after: the fixes that keep the net drop small

    def reports(lost: set[str], won: set[str]) -> tuple[ModelReport, ModelReport]:
        before = [i.id not in wrong_before for i in items.items]
        after = [(i.id not in wrong_before and i.id not in lost) or i.id in won for i in items.items]
        return _report(10.0, before), _report(10.1, after)

    ok = judge("fp8", *reports(lost_ids, set(single[1:16])))
    assert (len(ok.regressions), len(ok.facts_lost), len(ok.fixes)) == (16, 4, 15)
    assert ok.passed, ok.message
    assert "16 of 253 questions right -> wrong, 4 of 146 facts (limit 4 facts)" in ok.message
    bad = judge("fp8", *reports(lost_ids | {single[0]}, set(single[1:17])))
    assert (len(bad.regressions), len(bad.facts_lost)) == (17, 5)
    assert bad.acc_passed and not bad.reg_passed and bad.message.startswith("Rejected (regressions)")
    assert bad.to_dict()["lost_facts"] == bad.lineage()["lost_facts"] == bad.facts_lost


def _recorded_gates() -> dict[str, tuple[str, ModelReport, ModelReport, list[str]]]:
    """The recorded gate reports of benchmarks/quality-gate.md (every item's answer kept): the H200
    run's AWQ and FP8 (benchmarks/gpu/results/acceptance.json) and the CPU's AWQ
    (benchmarks/results/quality-gate-cpu-awq.json.gz), all scored on quick-v1."""
    import gzip

    root = Path(__file__).resolve().parent.parent
    data = json.loads((root / "benchmarks/gpu/results/acceptance.json").read_text(encoding="utf-8"))
    out = {}
    for step in ("2", "3"):
        gate = data["steps"][step]["gate"]
        out[f"gpu-{gate['method']}"] = (
            gate["method"],
            ModelReport(**gate["original"]),
            ModelReport(**gate["quantized"]),
            [f["id"] for f in gate["regressions"]],
        )
    cpu = json.loads(gzip.open(root / "benchmarks/results/quality-gate-cpu-awq.json.gz", "rt", encoding="utf-8").read())
    out["cpu-awq"] = (
        "awq",
        ModelReport(**cpu["original"]),
        ModelReport(**cpu["quantized"]),
        [f["id"] for f in cpu.get("regressions", [])],
    )
    return out


def test_the_recorded_gates_rejudged_with_quick_v1() -> None:
    """A report is judged again with the set it was scored on (quick-v1 here, one fact per item):
    today's limits reject the H200's AWQ on accuracy and regressions (28), its FP8 on its 15
    regressions, which the net limit alone had accepted, and the CPU's AWQ on both (32)."""
    verdicts = {}
    for name, (method, original, quantized, recorded) in _recorded_gates().items():
        assert (original.eval or {})["set"] == "quick-v1"
        result = judge(method, original, quantized)
        if name.startswith("gpu"):
            assert [f.id for f in result.regressions] == recorded
        assert result.facts == 253 and result.facts_lost == [f.id for f in result.regressions]
        verdicts[name] = (result.passed, len(result.regressions), len(result.fixes), result.message.split(":")[0])
    assert verdicts == {
        "gpu-awq": (False, 28, 9, "Rejected (accuracy and regressions)"),
        "gpu-fp8": (False, 15, 12, "Rejected (regressions)"),
        "cpu-awq": (False, 32, 9, "Rejected (accuracy and regressions)"),
    }
    method, original, quantized, _ = _recorded_gates()["cpu-awq"]
    assert CPU_NOTE in judge(method, original, quantized).message
    with pytest.raises(EvalSetError, match="scored on 'quick-v1', not 'quick-v2'"):
        judge(method, original, quantized, load_eval_set())


def test_the_recorded_gates_rescored_under_quick_v2() -> None:
    """The same recorded answers judged by quick-v2's anchored patterns and counted in facts. No
    recorded answer changes its verdict (the loose v1 patterns let no wrong answer through in these
    runs); the regressions are nearly all distinct facts (26 of 28, 15 of 15, 30 of 32), so the caps
    in facts (7 for AWQ, 4 for FP8 of 146) reject all three as before."""
    v2 = load_eval_set()
    verdicts = {}
    for name, (method, original, quantized, _) in _recorded_gates().items():
        o2, q2 = rescored(original, v2), rescored(quantized, v2)
        assert (o2.eval or {})["set"] == (q2.eval or {})["set"] == "quick-v2"
        for old, new in ((original, o2), (quantized, q2)):
            verdicts_v1 = [r["correct"] for r in (old.eval or {})["results"]]
            assert [r["correct"] for r in (new.eval or {})["results"]] == verdicts_v1
        result = judge(method, o2, q2)
        verdicts[name] = (
            result.passed,
            len(result.regressions),
            len(result.facts_lost),
            result.regression_limit,
            result.message.split(":")[0],
        )
    assert verdicts == {
        "gpu-awq": (False, 28, 26, 7, "Rejected (accuracy and regressions)"),
        "gpu-fp8": (False, 15, 15, 4, "Rejected (regressions)"),
        "cpu-awq": (False, 32, 30, 7, "Rejected (accuracy and regressions)"),
    }


def test_compare_lists_both_directions() -> None:
    items = load_eval_set().subset(["en-units-regex-01", "zh-capitals-choice-01", "en-calendar-regex-01"])
    ids = [i.id for i in items.items]
    a = EvalScore(
        items.name, [ItemResult(ids[0], True, "7"), ItemResult(ids[1], False, "x"), ItemResult(ids[2], True, "Tuesday")]
    )
    b = EvalScore(
        items.name, [ItemResult(ids[0], False, "4"), ItemResult(ids[1], True, "y"), ItemResult(ids[2], True, "Tuesday")]
    )
    lost, won = compare(items, a, b)
    assert [(f.id, f.before, f.after) for f in lost] == [(ids[0], "7", "4")]
    assert [(f.id, f.before, f.after) for f in won] == [(ids[1], "x", "y")]
    assert "expected" in lost[0].line() and "'7' -> '4'" in lost[0].line()


def make_flipped_copy(src: Path, dest: Path) -> Path:
    """Copy ``src`` with the embedding rows of the SWAPS token pairs exchanged."""
    import torch
    from safetensors.torch import load_file, save_file
    from transformers import AutoTokenizer

    shutil.copytree(src, dest)
    tok = AutoTokenizer.from_pretrained(str(src))
    cfg = json.loads((src / "config.json").read_text())
    assert cfg.get("tie_word_embeddings"), "the swap relies on a tied embedding (SmolLM2's)"
    files = list(dest.glob("*.safetensors"))
    for f in files:
        tensors = load_file(str(f))
        if "model.embed_tokens.weight" not in tensors:
            continue
        emb = tensors["model.embed_tokens.weight"]
        for a, b in SWAPS:
            (ia,), (ib,) = tok.encode(a, add_special_tokens=False)[-1:], tok.encode(b, add_special_tokens=False)[-1:]
            emb[[ia, ib]] = emb[[ib, ia]].clone()
        tensors["model.embed_tokens.weight"] = emb.to(torch.bfloat16) if emb.dtype == torch.bfloat16 else emb
        save_file(tensors, str(f), metadata={"format": "pt"})
    return dest


class _AlreadyLoaded:
    """An engine already running a model, as :func:`~console.quant.gate.measure` sees a engine: its
    ``load`` of that model (the same folder) hands back the engine's info instead of building the
    engine again; everything else is the engine's own."""

    def __init__(self, engine: Any) -> None:
        self._engine = engine

    def load(self, config: Any, name: str) -> "Future[Any]":
        info = self._engine.status.info
        assert info is not None and Path(config.model) == Path(self._engine.requested_config.model)
        done: Future[Any] = Future()
        done.set_result(info)
        return done

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._engine, attr)


#: Answers an identical copy may flip either way through timing alone (the control below).
NOISE_FLIPS = 3


@pytest.mark.e2e
def test_a_checkpoint_that_flips_answers_is_rejected(smollm2_model: Path, smollm2_engine: Any, tmp_path: Path) -> None:
    from console.config import EngineConfig
    from console.engine.in_process import InProcessEngine
    from console.quant.gate import measure

    copy = tmp_path / "copy"
    shutil.copytree(smollm2_model, copy)
    flipped = make_flipped_copy(smollm2_model, tmp_path / "flipped")
    full = load_eval_set()
    # Every third question (85 of 253, both kinds, both languages): the three models are scored on
    # a third of the set, which cuts this test's longest part (the suite's slowest test;
    # half the set showed 23 regressions where 8 are asked for); the unchanged copy is the control
    # that the subset does not reject an identical model.
    items = full.subset(i.id for i in full.items[::3])
    assert {i.kind for i in items.items} == {"regex", "choice"} and {i.lang for i in items.items} == {"en", "zh"}

    def cfg(path: Path) -> EngineConfig:
        return EngineConfig(model=str(path), kv_cache_memory_bytes=256 * 1024**2, max_model_len=1024, device="cpu")

    # The original is measured on the session's SmolLM2 engine (one build fewer); the copy and the
    # flipped checkpoint each get a fresh engine of their own, so the control below compares two
    # separately built engines. The flipped one is built while the other two are measured (a build
    # is mostly its processes' imports, on one core). No greedy answers (questions=()): the judge
    # does not read them.
    engine, flipped_engine = InProcessEngine(), InProcessEngine()
    try:
        flipped_load = flipped_engine.load(cfg(flipped), "flipped")
        original = measure(
            _AlreadyLoaded(smollm2_engine), "smollm2", cfg(smollm2_model), evalset=items, questions=(), speed=False
        )
        same = measure(engine, "copy", cfg(copy), evalset=items, questions=(), speed=False)
        flipped_load.result(timeout=900)
        bad = measure(_AlreadyLoaded(flipped_engine), "flipped", cfg(flipped), evalset=items, questions=(), speed=False)
    finally:
        engine.close()
        flipped_engine.close()

    # Both scoring kinds ran on the engine and the model gets some of each right.
    kinds = {i.id: i.kind for i in items.items}
    right = [r["id"] for r in (original.eval or {})["results"] if r["correct"]]
    assert {kinds[i] for i in right} == {"regex", "choice"}, original.eval
    assert original.engine["device"] == "cpu" and original.engine["quantization"] is None

    # The noise floor: the same weights loaded again are accepted and score (nearly) the same. Greedy
    # decoding on the same kernels is not bit-exact across runs: which requests share an engine step
    # depends on timing (a loaded machine, another test process), the step's batch size changes the
    # float32 GEMMs' rounding, and this dequantized 4-bit model flips answers on such differences
    # (FIELD_NOTES). Seen: 0 flips on a quiet machine, 2 right->wrong and 2 wrong->right on a loaded one.
    unchanged = judge("awq", original, same, items)
    print(unchanged.message)
    assert unchanged.passed, unchanged.message
    assert len(unchanged.regressions) <= NOISE_FLIPS and len(unchanged.fixes) <= NOISE_FLIPS, unchanged.message

    result = judge("awq", original, bad, items)
    print(result.message)
    for f in result.regressions:
        print(" ", f.line())
    assert result.ppl_passed, f"the swap must leave perplexity within the limit: {result.message}"
    assert not result.passed and result.message.startswith(
        ("Rejected (accuracy)", "Rejected (regressions)", "Rejected (accuracy and regressions)")
    )
    assert len(result.regressions) >= 8 > 2 * NOISE_FLIPS  # far above the noise floor
    # The regressions are the questions whose answer needs a swapped token.
    swapped = re.compile(r"[2-5]|[78]|Paris|London|Tokyo|Rome|Berlin|Madrid")
    touched = [f for f in result.regressions if swapped.search(f.expected + f.prompt)]
    assert len(touched) >= 0.8 * len(result.regressions), result.regressions
    assert CPU_NOTE in result.message


def test_cli_gate_says_fp8_is_not_measurable_on_the_cpu(
    tiny_model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No GPU here: the FP8 gate refuses before loading anything, with the command to run on the GPU."""
    from console.cli.main import main
    from console.engine.in_process import cuda_available
    from console.models.store import ModelStore

    if cuda_available():
        pytest.skip("a machine with an NVIDIA GPU gates FP8 for real (test_gpu_* / the lead's GPU run)")
    store = ModelStore(tmp_path / "store")
    store.add_reference("tiny", tiny_model)
    assert main(["--store", str(store.root), "gate", "--model", "tiny"]) == 2
    assert "--against" in capsys.readouterr().err
    for argv in (
        ["gate", "--model", "tiny", "--preset", "4090-fp8-kv8"],
        ["quantize", "--model", "tiny", "--method", "fp8", "--preset", "4090-fp8-kv8"],
    ):
        assert main(["--store", str(store.root), *argv]) == 2
        err = capsys.readouterr().err
        assert "FP8 is not measurable on this machine" in err
        assert "inference-console gate --model tiny --preset 4090-fp8-kv8" in err
    assert main(["--store", str(store.root), "gate", "--model", "tiny", "--preset", "cpu-default"]) == 2
    assert "quantizes nothing on load" in capsys.readouterr().err
