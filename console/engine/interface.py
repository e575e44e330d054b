"""The engine interface: what chat, batch, bench and the monitor need from an engine, wherever
it runs.

Three implementations satisfy it: :class:`~console.engine.host.EngineHost` (vLLM in this
process), :class:`~console.engine.remote.RemoteEngine` (any OpenAI-compatible vLLM server, over
HTTP) and :class:`~console.engine.local_server.LocalServer` (a ``vllm serve`` the console starts
as a child process). Consumers type against :class:`Engine`, never against one implementation.

Conventions shared by all three: status listeners and event sinks are called on the engine's own
thread; every submitted request ends in exactly one terminal event; ``metrics`` is fed with the
same series (KV usage, running/waiting, token counters, TTFT/ITL) whatever the source.
"""

from __future__ import annotations

import concurrent.futures as cf
from typing import Any, Iterator, Protocol, runtime_checkable

from console.config import EngineConfig
from console.engine.metrics import MetricsStore
from console.engine.types import EngineInfo, EngineStatus, EventSink, GenerationRequest, StatusListener, StreamEvent


@runtime_checkable
class Handle(Protocol):
    """A submitted request: its id, a future of its terminal event, and a way to stop it."""

    request_id: str
    future: cf.Future[StreamEvent]

    def cancel(self) -> None: ...

    def result(self, timeout: float | None = None) -> StreamEvent: ...


@runtime_checkable
class Engine(Protocol):
    metrics: MetricsStore

    @property
    def status(self) -> EngineStatus: ...

    @property
    def config(self) -> EngineConfig | None: ...

    @property
    def tokenizer(self) -> Any: ...

    def add_status_listener(self, listener: StatusListener) -> None: ...

    def remove_status_listener(self, listener: StatusListener) -> None: ...

    def load(self, config: EngineConfig, name: str | None = None) -> cf.Future[EngineInfo]: ...

    def unload(self) -> cf.Future[None]: ...

    def close(self, timeout: float = 60.0) -> None: ...

    def submit(self, request: GenerationRequest, on_event: EventSink | None = None) -> Handle: ...

    def abort(self, request_id: str) -> None: ...

    def reset_prefix_cache(self) -> cf.Future[bool]: ...

    def format_prompt(self, request: GenerationRequest) -> Any: ...

    def count_tokens(self, text: str) -> int: ...

    def stream(self, request: GenerationRequest, timeout: float | None = None) -> Iterator[StreamEvent]: ...

    def generate(self, request: GenerationRequest, timeout: float | None = None) -> StreamEvent: ...


__all__ = ["Engine", "Handle"]
