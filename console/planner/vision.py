"""The vision part of a vision-language checkpoint as vLLM holds it: the vision tower and the
projector into the text model, 16-bit (the published FP8/AWQ builds of the vision families leave
them unquantized), loaded beside the text model's weights and inside vLLM's memory budget; and
what one picture costs in prompt tokens.

Each family's tower is counted from its ``vision_config`` the way its modelling code builds it
(transformers' and vLLM's hold the same weights): SigLIP for Gemma-3 and Idefics3, the Qwen2-VL /
Qwen2.5-VL / Qwen3-VL ViTs with their patch mergers, Pixtral for Mistral-Small-3.1;
``tests/test_planner_vision_families.py`` checks every count against transformers' own modules built on the
meta device. The memory vLLM's profile run sets aside for image inputs (the encoder run on its
largest dummy image) was measured on the GPU for Gemma-3, Qwen2.5-VL, Qwen3-VL and Mistral-Small-3.1
(``benchmarks/gpu/results/vision/``): at 8,192 batched tokens it peaks under the text model's own,
so the planner adds nothing for it. Not measured: far fewer batched tokens, where the text model's
peak shrinks and Qwen-VL's 16,384-token dummy picture does not.
"""

from __future__ import annotations

import math
from typing import Any

from console.messages import Message

#: The picture a size-dependent family's badge quotes (a phone photo scaled to a square megapixel).
REFERENCE_SIDE = 1024

#: The text model's family for a vision model's own ``model_type`` (its text side is that family's
#: decoder: the architecture residuals and the KV layout are the text model's).
TEXT_FAMILY = {
    "qwen2_vl": "qwen2",
    "qwen2_5_vl": "qwen2",
    "qwen2_5_vl_text": "qwen2",
    "qwen3_vl": "qwen3",
    "qwen3_vl_text": "qwen3",
}


def _vision(config: dict[str, Any]) -> dict[str, Any] | None:
    vision = config.get("vision_config")
    return vision if isinstance(vision, dict) and vision else None


def _text_hidden(config: dict[str, Any]) -> int:
    inner = config.get("text_config")
    text: dict[str, Any] = inner if isinstance(inner, dict) else config
    return int(text.get("hidden_size") or 0)


def _kind(config: dict[str, Any]) -> str:
    model_type = str(config.get("model_type") or "")
    vision_type = str((_vision(config) or {}).get("model_type") or "")
    for kind in ("qwen3_vl", "qwen2_5_vl", "qwen2_vl", "pixtral"):
        if model_type.startswith(kind) or vision_type.startswith(kind):
            return kind
    if model_type == "mistral3":
        return "pixtral"
    return "siglip"


def _linear(n_in: int, n_out: int, bias: bool = True) -> int:
    return n_in * n_out + (n_out if bias else 0)


def _qwen_vl(v: dict[str, Any], text_hidden: int, kind: str) -> int:
    """Qwen2-VL (LayerNorm, GELU MLP of ``mlp_ratio``), Qwen2.5-VL (RMSNorm, gated SiLU MLP) and
    Qwen3-VL (LayerNorm, GELU MLP, learned positions, one merger per deepstack layer)."""
    if kind == "qwen2_vl":
        hidden = int(v.get("embed_dim") or 1280)
        inter = int(hidden * float(v.get("mlp_ratio") or 4))
        out = int(v.get("hidden_size") or text_hidden)
    else:
        hidden = int(v.get("hidden_size") or 1280)
        inter = int(v.get("intermediate_size") or 4 * hidden)
        out = int(v.get("out_hidden_size") or text_hidden)
    depth = int(v.get("depth") or v.get("num_hidden_layers") or 0)
    patch = int(v.get("patch_size") or 14)
    temporal = int(v.get("temporal_patch_size") or 2)
    channels = int(v.get("in_channels") or v.get("in_chans") or 3)
    merged = hidden * int(v.get("spatial_merge_size") or 2) ** 2
    attention = _linear(hidden, 3 * hidden) + _linear(hidden, hidden)
    if kind == "qwen2_5_vl":
        mlp, norms = 2 * _linear(hidden, inter) + _linear(inter, hidden), 2 * hidden
    else:
        mlp, norms = _linear(hidden, inter) + _linear(inter, hidden), 4 * hidden
    merger = _linear(merged, merged) + _linear(merged, out)
    if kind == "qwen3_vl":
        patch_embed = _linear(channels * temporal * patch * patch, hidden)
        positions = int(v.get("num_position_embeddings") or 0) * hidden
        deepstack = len(v.get("deepstack_visual_indexes") or [])
        mergers = merger + 2 * hidden + deepstack * (merger + 2 * merged)
        return depth * (attention + mlp + norms) + patch_embed + positions + mergers
    patch_embed = channels * temporal * patch * patch * hidden
    merger_norm = hidden if kind == "qwen2_5_vl" else 2 * hidden
    return depth * (attention + mlp + norms) + patch_embed + merger + merger_norm


def _pixtral(v: dict[str, Any], config: dict[str, Any], text_hidden: int) -> int:
    """Pixtral's encoder (RMSNorm, gated SiLU MLP, no biases) and Mistral-3's projector (a norm,
    the 2x2 patch merger, two linears into the text model)."""
    hidden = int(v.get("hidden_size") or 1024)
    inter = int(v.get("intermediate_size") or 4 * hidden)
    layers = int(v.get("num_hidden_layers") or 0)
    patch = int(v.get("patch_size") or 14)
    channels = int(v.get("num_channels") or 3)
    merge = int(config.get("spatial_merge_size") or 1)
    bias = bool(config.get("multimodal_projector_bias", False))
    per_layer = 4 * hidden * hidden + 3 * hidden * inter + 2 * hidden
    encoder = layers * per_layer + channels * patch * patch * hidden + hidden
    projector = hidden + _linear(hidden, text_hidden, bias) + _linear(text_hidden, text_hidden, bias)
    if merge > 1:
        projector += hidden * merge * merge * hidden
    return encoder + projector


def _siglip(v: dict[str, Any], config: dict[str, Any], text_hidden: int) -> int:
    """A SigLIP ViT (Gemma-3, Idefics3): LayerNorm, GELU MLP, biases, learned positions; Gemma-3's
    projector (a norm and one matrix), or Idefics3's pixel-shuffle connector."""
    hidden = int(v.get("hidden_size") or v.get("embed_dim") or 0)
    inter = int(v.get("intermediate_size") or 4 * hidden)
    layers = int(v.get("num_hidden_layers") or v.get("depth") or 0)
    patch = int(v.get("patch_size") or 14)
    channels = int(v.get("num_channels") or v.get("in_channels") or 3)
    image = int(v.get("image_size") or 0)
    per_layer = 4 * _linear(hidden, hidden) + _linear(hidden, inter) + _linear(inter, hidden) + 4 * hidden
    positions = (image // patch) ** 2 * hidden if image else 0
    embeddings = _linear(channels * patch * patch, hidden) + positions
    scale = int(config.get("scale_factor") or 1)
    if scale > 1:  # Idefics3: the pixel shuffle's (hidden * scale^2) -> text hidden, no bias
        projector = hidden * scale * scale * text_hidden
    else:  # Gemma-3: RMSNorm + (hidden x text hidden)
        projector = hidden + hidden * text_hidden
    return layers * per_layer + embeddings + 2 * hidden + projector


def vision_params(config: dict[str, Any]) -> int:
    """Parameters of the vision tower and projector in a ``config.json`` with a ``vision_config``;
    0 for a text model."""
    vision = _vision(config)
    if vision is None:
        return 0
    kind = _kind(config)
    text_hidden = _text_hidden(config)
    if kind.startswith("qwen"):
        return _qwen_vl(vision, text_hidden, kind)
    if kind == "pixtral":
        return _pixtral(vision, config, text_hidden)
    if not int(vision.get("hidden_size") or vision.get("embed_dim") or 0):
        return 0
    return _siglip(vision, config, text_hidden)


def image_tokens(config: dict[str, Any]) -> int:
    """Tokens one image takes in the prompt where the config fixes it (Gemma-3: 256); 0 where it
    depends on the image's size (Qwen-VL, Pixtral: :func:`image_tokens_at`)."""
    if _vision(config) is None:
        return 0
    return int(config.get("mm_tokens_per_image") or 0)


def image_tokens_at(config: dict[str, Any], width: int, height: int, max_pixels: int | None = None) -> int:
    """The image tokens of a ``width`` x ``height`` picture, as the family's processor sizes it
    (Qwen-VL: rounded to whole merged patches, at most ``max_pixels``, default the processor's
    12,845,056 = 16,384 tokens; Pixtral: scaled to fit its image size, one break token a row;
    fixed-size families: their count); 0 for a text model."""
    vision = _vision(config)
    if vision is None:
        return 0
    fixed = image_tokens(config)
    if fixed:
        return fixed
    kind = _kind(config)
    patch = int(vision.get("patch_size") or 14)
    if kind.startswith("qwen"):
        factor = patch * int(vision.get("spatial_merge_size") or 2)
        limit = max_pixels or 16384 * factor * factor
        least = 65536 if kind == "qwen3_vl" else 3136  # the processors' min_pixels / shortest_edge
        h, w = max(factor, round(height / factor) * factor), max(factor, round(width / factor) * factor)
        if h * w > limit:  # transformers' smart_resize: scale down, floor to the factor
            beta = math.sqrt(height * width / limit)
            h = max(factor, math.floor(height / beta / factor) * factor)
            w = max(factor, math.floor(width / beta / factor) * factor)
        elif h * w < least:  # scale up, ceil to the factor
            beta = math.sqrt(least / (height * width))
            h, w = math.ceil(height * beta / factor) * factor, math.ceil(width * beta / factor) * factor
        return (h // factor) * (w // factor)
    if kind == "pixtral":
        factor = patch * int(config.get("spatial_merge_size") or 1)
        longest = int(vision.get("image_size") or 1024)
        ratio = max(width / longest, height / longest, 1.0)
        cols = math.ceil(math.floor(width / ratio) / factor)
        rows = math.ceil(math.floor(height / ratio) / factor)
        return rows * cols + rows  # a break token ends each row, the last one ends the image
    return 0


def max_image_tokens(config: dict[str, Any], max_pixels: int | None = None) -> int:
    """The most tokens one picture can take (what vLLM's profile run sizes its dummy picture to):
    a fixed-size family's count; Qwen-VL's ``max_pixels`` (default 16,384 tokens) over its pixels a
    token; Pixtral's largest square with its row breaks."""
    vision = _vision(config)
    if vision is None or image_tokens(config):
        return image_tokens(config)
    kind = _kind(config)
    patch = int(vision.get("patch_size") or 14)
    if kind.startswith("qwen"):
        factor = patch * int(vision.get("spatial_merge_size") or 2)
        return (max_pixels or 16384 * factor * factor) // (factor * factor)
    if kind == "pixtral":
        side = math.ceil(int(vision.get("image_size") or 1024) / (patch * int(config.get("spatial_merge_size") or 1)))
        return side * side + side
    return 0


def reference_image_tokens(config: dict[str, Any]) -> int:
    """What the badge quotes: the tokens of a :data:`REFERENCE_SIDE`-pixel square picture."""
    return image_tokens_at(config, REFERENCE_SIDE, REFERENCE_SIDE)


def vision_kind(config: dict[str, Any]) -> str:
    """The tower's kind (siglip, qwen2_vl, qwen2_5_vl, qwen3_vl, pixtral); "" for a text model."""
    return _kind(config) if _vision(config) is not None else ""


def deepstack_levels(config: dict[str, Any]) -> int:
    """Qwen3-VL's deepstack levels: vLLM holds one (max_num_batched_tokens x text hidden) 16-bit
    buffer per level beside the tower from load on (0.19 GiB for Qwen3-VL-8B at 8,192 tokens)."""
    vision = _vision(config) or {}
    return len(vision.get("deepstack_visual_indexes") or []) if _kind(config) == "qwen3_vl" else 0


def tower_loaded(kind: str, limits: dict[str, int] | None) -> bool:
    """Whether vLLM loads the tower under ``limit_mm_per_prompt``: since 0.26 it skips a tower whose
    every modality (Qwen-VL's: image and video) is limited to 0 a prompt, the model's text-only mode."""
    if not kind or not limits:
        return bool(kind)
    return any(int(limits.get(m, 1)) > 0 for m in tower_modalities(kind))


def tower_modalities(kind: str) -> tuple[str, ...]:
    """What a tower of ``kind`` serves: Qwen-VL's pictures and video, the others' pictures."""
    return ("image", "video") if kind.startswith("qwen") else ("image",)


def tower_note(tower: str, image_tokens: int) -> tuple[str, Message]:
    """The plan's vision rule and note for a loaded tower of ``tower`` (its size, as text)."""
    rule = f"tower {tower}, {image_tokens or 'size-dependent'} tokens an image"
    if image_tokens:
        return rule, Message(
            "vision: the vision tower holds {0} beside the text model; an image takes {1} tokens of the context",
            tower,
            f"{image_tokens:,}",
        )
    return rule, Message(
        "vision: the vision tower holds {0} beside the text model; a larger image takes more tokens", tower
    )


def mm_engine_args(limits: dict[str, int] | None, processor: dict[str, Any] | None) -> dict[str, Any]:
    """The picture knobs a plan was made with, as vLLM's engine arguments (none when unset)."""
    out: dict[str, Any] = {}
    if limits is not None:
        out["limit_mm_per_prompt"] = dict(limits)
    if processor is not None:
        out["mm_processor_kwargs"] = dict(processor)
    return out


def text_model_type(model_type: str) -> str:
    """The text model's family of a vision model's ``model_type`` (others unchanged)."""
    return TEXT_FAMILY.get(model_type, model_type)


__all__ = [
    "REFERENCE_SIDE",
    "deepstack_levels",
    "TEXT_FAMILY",
    "image_tokens",
    "image_tokens_at",
    "max_image_tokens",
    "mm_engine_args",
    "reference_image_tokens",
    "text_model_type",
    "tower_loaded",
    "tower_modalities",
    "tower_note",
    "vision_kind",
    "vision_params",
]
