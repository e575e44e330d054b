"""What a server's failures mean to the user: HTTP errors and transport errors turned into
messages that say what happened and what to do (a server's failures are the normal case, not exceptions to hide)."""

from __future__ import annotations

import json

import httpx

from console.engine.types import EngineError


def normalize_url(url: str) -> str:
    """``host:port``, ``http://host:port/`` or ``.../v1`` -> ``http://host:port`` (no trailing /v1)."""
    url = url.strip().rstrip("/")
    if "://" not in url:
        url = "http://" + url
    if url.endswith("/v1"):
        url = url[:-3]
    return url


class ServerError(EngineError):
    """An HTTP answer that is not a success; ``status`` is its code (0: no answer at all)."""

    def __init__(self, message: str, status: int = 0) -> None:
        super().__init__(message)
        self.status = status


def server_message(body: bytes | str) -> str:
    """The ``message`` of vLLM's / OpenAI's JSON error body, or the body's first line."""
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    try:
        data = json.loads(text)
        err = data.get("error", data) if isinstance(data, dict) else data
        if isinstance(err, dict):
            return str(err.get("message") or err.get("detail") or err)
        return str(err)
    except ValueError:
        line = text.strip().splitlines()[0] if text.strip() else ""
        return line[:300]


def http_error(url: str, status: int, body: bytes | str) -> ServerError:
    said = server_message(body)
    if status in (401, 403):
        return ServerError(
            f"The server at {url} refused the API key (HTTP {status}): give the right key with "
            "--api-key or INFERENCE_CONSOLE_API_KEY (the GUI's engine picker has a field for it).",
            status,
        )
    if status == 404:
        return ServerError(
            f"{url} answered 404 Not Found ({said or 'no such endpoint'}): is this an "
            "OpenAI-compatible vLLM server, and is the URL its root (e.g. http://host:8000)?",
            status,
        )
    if status >= 500:
        return ServerError(f"The server at {url} failed (HTTP {status}): {said or 'no details'}", status)
    return ServerError(said or f"HTTP {status} from {url}", status)


def transport_message(url: str, exc: BaseException, partial: str = "") -> str:
    kept = f" The {len(partial)} characters received are kept." if partial else ""
    text = str(exc) or type(exc).__name__
    if isinstance(exc, httpx.ConnectError):
        if "SSL" in text or "certificate" in text.lower():
            return (
                f"TLS check failed for {url}: {text}. Use a certificate your system trusts, or give the "
                "server's CA bundle (certificates are verified by default)."
            )
        return f"Cannot reach the server at {url} ({text}): is it running, and are the address and port right?"
    if isinstance(exc, httpx.ConnectTimeout):  # no TCP answer at all: a host that is down, or a firewall
        return (
            f"Cannot reach the server at {url} (no answer to the connection attempt in time): is it "
            "running, and are the address and port right?"
        )
    if isinstance(exc, httpx.TimeoutException):
        return f"The server at {url} did not answer in time ({type(exc).__name__}).{kept}"
    if isinstance(exc, (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError)):
        return (
            f"The connection to the server at {url} dropped mid-answer (the server stopped, restarted or "
            f"crashed: {text}).{kept} Reconnecting; re-run to finish."
        )
    return f"Talking to the server at {url} failed: {type(exc).__name__}: {text}.{kept}"


__all__ = ["ServerError", "http_error", "normalize_url", "server_message", "transport_message"]
