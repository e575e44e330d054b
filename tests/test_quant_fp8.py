"""FP8 presets: accepted by vLLM's own argument checks, and the planner shows the memory won."""

from __future__ import annotations

import pytest

from console.planner.validate import validate_with_vllm
from console.presets import load_presets
from console.quant.fp8 import is_fp8, memory_won

FP8_PRESETS = ["4090-fp8", "4090-fp8-kv8", "gpu-fp8-kv"]


@pytest.mark.parametrize("name", FP8_PRESETS)
def test_fp8_preset_passes_vllms_argument_checks(name: str) -> None:
    preset = load_presets()[name]
    assert is_fp8(preset.engine)
    args = validate_with_vllm(preset.engine, where=name)  # vLLM's parser, then AsyncEngineArgs
    for key in ("quantization", "kv_cache_dtype"):
        if key in preset.engine:
            assert getattr(args, key) == preset.engine[key]


def test_planner_shows_the_memory_fp8_wins() -> None:
    presets = load_presets()
    both = memory_won(presets["4090-fp8-kv8"].engine)
    assert both.weights_bytes[1] < 0.6 * both.weights_bytes[0]  # 8-bit weights: about half
    assert both.kv_bytes_per_token[1] * 2 == both.kv_bytes_per_token[0]  # FP8 KV: exactly half
    assert both.kv_tokens[1] > both.kv_tokens[0]
    kv_only = memory_won(presets["gpu-fp8-kv"].engine)
    assert kv_only.weights_bytes[0] == kv_only.weights_bytes[1]
    assert kv_only.kv_bytes_per_token[1] * 2 == kv_only.kv_bytes_per_token[0]
    assert [r[0] for r in both.rows()] == ["weights", "KV bytes per token", "KV cache tokens"]
