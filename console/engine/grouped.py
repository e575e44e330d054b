"""Requests that start together (issue 28): a group added to vLLM while its scheduler is held.

vLLM's offline batch (``LLM.generate``) adds every request before they run; the console's batch
and bench used to hand them over one by one, so they reached the engine milliseconds apart and
identical prompts ran in differently shaped batches. On a GPU that changes the numerics (no batch
invariance): the same greedy question answered three ways in one batch. :class:`SchedulerGate`
freezes the scheduler (``pause_generation(mode="keep")``: running requests wait, new ones queue),
lets every request of the group reach the engine's queue, then resumes it, so the group's first
step schedules them all together (as many as ``max_num_seqs`` and the token budget allow).

:func:`generate` is ``AsyncLLM.generate`` (its body is the same in vLLM 0.26 and 0.32) with one
addition, ``on_added``: called once the request is in the engine's queue (or failed to get there),
which is what the gate waits for before resuming.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, AsyncIterator, Callable

from console.engine import vllm_compat

log = logging.getLogger(__name__)

#: How long a gate waits for its group to be added before it resumes the scheduler anyway.
ADD_TIMEOUT_S = 60.0

#: Hold the scheduler while a group is added (the default); off only to measure what holding it
#: changes (benchmarks/gpu/batch_parity.py): the group then still reaches the engine in one hop.
HOLD_SCHEDULER = True


class SchedulerGate:
    """One group's hold on the scheduler. Each request of the group awaits :meth:`opened` before it
    adds itself and calls :meth:`added` once (whatever happened); :meth:`hold` runs beside them."""

    def __init__(self, size: int) -> None:
        self._open = asyncio.Event()
        self._all_added = asyncio.Event()
        self._pending = size
        self.held = False  # the scheduler was really paused for this group

    async def opened(self) -> None:
        await self._open.wait()

    def added(self) -> None:
        self._pending -= 1
        if self._pending <= 0:
            self._all_added.set()

    async def hold(self, engine: Any, lock: asyncio.Lock) -> None:
        """Pause the scheduler (keeping what runs), open the gate, wait for the group, resume.
        One gate at a time (``lock``): a second group's resume must not end the first's hold. A
        pause vLLM refuses leaves the group ungated (it still reaches the engine in one hop)."""
        async with lock:
            try:
                await engine.pause_generation(mode="keep", clear_cache=False)
                self.held = True
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


__all__ = ["ADD_TIMEOUT_S", "HOLD_SCHEDULER", "SchedulerGate", "generate", "once"]
