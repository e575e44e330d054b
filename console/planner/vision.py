"""The vision part of a vision-language checkpoint as vLLM holds it: the vision tower and the
projector into the text model, 16-bit (the published FP8/AWQ builds of the vision families leave
them unquantized), loaded beside the text model's weights and inside vLLM's memory budget.

The memory vLLM's profile run sets aside for image inputs (the encoder run on its largest dummy
images) stays under the text model's own profile peak at the console's batched-token budgets: the
Gemma-3 loads on the GPU (``benchmarks/gpu/results/vision/``) report the same peak activation with
and without the vision tower, so the planner counts the tower's weights and nothing more.
"""

from __future__ import annotations

from typing import Any


def vision_params(config: dict[str, Any]) -> int:
    """Parameters of the vision tower and projector in a ``config.json`` with a ``vision_config``
    (a ViT/SigLIP-style encoder: attention and MLP per layer, patch and position embeddings); 0
    for a text model."""
    vision = config.get("vision_config")
    if not isinstance(vision, dict):
        return 0
    hidden = int(vision.get("hidden_size") or vision.get("embed_dim") or 0)
    inter = int(vision.get("intermediate_size") or 4 * hidden)
    layers = int(vision.get("num_hidden_layers") or vision.get("depth") or 0)
    if not hidden or not layers:
        return 0
    patch = int(vision.get("patch_size") or 14)
    channels = int(vision.get("num_channels") or vision.get("in_channels") or 3)
    image = int(vision.get("image_size") or 0)
    per_layer = 4 * hidden * hidden + 4 * hidden + 2 * hidden * inter + hidden + inter + 4 * hidden
    embeddings = patch * patch * channels * hidden + hidden + (image // patch) ** 2 * hidden if image else 0
    inner = config.get("text_config")
    text: dict[str, Any] = inner if isinstance(inner, dict) else config
    text_hidden = int(text.get("hidden_size") or 0)
    projector = hidden * text_hidden + 2 * hidden  # the projection into the text model and its norm
    return layers * per_layer + embeddings + 2 * hidden + projector


def image_tokens(config: dict[str, Any]) -> int:
    """Tokens one image takes in the prompt where the config fixes it (Gemma-3: 256); 0 where it
    depends on the image's size (Qwen-VL, Pixtral)."""
    if not isinstance(config.get("vision_config"), dict):
        return 0
    return int(config.get("mm_tokens_per_image") or 0)


__all__ = ["image_tokens", "vision_params"]
