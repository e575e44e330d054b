"""Run many requests on one engine with bounded concurrency: the one loop behind batch files
(``console/batch/runner.py``) and benchmarks (``console/bench/runner.py``).

:class:`ManyRequests` submits ``(key, request)`` pairs -- at most ``concurrency`` in flight,
optionally on an arrival schedule (seconds after the start) -- and yields each one's
:class:`Done` on the calling thread, in completion order, so the consumer writes files and
reports progress without locks. Cancel (``task`` or :meth:`ManyRequests.cancel`) aborts what is
in flight and yields those requests' terminal (``abort``) events too, so nothing is left behind.
What is due is submitted as one group (``Engine.submit_many``), which the in-process engine starts
in one step, as vLLM's offline batch does. A submit the engine refuses
(:class:`~console.engine.types.EngineError`: not ready, gone) stops further submits; what is in
flight still finishes, and :attr:`ManyRequests.submit_error` says why.
"""

from __future__ import annotations

import concurrent.futures as cf
import queue
import time
from dataclasses import dataclass
from typing import Callable, Generic, Iterable, Iterator, Sequence, TypeVar

from console.engine.interface import Engine, Handle
from console.engine.types import EngineError, GenerationRequest, StreamEvent
from console.jobs import TaskState

K = TypeVar("K")


@dataclass(frozen=True)
class Done(Generic[K]):
    key: K
    request_id: str
    event: StreamEvent  # the terminal event: RequestFinished (maybe "abort") or RequestFailed
    sent_s: float  # when it was submitted, seconds after the start
    done_s: float  # when its terminal event arrived, seconds after the start


class ManyRequests(Generic[K]):
    def __init__(
        self,
        engine: Engine,
        requests: Iterable[tuple[K, GenerationRequest]],
        *,
        concurrency: int | None = None,
        offsets: Sequence[float] | None = None,
        task: TaskState | None = None,
        poll_s: float = 0.2,
    ) -> None:
        if concurrency is not None and concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self.engine = engine
        self._todo = list(requests)
        self._offsets = list(offsets) if offsets is not None else None
        self.concurrency = concurrency
        self.task = task
        self.poll_s = poll_s
        self.submit_error: EngineError | None = None
        self.cancelled = False
        self._next = 0
        self._in_flight: dict[str, Handle] = {}
        self._done: queue.Queue[Done[K]] = queue.Queue()
        self._stopped = False
        self.t0 = time.perf_counter()

    @property
    def in_flight(self) -> int:
        return len(self._in_flight)

    def stop(self) -> None:
        """Submit nothing more; what is in flight finishes."""
        self._stopped = True

    def cancel(self) -> None:
        """Submit nothing more and abort what is in flight (its abort events are still yielded)."""
        self.cancelled = True
        self._stopped = True
        for handle in list(self._in_flight.values()):
            handle.cancel()

    def _on_done(self, key: K, rid: str, sent: float) -> Callable[[cf.Future[StreamEvent]], None]:
        """The callback that queues this request's :class:`Done` (on whichever thread ends it)."""

        def done(f: cf.Future[StreamEvent]) -> None:
            self._done.put(Done(key, rid, f.result(), sent, time.perf_counter() - self.t0))

        return done

    def _submit_due(self) -> float | None:
        """Submit what is due and fits, as one group (the engine starts a group together: vLLM's
        offline batch gives every request to the engine before it runs); seconds until the next
        scheduled submit, or None."""
        group: list[tuple[K, GenerationRequest]] = []
        wait: float | None = None
        while not self._stopped and self._next < len(self._todo):
            if self.concurrency is not None and len(self._in_flight) + len(group) >= self.concurrency:
                break
            if self._offsets is not None:
                due = self._offsets[self._next] - (time.perf_counter() - self.t0)
                if due > 0:
                    wait = due
                    break
            group.append(self._todo[self._next])
            self._next += 1
        if group:
            self._send(group)
        return wait

    def _send(self, group: list[tuple[K, GenerationRequest]]) -> None:
        sent = time.perf_counter() - self.t0
        try:
            handles = self.engine.submit_many([request for _key, request in group])
        except EngineError as exc:
            self.submit_error = exc
            self._stopped = True
            return
        for (key, request), handle in zip(group, handles):
            self._in_flight[request.request_id] = handle
            handle.future.add_done_callback(self._on_done(key, request.request_id, sent))

    def __iter__(self) -> Iterator[Done[K]]:
        try:
            while True:
                if self.task is not None and self.task.cancelled and not self.cancelled:
                    self.cancel()
                wait = self._submit_due()
                more = not self._stopped and self._next < len(self._todo)
                if not self._in_flight and not more:
                    return
                timeout = self.poll_s if wait is None else min(self.poll_s, wait)
                try:
                    done = self._done.get(timeout=max(timeout, 0.0))
                except queue.Empty:
                    continue
                self._in_flight.pop(done.request_id, None)
                yield done
        finally:  # the consumer left early (an exception, a break): leave nothing running
            if self._in_flight:
                self.cancel()


__all__ = ["Done", "ManyRequests"]
