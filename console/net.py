"""The console's HTTP: httpx, with the console's settings in one place. Every HTTP request the
console itself makes goes through a client made here:

- model hubs: the search (``models/search.py``: Hugging Face and ModelScope) and the file bodies
  of a Hugging Face pull (``models/download.py``, Range requests for resuming);
- vLLM servers: a server engine (``engine/remote.py``) and the Server tab's health check
  (``engine/serving.py``).

What the clients share: the user agent ``inference-console/<version>``; timeouts given in seconds
(every phase, the connection attempt at most :data:`CONNECT_TIMEOUT_S` unless said otherwise);
proxies and CA bundles from the environment (``HTTPS_PROXY``, ``HTTP_PROXY``, ``NO_PROXY``,
``SSL_CERT_FILE``: httpx's ``trust_env``, as curl and pip read them); TLS verified, or a CA
bundle file for a private server. A client for a model hub (``hub="searching Hugging Face"``)
is refused with :class:`Offline` while offline mode is on (``INFERENCE_CONSOLE_OFFLINE`` or
``HF_HUB_OFFLINE``: ``console.privacy.offline_reason``), before anything is sent.

Hugging Face's repository API (file lists, sizes and hashes) is huggingface_hub's ``HfApi``
(``models/download.py``); ModelScope's downloads are its SDK (``models/modelscope_source.py``).
Those libraries make their own requests; nothing else in the console does.
"""

from __future__ import annotations

import ssl
from typing import Any

import httpx

from console import __version__
from console.messages import MessageError
from console.privacy import offline_reason

USER_AGENT = f"inference-console/{__version__}"
#: The longest wait for a connection, unless a caller's timeout is shorter.
CONNECT_TIMEOUT_S = 10.0


class Offline(MessageError):
    """A request to a model hub refused because offline mode is on; the message is one line
    with the way out."""


def refuse_offline(what: str) -> None:
    """Raise :class:`Offline` when offline mode forbids ``what`` (e.g. "searching ModelScope")."""

    reason = offline_reason(what)
    if reason:
        raise Offline(reason)


def timeout(seconds: float | None, connect: float | None = None) -> httpx.Timeout:
    """``seconds`` for each phase (None: no limit), the connection attempt ``connect`` or at most
    :data:`CONNECT_TIMEOUT_S`."""
    if connect is None:
        connect = CONNECT_TIMEOUT_S if seconds is None else min(seconds, CONNECT_TIMEOUT_S)
    return httpx.Timeout(seconds, connect=connect)


def host(url: str) -> str:
    """``host:port`` of ``url``, for messages."""
    return url.split("/")[2] if "//" in url else url


def _options(
    seconds: float | None,
    connect: float | None,
    headers: dict[str, str] | None,
    verify: bool | str,
    hub: str | None,
    kwargs: dict[str, Any],
) -> dict[str, Any]:
    if hub is not None:
        refuse_offline(hub)
    context: bool | ssl.SSLContext = verify if isinstance(verify, bool) else ssl.create_default_context(cafile=verify)
    return {
        "headers": {"User-Agent": USER_AGENT, **(headers or {})},
        "timeout": timeout(seconds, connect),
        "verify": context,
        "trust_env": True,
        **kwargs,
    }


def client(
    seconds: float | None,
    *,
    connect: float | None = None,
    headers: dict[str, str] | None = None,
    verify: bool | str = True,
    hub: str | None = None,
    **kwargs: Any,
) -> httpx.Client:
    """A client with the console's settings; ``verify`` may name a CA bundle file; ``hub`` says
    what a model-hub client is for (refused offline); the rest goes to ``httpx.Client``."""
    return httpx.Client(**_options(seconds, connect, headers, verify, hub, kwargs))


def async_client(
    seconds: float | None,
    *,
    connect: float | None = None,
    headers: dict[str, str] | None = None,
    verify: bool | str = True,
    hub: str | None = None,
    **kwargs: Any,
) -> httpx.AsyncClient:
    """:func:`client` for asyncio code."""
    return httpx.AsyncClient(**_options(seconds, connect, headers, verify, hub, kwargs))


def get(url: str, seconds: float, **kwargs: Any) -> httpx.Response:
    """One GET with a client of its own (:func:`client`'s keywords), the body read."""
    with client(seconds, **kwargs) as c:
        return c.get(url)


__all__ = [
    "CONNECT_TIMEOUT_S",
    "Offline",
    "USER_AGENT",
    "async_client",
    "client",
    "get",
    "host",
    "refuse_offline",
    "timeout",
]
