"""``--engine local|serve|URL``: the one place an engine choice becomes an engine object."""

from __future__ import annotations

from console.engine.interface import Engine
from console.engine.types import EngineChoice, EngineKind, ServerKind  # re-exported: where the choice is made
from console.metrics.store import MetricsStore
from console.engine.in_process import InProcessEngine


def parse_engine_choice(value: str | None) -> EngineChoice:
    """``local`` (in this process; also ``in-process``), ``serve`` (a server the console starts) or a
    URL (``http(s)://host:port``, or ``host:port``). A URL may name what serves it:
    ``trtllm+http://...`` (TensorRT-LLM's ``trtllm-serve``) or ``vllm+http://...``; otherwise the
    server's ``/metrics`` tells them apart."""
    text = (value or "local").strip()
    server: ServerKind = "auto"
    named: tuple[tuple[str, ServerKind], ...] = (("trtllm+", "trtllm"), ("vllm+", "vllm"))
    for prefix, kind in named:
        if text.lower().startswith(prefix):
            text, server = text[len(prefix) :], kind
    if text.lower() in ("local", "in-process", "inprocess"):
        return EngineChoice("local")
    if text.lower() in ("serve", "server", "local-server"):
        return EngineChoice("serve")
    if "://" in text or ":" in text:
        # deferred: imports httpx, prometheus_client
        from console.engine.remote import normalize_url

        url = normalize_url(text)
        if not url.startswith(("http://", "https://")):
            raise ValueError(f"--engine {value!r}: only http:// and https:// servers are supported")
        return EngineChoice("remote", url, server)
    raise ValueError(f"--engine {value!r}: give local, serve, or a server URL such as http://127.0.0.1:8000")


def make_engine(
    choice: EngineChoice,
    *,
    api_key: str | None = None,
    metrics: MetricsStore | None = None,
    verify: bool | str = True,
    media_folder: str | None = None,
) -> Engine:
    """A new, unloaded engine of the chosen kind (``load()`` starts it; a remote one ``connect()``s).
    ``media_folder``: for a remote server, the folder whose pictures requests may name by
    ``file://`` URLs, read here and sent (the others take it from their ``EngineConfig``)."""
    if choice.kind == "local":
        return InProcessEngine(metrics)
    if choice.kind == "serve":
        # deferred: imports httpx, prometheus_client
        from console.engine.child_server import ChildServer

        return ChildServer(metrics=metrics)
    # deferred: imports httpx, prometheus_client
    from console.engine.remote import RemoteEngine, api_key_from_env

    engine = RemoteEngine(
        choice.url,
        api_key if api_key is not None else api_key_from_env(),
        metrics=metrics,
        verify=verify,
        server=choice.server,
    )
    engine.allowed_local_media_path = media_folder
    return engine


__all__ = ["EngineChoice", "EngineKind", "ServerKind", "make_engine", "parse_engine_choice"]
