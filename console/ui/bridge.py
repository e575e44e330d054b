"""The bridge between the in-process engine (its own thread) and Qt widgets (the GUI thread).

The engine calls our sinks on the engine thread; they only append to a deque (cheap, thread-safe).
A GUI timer (~30 ms) drains the deque and emits batched signals, so a burst of 64 streams at full
speed costs the GUI thread one slot call per tick rather than one per token, and the GUI thread
never waits on the engine.

Signals:
    statusChanged(EngineStatus): the engine's state, stage, error or info changed.
    requestEvents(list): stream events (TokenDelta / RequestFinished / RequestFailed) since the
        last tick, in order. Widgets keep only those whose ``request_id`` they own (stale ids are
        dropped).
    loadFinished(object): EngineInfo after a successful load, or what the failure says (its
        :class:`~console.messages.Message` when it carries one, for the window to translate).
"""

from __future__ import annotations

import collections
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from console.config import EngineConfig
from console.engine.interface import (
    LOADING_NEEDS_LOADER,
    UNLOADING_NEEDS_LOADER,
    WARM_NEEDS_IN_PROCESS,
    CannotLoad,
    Engine,
    Handle,
    KeepWarm,
    Loadable,
)
from console.engine.types import EngineError, EngineStatus, GenerationRequest, StreamEvent, TokenDelta
from console.messages import message_of


class EngineBridge(QObject):
    statusChanged = Signal(object)
    requestEvents = Signal(list)
    loadFinished = Signal(object)

    def __init__(self, engine: Engine, parent: QObject | None = None, interval_ms: int = 30) -> None:
        super().__init__(parent)
        self.engine = engine
        self._events: collections.deque[StreamEvent] = collections.deque()
        self._statuses: collections.deque[EngineStatus] = collections.deque()
        self._loads: collections.deque[object] = collections.deque()
        self._handles: dict[str, Handle] = {}
        self._listener = self._statuses.append
        engine.add_status_listener(self._listener)
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self._on_timer_tick)
        self._timer.start()

    # -- intents (GUI thread) ------------------------------------------------------------------
    def load(self, config: EngineConfig, name: str, keep_warm: bool = False) -> None:
        """Start a load; the outcome arrives through ``loadFinished`` and ``statusChanged``.
        ``keep_warm``: keep the model in use warm (a switch back wakes it instead of loading)."""
        engine = self.engine
        try:
            if keep_warm:
                if not isinstance(engine, KeepWarm):
                    raise CannotLoad(WARM_NEEDS_IN_PROCESS)
                future = engine.load(config, name, keep_warm=True)
            else:
                if not isinstance(engine, Loadable):
                    raise CannotLoad(LOADING_NEEDS_LOADER)
                future = engine.load(config, name)
        except EngineError as exc:
            self._loads.append(message_of(exc))
            return

        def done(f: Any) -> None:
            exc = f.exception()
            self._loads.append(f.result() if exc is None else message_of(exc))

        future.add_done_callback(done)

    def unload(self) -> None:
        try:
            if not isinstance(self.engine, Loadable):
                raise CannotLoad(UNLOADING_NEEDS_LOADER)
            self.engine.unload()
        except EngineError as exc:
            self._loads.append(message_of(exc))

    def submit(self, request: GenerationRequest) -> str:
        """Start a request; raises EngineError (not ready) synchronously, so callers can show it."""
        handle = self.engine.submit(request, self._events.append)
        self._handles[request.request_id] = handle
        return request.request_id

    def abort(self, request_id: str) -> None:
        self.engine.abort(request_id)

    # -- delivery (GUI thread) -------------------------------------------------------------------
    def _on_timer_tick(self) -> None:
        while self._statuses:
            self.statusChanged.emit(self._statuses.popleft())
        while self._loads:
            self.loadFinished.emit(self._loads.popleft())
        if self._events:
            batch = []
            while self._events:
                batch.append(self._events.popleft())
            for ev in batch:
                if not isinstance(ev, TokenDelta):  # finished or failed: forget the handle
                    self._handles.pop(ev.request_id, None)
            self.requestEvents.emit(batch)

    def close(self) -> None:
        """Stop delivering (idempotent): the engine no longer calls this bridge and its timer stops,
        so nothing connected to its signals hears of the engine again. For a bridge on an engine that
        outlives it (one engine, several windows or tests)."""
        self._timer.stop()
        self.engine.remove_status_listener(self._listener)
        self._statuses.clear()
        self._loads.clear()
        self._events.clear()

    def flush(self) -> None:
        """Deliver whatever is queued now (tests call this instead of waiting for the timer)."""
        self._on_timer_tick()
