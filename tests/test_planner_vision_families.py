"""The vision families' towers, picture costs, family-table entries and curated badges.

Each tower the planner counts (``console/planner/vision.py``) is compared with transformers' own
module for the same published config, built on the meta device (no weights, no download); the
picture token counts with the processors' resize rules; the curated vision entries' badges say
"vision" and the picture cost and plan the tower. No engine."""

from __future__ import annotations

from typing import Any

import pytest

from console.models.curated import fit_badges, load_curated
from console.models.family_table import family_by_name, family_of
from console.planner.core import compute
from console.planner.published import VISION_KINDS, published_config
from console.planner.request import PlanRequest
from console.planner.gpus import get_gpu
from console.planner.shapes import KNOWN_SHAPES, ModelShape
from console.planner.shape_lookup import known_shape
from console.planner.vision import image_tokens_at, vision_params

GEMMA = "RedHatAI/gemma-3-12b-it-FP8-dynamic"


def _transformers_tower(config: dict[str, Any]) -> int:
    """Parameters outside the language model and its head, in transformers' own module (the text
    model is ``language_model`` in most, ``text_model`` in Idefics3)."""
    import torch
    import transformers

    config = {k: v for k, v in config.items() if k != "quantization_config"}
    hf_config = transformers.AutoConfig.for_model(**config)
    with torch.device("meta"):
        model = getattr(transformers, config["architectures"][0])(hf_config)
    return sum(
        p.numel()
        for name, p in model.named_parameters()
        if not any(part in name for part in ("language_model", "text_model")) and not name.startswith("lm_head")
    )


@pytest.mark.parametrize("repo", sorted(VISION_KINDS))
def test_the_tower_is_counted_as_transformers_builds_it(repo: str) -> None:
    config = published_config(repo)
    assert config is not None and config["architectures"][0].endswith("ForConditionalGeneration")
    assert vision_params(config) == _transformers_tower(config) > 3e8
    text = published_config(repo, text_only=True)
    assert text is not None and "vision_config" not in text and vision_params(text) == 0


def test_the_test_fixtures_idefics3_tower_too(vision_model: Any) -> None:
    import json

    config = json.loads((vision_model / "config.json").read_text(encoding="utf-8"))
    assert vision_params(config) == _transformers_tower(config) > 0


def test_picture_tokens_follow_each_processors_resize() -> None:
    qwen25 = published_config("Qwen/Qwen2.5-VL-7B-Instruct-AWQ") or {}
    qwen3 = published_config("Qwen/Qwen3-VL-8B-Instruct-FP8") or {}
    mistral = published_config("RedHatAI/Mistral-Small-3.1-24B-Instruct-2503-quantized.w4a16") or {}
    gemma = published_config("RedHatAI/gemma-3-12b-it-FP8-dynamic") or {}
    # Qwen2.5-VL: 28 px a token, 1024 rounds to 1036 (37 x 37); the default cap is 16,384 tokens
    assert image_tokens_at(qwen25, 1024, 1024) == 37 * 37
    assert image_tokens_at(qwen25, 8000, 6000) <= 16384 < image_tokens_at(qwen25, 8000, 6000, 10**9)
    assert image_tokens_at(qwen25, 8000, 6000, max_pixels=1280 * 28 * 28) <= 1280
    assert image_tokens_at(qwen25, 20, 20) == 4  # scaled up to min_pixels (56 x 56)
    # Qwen3-VL: 32 px a token, at least 64 tokens (shortest_edge 65,536 pixels)
    assert image_tokens_at(qwen3, 1024, 1024) == 32 * 32 and image_tokens_at(qwen3, 100, 100) == 64
    # Pixtral (Mistral-Small-3.1): 28 px a token and a break token a row, at most 1,540 px a side
    assert image_tokens_at(mistral, 1024, 1024) == 37 * 37 + 37
    assert image_tokens_at(mistral, 4000, 4000) == 55 * 55 + 55
    assert image_tokens_at(gemma, 64, 64) == image_tokens_at(gemma, 4000, 3000) == 256  # fixed
    assert image_tokens_at({"hidden_size": 8}, 1024, 1024) == 0  # a text model


def test_vision_shapes_plan_the_tower_and_their_text_familys_calibration() -> None:
    for name, family in (("Qwen2.5-VL-7B", "qwen2"), ("Qwen3-VL-8B", "qwen3"), ("Mistral-Small-3.1-24B", "mistral")):
        shape = KNOWN_SHAPES[name]
        assert shape.vision_params > 3e8 and shape.model_type == family, name
    # the instruction-tuned Gemma-3 is a vision model: vLLM loads its tower
    assert KNOWN_SHAPES["Gemma-3-12B"].vision_params == vision_params(published_config(GEMMA) or {})
    assert known_shape("Qwen2.5-VL-7B-Instruct", loose=True) is KNOWN_SHAPES["Qwen2.5-VL-7B"]
    assert known_shape("Qwen2.5-7B-Instruct", loose=True) is KNOWN_SHAPES["Qwen2.5-7B"]  # the text model stays
    card = get_gpu("rtx-4090")
    with_tower = compute(PlanRequest(KNOWN_SHAPES["Qwen2.5-VL-7B"], gpu=card, quantization="awq", max_model_len=8192))
    text = ModelShape.from_hf_config(published_config("Qwen/Qwen2.5-VL-7B-Instruct-AWQ", text_only=True) or {})
    without = compute(PlanRequest(text, gpu=card, quantization="awq", max_model_len=8192))
    added = with_tower.per_gpu[0].weights_bytes - without.per_gpu[0].weights_bytes
    assert added == KNOWN_SHAPES["Qwen2.5-VL-7B"].vision_params * 2  # 16-bit, beside the AWQ text model
    assert with_tower.kv_tokens < without.kv_tokens and "vision" in with_tower.rules


def test_the_curated_vision_entries_say_vision_and_what_a_picture_costs() -> None:
    curated = {m.repo: m for m in load_curated().models}
    vision = {repo for repo, m in curated.items() if m.model_shape.vision_params}
    assert vision == set(VISION_KINDS)
    for repo in vision:
        m = curated[repo]
        badges = fit_badges(m.model_shape, m.quantization, "rtx-4090", knobs=m.engine_knobs)
        assert badges.vision and badges.to_dict()["vision"] and badges.image_tokens > 0, repo
        assert str(badges.picture_text()).startswith("vision: "), repo
        assert badges.weights_bytes > m.model_shape.vision_params * 2  # the tower is in the weights
    gemma = curated["RedHatAI/gemma-3-12b-it-FP8-dynamic"]
    badges = fit_badges(gemma.model_shape, gemma.quantization, "rtx-4090", knobs=gemma.engine_knobs)
    assert (badges.image_tokens, badges.image_side, badges.picture_text()) == (256, 0, "vision: 256 tokens a picture")
    qwen = curated["Qwen/Qwen2.5-VL-7B-Instruct-AWQ"]
    badges = fit_badges(qwen.model_shape, qwen.quantization, "rtx-4090", knobs=qwen.engine_knobs)
    assert badges.picture_text() == "vision: 1,369 tokens a 1024 px picture"
    text = curated["Qwen/Qwen3-8B-AWQ"]
    assert fit_badges(text.model_shape, text.quantization, "rtx-4090").picture_text() is None


def test_the_vision_families_are_told_apart_from_their_text_siblings_by_template() -> None:
    # the markers as the published templates write them (excerpts)
    qwen_vl = (
        "<|im_start|>{{ role }}{% if c['type'] == 'image' %}<|vision_start|><|image_pad|><|vision_end|>{% endif %}"
    )
    mistral3 = "[SYSTEM_PROMPT]{{ s }}[/SYSTEM_PROMPT][INST]{% if block['type'] == 'image' %}[IMG]{% endif %}[/INST]"
    gemma3 = "<start_of_turn>user\n{% if item['type'] == 'image' %}<start_of_image>{% endif %}<end_of_turn>"
    assert family_of(qwen_vl) is family_by_name("qwen-vl")
    assert family_of(mistral3) is family_by_name("mistral3")
    assert family_of(gemma3) is family_by_name("gemma") and "256 tokens" in family_by_name("gemma").quirks
    assert family_of("<|im_start|>{{ m }}") is family_by_name("chatml")  # a text ChatML model stays ChatML
    assert family_of("[INST]{{ m }}[/INST]") is family_by_name("mistral")
    assert family_by_name("qwen-vl").tool_parser == "hermes" and family_by_name("mistral3").tool_parser == "mistral"


def test_a_picture_limit_of_zero_leaves_the_tower_out_as_vllm_does() -> None:
    """vLLM 0.26+ skips a tower whose every modality is limited to 0 a prompt (text-only mode)."""
    card = get_gpu("rtx-4090")

    def weights(shape: str, quant: str, limits: dict[str, int] | None) -> int:
        req = PlanRequest(KNOWN_SHAPES[shape], gpu=card, quantization=quant, max_model_len=8192)
        return compute(req.with_changes(limit_mm_per_prompt=limits)).per_gpu[0].weights_bytes

    gemma_tower = KNOWN_SHAPES["Gemma-3-12B"].vision_params * 2
    assert weights("Gemma-3-12B", "fp8", None) - weights("Gemma-3-12B", "fp8", {"image": 0}) == gemma_tower
    assert weights("Gemma-3-12B", "fp8", {"image": 2}) == weights("Gemma-3-12B", "fp8", None)
    qwen_tower = KNOWN_SHAPES["Qwen2.5-VL-7B"].vision_params * 2
    assert weights("Qwen2.5-VL-7B", "awq", {"image": 0}) == weights("Qwen2.5-VL-7B", "awq", None)  # video still on
    assert weights("Qwen2.5-VL-7B", "awq", None) - weights("Qwen2.5-VL-7B", "awq", {"image": 0, "video": 0}) == (
        qwen_tower
    )
    text_only = compute(
        PlanRequest(KNOWN_SHAPES["Gemma-3-12B"], gpu=card, quantization="fp8", limit_mm_per_prompt={"image": 0})
    )
    assert text_only.rules["vision"].startswith("text-only")


def test_a_vision_model_that_does_not_fit_is_offered_text_only_mode() -> None:
    from console.planner.verdict import plan

    p = plan(PlanRequest(KNOWN_SHAPES["Gemma-3-12B"], gpu="rtx-4090", quantization="fp8", max_model_len=16384))
    assert p.verdict == "fits-with-changes"
    text_only = [s for s in p.suggestions if s.changes.get("limit_mm_per_prompt") == {"image": 0}]
    assert text_only and all(s.engine_args["limit_mm_per_prompt"] == {"image": 0} for s in text_only)
    applied = compute(p.request.with_changes(**text_only[0].changes))
    assert applied.fits and "vision" in applied.rules and applied.rules["vision"].startswith("text-only")
    qwen = plan(PlanRequest(KNOWN_SHAPES["Qwen2.5-VL-7B"], gpu="rtx-4080", quantization="awq", max_model_len=128000))
    offered = [s.changes.get("limit_mm_per_prompt") for s in qwen.suggestions if "limit_mm_per_prompt" in s.changes]
    assert offered and all(o == {"image": 0, "video": 0} for o in offered)  # Qwen-VL's tower serves video too
