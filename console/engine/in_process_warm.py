"""The in-process engine's models kept warm beside the one in use, split from ``in_process.py`` by
job: parking the engine in use (asleep on the GPU), waking a parked one, dropping them.

:class:`InProcessWarm` is :class:`~console.engine.in_process.InProcessEngine`'s base; the engine's life cycle
(build, shut down, watch) stays in ``in_process.py`` and is only declared here.
"""

from __future__ import annotations

import asyncio
import concurrent.futures as cf
import logging
import tempfile
import time
from dataclasses import replace
from typing import Any

from console.engine import reaper
from console.engine.adapters import AttachedAdapters
from console.engine.loop_engine import LoopEngine
from console.engine.types import EngineInfo, EngineState, EngineStatus
from console.engine.warm import SLEEP_LEVEL, Parked, WarmModel
from console.messages import Message
from console.metrics.store import MetricsStore

log = logging.getLogger(__name__)


class InProcessWarm(LoopEngine):
    """Keeps loaded engines warm beside the one in use; the in-process engine fills in the life cycle."""

    # the engine in use and what it holds (set by the engine's load / shutdown)
    _engine: Any
    _info: EngineInfo | None
    _reaper: reaper.Reaper | None
    _adapters: AttachedAdapters
    _null_dir: tempfile.TemporaryDirectory[str] | None
    _watchdog: asyncio.Task[None] | None
    _lifecycle: asyncio.Lock

    def __init__(self, metrics: MetricsStore | None = None) -> None:
        super().__init__(metrics)
        self._warm: dict[str, Parked] = {}  # models kept warm beside the one in use

    # -- the engine's life cycle (in_process.py) -------------------------------------------------------
    async def _cancel_requests(self) -> None:
        raise NotImplementedError

    async def _shutdown_engine(self) -> None:
        raise NotImplementedError

    async def _watch(self) -> None:
        raise NotImplementedError

    @staticmethod
    async def _stop_engine(engine: Any) -> None:
        raise NotImplementedError

    # -- warm models -----------------------------------------------------------------------------
    def warm_models(self) -> list[WarmModel]:
        """The models kept warm beside the one in use, oldest first."""
        return [p.public() for p in list(self._warm.values())]

    def drop_warm(self, name: str) -> cf.Future[bool]:
        """Unload the warm model ``name`` (frees what it holds); False if there is none."""
        return self.run_coroutine(self._drop_warm(name))

    async def _drop_warm(self, name: str) -> bool:
        async with self._lifecycle:
            parked = self._warm.pop(name, None)
            if parked is None:
                return False
            await self._shutdown_parked(parked)
            return True

    async def _park(self) -> None:
        """Move the engine in use to the warm set: its requests end (abort), then on the GPU it
        sleeps (its memory freed for the next model); on the CPU it stays as it is."""
        info = self._info
        assert info is not None
        name = info.model
        self._set_status(EngineStatus(EngineState.LOADING, name, Message("keeping the loaded model warm")))
        await self._cancel_requests()
        engine, config = self._engine, self._config
        assert engine is not None and config is not None and info is not None and self._requested is not None
        asleep = False
        if info.device != "cpu":
            await engine.sleep(SLEEP_LEVEL)
            asleep = True
        old = self._warm.pop(name, None)
        if old is not None:
            await self._shutdown_parked(old)
        self._warm[name] = Parked(
            name,
            self._requested,
            config,
            engine,
            self._tokenizer,
            info,
            self._reaper,
            self._adapters,
            self._null_dir,
            asleep,
        )
        self._engine, self._tokenizer, self._reaper, self._null_dir, self._info = None, None, None, None, None
        self._adapters = AttachedAdapters()
        self._config = self._requested = None

    async def _wake(self, parked: Parked, t0: float) -> EngineInfo | None:
        """Make ``parked`` the engine in use again; None (and it is shut down) when its engine died
        while it waited, so the caller builds it anew."""
        if parked.engine.errored or (parked.reaper is not None and not parked.reaper.alive()):
            log.warning("the warm model %s died while it waited; loading it again", parked.name)
            await self._shutdown_parked(parked)
            return None
        self._set_status(EngineStatus(EngineState.LOADING, parked.name, Message("waking the warm model")))
        try:
            if parked.asleep:
                await parked.engine.wake_up()
        except Exception as exc:
            log.warning("waking %s failed (%s); loading it again", parked.name, exc)
            await self._shutdown_parked(parked)
            return None
        self._engine, self._config, self._requested = parked.engine, parked.config, parked.requested
        self._tokenizer, self._reaper, self._null_dir = parked.tokenizer, parked.reaper, parked.null_dir
        self._adapters = parked.adapters
        self.metrics.clear()
        info = replace(parked.info, switch_seconds=time.monotonic() - t0)
        self._info = parked.info
        self._watchdog = asyncio.get_running_loop().create_task(self._watch())
        self._set_status(EngineStatus(EngineState.READY, parked.name, "", None, info))
        return info

    async def _shutdown_parked(self, parked: Parked) -> None:
        if parked.null_dir is not None:
            parked.null_dir.cleanup()
        await self._stop_engine(parked.engine)
        if parked.reaper is not None:
            parked.reaper.stop()

    async def _shutdown_warm(self) -> None:
        while self._warm:
            await self._shutdown_parked(self._warm.pop(next(iter(self._warm))))


__all__ = ["InProcessWarm"]
