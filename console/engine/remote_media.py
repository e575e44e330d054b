"""Pictures a remote server cannot read: a request's ``file://`` image URLs name files on this
machine, which a server elsewhere cannot open. The remote engine reads them here and sends them
as ``data:`` URLs, under the same rule the in-process engine applies (vLLM's own
``--allowed-local-media-path`` check, run by vLLM's ``MediaConnector``): only files under the
folder the user allows, every other one refused with vLLM's own one-line message, the request
alone failing. ``data:`` and web URLs pass as they are (the server reads those itself).

And the other way: a server whose model takes no images refuses a picture with vLLM's error,
which becomes the console's one-line refusal (``image_parts.refuse_images``) instead of vLLM's words.
"""

from __future__ import annotations

import mimetypes
from pathlib import Path
from typing import Any, Sequence
from urllib.parse import urlsplit

from console.engine import image_parts
from console import vllm_compat
from console.engine.types import EngineError

#: vLLM's words when a request carries a picture and its model takes none (the chat renderer's,
#: and the multimodal registry's).
TEXT_ONLY_SIGNS = ("requires a multimodal processor", "is not a multimodal model")


class MediaRefused(EngineError):
    """A picture the console will not read for a remote server; the message is vLLM's."""


class _FileBytes:
    """The part of vLLM's ``MediaIO`` its connector calls for a ``file://`` URL, once it has
    checked the path: the file's bytes, unread by any image library."""

    def load_file(self, filepath: Path) -> tuple[bytes, Path]:
        return filepath.read_bytes(), filepath


def _file_url(part: Any) -> str | None:
    if not (isinstance(part, dict) and part.get("type") == "image_url"):
        return None
    spec = part.get("image_url")
    url = spec.get("url") if isinstance(spec, dict) else spec
    if not isinstance(url, str) or url[:5].lower() == "data:":  # a data URL can be megabytes: not parsed
        return None
    return url if urlsplit(url).scheme.lower() == "file" else None  # file:///p, file:/p, FILE://...


def has_local_images(messages: Sequence[dict[str, Any]] | None) -> bool:
    """``messages`` name a picture by a ``file://`` URL."""
    return any(
        _file_url(part) is not None
        for m in messages or ()
        if isinstance(m.get("content"), list)
        for part in m["content"]
    )


def _read(url: str, connector: Any) -> str:
    try:
        data, path = connector.load_from_url(url, _FileBytes())
    except (OSError, ValueError, RuntimeError) as exc:
        text = str(exc).strip() or type(exc).__name__
        raise MediaRefused(text.splitlines()[0]) from None
    return image_parts.data_url(data, mimetypes.guess_type(path.name)[0] or "application/octet-stream")


def inline_local_images(messages: list[dict[str, Any]], allowed: str | None) -> list[dict[str, Any]]:
    """``messages`` with each ``file://`` image read here and carried as a ``data:`` URL (new
    message and part dicts; the given ones are unchanged), when the file is under ``allowed``
    (None: no folder, every file refused). Raises :class:`MediaRefused` with vLLM's message for
    a file outside it, or one that cannot be read."""
    if not has_local_images(messages):
        return messages
    try:
        connector = vllm_compat.media_connector(allowed)
    except ValueError as exc:  # the folder itself: missing, or not a folder
        raise MediaRefused(str(exc).splitlines()[0]) from None
    out = []
    for m in messages:
        content = m.get("content")
        if isinstance(content, list) and any(_file_url(p) for p in content):
            parts = []
            for part in content:
                url = _file_url(part)
                parts.append(part if url is None else {**part, "image_url": {"url": _read(url, connector)}})
            m = {**m, "content": parts}
        out.append(m)
    return out


def text_only_refusal(message: str, messages: Sequence[dict[str, Any]] | None, model: str) -> str | None:
    """The console's refusal of pictures for a server's ``message`` (its answer to a request with
    ``messages``) when it says its model takes no images; None for any other answer."""
    if not image_parts.image_count(messages) or not any(sign in message for sign in TEXT_ONLY_SIGNS):
        return None
    return image_parts.refusal_message(model)  # a Message: the window translates it


__all__ = ["MediaRefused", "TEXT_ONLY_SIGNS", "has_local_images", "inline_local_images", "text_only_refusal"]
