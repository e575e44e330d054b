"""The model picker's curated list (resources/models/curated-v*.json): its schema, its figures
against the planner, and the fit badges the picker shows (pure arithmetic, no engine)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from console.models.curated import (
    DEFAULT_CARD,
    CuratedError,
    alternatives_for,
    curated_badges,
    curated_path,
    fit_badges,
    load_curated,
    picker_card,
    validate_curated,
)
from console.models.family_table import FAMILY_TABLE
from console.paths import presets_dir
from console.planner import KNOWN_SHAPES, PlanRequest, plan
from console.planner.core import weights_bytes

PRESETS = {p.stem for p in presets_dir().glob("*.toml")}


def _doc() -> dict:
    return json.loads(curated_path().read_text(encoding="utf-8"))


def test_the_shipped_list_passes_its_schema_and_names_real_presets() -> None:
    doc = _doc()
    assert validate_curated(doc, PRESETS) == []
    listed = load_curated()
    assert listed.version == doc["version"] >= 1 and len(listed.models) >= 12
    # every family of the table is offered (Qwen2.5 is ChatML), and the model lines the README names
    families = {m.family for m in listed.models}
    assert families == {f.name for f in FAMILY_TABLE}, families
    shapes = {m.shape for m in listed.models}
    for wanted in (
        "Qwen3-8B",
        "Llama-3.1-8B",
        "Mistral-7B",
        "Gemma-3-12B",
        "DeepSeek-R1-Distill-Qwen-14B",
        "gpt-oss-20b",
        "Mistral-Small-24B",
    ):
        assert wanted in shapes, wanted
    assert {m.family_label for m in listed.models} >= {"Qwen3", "Llama 3", "Mistral", "Gemma", "DeepSeek-R1 distill"}
    assert {m.quantization for m in listed.models} >= {"awq", "gptq", "fp8", "mxfp4"}


def test_disk_sizes_agree_with_the_planner() -> None:
    """disk_gb is about what the weights weigh: within 15% of the planner's bytes for the shape
    and quantization (a typo, or an entry whose shape or quantization is wrong, fails)."""
    for m in load_curated().models:
        shape = KNOWN_SHAPES[m.shape]
        planned = weights_bytes(shape, m.quantization) + 2 * shape.vision_params  # a vision tower is 16-bit
        assert abs(m.disk_bytes - planned) <= 0.15 * planned, (m.repo, m.disk_bytes, planned)


def test_the_schema_check_names_each_problem() -> None:
    doc = _doc()
    bad = copy.deepcopy(doc)
    bad["models"][0]["shape"] = "Llama-9-9B"
    bad["models"][1]["quantization"] = "q4_k_m"
    bad["models"][2]["preset"] = "no-such-preset"
    bad["models"][3]["colour"] = "red"
    bad["models"][4]["repo"] = "not a repo"
    del bad["models"][5]["disk_gb"]
    bad["models"][7]["family"] = "Llama-3.1"  # a label, not a key of the family table
    bad["models"].append(copy.deepcopy(doc["models"][6]))
    problems = validate_curated(bad, PRESETS)
    expected = [
        "Llama-9-9B",
        "quantization must be",
        "no-such-preset",
        "unknown key 'colour'",
        "owner/name",
        "'disk_gb' is missing",
        "listed twice",
        "family 'Llama-3.1' is not in the family table",
    ]
    for text in expected:
        assert any(text in p for p in problems), (text, problems)
    assert validate_curated({"schema": "x", "version": 0, "models": []}) == [
        "schema must be 'inference-console.curated-models'",
        "version must be a positive integer",
        "models must be a non-empty list",
    ]


def test_the_highest_version_wins_and_a_broken_file_is_one_line(tmp_path: Path) -> None:
    doc = _doc()
    (tmp_path / "curated-v1.json").write_text(json.dumps(doc))
    (tmp_path / "curated-v2.json").write_text(json.dumps({**doc, "version": 2, "models": doc["models"][:2]}))
    assert curated_path(tmp_path).name == "curated-v2.json"
    assert len(load_curated(curated_path(tmp_path)).models) == 2
    (tmp_path / "curated-v3.json").write_text(json.dumps({**doc, "version": 3, "models": [{"repo": "a/b"}]}))
    with pytest.raises(CuratedError, match=r"curated-v3.json: models\[0\] \(a/b\): 'source' is missing"):
        load_curated(curated_path(tmp_path))
    with pytest.raises(CuratedError, match="No curated"):
        curated_path(tmp_path / "empty")


def test_badges_are_the_planners_verdicts_for_the_card() -> None:
    models = load_curated().models
    on_4090 = dict((m.repo, b) for m, b in curated_badges(models, None))
    assert all(b.card == DEFAULT_CARD for b in on_4090.values())  # no GPU here: the card the list is for
    assert all(b.verdict == "fits" and b.longest_context >= 8192 for b in on_4090.values()), on_4090
    fp8_14b = next(m for m in models if m.repo == "Qwen/Qwen3-14B-FP8")
    small = fit_badges(fp8_14b.model_shape, fp8_14b.quantization, "rtx-4080")  # 16 GB: 16.3 GB of weights
    assert small.card == "rtx-4080" and small.verdict != "fits" and small.longest_context == 0
    direct = plan(PlanRequest(fp8_14b.model_shape, gpu="rtx-4080", quantization="fp8", max_model_len=8192))
    assert small.verdict == direct.verdict and small.weights_bytes == direct.per_gpu[0].weights_bytes


def test_longest_context_is_the_boundary_for_one_user() -> None:
    m = next(m for m in load_curated().models if m.repo == "RedHatAI/gemma-3-12b-it-FP8-dynamic")
    b = fit_badges(m.model_shape, m.quantization, "rtx-4090")
    assert 8192 < b.longest_context < m.model_shape.max_position_embeddings  # KV-bound, not the model's limit
    at = plan(PlanRequest(m.model_shape, gpu="rtx-4090", quantization="fp8", max_model_len=b.longest_context))
    over = plan(PlanRequest(m.model_shape, gpu="rtx-4090", quantization="fp8", max_model_len=b.longest_context + 1024))
    assert at.verdict == "fits" and over.verdict != "fits"
    # the badge is vLLM's own start-up check (Plan.longest_context), to a multiple of 1024
    assert b.longest_context == at.longest_context // 1024 * 1024 == over.longest_context // 1024 * 1024
    assert b.kv_bytes == at.kv_bytes_per_token * 8192 and b.memory_bytes == b.weights_bytes + b.kv_bytes


def test_picker_card_and_alternatives() -> None:
    assert picker_card("cpu:24").name == DEFAULT_CARD and picker_card(None).name == DEFAULT_CARD
    assert picker_card("h200").name == "h200"
    alts = alternatives_for("Llama-3.1-8B")
    assert [a.quantization for a in alts] == ["awq", "fp8"] and all(a.shape == "Llama-3.1-8B" for a in alts)
    by_size = alternatives_for(None, KNOWN_SHAPES["Qwen3-14B"].params)  # an unknown shape: same size
    assert by_size and all(abs(a.params - KNOWN_SHAPES["Qwen3-14B"].params) < 0.1 * a.params for a in by_size)
    assert alternatives_for("SmolLM2-135M") == []
