"""Whether a model takes images: what the chat and the batch check before they send one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

#: Text-and-image architectures vLLM serves that the console's families cover; a config with a
#: ``vision_config`` is taken as one too (vLLM's multimodal registry decides in the end).
VISION_ARCHITECTURES = frozenset(
    {
        "Gemma3ForConditionalGeneration",
        "Qwen2VLForConditionalGeneration",
        "Qwen2_5_VLForConditionalGeneration",
        "Qwen3VLForConditionalGeneration",
        "Qwen3VLMoeForConditionalGeneration",
        "Mistral3ForConditionalGeneration",
        "LlavaForConditionalGeneration",
        "PixtralForConditionalGeneration",
    }
)


def config_takes_images(config: dict[str, Any]) -> bool:
    """A Hugging Face ``config.json`` (as a dict) of a model that takes images."""
    architectures = config.get("architectures") or []
    return bool(config.get("vision_config")) or any(a in VISION_ARCHITECTURES for a in architectures)


def takes_images(folder: str | Path) -> bool:
    """The model in ``folder`` takes images (False when its config cannot be read)."""
    try:
        config = json.loads((Path(folder) / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(config, dict) and config_takes_images(config)


__all__ = ["VISION_ARCHITECTURES", "config_takes_images", "takes_images"]
