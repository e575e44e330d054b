"""Published ``config.json`` files of shapes outside the curated list, for the GPU fit matrix
(``fit_matrix.py``): other sizes of the families the console offers, and families it does not.

Each entry is the text model as its repository publishes it (the keys that decide how vLLM builds
and sizes it), written from the models' public config.json files; where a family is in the curated
list the entry starts from the curated config of that family (``console/planner/published.py``) with
the other size's widths. Quantized variants reuse the ``quantization_config`` blocks of the curated
checkpoints (AWQ, GPTQ, compressed-tensors FP8-dynamic, Qwen's block FP8) on other shapes; online FP8
(``quantization="fp8"`` on a 16-bit config) is an engine argument, not a config, and is set by the
matrix.

Written without hub access in the session that made it: the widths come from the shapes the
console already knows (``console/planner/shapes.py``) and the models' published configs as known
then; OLMo-2-1B, Phi-4 and Granite-3.x-8B were compared with copies of their config.json files in
public code. A load records the config it was given, so a wrong width here is visible in the record
and in vLLM's own weight figure, never silently mixed with the curated loads.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from console.planner.published import PUBLISHED_CONFIGS, VISION_TEXT_CONFIGS


def _curated(repo: str) -> dict[str, Any]:
    return copy.deepcopy(PUBLISHED_CONFIGS[repo])


def _quant_block(repo: str) -> dict[str, Any]:
    return copy.deepcopy(PUBLISHED_CONFIGS[repo]["quantization_config"])


#: the quantization_config blocks of the curated checkpoints, by kind
QUANT_BLOCKS: dict[str, dict[str, Any]] = {
    "awq": _quant_block("Qwen/Qwen3-8B-AWQ"),
    "gptq": _quant_block("Qwen/Qwen3-30B-A3B-GPTQ-Int4"),
    "fp8-block": _quant_block("Qwen/Qwen3-8B-FP8"),
    "fp8-dynamic": _quant_block("RedHatAI/DeepSeek-R1-Distill-Llama-8B-FP8-dynamic"),
}
#: what each kind stores (AWQ and GPTQ: 16-bit activations, ``float16`` as their checkpoints ship)
QUANT_DTYPE = {"awq": "float16", "gptq": "float16", "fp8-block": "bfloat16", "fp8-dynamic": "bfloat16"}


def _text_family(config: dict[str, Any]) -> str:
    return str(config.get("model_type", ""))


#: The families (text ``model_type``) the console offers: those of the curated list's checkpoints.
OFFERED_FAMILIES: frozenset[str] = frozenset(
    _text_family(c) for c in [*PUBLISHED_CONFIGS.values(), *VISION_TEXT_CONFIGS.values()]
)


def _without_quant(config: dict[str, Any], dtype: str = "bfloat16") -> dict[str, Any]:
    out = copy.deepcopy(config)
    out.pop("quantization_config", None)
    out["torch_dtype"] = dtype
    return out


def _resize(base: dict[str, Any], **widths: Any) -> dict[str, Any]:
    out = _without_quant(base)
    out.update(widths)
    if "max_window_layers" in out and "num_hidden_layers" in widths:
        out["max_window_layers"] = widths["num_hidden_layers"]
    return out


_QWEN3 = _curated("Qwen/Qwen3-8B-FP8")
_QWEN25 = _curated("Qwen/Qwen2.5-7B-Instruct-AWQ")
_LLAMA31 = _curated("RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8")
_GEMMA3 = _curated("RedHatAI/gemma-3-12b-it-FP8-dynamic")
_LLAMA32_ROPE = {
    "factor": 32.0,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
    "original_max_position_embeddings": 8192,
    "rope_type": "llama3",
}


def _qwen3(hidden: int, inter: int, layers: int, heads: int, tied: bool) -> dict[str, Any]:
    return _resize(
        _QWEN3,
        hidden_size=hidden,
        intermediate_size=inter,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        tie_word_embeddings=tied,
    )


def _qwen25(hidden: int, inter: int, layers: int, heads: int, kv: int, vocab: int, tied: bool) -> dict[str, Any]:
    return _resize(
        _QWEN25,
        hidden_size=hidden,
        intermediate_size=inter,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=kv,
        vocab_size=vocab,
        tie_word_embeddings=tied,
        max_position_embeddings=32768,
    )


def _llama32(hidden: int, layers: int, heads: int, head_dim: int) -> dict[str, Any]:
    return _resize(
        _LLAMA31,
        hidden_size=hidden,
        intermediate_size=8192,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        head_dim=head_dim,
        tie_word_embeddings=True,
        rope_scaling=dict(_LLAMA32_ROPE),
        eos_token_id=[128001, 128008, 128009],
    )


def _gemma3(hidden: int, inter: int, layers: int, heads: int, kv: int, head_dim: int, **more: Any) -> dict[str, Any]:
    return _resize(
        _GEMMA3,
        hidden_size=hidden,
        intermediate_size=inter,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=kv,
        head_dim=head_dim,
        **more,
    )


def _phi3(
    hidden: int, inter: int, layers: int, heads: int, kv: int, vocab: int, max_pos: int, **more: Any
) -> dict[str, Any]:
    return {
        "architectures": ["Phi3ForCausalLM"],
        "model_type": "phi3",
        "hidden_size": hidden,
        "intermediate_size": inter,
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "num_key_value_heads": kv,
        "vocab_size": vocab,
        "max_position_embeddings": max_pos,
        "original_max_position_embeddings": max_pos,
        "rms_norm_eps": 1e-05,
        "rope_scaling": None,
        "hidden_act": "silu",
        "attention_bias": False,
        "tie_word_embeddings": False,
        "torch_dtype": "bfloat16",
        **more,
    }


def _granite(hidden: int, inter: int, attention_multiplier: float, logits_scaling: float) -> dict[str, Any]:
    return {
        "architectures": ["GraniteForCausalLM"],
        "model_type": "granite",
        "hidden_size": hidden,
        "intermediate_size": inter,
        "num_hidden_layers": 40,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "vocab_size": 49159,
        "max_position_embeddings": 131072,
        "rope_theta": 10000000.0,
        "rope_scaling": None,
        "rms_norm_eps": 1e-05,
        "attention_multiplier": attention_multiplier,
        "embedding_multiplier": 12.0,
        "residual_multiplier": 0.22,
        "logits_scaling": logits_scaling,
        "attention_bias": False,
        "mlp_bias": False,
        "hidden_act": "silu",
        "tie_word_embeddings": True,
        "torch_dtype": "bfloat16",
        "bos_token_id": 0,
        "eos_token_id": 0,
        "pad_token_id": 0,
    }


def _olmo2(hidden: int, inter: int, layers: int, heads: int) -> dict[str, Any]:
    return {
        "architectures": ["Olmo2ForCausalLM"],
        "model_type": "olmo2",
        "hidden_size": hidden,
        "intermediate_size": inter,
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "num_key_value_heads": heads,
        "vocab_size": 100352,
        "max_position_embeddings": 4096,
        "rope_theta": 500000,
        "rms_norm_eps": 1e-06,
        "attention_bias": False,
        "hidden_act": "silu",
        "tie_word_embeddings": False,
        "torch_dtype": "bfloat16",
        "eos_token_id": 100257,
        "pad_token_id": 100277,
    }


def _stablelm(hidden: int, inter: int, layers: int, kv: int, vocab: int, **more: Any) -> dict[str, Any]:
    return {
        "architectures": ["StableLmForCausalLM"],
        "model_type": "stablelm",
        "hidden_size": hidden,
        "intermediate_size": inter,
        "num_hidden_layers": layers,
        "num_attention_heads": 32,
        "num_key_value_heads": kv,
        "vocab_size": vocab,
        "max_position_embeddings": 4096,
        "rope_theta": 10000,
        "partial_rotary_factor": 0.25,
        "layer_norm_eps": 1e-05,
        "use_qkv_bias": False,
        "qk_layernorm": False,
        "use_parallel_residual": False,
        "hidden_act": "silu",
        "tie_word_embeddings": False,
        "torch_dtype": "bfloat16",
        **more,
    }


@dataclass(frozen=True)
class Extra:
    """A published text model outside the curated list: its repository, the name of its shape,
    its config.json (16-bit as published unless ``quant`` says otherwise) and whether the console
    offers its family."""

    repo: str
    shape: str
    config: dict[str, Any]

    @property
    def model_type(self) -> str:
        return _text_family(self.config)

    @property
    def offered(self) -> bool:
        return self.model_type in OFFERED_FAMILIES


def quantized(config: dict[str, Any], kind: str) -> dict[str, Any]:
    """``config`` with the curated ``kind`` block (awq, gptq, fp8-block, fp8-dynamic) as published
    builds of that kind carry it."""
    out = copy.deepcopy(config)
    out["quantization_config"] = copy.deepcopy(QUANT_BLOCKS[kind])
    out["torch_dtype"] = QUANT_DTYPE[kind]
    return out


def group_size(config: dict[str, Any]) -> int | None:
    """The group (AWQ, GPTQ, compressed-tensors int) or block (block FP8) the weights' input
    dimension is cut into; None: per channel or per tensor."""
    q = config.get("quantization_config") or {}
    if q.get("group_size"):
        return int(q["group_size"])
    if q.get("weight_block_size"):
        return int(q["weight_block_size"][1])
    for group in (q.get("config_groups") or {}).values():
        size = (group.get("weights") or {}).get("group_size")
        if size:
            return int(size)
    return None


def linear_in_widths(config: dict[str, Any]) -> dict[str, int]:
    """The input widths of a decoder layer's linears: q/k/v and gate/up read the hidden size,
    o_proj the heads' width, down_proj the MLP's (each expert's for a mixture of experts)."""
    hidden = int(config["hidden_size"])
    heads = int(config["num_attention_heads"])
    head_dim = int(config.get("head_dim") or hidden // heads)
    inter = int(config.get("moe_intermediate_size") or config["intermediate_size"])
    return {"hidden_size": hidden, "attention_width": heads * head_dim, "intermediate_size": inter}


def group_misfits(config: dict[str, Any]) -> list[str]:
    """The widths the quantization group does not divide (an empty list: it divides them all)."""
    size = group_size(config)
    if size is None:
        return []
    return [f"{k} {v} % {size}" for k, v in linear_in_widths(config).items() if v % size]


_PHI4 = _phi3(5120, 17920, 40, 40, 10, 100352, 16384, rope_theta=250000, sliding_window=None)

#: name -> the published text model (names are the matrix's; repositories as published).
EXTRA: dict[str, Extra] = {
    e.shape: e
    for e in [
        # -- families the console offers, other sizes
        Extra("Qwen/Qwen3-0.6B", "Qwen3-0.6B", _qwen3(1024, 3072, 28, 16, True)),
        Extra("Qwen/Qwen3-1.7B", "Qwen3-1.7B", _qwen3(2048, 6144, 28, 16, True)),
        Extra("Qwen/Qwen3-4B", "Qwen3-4B", _qwen3(2560, 9728, 36, 32, True)),
        Extra("Qwen/Qwen3-32B", "Qwen3-32B", _qwen3(5120, 25600, 64, 64, False)),
        Extra("Qwen/Qwen2.5-0.5B-Instruct", "Qwen2.5-0.5B", _qwen25(896, 4864, 24, 14, 2, 151936, True)),
        Extra("Qwen/Qwen2.5-1.5B-Instruct", "Qwen2.5-1.5B", _qwen25(1536, 8960, 28, 12, 2, 151936, True)),
        Extra("Qwen/Qwen2.5-3B-Instruct", "Qwen2.5-3B", _qwen25(2048, 11008, 36, 16, 2, 151936, True)),
        Extra("Qwen/Qwen2.5-32B-Instruct", "Qwen2.5-32B", _qwen25(5120, 27648, 64, 40, 8, 152064, False)),
        Extra("meta-llama/Llama-3.2-1B-Instruct", "Llama-3.2-1B", _llama32(2048, 16, 32, 64)),
        Extra("meta-llama/Llama-3.2-3B-Instruct", "Llama-3.2-3B", _llama32(3072, 28, 24, 128)),
        Extra("meta-llama/Llama-3.1-8B-Instruct", "Llama-3.1-8B", _without_quant(_LLAMA31)),
        Extra(
            "google/gemma-3-1b-it",
            "Gemma-3-1B",
            _gemma3(
                1152,
                6912,
                26,
                4,
                1,
                256,
                vocab_size=262144,
                max_position_embeddings=32768,
                sliding_window=512,
                rope_scaling=None,
            ),
        ),
        Extra("google/gemma-3-4b-it", "Gemma-3-4B", _gemma3(2560, 10240, 34, 8, 4, 256)),
        Extra(
            "google/gemma-3-27b-it",
            "Gemma-3-27B",
            _gemma3(5376, 21504, 62, 32, 16, 128, query_pre_attn_scalar=168),
        ),
        # -- families the console does not offer
        Extra(
            "microsoft/Phi-3-mini-4k-instruct",
            "Phi-3-mini",
            _phi3(3072, 8192, 32, 32, 32, 32064, 4096, rope_theta=10000.0, sliding_window=2047),
        ),
        Extra(
            "microsoft/Phi-3-medium-4k-instruct",
            "Phi-3-medium",
            _phi3(5120, 17920, 40, 40, 10, 32064, 4096, rope_theta=10000.0, sliding_window=2047),
        ),
        Extra("microsoft/phi-4", "Phi-4", _PHI4),
        Extra("ibm-granite/granite-3.3-2b-instruct", "Granite-3.3-2B", _granite(2048, 8192, 0.015625, 8.0)),
        Extra("ibm-granite/granite-3.3-8b-instruct", "Granite-3.3-8B", _granite(4096, 12800, 0.0078125, 16.0)),
        Extra("allenai/OLMo-2-0425-1B", "OLMo-2-1B", _olmo2(2048, 8192, 16, 16)),
        Extra("allenai/OLMo-2-1124-7B", "OLMo-2-7B", _olmo2(4096, 11008, 32, 32)),
        Extra("allenai/OLMo-2-1124-13B", "OLMo-2-13B", _olmo2(5120, 13824, 40, 40)),
        Extra(
            "stabilityai/stablelm-2-1_6b",
            "StableLM-2-1.6B",
            _stablelm(2048, 5632, 24, 32, 100352, use_qkv_bias=True),
        ),
        Extra("stabilityai/stablelm-zephyr-3b", "StableLM-3B", _stablelm(2560, 6912, 32, 32, 50304)),
        Extra(
            "stabilityai/stablelm-2-12b",
            "StableLM-2-12B",
            _stablelm(5120, 13824, 40, 8, 100352, qk_layernorm=True, use_parallel_residual=True),
        ),
    ]
}

#: Quantized builds a matrix load may want that the group size rules out (AWQ/GPTQ groups of 128
#: must divide every linear's input width): kept here so the matrix says why they are not loaded.
SKIPPED_FOR_GROUPS: dict[str, str] = {
    "HuggingFaceTB/SmolLM2-135M-Instruct (AWQ)": "hidden_size 576 % 128 (vLLM pads or refuses Marlin tiles)",
    "HuggingFaceTB/SmolLM2-360M-Instruct (AWQ)": "hidden_size 960 % 128",
}


def extra_config(shape: str, quant: str | None = None) -> dict[str, Any]:
    """A fresh copy of ``shape``'s published config, with the curated ``quant`` block if given."""
    config = copy.deepcopy(EXTRA[shape].config)
    return quantized(config, quant) if quant else config


__all__ = [
    "EXTRA",
    "OFFERED_FAMILIES",
    "QUANT_BLOCKS",
    "SKIPPED_FOR_GROUPS",
    "Extra",
    "extra_config",
    "group_misfits",
    "group_size",
    "linear_in_widths",
    "quantized",
]
