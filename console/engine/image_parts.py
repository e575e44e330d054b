"""Images in chat messages: whether a model takes them, the OpenAI content parts that carry them,
and the one-line refusal of a text-only model.

A picture travels as an OpenAI content part, ``{"type": "image_url", "image_url": {"url": URL}}``
beside ``{"type": "text", "text": ...}`` parts in a message's ``content`` list, exactly what
``vllm serve`` takes on ``/v1/chat/completions``; the engines hand the parts to vLLM's own chat
preprocessing, which loads, resizes and tokenizes the image (``engine/chat_prompt.py``). The
console's only image code is reading a file into a ``data:`` URL (``attachments.py``). A
``file://`` URL is read by vLLM itself, and only under the folder the engine allows
(``EngineConfig.allowed_local_media_path``, vLLM's ``--allowed-local-media-path``); a remote
server cannot read this machine's files, so the remote engine reads them, under the same rule,
and sends ``data:`` URLs (``engine/remote_media.py``).
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any, Iterable, Mapping

from console.messages import Message, MessageError

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
        "Idefics3ForConditionalGeneration",
    }
)

#: Content-part types that carry a picture (OpenAI's ``image_url``, and vLLM's ``image_pil`` /
#: ``image_embeds`` extensions).
IMAGE_PART_TYPES = frozenset({"image_url", "input_image", "image_pil", "image_embeds"})


class ImagesRefused(MessageError):
    """A request carries images the model cannot take; raised before anything reaches the engine."""


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


def image_count(messages: Iterable[Mapping[str, Any]] | None) -> int:
    """How many image parts ``messages`` (OpenAI chat messages) carry."""
    count = 0
    for message in messages or ():
        content = message.get("content")
        if isinstance(content, list):
            count += sum(1 for part in content if isinstance(part, dict) and part.get("type") in IMAGE_PART_TYPES)
    return count


def refuse_images(messages: Iterable[Mapping[str, Any]] | None, takes: bool | None, model: str) -> None:
    """Raise :class:`ImagesRefused` when ``messages`` carry an image and the model does not take
    images (``takes`` False; None, unknown, as for a server someone else runs, lets them through)."""
    if takes is False and image_count(messages):
        raise ImagesRefused(refusal_message(model))


def refusal_message(model: str) -> Message:
    """The one-line refusal of a picture for ``model`` (its name; "" when it has none here), the same
    in the window, the terminal chat, the batch and for a remote server's text-only model."""
    if not model:
        return Message(
            "The loaded model does not take images: load a vision model (such as Gemma 3 or Qwen2.5-VL) "
            "or remove the picture"
        )
    return Message(
        "{0} does not take images: load a vision model (such as Gemma 3 or Qwen2.5-VL) or remove the picture",
        model,
    )


def content_text(content: Any) -> str:
    """A message's content as text: a string as it is, parts as their text with ``[image]`` for
    each picture (what a list of prompts or a log shows)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    words = []
    for part in content:
        if isinstance(part, dict) and part.get("type") == "text":
            words.append(str(part.get("text", "")))
        elif isinstance(part, dict) and part.get("type") in IMAGE_PART_TYPES:
            words.append("[image]")
    return " ".join(w for w in words if w)


def data_url(data: bytes, mime: str) -> str:
    """``data:<mime>;base64,...`` of ``data``."""
    return f"data:{mime};base64," + base64.b64encode(data).decode("ascii")


__all__ = [
    "IMAGE_PART_TYPES",
    "ImagesRefused",
    "VISION_ARCHITECTURES",
    "config_takes_images",
    "content_text",
    "data_url",
    "image_count",
    "refusal_message",
    "refuse_images",
    "takes_images",
]
