"""What the in-process engine and the server engines share: one thread that owns an asyncio
loop, status listeners, and requests as tasks on that loop that always end in one terminal event.

Subclasses implement ``_run(request, sink, handle)`` (a coroutine that emits the request's events
and resolves ``handle.future`` with the terminal one) and say in ``_not_ready_message`` what the
user should do when a request arrives while the engine is not READY.
"""

from __future__ import annotations

import asyncio
import concurrent.futures as cf
import logging
import queue
import threading
from typing import Any, Awaitable, Callable, Iterator, Sequence, TypeVar

from console.config import EngineConfig
from console.metrics.store import MetricsStore
from console.engine.types import (
    EngineError,
    EngineNotReady,
    EngineState,
    EngineStatus,
    EventSink,
    GenerationRequest,
    RequestFailed,
    RequestFinished,
    StatusListener,
    StreamEvent,
)

log = logging.getLogger(__name__)
T = TypeVar("T")


class RequestHandle:
    """What ``submit`` returns: the request's id, a future of its terminal event, and a way to
    stop it."""

    def __init__(self, engine: "LoopEngine", request_id: str) -> None:
        self.request_id = request_id
        self._engine = engine
        self.future: cf.Future[StreamEvent] = cf.Future()

    def cancel(self) -> None:
        self._engine.abort(self.request_id)

    def result(self, timeout: float | None = None) -> StreamEvent:
        return self.future.result(timeout)


class LoopEngine:
    #: names the loop thread (``engine-<kind>``)
    kind = "engine"

    def __init__(self, metrics: MetricsStore | None = None) -> None:
        self.metrics = metrics or MetricsStore()
        self._status = EngineStatus(EngineState.STOPPED)
        self._listeners: list[StatusListener] = []
        self._lock = threading.RLock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._abort_requested: set[str] = set()
        self._config: EngineConfig | None = None
        #: what load() was given for the engine in use (``_config`` is what it became on the device)
        self._requested: EngineConfig | None = None
        self._tokenizer: Any = None
        self._closed = False

    # -- status --------------------------------------------------------------------------------
    @property
    def status(self) -> EngineStatus:
        return self._status

    @property
    def config(self) -> EngineConfig | None:
        return self._config

    @property
    def requested_config(self) -> EngineConfig | None:
        """The configuration ``load`` was given for the engine in use, before the device filled
        anything in (None when this engine does not keep it): a later load of an equal one would
        build the same engine."""
        return self._requested

    @property
    def tokenizer(self) -> Any:
        return self._tokenizer

    def adapters(self) -> dict[str, str]:
        """LoRA adapters requests may name, name -> where they live (none unless the engine
        kind serves adapters)."""
        return {}

    def add_status_listener(self, listener: StatusListener) -> None:
        """``listener(status)`` is called on the engine thread at every change."""
        self._listeners.append(listener)

    def remove_status_listener(self, listener: StatusListener) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    def _set_status(self, status: EngineStatus) -> None:
        self._status = status
        for listener in list(self._listeners):
            try:
                listener(status)
            except Exception:  # a broken listener must not break the engine
                log.exception("status listener failed")

    # -- the loop thread -----------------------------------------------------------------------
    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._closed:
                raise EngineError("the engine was closed")
            if self._loop is None:
                loop = asyncio.new_event_loop()
                ready = threading.Event()

                def run() -> None:
                    asyncio.set_event_loop(loop)
                    loop.call_soon(ready.set)
                    loop.run_forever()

                self._thread = threading.Thread(target=run, name=f"engine-{self.kind}", daemon=True)
                self._thread.start()
                ready.wait()
                self._loop = loop
            return self._loop

    def run_coroutine(self, coro: Awaitable[T]) -> cf.Future[T]:
        """Run ``coro`` on the engine loop (a closed engine raises, and ``coro`` is closed unrun)."""
        try:
            loop = self._ensure_loop()
        except BaseException:
            if asyncio.iscoroutine(coro):
                coro.close()  # else Python warns "coroutine ... was never awaited" when it is collected
            raise
        return asyncio.run_coroutine_threadsafe(coro, loop)  # type: ignore[arg-type]

    async def _shutdown(self) -> None:
        """Release what the engine holds (on its loop); ``close`` calls it once."""

    def close(self, timeout: float = 60.0) -> None:
        """Shut the engine down and stop the loop thread (idempotent; runs at exit too)."""
        with self._lock:
            if self._closed or self._loop is None:
                self._closed = True
                return
            self._closed = True
            loop = self._loop
        try:
            asyncio.run_coroutine_threadsafe(self._shutdown(), loop).result(timeout)
        except Exception:
            log.exception("closing the %s engine failed", self.kind)
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(timeout=10)

    # -- prefix cache ----------------------------------------------------------------------------
    def reset_prefix_cache(self) -> cf.Future[bool]:
        """Empty the engine's prefix cache (so a repeated benchmark run measures the engine, not
        cache hits). The future says whether it was reset; this base cannot (a server's cache is
        out of the console's reach: vLLM only exposes its reset endpoint in dev mode)."""
        done: cf.Future[bool] = cf.Future()
        done.set_result(False)
        return done

    # -- requests ------------------------------------------------------------------------------
    def _not_ready_message(self) -> str:
        return f"The engine is {self._status.state.value}: load a model first"

    async def _run(self, request: GenerationRequest, sink: EventSink | None, handle: RequestHandle) -> None:
        raise NotImplementedError

    def submit(self, request: GenerationRequest, on_event: EventSink | None = None) -> RequestHandle:
        """Start ``request``; ``on_event`` receives every event on the engine thread. The terminal
        event also resolves the returned handle's future."""
        return self.submit_many([request], [on_event])[0]

    def submit_many(
        self, requests: Sequence[GenerationRequest], sinks: Sequence[EventSink | None] | None = None
    ) -> list[RequestHandle]:
        """Start ``requests`` together, as vLLM's offline batch does: one hop onto the engine's
        loop for all of them. Submitted one by one from a busy thread, each hop waits for the loop
        thread to get the GIL back (a switch interval), so a thousand requests reached the engine
        over seconds and identical ones ran in differently shaped batches (benchmarks/gpu/README.md).
        ``sinks[i]`` receives request i's events; the handles come back in the same order."""
        for request in requests:
            request.validate()
        if self._status.state != EngineState.READY:
            raise EngineNotReady(self._not_ready_message())
        if sinks is not None and len(sinks) != len(requests):
            raise ValueError("one sink per request (or none)")
        handles = [RequestHandle(self, r.request_id) for r in requests]
        items = list(zip(requests, sinks or [None] * len(requests), handles))
        if items:
            self._ensure_loop().call_soon_threadsafe(self._start_group, items)
        return handles

    def _start_group(self, items: list[tuple[GenerationRequest, EventSink | None, RequestHandle]]) -> None:
        """On the loop: start each request's task (engines that can hold their scheduler while a
        group is added override this)."""
        for request, sink, handle in items:
            self._start_task(request, sink, handle)

    def _start_task(self, request: GenerationRequest, sink: EventSink | None, handle: RequestHandle) -> None:
        assert self._loop is not None
        rid = request.request_id
        task = self._loop.create_task(self._run(request, sink, handle))
        self._tasks[rid] = task
        task.add_done_callback(lambda t: self._task_done(rid, sink, handle))

    @staticmethod
    def _emitters(
        sink: EventSink | None, handle: RequestHandle
    ) -> tuple[Callable[[StreamEvent], None], Callable[[StreamEvent], None]]:
        """``(emit, finish)`` for one request: ``emit`` gives an event to the sink (a failing sink
        is logged, never breaks the engine); ``finish`` emits the terminal event and resolves the
        handle with it (once)."""

        def emit(event: StreamEvent) -> None:
            if sink is not None:
                try:
                    sink(event)
                except Exception:
                    log.exception("event sink failed")

        def finish(event: StreamEvent) -> None:
            if handle.future.done():
                return
            emit(event)
            handle.future.set_result(event)

        return emit, finish

    def _task_done(self, request_id: str, sink: EventSink | None, handle: RequestHandle) -> None:
        """A request's task ended. A task cancelled before its first step never runs ``_run``'s
        body, so nothing resolved its handle: do it here, or whoever waits on it waits forever."""
        self._tasks.pop(request_id, None)
        self._abort_requested.discard(request_id)
        _emit, finish = self._emitters(sink, handle)
        finish(RequestFinished(request_id, "", "abort", 0, 0, None, 0.0))

    def abort(self, request_id: str) -> None:
        loop = self._loop
        if loop is None:
            return
        # Seen by ``_run`` at its next event even when the rest of the answer is already buffered
        # and the task would not reach an await (where the cancel below lands) before its end.
        self._abort_requested.add(request_id)

        def cancel() -> None:
            task = self._tasks.get(request_id)
            if task is not None:
                task.cancel()
            else:  # finished already (or never started): nothing will discard the mark
                self._abort_requested.discard(request_id)

        loop.call_soon_threadsafe(cancel)

    def abort_requested(self, request_id: str) -> bool:
        """Whether ``abort`` was called for this running request (for ``_run`` loops)."""
        return request_id in self._abort_requested

    # -- blocking helpers for the CLI, scripts and tests -----------------------------------------
    def stream(self, request: GenerationRequest, timeout: float | None = None) -> Iterator[StreamEvent]:
        """Yield the request's events in order, ending with the terminal one. Leaving the
        iteration early (or Ctrl-C) aborts the request."""
        q: queue.Queue[StreamEvent] = queue.Queue()
        handle = self.submit(request, q.put)
        done = False
        try:
            while True:
                event = q.get(timeout=timeout)
                yield event
                if isinstance(event, (RequestFinished, RequestFailed)):
                    done = True
                    return
        finally:
            if not done:
                handle.cancel()

    def generate(self, request: GenerationRequest, timeout: float | None = None) -> StreamEvent:
        return self.submit(request).result(timeout)


__all__ = ["LoopEngine", "RequestHandle"]
