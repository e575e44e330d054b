"""An engine whose location can change while the program runs (the GUI's engine picker).

:class:`EngineSwitch` is itself an :class:`~console.engine.interface.Engine`: the window and its
panels keep one object (and one status-listener registration) for the whole session, while
:meth:`EngineSwitch.use` replaces what is behind it -- the in-process engine, a console-launched
server or a remote server. Every backend feeds the switch's one :class:`MetricsStore`, so the
monitor's plots simply continue.
"""

from __future__ import annotations

import concurrent.futures as cf
import logging
import threading
from typing import Any, Callable, Iterator, Sequence, TypeVar

from console.config import EngineConfig
from console.engine.factory import EngineChoice, make_engine
from console.engine.in_process import InProcessEngine
from console.engine.interface import (
    NEEDS_LOADER,
    CannotLoad,
    Connectable,
    Engine,
    Handle,
    KeepWarm,
    Loader,
    as_loader,
)
from console.messages import Message
from console.metrics.store import MetricsStore
from console.engine.types import (
    EngineBusy,
    EngineError,
    EngineInfo,
    EngineState,
    EngineStatus,
    EventSink,
    GenerationRequest,
    StatusListener,
    StreamEvent,
    WarmModel,
)

log = logging.getLogger(__name__)

E = TypeVar("E", bound=Engine)


class EngineSwitch:
    def __init__(self, backend: Engine | None = None, metrics: MetricsStore | None = None) -> None:
        self.metrics = metrics or (backend.metrics if backend is not None else MetricsStore())
        self._backend: Engine = backend or InProcessEngine(self.metrics)
        self._choice = EngineChoice("local")
        self._listeners: list[StatusListener] = []
        self._lock = threading.Lock()
        self._backend.add_status_listener(self._forward)

    @property
    def backend(self) -> Engine:
        return self._backend

    @property
    def choice(self) -> EngineChoice:
        return self._choice

    def _forward(self, status: EngineStatus) -> None:
        for listener in list(self._listeners):
            try:
                listener(status)
            except Exception:
                log.exception("status listener failed")

    def use(
        self,
        choice: EngineChoice,
        api_key: str | None = None,
        verify: bool | str = True,
        media_folder: str | None = None,
    ) -> Engine:
        """Close the current backend (its model is unloaded, a console-launched server stopped)
        and put a new, unloaded one of ``choice`` in its place (``media_folder``: a remote
        server's, ``make_engine``). Blocks while the old one shuts down: call it off the GUI thread."""
        return self.use_engine(
            choice,
            lambda: make_engine(
                choice, api_key=api_key, metrics=self.metrics, verify=verify, media_folder=media_folder
            ),
        )

    def use_engine(self, choice: EngineChoice, build: Callable[[], E]) -> E:
        """:meth:`use` with an engine ``build()`` makes (on this switch's metrics), e.g. the
        Server tab's server on the port the user chose."""
        with self._lock:
            if self._backend.status.state in (EngineState.LOADING, EngineState.STOPPING):
                raise EngineBusy(Message("The engine is busy loading or stopping; wait for it before switching"))
            old = self._backend
            new = build()
            old.remove_status_listener(self._forward)
            new.add_status_listener(self._forward)
            self._backend, self._choice = new, choice
        try:
            old.close()
        except Exception:
            log.exception("closing the previous engine failed")
        self._forward(new.status)
        return new

    # -- Engine, delegated ---------------------------------------------------------------------
    @property
    def status(self) -> EngineStatus:
        return self._backend.status

    @property
    def config(self) -> EngineConfig | None:
        return self._backend.config

    @property
    def tokenizer(self) -> Any:
        return self._backend.tokenizer

    def add_status_listener(self, listener: StatusListener) -> None:
        self._listeners.append(listener)

    def remove_status_listener(self, listener: StatusListener) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    def current_loader(self) -> Loader | None:
        """The backend when it can load (in-process, console-launched server), else None."""
        return as_loader(self._backend)

    def load(self, config: EngineConfig, name: str | None = None, *, keep_warm: bool = False) -> cf.Future[EngineInfo]:
        """Load ``config`` in the backend; refused (:class:`CannotLoad`) for a remote server.
        ``keep_warm`` (the in-process engine only) keeps the model in use warm for a quick switch back."""
        loader = self.current_loader()
        if loader is None:
            raise CannotLoad(Message("Loading a model {0}. Pick Engine > Engine location… to switch.", NEEDS_LOADER))
        if keep_warm:
            if not isinstance(loader, KeepWarm):
                raise CannotLoad(
                    Message(
                        "Keeping a model warm needs the in-process engine: a console-launched server "
                        "serves one model (vLLM's server offers /sleep and /wake_up only in its "
                        "development mode, VLLM_SERVER_DEV_MODE=1)"
                    )
                )
            return loader.load(config, name, keep_warm=True)
        return loader.load(config, name)

    def warm_models(self) -> list[WarmModel]:
        """The in-process engine's warm models; none elsewhere."""
        return self._backend.warm_models() if isinstance(self._backend, KeepWarm) else []

    def drop_warm(self, name: str) -> cf.Future[bool]:
        if not isinstance(self._backend, KeepWarm):
            done: cf.Future[bool] = cf.Future()
            done.set_result(False)
            return done
        return self._backend.drop_warm(name)

    def connect(self) -> cf.Future[EngineInfo]:
        """Connect a remote backend (what ``load`` is for the other kinds)."""
        if not isinstance(self._backend, Connectable):
            raise EngineError(Message("The engine is not a remote server: load a model instead"))
        return self._backend.connect()

    def unload(self) -> cf.Future[None]:
        """Unload the model, stop a launched server, or disconnect from a remote one."""
        loader = self.current_loader()
        if loader is not None:
            return loader.unload()
        if not isinstance(self._backend, Connectable):
            raise EngineError(Message("The engine can neither unload nor disconnect"))
        return self._backend.disconnect()

    def close(self, timeout: float = 60.0) -> None:
        self._backend.close(timeout)

    def submit(self, request: GenerationRequest, on_event: EventSink | None = None) -> Handle:
        return self._backend.submit(request, on_event)

    def submit_many(
        self, requests: Sequence[GenerationRequest], sinks: Sequence[EventSink | None] | None = None
    ) -> Sequence[Handle]:
        return self._backend.submit_many(requests, sinks)

    def abort(self, request_id: str) -> None:
        self._backend.abort(request_id)

    def reset_prefix_cache(self) -> cf.Future[bool]:
        return self._backend.reset_prefix_cache()

    def format_prompt(self, request: GenerationRequest) -> Any:
        return self._backend.format_prompt(request)

    def count_tokens(self, text: str) -> int:
        return self._backend.count_tokens(text)

    def count_prompt_tokens(self, request: GenerationRequest) -> int:
        return self._backend.count_prompt_tokens(request)

    def adapters(self) -> dict[str, str]:
        return self._backend.adapters()

    def stream(self, request: GenerationRequest, timeout: float | None = None) -> Iterator[StreamEvent]:
        return self._backend.stream(request, timeout)

    def generate(self, request: GenerationRequest, timeout: float | None = None) -> StreamEvent:
        return self._backend.generate(request, timeout)

    def run_coroutine(self, coro: Any) -> Any:
        return self._backend.run_coroutine(coro)  # type: ignore[attr-defined]


__all__ = ["EngineSwitch"]
