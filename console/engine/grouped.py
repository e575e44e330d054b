"""Requests that start together: a group added to vLLM while its scheduler is held.

vLLM's offline batch (``LLM.generate``) adds every request before they run; requests handed over
one by one reach the engine milliseconds apart, and identical prompts run in differently shaped
batches. On a GPU that changes the numerics (no batch
invariance): the same greedy question answered three ways in one batch. :class:`SchedulerGate`
freezes the scheduler (``pause_generation(mode="keep")``: running requests wait, new ones queue),
lets every request of the group reach the engine's queue, then resumes it, so the group's first
step schedules them all together (as many as ``max_num_seqs`` and the token budget allow).

:func:`generate` is ``AsyncLLM.generate`` (its body is the same in vLLM 0.26 and 0.32) with one
addition, ``on_added``: called once the request is in the engine's queue (or failed to get there),
which is what the gate waits for before resuming.

The hold lasts only the adds: every request of the group is made ready for the engine first
(chat template rendered, tokenized, turned into vLLM's ``EngineCoreRequest`` by its input
processor: :func:`~console.vllm_compat.engine_core_request`) while the scheduler runs on;
then the scheduler is paused without ``pause_generation``'s 20 ms sleep
(:func:`~console.vllm_compat.pause_scheduler`), the prepared requests are added, and it
resumes. :class:`GroupTiming` records where a group's time went (the last one is on the host).

Only the first engine step's worth is held (:class:`FirstStep`: ``max_num_batched_tokens`` of
prompt, ``max_num_seqs``): a larger group cannot start in one step anyway, and holding all of it
kept the engine idle while every request was prepared and added (``LLM.generate`` starts
stepping after its first add; measured: benchmarks/gpu/README.md). The rest are prepared and added
after the hold, while the engine runs, as ``LLM.generate`` adds its requests.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Any, AsyncIterator, Callable

from console import vllm_compat

log = logging.getLogger(__name__)

#: How long a gate waits for its group to be added before it resumes the scheduler anyway.
ADD_TIMEOUT_S = 60.0

#: Hold the scheduler while a group is added (the default); off only to measure what holding it
#: changes (benchmarks/gpu/batch_parity.py): the group then still reaches the engine in one hop.
HOLD_SCHEDULER = True

#: Add a group to an idle engine (nothing running) without holding its scheduler. Off: measured,
#: the engine core takes the first request as soon as it arrives and steps before the rest are in
#: its queue, so the group is split over steps even on an idle engine (see tests/test_grouped_submit.py).
SKIP_HOLD_WHEN_IDLE = False


@dataclass
class GroupTiming:
    """Where one group's time went, ``time.perf_counter()`` readings (None: did not happen)."""

    size: int
    started: float  # the group reached the engine's loop
    prepared: float | None = None  # the first step's requests rendered, tokenized and processed (or failed)
    paused: float | None = None  # the scheduler was paused (None: not held)
    added: float | None = None  # every held request was in the engine's queue (or failed)
    resumed: float | None = None  # the scheduler was resumed
    held: int = 0  # requests added while the scheduler was held (the first step's worth)

    @property
    def held_s(self) -> float:
        """How long the scheduler was held (0 when it was not)."""
        if self.paused is None or self.resumed is None:
            return 0.0
        return self.resumed - self.paused

    def report(self) -> dict[str, Any]:
        """The size, the hold and each moment in seconds after the group reached the loop (JSON)."""
        marks = {"prepared": self.prepared, "paused": self.paused, "added": self.added, "resumed": self.resumed}
        at = {k: None if v is None else round(v - self.started, 4) for k, v in marks.items()}
        return {"size": self.size, "held": self.held, "held_s": round(self.held_s, 4), **at}


@dataclass(frozen=True)
class FirstStep:
    """What one engine step can start: vLLM's ``max_num_batched_tokens`` and ``max_num_seqs``."""

    tokens: int
    seqs: int


class SchedulerGate:
    """One group's hold on the scheduler, for as many of its requests as the engine's first step
    can take (``first_step``; all of them when None).

    Each request prepares itself and calls :meth:`join` with its prompt's length. ``True``: it is
    one of the first step's requests: it awaits :meth:`opened`, adds itself and calls :meth:`added`
    (whatever happened). ``False``: the first step is full; it awaits :meth:`released` and adds
    itself after the held ones, as ``LLM.generate`` adds requests while the engine already runs.
    A request that starts after the first step is full awaits :meth:`released` before it prepares
    (:attr:`full`), so the hold does not wait for the whole group's front end. A request that fails
    or is cancelled before joining calls :meth:`leave`. :meth:`hold` runs beside them."""

    def __init__(self, size: int, first_step: FirstStep | None = None) -> None:
        self._open = asyncio.Event()
        self._all_ready = asyncio.Event()
        self._all_added = asyncio.Event()
        self._released = asyncio.Event()
        self._first_step = first_step
        self._unsettled = size  # requests that have neither joined nor left
        self._tokens = 0
        self._pending = 0  # held requests not yet added
        self.full = False  # no more requests join the hold
        self.held = False  # the scheduler was really paused for this group
        self.timing = GroupTiming(size, time.perf_counter())

    async def opened(self) -> None:
        await self._open.wait()

    async def released(self) -> None:
        """Until the held requests are in the engine's queue and the scheduler runs again."""
        await self._released.wait()

    def join(self, prompt_tokens: int) -> bool:
        """A prepared request: True when it is added while the scheduler is held."""
        self._unsettled -= 1
        if self.full:
            return False
        self._pending += 1
        self.timing.held += 1
        self._tokens += max(prompt_tokens, 1)
        step = self._first_step
        if self._unsettled <= 0 or (
            step is not None and (self._tokens >= step.tokens or self.timing.held >= step.seqs)
        ):
            self._close()
        return True

    def leave(self) -> None:
        """A request that will not join (failed or cancelled before it was prepared)."""
        self._unsettled -= 1
        if self._unsettled <= 0:
            self._close()

    def _close(self) -> None:
        if self.full:
            return
        self.full = True
        self.timing.prepared = time.perf_counter()
        self._all_ready.set()
        if self._pending <= 0:
            self._done_adding()

    def added(self) -> None:
        """A held request is in the engine's queue, or could not get there."""
        self._pending -= 1
        if self.full and self._pending <= 0:
            self._done_adding()

    def _done_adding(self) -> None:
        if not self._all_added.is_set():
            self.timing.added = time.perf_counter()
            self._all_added.set()

    async def hold(self, engine: Any, lock: asyncio.Lock) -> None:
        """Wait until the first step's requests are ready, then pause the scheduler (keeping what
        runs), open the gate, wait for their adds, resume, release the rest. One gate at a time
        (``lock``): a second group's resume must not end the first's hold. A pause vLLM refuses
        leaves the group ungated (it still reaches the engine in one hop)."""
        try:
            await self._hold(engine, lock)
        finally:
            self._open.set()
            self._released.set()

    async def _hold(self, engine: Any, lock: asyncio.Lock) -> None:
        try:
            await asyncio.wait_for(self._all_ready.wait(), ADD_TIMEOUT_S)
        except asyncio.TimeoutError:
            log.warning("a group of requests was not ready within %.0f s; adding what is", ADD_TIMEOUT_S)
            self._close()
        if SKIP_HOLD_WHEN_IDLE and vllm_compat.engine_idle(engine):
            return
        async with lock:
            try:
                await vllm_compat.pause_scheduler(engine)
                self.held = True
                self.timing.paused = time.perf_counter()
            except Exception as exc:
                log.warning("could not hold the scheduler for a group of requests (%s); adding them as they come", exc)
            finally:
                self._open.set()
            if not self.held:
                return
            try:
                await asyncio.wait_for(self._all_added.wait(), ADD_TIMEOUT_S)
            except asyncio.TimeoutError:
                log.warning("a group of requests was not added within %.0f s; resuming the scheduler", ADD_TIMEOUT_S)
            finally:
                try:
                    await engine.resume_generation()
                except Exception:
                    log.exception("resuming the scheduler failed")
                self.timing.resumed = time.perf_counter()


def once(fn: Callable[[], None]) -> Callable[[], None]:
    """``fn`` made callable any number of times, running once."""
    called = False

    def call() -> None:
        nonlocal called
        if not called:
            called = True
            fn()

    return call


async def generate(
    engine: Any,
    prompt: Any,
    params: Any,
    request_id: str,
    *,
    lora_request: Any = None,
    on_added: Callable[[], None] | None = None,
) -> AsyncIterator[Any]:
    """Yield the request's ``RequestOutput`` objects, as ``AsyncLLM.generate``; ``on_added`` (once)
    when the request is in the engine's queue or could not be added. Without ``on_added`` this is
    vLLM's own ``generate``."""
    if on_added is None:
        async for out in engine.generate(prompt, params, request_id, lora_request=lora_request):
            yield out
        return
    finished_marker = vllm_compat.stream_finished_marker()
    dead = vllm_compat.engine_dead_error()
    q = None
    try:
        try:
            q = await engine.add_request(request_id, prompt, params, lora_request=lora_request)
        finally:
            on_added()
        finished = False
        while not finished:
            out = q.get_nowait() or await q.get()  # drain without a task switch when possible
            finished = out.finished
            if out is not finished_marker:
                yield out
    except (asyncio.CancelledError, GeneratorExit):
        if q is not None:  # a cancelled consumer aborts the request, as in vLLM
            await engine.abort(q.request_id, internal=True)
        raise
    except Exception as exc:
        if q is not None and not isinstance(exc, dead):
            await engine.abort(q.request_id, internal=True)
        raise


__all__ = [
    "ADD_TIMEOUT_S",
    "HOLD_SCHEDULER",
    "FirstStep",
    "GroupTiming",
    "SKIP_HOLD_WHEN_IDLE",
    "SchedulerGate",
    "generate",
    "once",
]
