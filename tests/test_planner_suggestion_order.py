"""The planner's suggestions come in the order of what they cost the user: a shorter
context or fewer users first, then FP8 KV cache, then quantized weights, then a smaller model,
then other hardware. Pure arithmetic (no engine)."""

from __future__ import annotations

import pytest

from console.planner import KNOWN_SHAPES, PlanRequest, Suggestion, plan

LLAMA8 = KNOWN_SHAPES["Llama-3.1-8B"]


def _precision(s: Suggestion) -> int:
    """0: no precision given up, 1: FP8 KV cache, 2: FP8 weights, 3: an AWQ checkpoint."""
    weights = {"fp8": 2, "awq": 3}.get(str(s.changes.get("quantization")), 0)
    return max(weights, 1 if s.changes.get("kv_cache_dtype") == "fp8" else 0)


def _rank(s: Suggestion) -> tuple[int, int]:
    kind = {"settings": 0, "model": 1, "hardware": 2}[s.kind]
    return (kind, _precision(s) if s.kind == "settings" else 0)


def test_llama_8b_at_its_128k_default_on_a_4090_suggests_a_shorter_context_first() -> None:
    # no max_model_len: the model's own 131,072; vLLM 0.26's rules (graphs outside its budget), where
    # the smaller sibling fits as asked (under 0.33's, below)
    req = PlanRequest(LLAMA8, gpu="rtx-4090", vllm_version="0.26.0")
    p = plan(req)
    assert p.request.context == 131_072 and p.verdict == "fits-with-changes"
    first = p.suggestions[0]
    assert first.kind == "settings"
    assert "quantization" not in first.changes and "kv_cache_dtype" not in first.changes, first.summary
    assert 8192 <= first.changes["max_model_len"] < 131_072, first.summary
    assert plan(req.with_changes(**first.changes)).verdict == "fits"
    # then FP8 KV, which holds a longer context than 16-bit KV, before any weight quantization
    second = p.suggestions[1]
    assert _precision(second) == 1 and second.max_model_len > first.max_model_len, second.summary
    assert plan(req.with_changes(**second.changes)).verdict == "fits"
    weights = [i for i, s in enumerate(p.suggestions) if _precision(s) >= 2]
    assert weights and min(weights) > 1
    smaller = [s for s in p.suggestions if s.kind == "model"]
    assert [s.changes["model"] for s in smaller] == ["Llama-3.2-3B"]
    assert p.suggestions.index(smaller[0]) > max(weights)  # after every weight change, before hardware
    assert p.suggestions[-1].kind == "hardware"
    # vLLM 0.33 takes the CUDA graphs out of the budget: Llama-3.2-3B no longer holds one 131,072-token
    # request on the card, so it is not offered; the order of the rest is the same
    new = plan(req.with_changes(vllm_version="0.33.0"))
    assert not [s for s in new.suggestions if s.kind == "model"]
    assert (
        plan(PlanRequest(KNOWN_SHAPES["Llama-3.2-3B"], gpu="rtx-4090", vllm_version="0.33.0")).longest_context < 131_072
    )
    assert [_rank(s) for s in new.suggestions] == sorted(_rank(s) for s in new.suggestions)
    assert _precision(new.suggestions[0]) == 0 and _precision(new.suggestions[1]) == 1


def test_fewer_users_is_offered_beside_a_shorter_context_before_fp8() -> None:
    p = plan(PlanRequest(LLAMA8, gpu="rtx-4090", max_model_len=32768, concurrency=4))
    head = p.suggestions[:2]
    assert all(_precision(s) == 0 for s in head), [s.summary for s in head]
    assert {("max_model_len" in s.changes, "concurrency" in s.changes) for s in head} == {(True, False), (False, True)}
    users = next(s for s in head if "concurrency" in s.changes)
    assert users.max_model_len == 32768 and 1 <= users.users < 4


def test_a_fit_that_needs_only_weights_lists_no_context_trade() -> None:
    """Qwen2.5-14B in 16-bit does not fit a 24 GB card at any context: the first suggestion is
    quantized weights at the context asked, and a smaller sibling comes after them."""
    p = plan(PlanRequest(KNOWN_SHAPES["Qwen2.5-14B"], gpu="rtx-4090"))
    settings = [s for s in p.suggestions if s.kind == "settings"]
    assert settings and all(_precision(s) >= 2 and "max_model_len" not in s.changes for s in settings)
    assert [s.changes["model"] for s in p.suggestions if s.kind == "model"] == ["Qwen2.5-7B"]


@pytest.mark.parametrize(
    "req",
    [
        PlanRequest(LLAMA8, gpu="rtx-4090"),
        PlanRequest(LLAMA8, gpu="rtx-4090", max_model_len=131072, concurrency=4),
        PlanRequest(LLAMA8, gpu="rtx-4090", max_model_len=32768, concurrency=4),
        PlanRequest(KNOWN_SHAPES["Qwen2.5-14B"], gpu="rtx-4090", max_model_len=32768, concurrency=8),
        PlanRequest(KNOWN_SHAPES["Qwen3-14B"], gpu="rtx-4090"),
        PlanRequest(KNOWN_SHAPES["Mistral-Small-24B"], gpu="rtx-4090", max_model_len=32768),
        PlanRequest(KNOWN_SHAPES["Gemma-3-27B"], gpu="rtx-4090"),
    ],
    ids=lambda r: f"{r.shape.name}-{r.context}x{r.concurrency}",
)
def test_suggestions_never_give_up_more_before_less(req: PlanRequest) -> None:
    p = plan(req)
    ranks = [_rank(s) for s in p.suggestions]
    assert ranks == sorted(ranks), [(r, s.summary) for r, s in zip(ranks, p.suggestions)]
    for s in p.suggestions:
        if s.kind == "settings":  # every one fits once applied
            assert plan(req.with_changes(**s.changes)).verdict == "fits", s.summary
