"""One build and one stop of vLLM's AsyncLLM, apart from the in-process engine's life cycle
(``engine/in_process.py``): the arguments with the console's own stat logger, vLLM's log captured
for the planner's load record and read for the load's phases while ``from_engine_args`` blocks,
and a shutdown that makes AsyncLLM's second ``shutdown`` (from ``__del__``) a no-op."""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Callable

from console import vllm_compat
from console.config import EngineConfig
from console.engine import load_capture
from console.engine.load_phases import LoadPhases, PhaseClock
from console.engine.phase_watch import PhaseWatch
from console.metrics.store import MetricsStore
from console.metrics.vllm_logger import make_silent_prometheus_factory, make_stat_logger_factory

log = logging.getLogger(__name__)

#: Called with the phases so far whenever vLLM's log says the load moved on.
OnPhases = Callable[[LoadPhases], None]

#: Keep vLLM's own default stat loggers (LoggingStatLogger, PrometheusStatLogger) beside ours.
#: Off: they only cost time (benchmarks/README.md, "stat loggers"); a switch for measuring that.
VLLM_DEFAULT_STAT_LOGGERS = False


class EngineBuild:
    """One call of AsyncLLM's ``from_engine_args`` for a prepared ``config``. ``capture`` and
    ``clock`` stay readable after :meth:`run` returns or raises (the load record, vLLM's own
    words for a refusal, the phases)."""

    def __init__(self, metrics: MetricsStore, wall0: float, graphs: bool) -> None:
        self.metrics = metrics
        self.capture: load_capture.LogCapture | None = None
        self.clock = PhaseClock(wall0, graphs=graphs)

    def run(self, config: EngineConfig, on_phases: OnPhases) -> Any:
        # Only our stat logger: vLLM's default ones (a log line every 5 s, Prometheus
        # histograms fed per token) cost front-end time and nothing here reads them.
        loggers = [make_stat_logger_factory(self.metrics)]
        silent = make_silent_prometheus_factory() if not VLLM_DEFAULT_STAT_LOGGERS else None
        if silent is not None:
            loggers.append(silent)
        kwargs = vllm_compat.engine_args_kwargs(config.engine_kwargs())
        args = vllm_compat.async_engine_args_class()(**kwargs, disable_log_stats=not VLLM_DEFAULT_STAT_LOGGERS)
        self.metrics.clear()
        with load_capture.capture_logs() as capture:  # vLLM's memory report (the planner), its phases
            self.capture = capture
            context = vllm_compat.offline_usage_context()  # vLLM's offline-batch defaults
            extra = {"usage_context": context} if context is not None else {}
            with PhaseWatch(capture.phases_path, self.clock, on_phases):
                return vllm_compat.async_llm_class().from_engine_args(args, stat_loggers=loggers, **extra)

    def phases_until(self, wall: float) -> tuple[Any, ...]:
        """The phases of a finished build, the last one ending at ``wall`` (none without a capture)."""
        return self.clock.finish(wall).done if self.capture is not None and self.capture.phases_path else ()

    def snapshot(self, wall: float) -> LoadPhases:
        return self.clock.snapshot(wall)

    @property
    def failed_text(self) -> str:
        return self.capture.failed_text if self.capture is not None else ""


async def stop_engine(engine: Any) -> None:
    """Shut ``engine`` (an AsyncLLM, or None) down and let its callbacks on this loop run out."""
    if engine is not None:
        try:
            engine.shutdown()
        except Exception:
            log.exception("engine shutdown raised")
        # AsyncLLM.__del__ calls shutdown() again, possibly at interpreter exit when its
        # globals are gone (a noisy TypeError). It is done: make the second call a no-op.
        # (No gc.collect() here: on this thread it could finalize Qt objects -> segfault.)
        engine.shutdown = lambda *args, **kwargs: None
        del engine
        await asyncio.sleep(0.2)  # let vLLM's callbacks on this loop run out
