"""The vision parts of the curated vision-language checkpoints, as their published ``config.json``
has them, and the wrapping that turns a text model's config into the vision model's: what vLLM
loads for such a repository (its vision tower beside the text model).

``console.planner.published`` keeps each checkpoint's text model (what the memory constants were
measured on); :func:`with_vision` puts the published vision part around it. Values are copied from
the repositories' ``config.json`` (google/gemma-3-12b-it, Qwen/Qwen2.5-VL-7B-Instruct-AWQ,
Qwen/Qwen3-VL-8B-Instruct-FP8, RedHatAI/Mistral-Small-3.1-24B-Instruct-2503-quantized.w4a16).
"""

from __future__ import annotations

import copy
from typing import Any

#: Gemma-3's vision tower (SigLIP so400m, patch 14, 896 px: 256 tokens an image).
SIGLIP_896: dict[str, Any] = {
    "model_type": "siglip_vision_model",
    "hidden_size": 1152,
    "intermediate_size": 4304,
    "num_hidden_layers": 27,
    "num_attention_heads": 16,
    "image_size": 896,
    "patch_size": 14,
    "num_channels": 3,
    "layer_norm_eps": 1e-06,
    "hidden_act": "gelu_pytorch_tanh",
    "attention_dropout": 0.0,
    "vision_use_head": False,
}
#: Qwen2.5-VL-7B's ViT (window attention, gated MLP; 28 x 28 px a token after the 2 x 2 merge).
QWEN25_VL_VISION: dict[str, Any] = {
    "model_type": "qwen2_5_vl",
    "depth": 32,
    "hidden_act": "silu",
    "hidden_size": 1280,
    "intermediate_size": 3420,
    "num_heads": 16,
    "in_chans": 3,
    "out_hidden_size": 3584,
    "patch_size": 14,
    "spatial_merge_size": 2,
    "spatial_patch_size": 14,
    "temporal_patch_size": 2,
    "window_size": 112,
    "fullatt_block_indexes": [7, 15, 23, 31],
    "tokens_per_second": 2,
}
#: Qwen3-VL-8B's ViT (learned positions, three deepstack mergers; 32 x 32 px a token).
QWEN3_VL_VISION: dict[str, Any] = {
    "model_type": "qwen3_vl",
    "depth": 27,
    "hidden_act": "gelu_pytorch_tanh",
    "hidden_size": 1152,
    "intermediate_size": 4304,
    "num_heads": 16,
    "in_channels": 3,
    "out_hidden_size": 4096,
    "num_position_embeddings": 2304,
    "patch_size": 16,
    "spatial_merge_size": 2,
    "temporal_patch_size": 2,
    "deepstack_visual_indexes": [8, 16, 24],
    "initializer_range": 0.02,
}
#: Mistral-Small-3.1's Pixtral encoder (1,540 px at most, 28 x 28 px a token after the merge).
PIXTRAL_1540: dict[str, Any] = {
    "model_type": "pixtral",
    "head_dim": 64,
    "hidden_act": "silu",
    "hidden_size": 1024,
    "image_size": 1540,
    "intermediate_size": 4096,
    "num_attention_heads": 16,
    "num_channels": 3,
    "num_hidden_layers": 24,
    "patch_size": 14,
    "rope_theta": 10000.0,
}

#: Qwen-VL's special tokens (the same ids in 2.5-VL and 3-VL).
QWEN_VL_TOKENS = {
    "vision_start_token_id": 151652,
    "vision_end_token_id": 151653,
    "vision_token_id": 151654,
    "image_token_id": 151655,
    "video_token_id": 151656,
}


def _gemma3(text: dict[str, Any]) -> dict[str, Any]:
    inner = {k: v for k, v in text.items() if k not in ("architectures", "quantization_config", "torch_dtype")}
    return {
        "architectures": ["Gemma3ForConditionalGeneration"],
        "model_type": "gemma3",
        "text_config": inner,
        "vision_config": copy.deepcopy(SIGLIP_896),
        "boi_token_index": 255999,
        "eoi_token_index": 256000,
        "image_token_index": 262144,
        "mm_tokens_per_image": 256,
        "initializer_range": 0.02,
        "torch_dtype": text.get("torch_dtype", "bfloat16"),
    }


def _qwen25_vl(text: dict[str, Any]) -> dict[str, Any]:
    """Qwen2.5-VL's config is flat: the text model's keys at the top, the vision part beside."""
    out = {k: v for k, v in text.items() if k != "quantization_config"}
    out.update(
        architectures=["Qwen2_5_VLForConditionalGeneration"],
        model_type="qwen2_5_vl",
        max_position_embeddings=128000,
        rope_scaling={"type": "mrope", "mrope_section": [16, 24, 24]},
        vision_config=copy.deepcopy(QWEN25_VL_VISION),
        **QWEN_VL_TOKENS,
    )
    return out


def _qwen3_vl(text: dict[str, Any]) -> dict[str, Any]:
    inner = {k: v for k, v in text.items() if k not in ("architectures", "quantization_config", "torch_dtype")}
    inner.update(
        model_type="qwen3_vl_text",
        max_position_embeddings=262144,
        rope_theta=5000000,
        rope_scaling={"mrope_interleaved": True, "mrope_section": [24, 20, 20], "rope_type": "default"},
        dtype=text.get("torch_dtype", "bfloat16"),
    )
    out: dict[str, Any] = {
        "architectures": ["Qwen3VLForConditionalGeneration"],
        "model_type": "qwen3_vl",
        "text_config": inner,
        "vision_config": copy.deepcopy(QWEN3_VL_VISION),
        "tie_word_embeddings": bool(text.get("tie_word_embeddings", False)),
        "torch_dtype": text.get("torch_dtype", "bfloat16"),
    }
    out.update({k: v for k, v in QWEN_VL_TOKENS.items() if k != "vision_token_id"})
    return out


def _mistral3(text: dict[str, Any]) -> dict[str, Any]:
    inner = {k: v for k, v in text.items() if k not in ("architectures", "quantization_config", "torch_dtype")}
    inner["max_position_embeddings"] = 131072
    inner["rope_theta"] = 1000000000.0
    return {
        "architectures": ["Mistral3ForConditionalGeneration"],
        "model_type": "mistral3",
        "text_config": inner,
        "vision_config": copy.deepcopy(PIXTRAL_1540),
        "image_token_index": 10,
        "multimodal_projector_bias": False,
        "projector_hidden_act": "gelu",
        "spatial_merge_size": 2,
        "vision_feature_layer": -1,
        # the checkpoint ships its own lm_head, as the text model does; without this key transformers'
        # Mistral3Config ties it to the embeddings (config_keys.tied_embeddings)
        "tie_word_embeddings": False,
        "torch_dtype": text.get("torch_dtype", "bfloat16"),
    }


def qwen_vl_tower_linears(vision: dict[str, Any], kind: str) -> list[str]:
    """The checkpoint's (transformers') names of a Qwen-VL tower's linear layers."""
    if kind == "qwen2_5_vl":
        block = ["attn.qkv", "attn.proj", "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj"]
        tail = ["merger.mlp.0", "merger.mlp.2"]
    else:
        block = ["attn.qkv", "attn.proj", "mlp.linear_fc1", "mlp.linear_fc2"]
        tail = ["merger.linear_fc1", "merger.linear_fc2"]
        for j in range(len(vision.get("deepstack_visual_indexes") or [])):
            tail += [f"deepstack_merger_list.{j}.linear_fc1", f"deepstack_merger_list.{j}.linear_fc2"]
    names = [f"blocks.{i}.{n}" for i in range(int(vision["depth"])) for n in block] + tail
    return [f"model.visual.{n}" for n in names]


def _unquantized(kind: str, vision: dict[str, Any]) -> list[str]:
    """What each published build leaves out of its quantization (its vision parts stay 16-bit).
    Qwen's AWQ build names ``visual`` (AWQ matches by substring); its FP8 build names every tower
    linear (vLLM's FP8 skips a layer only on its exact name)."""
    if kind == "qwen3_vl":
        return ["lm_head", *qwen_vl_tower_linears(vision, kind)]
    if kind == "qwen2_5_vl":
        return ["visual"]
    return ["re:.*vision_tower.*", "re:.*multi_modal_projector.*", "lm_head"]


_WRAPPERS = {"gemma3": _gemma3, "qwen2_5_vl": _qwen25_vl, "qwen3_vl": _qwen3_vl, "mistral3": _mistral3}


def with_vision(text: dict[str, Any], kind: str) -> dict[str, Any]:
    """The vision model's published config around the text model's ``text`` config: ``kind`` is the
    vision model's ``model_type`` (gemma3, qwen2_5_vl, qwen3_vl, mistral3); the quantization moves
    to the top with the vision parts left out of it."""
    out = _WRAPPERS[kind](copy.deepcopy(text))
    quant = text.get("quantization_config")
    if quant is not None:
        quant = copy.deepcopy(quant)
        key = "ignore" if quant.get("quant_method") == "compressed-tensors" else "modules_to_not_convert"
        quant[key] = _unquantized(kind, out["vision_config"])
        out["quantization_config"] = quant
    return out


__all__ = [
    "PIXTRAL_1540",
    "QWEN25_VL_VISION",
    "QWEN3_VL_VISION",
    "QWEN_VL_TOKENS",
    "SIGLIP_896",
    "qwen_vl_tower_linears",
    "with_vision",
]
