"""Pictures in the chat: an image the user attaches (a file, or the clipboard's bytes), checked
to be one, and the user message that carries it to the model as OpenAI content parts (one
``image_url`` part per image as a ``data:`` URL, then the text, which every vLLM engine takes: in
process through vLLM's chat preprocessing, or a server over HTTP).

Loading reads the file and its header (Pillow names the format); nothing here decodes, resizes or
re-encodes a picture: the model's own processor in vLLM does that. No Qt here.
"""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Callable, Sequence

from console.messages import Message, MessageError
from console.engine.image_parts import data_url, image_count, refusal_message, takes_images

#: The largest picture the chat attaches (a photo from a phone is 2-8 MB).
MAX_IMAGE_BYTES = 20 * 1024**2

#: Pillow's format name -> (MIME type, file suffix) of the pictures the chat takes: those vLLM's
#: image loader (Pillow) opens and a vision model's processor converts to RGB.
FORMATS = {
    "PNG": ("image/png", ".png"),
    "JPEG": ("image/jpeg", ".jpg"),
    "WEBP": ("image/webp", ".webp"),
    "GIF": ("image/gif", ".gif"),
    "BMP": ("image/bmp", ".bmp"),
}

#: The file dialog's pattern for them.
FILE_PATTERN = "*.png *.jpg *.jpeg *.webp *.gif *.bmp"


class ImageError(MessageError):
    """A picture that cannot be attached or sent; the message is meant for the user."""


@dataclass(frozen=True)
class Attachment:
    """A picture ready to send: its bytes, MIME type, the name it came with and its size in
    pixels."""

    data: bytes
    mime: str
    name: str
    width: int
    height: int

    @property
    def suffix(self) -> str:
        return next((suffix for mime, suffix in FORMATS.values() if mime == self.mime), ".img")

    @property
    def digest(self) -> str:
        """The content's SHA-256 (the same picture attached twice is one file)."""
        return hashlib.sha256(self.data).hexdigest()

    @cached_property
    def url(self) -> str:
        """The picture as a ``data:`` URL (made once; a worker thread makes it for a large one)."""
        return data_url(self.data, self.mime)


def image_from_bytes(data: bytes, name: str) -> Attachment:
    """``data`` as an attachment named ``name``; :class:`ImageError` when it is not a picture the
    chat takes, or is too large."""
    if len(data) > MAX_IMAGE_BYTES:
        raise ImageError(
            Message("{0} is too large to attach ({1} MB; at most {2} MB)", name, len(data) // 1024**2, _max_mb())
        )
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as image:  # reads the header only
            fmt, (width, height) = image.format or "", image.size
    except (UnidentifiedImageError, OSError, ValueError):
        raise ImageError(Message("{0} is not a picture the chat can read", name)) from None
    if fmt not in FORMATS:
        raise ImageError(Message("{0} is a {1} picture; the chat takes {2}", name, fmt, ", ".join(sorted(FORMATS))))
    return Attachment(data, FORMATS[fmt][0], name, width, height)


def load_image(path: str | Path) -> Attachment:
    """The picture in the file at ``path``; :class:`ImageError` when it cannot be read, is not a
    picture the chat takes, or is too large."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > MAX_IMAGE_BYTES:
            raise ImageError(
                Message("{0} is too large to attach ({1} MB; at most {2} MB)", path.name, size // 1024**2, _max_mb())
            )
        data = path.read_bytes()
    except OSError as exc:
        raise ImageError(Message("Could not read {0}: {1}", str(path), exc.strerror or str(exc))) from None
    return image_from_bytes(data, path.name)


def _max_mb() -> int:
    return MAX_IMAGE_BYTES // 1024**2


def user_content(text: str, image_urls: Sequence[str]) -> str | list[dict[str, Any]]:
    """A user message's OpenAI ``content``: the text alone without pictures, else content parts:
    each picture, then the text when there is any (the order vision models' own chat examples
    use: the picture before the question about it)."""
    if not image_urls:
        return text
    parts: list[dict[str, Any]] = [{"type": "image_url", "image_url": {"url": url}} for url in image_urls]
    return parts + ([{"type": "text", "text": text}] if text else [])


def missing_picture(exc: OSError) -> ImageError:
    """A saved picture whose file cannot be read any more."""
    return ImageError(Message("A picture of this conversation cannot be read: {0}", str(exc.filename or exc)))


def model_takes_images(model_path: str) -> bool | None:
    """Whether the model loaded from ``model_path`` takes images, from its ``config.json``
    (``console/engine/image_parts.py``); None when there is no such file there (a server's model, known by
    its name only: the server answers for itself)."""
    if not model_path or not (Path(model_path) / "config.json").is_file():
        return None
    return takes_images(model_path)


def refusal(model: str, takes_images: bool | None) -> ImageError | None:
    """The one-line refusal of a picture for a model that does not take images (``takes_images``
    False); None when it does, or when that is not known here (a server's model: it answers for
    itself)."""
    return ImageError(refusal_message(model)) if takes_images is False else None


#: Whether the loaded model takes images: True, False, or None when that is not known.
VisionCheck = Callable[[], "bool | None"]

__all__ = [
    "FILE_PATTERN",
    "FORMATS",
    "MAX_IMAGE_BYTES",
    "Attachment",
    "ImageError",
    "VisionCheck",
    "data_url",
    "image_count",
    "image_from_bytes",
    "load_image",
    "missing_picture",
    "model_takes_images",
    "refusal",
    "user_content",
]
