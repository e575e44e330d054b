"""The engine interface, split by capability.

:class:`Engine` is the request side every engine has: what chat, batch, bench and the monitor
need (submit, abort, stream, generate, the tokenizer, token counting, metrics, status, close).
:class:`Loader` adds ``load``/``unload`` (:class:`Loadable`): only engines the console can give a configuration to
have it -- :class:`~console.engine.in_process.InProcessEngine` (vLLM in this process) and
:class:`~console.engine.child_server.ChildServer` (a ``vllm serve`` the console starts).
:class:`~console.engine.remote.RemoteEngine` (a server someone else started) only connects: its
configuration is the server's. Work that reloads the engine with other settings -- the
quantization gate, Auto-tune, baselines taken from the loaded configuration -- asks for a
:class:`Loader` through :func:`require_loader`, so it cannot run against a remote server and
silently measure settings that were never applied.

Other capabilities are Protocols too, checked with ``isinstance`` (never with ``hasattr`` or a
``getattr`` default: tests/test_no_probes.py): :class:`Loadable` (what the window loads through),
:class:`KeepWarm` (models kept warm, the in-process engine), :class:`AttachesAdapters` (LoRA on the
in-process engine), :class:`ServedOverHttp` (a server with a URL), :class:`Switchable` (the GUI's
engine switch; :func:`backend_of` is what stands behind it), :class:`Connectable`, :class:`ServerLog`.

Conventions shared by all three: status listeners and event sinks are called on the engine's own
thread; every submitted request ends in exactly one terminal event; ``metrics`` is fed with the
same series (KV usage, running/waiting, token counters, TTFT/ITL) whatever the source.
"""

from __future__ import annotations

import concurrent.futures as cf
from pathlib import Path
from typing import Any, Callable, Iterator, Protocol, Sequence, TypeVar, runtime_checkable

from console.config import EngineConfig
from console.messages import Message
from console.metrics.store import MetricsStore
from console.engine.types import (
    EngineChoice,
    EngineError,
    EngineInfo,
    EngineStatus,
    EventSink,
    GenerationRequest,
    StatusListener,
    StreamEvent,
    WarmModel,
)

E = TypeVar("E", bound="Engine")

#: Why reloading work (gate, tuning, baselines) is refused; the GUI shows it as a tooltip.
NEEDS_LOADER = Message(
    "needs an engine the console can load: the in-process engine or a console-launched server "
    "(a remote server keeps its own configuration)"
)
#: The refusals of work that needs a :class:`Loader` (or the in-process engine) elsewhere.
LOADING_NEEDS_LOADER = Message("Loading a model {0}", NEEDS_LOADER)
UNLOADING_NEEDS_LOADER = Message("Unloading {0}", NEEDS_LOADER)
WARM_NEEDS_IN_PROCESS = Message("Keeping a model warm needs the in-process engine")


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

    def close(self, timeout: float = 60.0) -> None: ...

    def submit(self, request: GenerationRequest, on_event: EventSink | None = None) -> Handle: ...

    def submit_many(
        self, requests: Sequence[GenerationRequest], sinks: Sequence[EventSink | None] | None = None
    ) -> Sequence[Handle]: ...

    def abort(self, request_id: str) -> None: ...

    def reset_prefix_cache(self) -> cf.Future[bool]: ...

    def format_prompt(self, request: GenerationRequest) -> Any: ...

    def count_tokens(self, text: str) -> int: ...

    def count_prompt_tokens(self, request: GenerationRequest) -> int: ...

    def adapters(self) -> dict[str, str]: ...

    def stream(self, request: GenerationRequest, timeout: float | None = None) -> Iterator[StreamEvent]: ...

    def generate(self, request: GenerationRequest, timeout: float | None = None) -> StreamEvent: ...


@runtime_checkable
class Loadable(Protocol):
    """What can be asked to load a configuration and to unload: a :class:`Loader`, and the GUI's
    :class:`~console.engine.switch.EngineSwitch`, which passes both on to its backend (refusing
    ``load`` with :class:`CannotLoad` while that is a remote server, whose ``unload`` disconnects)."""

    def load(self, config: EngineConfig, name: str | None = None) -> cf.Future[EngineInfo]: ...

    def unload(self) -> cf.Future[None]: ...


@runtime_checkable
class Loader(Engine, Loadable, Protocol):
    """An engine the console configures: ``load`` starts it with ``config`` (replacing any model
    loaded before), ``unload`` stops it."""

    @property
    def requested_config(self) -> EngineConfig | None: ...


@runtime_checkable
class KeepWarm(Protocol):
    """An engine that keeps models warm for a quick switch back: the in-process
    :class:`~console.engine.in_process.InProcessEngine`, and the switch standing for whatever is behind it
    (no warm models, and ``load(..., keep_warm=True)`` refused, unless that is the host)."""

    def load(
        self, config: EngineConfig, name: str | None = None, *, keep_warm: bool = False
    ) -> cf.Future[EngineInfo]: ...

    def warm_models(self) -> list[WarmModel]: ...

    def drop_warm(self, name: str) -> cf.Future[bool]: ...


@runtime_checkable
class AttachesAdapters(Protocol):
    """An engine LoRA adapters attach to: the model is loaded in this process
    (:class:`~console.engine.in_process.InProcessEngine`); a server's adapters are the server's."""

    def attach_adapter(self, name: str, path: str | Path) -> object: ...


@runtime_checkable
class ServedOverHttp(Protocol):
    """An engine that is a vLLM server reached over HTTP (:class:`~console.engine.remote.HttpEngine`:
    a remote one or one the console launched); ``url`` is its base URL, "" until it has one."""

    url: str


@runtime_checkable
class Switchable(Protocol):
    """An engine whose location can change while the program runs (the GUI's
    :class:`~console.engine.switch.EngineSwitch`): ``backend`` is the engine behind it now, and
    every backend feeds its ``metrics``. Not an :class:`Engine` subclass, so that ``isinstance``
    (which reads each member) reads only these, never the engine's status or tokenizer."""

    metrics: MetricsStore

    @property
    def backend(self) -> Engine: ...

    @property
    def choice(self) -> EngineChoice: ...

    def use(
        self,
        choice: EngineChoice,
        api_key: str | None = None,
        verify: bool | str = True,
        media_folder: str | None = None,
    ) -> Engine: ...

    def use_engine(self, choice: EngineChoice, build: Callable[[], E]) -> E: ...


@runtime_checkable
class StandsForLoader(Protocol):
    """An engine that stands for another one (the GUI's :class:`~console.engine.switch.EngineSwitch`):
    the loader behind it now, if any."""

    def current_loader(self) -> Loader | None: ...


@runtime_checkable
class Connectable(Protocol):
    """An engine that connects rather than loads (:class:`~console.engine.remote.RemoteEngine`)."""

    def connect(self) -> cf.Future[EngineInfo]: ...

    def disconnect(self) -> cf.Future[None]: ...


@runtime_checkable
class ServerLog(Protocol):
    """An engine with a server process's log (:class:`~console.engine.child_server.ChildServer`)."""

    def log_lines(self) -> list[str]: ...

    def add_log_listener(self, listener: Callable[[str], None]) -> None: ...

    def remove_log_listener(self, listener: Callable[[str], None]) -> None: ...


class CannotLoad(EngineError):
    """Work that reloads the engine was asked of an engine that cannot load."""


def as_loader(engine: Any) -> Loader | None:
    """``engine`` as a :class:`Loader`, or None. An engine that stands for another one (the GUI's
    :class:`~console.engine.switch.EngineSwitch`) answers with what is behind it now."""
    if isinstance(engine, StandsForLoader):
        return engine.current_loader()
    return engine if isinstance(engine, Loader) else None


def backend_of(engine: Engine) -> Engine:
    """The engine doing the work: what a :class:`Switchable` stands for now, else ``engine``."""
    return engine.backend if isinstance(engine, Switchable) else engine


def require_loader(engine: Any, what: str = "This") -> Loader:
    """``engine`` as a :class:`Loader`; raises :class:`CannotLoad` saying ``what`` needs one."""
    loader = as_loader(engine)
    if loader is None:
        raise CannotLoad(f"{what} {NEEDS_LOADER}")
    return loader


__all__ = [
    "AttachesAdapters",
    "CannotLoad",
    "Connectable",
    "Engine",
    "Handle",
    "KeepWarm",
    "Loadable",
    "Loader",
    "NEEDS_LOADER",
    "ServedOverHttp",
    "ServerLog",
    "StandsForLoader",
    "Switchable",
    "as_loader",
    "backend_of",
    "require_loader",
]
