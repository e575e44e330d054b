"""``inference-console chat --image FILE``: pictures attached to the first message (repeatable),
sent as OpenAI content parts like the window's. Each file is read and checked before the engine
starts; a model from the store that does not take images refuses them in one line before it is
loaded (and a loaded one before anything is sent); a server's model answers for itself."""

from __future__ import annotations

import argparse

from console.chat.attachments import Attachment, ImageError, load_image, model_takes_images, refusal
from console.cli.common import CliError
from console.engine.interface import Engine
from console.launch import default_model_name
from console.models.store import ModelStore, StoreError


def add_image_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--image",
        action="append",
        default=[],
        metavar="FILE",
        help="attach a picture (PNG, JPEG, WebP, GIF, BMP) to the first message (repeatable); the model "
        "must take images (a vision model such as Gemma 3 or Qwen2.5-VL)",
    )


def images_from_args(args: argparse.Namespace) -> list[Attachment]:
    """The ``--image`` files, read and checked, before the engine starts (CliError: one line),
    and refused for a model of the store that does not take images."""
    try:
        images = [load_image(path) for path in args.image]
    except ImageError as exc:
        raise CliError(str(exc)) from None
    if images and args.engine in ("local", "serve"):
        name = args.model or default_model_name()
        try:
            folder = ModelStore().get(name).path
        except StoreError:
            return images  # the engine's start says what is wrong with the name
        refused = refusal(name, model_takes_images(folder))
        if refused is not None:
            raise CliError(str(refused))
    return images


def loaded_refusal(engine: Engine) -> ImageError | None:
    """The loaded model's refusal of pictures, None when it takes them or it is not known (a server)."""
    status = engine.status
    if status.info is None:
        return None
    return refusal(status.model or status.info.model, status.info.takes_images)


__all__ = ["add_image_args", "images_from_args", "loaded_refusal"]
