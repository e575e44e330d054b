"""The published ``config.json`` of every curated checkpoint, as vLLM reads it (architecture, layer
types, quantization), so the planner can plan a curated model exactly as vLLM will load it before
anything is downloaded, and the GPU fit check can load the same shape with dummy weights.

Values are copied from each repository's published ``config.json``. :data:`PUBLISHED_CONFIGS` holds
each checkpoint's text model (what ``benchmarks/gpu/fit_check.py`` loads and the release's memory constants
were fitted on); a vision-language checkpoint's vision part is put around it by
``published_vision.with_vision`` (:data:`VISION_KINDS`). ``published_config(repo)`` returns a fresh
dict of what vLLM loads, ``published_config(repo, text_only=True)`` the text model alone.
"""

from __future__ import annotations

import copy
from typing import Any

from console.planner.published_vision import with_vision

_AWQ = {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True, "version": "gemm"}
_GPTQ = {"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": False, "sym": True}
#: Qwen's own FP8 builds: block-wise (128 x 128) weight scales, dynamic activations.
_FP8_BLOCK = {"quant_method": "fp8", "fmt": "e4m3", "activation_scheme": "dynamic", "weight_block_size": [128, 128]}


def _compressed_fp8(weights: str, activations_dynamic: bool) -> dict[str, Any]:
    """llm-compressor's FP8 (compressed-tensors): ``channel`` weights + dynamic per-token inputs
    ("FP8-dynamic"), or ``tensor`` weights + static per-tensor inputs (the older "FP8")."""
    act = {"num_bits": 8, "type": "float", "symmetric": True, "dynamic": activations_dynamic}
    act["strategy"] = "token" if activations_dynamic else "tensor"
    return {
        "quant_method": "compressed-tensors",
        "format": "float-quantized",
        "quantization_status": "compressed",
        "ignore": ["lm_head"],
        "config_groups": {
            "group_0": {
                "targets": ["Linear"],
                "weights": {"num_bits": 8, "type": "float", "symmetric": True, "dynamic": False, "strategy": weights},
                "input_activations": act,
                "output_activations": None,
            }
        },
    }


def _compressed_w4a16() -> dict[str, Any]:
    """llm-compressor's W4A16 (compressed-tensors, int4 weights in groups of 128, 16-bit inputs)."""
    weights = {
        "num_bits": 4,
        "type": "int",
        "symmetric": True,
        "dynamic": False,
        "strategy": "group",
        "group_size": 128,
    }
    return {
        "quant_method": "compressed-tensors",
        "format": "pack-quantized",
        "quantization_status": "compressed",
        "ignore": ["lm_head"],
        "config_groups": {
            "group_0": {
                "targets": ["Linear"],
                "weights": weights,
                "input_activations": None,
                "output_activations": None,
            }
        },
    }


_FP8_DYNAMIC = _compressed_fp8("channel", True)
_FP8_STATIC = _compressed_fp8("tensor", False)

_LLAMA_31_8B: dict[str, Any] = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "vocab_size": 128256,
    "max_position_embeddings": 131072,
    "rms_norm_eps": 1e-05,
    "rope_theta": 500000.0,
    "rope_scaling": {
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192,
        "rope_type": "llama3",
    },
    "hidden_act": "silu",
    "attention_bias": False,
    "mlp_bias": False,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "bos_token_id": 128000,
    "eos_token_id": [128001, 128008, 128009],
}


def _qwen3(hidden: int, inter: int, layers: int, heads: int) -> dict[str, Any]:
    return {
        "architectures": ["Qwen3ForCausalLM"],
        "model_type": "qwen3",
        "hidden_size": hidden,
        "intermediate_size": inter,
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "num_key_value_heads": 8,
        "head_dim": 128,
        "vocab_size": 151936,
        "max_position_embeddings": 40960,
        "max_window_layers": layers,
        "rms_norm_eps": 1e-06,
        "rope_theta": 1000000,
        "rope_scaling": None,
        "sliding_window": None,
        "use_sliding_window": False,
        "attention_bias": False,
        "hidden_act": "silu",
        "tie_word_embeddings": False,
        "torch_dtype": "bfloat16",
    }


def _qwen2(hidden: int, inter: int, layers: int, heads: int, kv: int, max_pos: int, theta: float) -> dict[str, Any]:
    return {
        "architectures": ["Qwen2ForCausalLM"],
        "model_type": "qwen2",
        "hidden_size": hidden,
        "intermediate_size": inter,
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "num_key_value_heads": kv,
        "vocab_size": 152064,
        "max_position_embeddings": max_pos,
        "max_window_layers": layers,
        "rms_norm_eps": 1e-06,
        "rope_theta": theta,
        "sliding_window": None,
        "use_sliding_window": False,
        "hidden_act": "silu",
        "tie_word_embeddings": False,
        "torch_dtype": "bfloat16",
    }


def _mistral(hidden: int, inter: int, layers: int, vocab: int, max_pos: int, theta: float) -> dict[str, Any]:
    return {
        "architectures": ["MistralForCausalLM"],
        "model_type": "mistral",
        "hidden_size": hidden,
        "intermediate_size": inter,
        "num_hidden_layers": layers,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "head_dim": 128,
        "vocab_size": vocab,
        "max_position_embeddings": max_pos,
        "rms_norm_eps": 1e-05,
        "rope_theta": theta,
        "sliding_window": None,
        "hidden_act": "silu",
        "tie_word_embeddings": False,
        "torch_dtype": "bfloat16",
    }


_QWEN3_30B_A3B: dict[str, Any] = {
    "architectures": ["Qwen3MoeForCausalLM"],
    "model_type": "qwen3_moe",
    "hidden_size": 2048,
    "intermediate_size": 6144,
    "moe_intermediate_size": 768,
    "num_experts": 128,
    "num_experts_per_tok": 8,
    "norm_topk_prob": True,
    "decoder_sparse_step": 1,
    "mlp_only_layers": [],
    "num_hidden_layers": 48,
    "num_attention_heads": 32,
    "num_key_value_heads": 4,
    "head_dim": 128,
    "vocab_size": 151936,
    "max_position_embeddings": 40960,
    "max_window_layers": 48,
    "rms_norm_eps": 1e-06,
    "rope_theta": 1000000.0,
    "sliding_window": None,
    "use_sliding_window": False,
    "attention_bias": False,
    "hidden_act": "silu",
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
}

_GEMMA3_12B_TEXT: dict[str, Any] = {
    "architectures": ["Gemma3ForCausalLM"],
    "model_type": "gemma3_text",
    "hidden_size": 3840,
    "intermediate_size": 15360,
    "num_hidden_layers": 48,
    "num_attention_heads": 16,
    "num_key_value_heads": 8,
    "head_dim": 256,
    "vocab_size": 262208,
    "max_position_embeddings": 131072,
    "sliding_window": 1024,
    "sliding_window_pattern": 6,
    "query_pre_attn_scalar": 256,
    "rope_theta": 1000000.0,
    "rope_local_base_freq": 10000.0,
    "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
    "hidden_activation": "gelu_pytorch_tanh",
    "rms_norm_eps": 1e-06,
    "final_logit_softcapping": None,
    "attn_logit_softcapping": None,
    "attention_bias": False,
    "tie_word_embeddings": True,
    "torch_dtype": "bfloat16",
}

_GPT_OSS_20B: dict[str, Any] = {
    "architectures": ["GptOssForCausalLM"],
    "model_type": "gpt_oss",
    "hidden_size": 2880,
    "intermediate_size": 2880,
    "num_hidden_layers": 24,
    "num_attention_heads": 64,
    "num_key_value_heads": 8,
    "head_dim": 64,
    "num_local_experts": 32,
    "num_experts_per_tok": 4,
    "experts_per_token": 4,
    "vocab_size": 201088,
    "max_position_embeddings": 131072,
    "initial_context_length": 4096,
    "sliding_window": 128,
    "layer_types": ["sliding_attention", "full_attention"] * 12,
    "rope_theta": 150000,
    "rope_scaling": {
        "rope_type": "yarn",
        "factor": 32.0,
        "beta_fast": 32.0,
        "beta_slow": 1.0,
        "original_max_position_embeddings": 4096,
        "truncate": False,
    },
    "rms_norm_eps": 1e-05,
    "swiglu_limit": 7.0,
    "router_aux_loss_coef": 0.9,
    "attention_bias": True,
    "hidden_act": "silu",
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "eos_token_id": 200002,
    "pad_token_id": 199999,
    "quantization_config": {
        "quant_method": "mxfp4",
        "modules_to_not_convert": [
            "model.layers.*.self_attn",
            "model.layers.*.mlp.router",
            "model.embed_tokens",
            "lm_head",
        ],
    },
}


def _with(config: dict[str, Any], quant: dict[str, Any] | None, dtype: str | None = None) -> dict[str, Any]:
    out = copy.deepcopy(config)
    if quant is not None:
        out["quantization_config"] = copy.deepcopy(quant)
    if dtype:
        out["torch_dtype"] = dtype
    return out


_R1_QWEN_7B = _qwen2(3584, 18944, 28, 28, 4, 131072, 10000.0)
_R1_QWEN_14B = _qwen2(5120, 13824, 48, 40, 8, 131072, 1000000.0)

#: repository id -> its published config.json (the keys that decide how vLLM builds and sizes it).
PUBLISHED_CONFIGS: dict[str, dict[str, Any]] = {
    "Qwen/Qwen3-8B-AWQ": _with(_qwen3(4096, 12288, 36, 32), _AWQ, "float16"),
    "Qwen/Qwen3-8B-FP8": _with(_qwen3(4096, 12288, 36, 32), _FP8_BLOCK),
    "Qwen/Qwen3-14B-AWQ": _with(_qwen3(5120, 17408, 40, 40), _AWQ, "float16"),
    "Qwen/Qwen3-14B-FP8": _with(_qwen3(5120, 17408, 40, 40), _FP8_BLOCK),
    "Qwen/Qwen3-30B-A3B-GPTQ-Int4": _with(_QWEN3_30B_A3B, _GPTQ, "float16"),
    "Qwen/Qwen2.5-7B-Instruct-AWQ": _with(_qwen2(3584, 18944, 28, 28, 4, 32768, 1000000.0), _AWQ, "float16"),
    "Qwen/Qwen2.5-14B-Instruct-AWQ": _with(_qwen2(5120, 13824, 48, 40, 8, 32768, 1000000.0), _AWQ, "float16"),
    "hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4": _with(_LLAMA_31_8B, _AWQ, "float16"),
    "RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8": _with(_LLAMA_31_8B, _FP8_STATIC),
    "RedHatAI/DeepSeek-R1-Distill-Llama-8B-FP8-dynamic": _with(_LLAMA_31_8B, _FP8_DYNAMIC),
    "TheBloke/Mistral-7B-Instruct-v0.2-AWQ": _with(_mistral(4096, 14336, 32, 32000, 32768, 1000000.0), _AWQ, "float16"),
    "RedHatAI/Mistral-Nemo-Instruct-2407-FP8": _with(
        _mistral(5120, 14336, 40, 131072, 1024000, 1000000.0), _FP8_STATIC
    ),
    "casperhansen/mistral-small-24b-instruct-2501-awq": _with(
        _mistral(5120, 32768, 40, 131072, 32768, 100000000.0), _AWQ, "float16"
    ),
    "RedHatAI/gemma-3-12b-it-FP8-dynamic": _with(_GEMMA3_12B_TEXT, _FP8_DYNAMIC),
    "RedHatAI/DeepSeek-R1-Distill-Qwen-7B-FP8-dynamic": _with(_R1_QWEN_7B, _FP8_DYNAMIC),
    "casperhansen/deepseek-r1-distill-qwen-14b-awq": _with(_R1_QWEN_14B, _AWQ, "float16"),
    "RedHatAI/DeepSeek-R1-Distill-Qwen-14B-FP8-dynamic": _with(_R1_QWEN_14B, _FP8_DYNAMIC),
    "openai/gpt-oss-20b": _with(_GPT_OSS_20B, None),
}


#: The text models of the vision-language checkpoints that were not loaded as text models alone
#: (their vision loads are in ``benchmarks/gpu/results/vision/``).
VISION_TEXT_CONFIGS: dict[str, dict[str, Any]] = {
    "Qwen/Qwen2.5-VL-7B-Instruct-AWQ": _with(_qwen2(3584, 18944, 28, 28, 4, 128000, 1000000.0), _AWQ),
    "Qwen/Qwen3-VL-8B-Instruct-FP8": _with(_qwen3(4096, 12288, 36, 32), _FP8_BLOCK),
    "RedHatAI/Mistral-Small-3.1-24B-Instruct-2503-quantized.w4a16": _with(
        _mistral(5120, 32768, 40, 131072, 131072, 1000000000.0), _compressed_w4a16()
    ),
}
#: repository id -> its vision model's ``model_type``: the checkpoints vLLM loads with a vision tower.
VISION_KINDS: dict[str, str] = {
    "RedHatAI/gemma-3-12b-it-FP8-dynamic": "gemma3",
    "Qwen/Qwen2.5-VL-7B-Instruct-AWQ": "qwen2_5_vl",
    "Qwen/Qwen3-VL-8B-Instruct-FP8": "qwen3_vl",
    "RedHatAI/Mistral-Small-3.1-24B-Instruct-2503-quantized.w4a16": "mistral3",
}


def published_config(repo: str, text_only: bool = False) -> dict[str, Any] | None:
    """A copy of ``repo``'s published config.json, vision parts included (``text_only``: its text
    model as a causal LM); None: not a curated checkpoint."""
    text = PUBLISHED_CONFIGS.get(repo) or VISION_TEXT_CONFIGS.get(repo)
    if text is None:
        return None
    kind = VISION_KINDS.get(repo)
    return copy.deepcopy(text) if text_only or kind is None else with_vision(text, kind)


__all__ = ["PUBLISHED_CONFIGS", "VISION_KINDS", "VISION_TEXT_CONFIGS", "published_config"]
