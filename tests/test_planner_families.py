"""The shapes 4090 users run now, dense and MoE, pinned to figures computed here from
the models' published config.json values; MoE memory counts every expert, speed only the active
ones; MXFP4 quantizes gpt-oss's experts only."""

from __future__ import annotations

import math

import pytest

from console.planner import KNOWN_SHAPES, PlanRequest, plan, shape_for
from console.planner.shapes import SHIPPED_QUANTIZATIONS, ModelShape


def test_qwen3_8b_dense_by_hand() -> None:
    """Qwen3-8B's config.json: 36 layers, hidden 4096, 32 heads (8 KV) of 128, MLP 12288, vocabulary
    151,936, untied, no q/k/v bias (q/k RMSNorms of 128 each, which the planner leaves out)."""
    s = shape_for("Qwen/Qwen3-8B")  # an org prefix and the name as the hub spells it
    attention = 4096 * 4096 * 2 + 4096 * 1024 * 2
    mlp = 3 * 4096 * 12288
    params = 36 * (attention + mlp + 2 * 4096) + 2 * 151936 * 4096 + 4096
    assert s.params == params and s.active_params == params
    assert params / 1e9 == pytest.approx(8.19, abs=0.01)  # Qwen's model card: 8.2B
    p = plan(PlanRequest(s, gpu="rtx-4090", max_model_len=32768, calibration=False))
    assert p.kv_bytes_per_token == 36 * 2 * 8 * 128 * 2 == 147_456
    assert p.weights_bytes == params * 2
    awq = plan(PlanRequest(s, gpu="rtx-4090", quantization="awq", max_model_len=32768, calibration=False))
    assert (
        awq.weights_bytes
        == math.ceil(36 * (attention + mlp) * (4 + 20 / 128) / 8) + (params - 36 * (attention + mlp)) * 2
    )
    assert "awq" in SHIPPED_QUANTIZATIONS["Qwen3-8B"] and "fp8" in SHIPPED_QUANTIZATIONS["Qwen3-8B"]


def test_qwen3_30b_a3b_moe_counts_every_expert_in_memory_and_the_active_ones_for_speed() -> None:
    """Qwen3-30B-A3B: 48 layers, hidden 2048, 32 heads (4 KV) of 128, 128 experts of width 768,
    8 per token, vocabulary 151,936, untied."""
    s = KNOWN_SHAPES["Qwen3-30B-A3B"]
    attention = 2048 * 4096 * 2 + 2048 * 512 * 2
    expert = 3 * 2048 * 768
    small = 2 * 2048 + 2048 * 128  # two norms and the router
    params = 48 * (attention + 128 * expert + small) + 2 * 151936 * 2048 + 2048
    assert s.params == params and params / 1e9 == pytest.approx(30.5, abs=0.1)  # "30.5B in total"
    assert s.active_params == params - 48 * 120 * expert
    assert s.active_params / 1e9 == pytest.approx(3.3, abs=0.1)  # "3.3B activated"
    bf16 = plan(PlanRequest(s, gpu="rtx-4090", max_model_len=8192, calibration=False))
    assert bf16.weights_bytes == params * 2 and bf16.verdict != "fits"  # 57 GiB: every expert is resident
    gptq = plan(PlanRequest(s, gpu="rtx-4090", quantization="gptq", max_model_len=8192, calibration=False))
    linear = 48 * (attention + 128 * expert)
    assert gptq.weights_bytes == math.ceil(linear * (4 + 20 / 128) / 8) + (params - linear) * 2
    assert gptq.verdict != "does-not-fit"
    # single-stream decode reads the 8 active experts, not all 128: the ceiling is that of ~3B
    bw = gptq.request.profile.bandwidth_gbs * 1e9
    inactive = 48 * 120 * expert * (4 + 20 / 128) / 8
    read = gptq.weights_bytes - 151936 * 2048 * 2 - inactive  # the input embedding row aside
    assert gptq.roofline["decode_tok_s_single_stream"] == pytest.approx(bw / read, abs=0.1)
    dense_equivalent = bw / (gptq.weights_bytes - 151936 * 2048 * 2)
    assert gptq.roofline["decode_tok_s_single_stream"] > 4 * dense_equivalent


def test_gpt_oss_20b_mxfp4_quantizes_the_experts_only() -> None:
    """gpt-oss-20b: 24 layers, hidden 2880, 64 heads (8 KV) of 64, 32 experts of width 2880 (4 per
    token), q/k/v biases, vocabulary 201,088, untied; shipped with MXFP4 experts (4.25 bits)."""
    s = KNOWN_SHAPES["gpt-oss-20b"]
    assert s.params / 1e9 == pytest.approx(20.9, abs=0.05)  # OpenAI: 21B in total
    experts = 24 * 32 * 3 * 2880 * 2880
    attention = 24 * (2880 * 4096 * 2 + 2880 * 512 * 2)
    p = plan(PlanRequest(s, gpu="rtx-4090", quantization="mxfp4", max_model_len=32768, calibration=False))
    assert p.weights_bytes == math.ceil(experts * 4.25 / 8 + attention * 2) + (s.params - experts - attention) * 2
    assert p.weights_bytes / 1e9 == pytest.approx(13.8, rel=0.03)  # the published checkpoint: 13.8 GB
    assert p.verdict == "fits" and SHIPPED_QUANTIZATIONS["gpt-oss-20b"] == ("mxfp4",)


def test_moe_fields_come_from_config_json() -> None:
    config = {
        "model_type": "qwen3_moe",
        "hidden_size": 2048,
        "num_attention_heads": 32,
        "num_key_value_heads": 4,
        "head_dim": 128,
        "num_hidden_layers": 48,
        "intermediate_size": 6144,
        "moe_intermediate_size": 768,
        "num_experts": 128,
        "num_experts_per_tok": 8,
        "vocab_size": 151936,
        "max_position_embeddings": 40960,
        "tie_word_embeddings": False,
    }
    s = ModelShape.from_hf_config(config, "Qwen3-30B-A3B")
    assert (s.num_experts, s.experts_per_token, s.moe_intermediate_size) == (128, 8, 768)
    assert s.params == KNOWN_SHAPES["Qwen3-30B-A3B"].params


@pytest.mark.parametrize(
    "name",
    [
        "Qwen3-8B",
        "Qwen3-14B",
        "Qwen3-32B",
        "Qwen3-30B-A3B",
        "Gemma-3-12B",
        "Gemma-3-27B",
        "Mistral-Small-24B",
        "gpt-oss-20b",
        "Llama-3.3-70B",
    ],
)
def test_current_shapes_are_known_with_their_published_sizes(name: str) -> None:
    published = {
        "Qwen3-8B": 8.2,
        "Qwen3-14B": 14.8,
        "Qwen3-32B": 32.8,
        "Qwen3-30B-A3B": 30.5,
        "Gemma-3-12B": 11.8,
        "Gemma-3-27B": 27.0,
        "Mistral-Small-24B": 23.6,
        "gpt-oss-20b": 20.9,
        "Llama-3.3-70B": 70.6,
    }
    assert shape_for(name).params / 1e9 == pytest.approx(published[name], abs=0.15)
