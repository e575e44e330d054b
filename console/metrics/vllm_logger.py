"""The bridge from vLLM's stat-logger interface into :class:`MetricsStore`.

vLLM calls ``record()`` about once per engine step on the engine's asyncio loop; it must be cheap.
The classes it passes (``SchedulerStats``, ``IterationStats``) are not a stable vLLM interface,
so every field is read with ``getattr`` and a default.
"""

from __future__ import annotations

import time
from typing import Any, Callable

from console.metrics.store import FinishedRecord, MetricsStore
from console.vllm_compat import prometheus_stat_logger_class, stat_logger_base


def _finish_reason(value: Any) -> str:
    name = getattr(value, "name", None)
    return str(name).lower() if name else str(value)


def record_into(store: MetricsStore, scheduler_stats: Any, iteration_stats: Any) -> None:
    now = time.time()
    kwargs: dict[str, Any] = {"t": now}
    if scheduler_stats is not None:
        kwargs["running"] = int(getattr(scheduler_stats, "num_running_reqs", 0))
        kwargs["waiting"] = int(getattr(scheduler_stats, "num_waiting_reqs", 0))
        kwargs["kv_usage"] = float(getattr(scheduler_stats, "kv_cache_usage", 0.0))
        pcs = getattr(scheduler_stats, "prefix_cache_stats", None)
        if pcs is not None:
            kwargs["prefix_hits"] = int(getattr(pcs, "hits", 0))
            kwargs["prefix_queries"] = int(getattr(pcs, "queries", 0))
        sds = getattr(scheduler_stats, "spec_decoding_stats", None)
        if sds is not None:  # speculative decoding on
            kwargs["spec"] = {
                "spec_drafts": int(getattr(sds, "num_drafts", 0)),
                "spec_draft_tokens": int(getattr(sds, "num_draft_tokens", 0)),
                "spec_accepted_tokens": int(getattr(sds, "num_accepted_tokens", 0)),
            }
    if iteration_stats is not None:
        kwargs["generation_tokens"] = int(getattr(iteration_stats, "num_generation_tokens", 0))
        kwargs["prompt_tokens"] = int(getattr(iteration_stats, "num_prompt_tokens", 0))
        kwargs["preemptions"] = int(getattr(iteration_stats, "num_preempted_reqs", 0))
        kwargs["ttfts"] = list(getattr(iteration_stats, "time_to_first_tokens_iter", []) or [])
        kwargs["itls"] = list(getattr(iteration_stats, "inter_token_latencies_iter", []) or [])
        kwargs["finished"] = [
            FinishedRecord(
                t=now,
                request_id=getattr(f, "request_id", None),
                finish_reason=_finish_reason(getattr(f, "finish_reason", "")),
                e2e_s=float(getattr(f, "e2e_latency", 0.0)),
                queued_s=float(getattr(f, "queued_time", 0.0)),
                prefill_s=float(getattr(f, "prefill_time", 0.0)),
                decode_s=float(getattr(f, "decode_time", 0.0)),
                prompt_tokens=int(getattr(f, "num_prompt_tokens", 0)),
                generation_tokens=int(getattr(f, "num_generation_tokens", 0)),
                preemptions=int(getattr(f, "num_preemptions", 0)),
            )
            for f in (getattr(iteration_stats, "finished_requests", []) or [])
        ]
    store.record_step(**kwargs)


def make_stat_logger_factory(store: MetricsStore) -> Callable[..., Any]:
    """A per-engine stat-logger factory for ``AsyncLLM.from_engine_args(stat_loggers=[...])``."""
    base = stat_logger_base()

    class ConsoleStatLogger(base):  # type: ignore[misc, valid-type]
        def __init__(self, vllm_config: Any, engine_index: int = 0) -> None:
            self.vllm_config = vllm_config
            self.engine_index = engine_index

        def record(self, scheduler_stats: Any, iteration_stats: Any, *args: Any, **kwargs: Any) -> None:
            record_into(store, scheduler_stats, iteration_stats)

        def log_engine_initialized(self) -> None:
            pass

        def log(self) -> None:
            pass

    return ConsoleStatLogger


def make_silent_prometheus_factory() -> Callable[..., Any] | None:
    """A stand-in for vLLM's PrometheusStatLogger that records nothing.

    vLLM's StatLoggerManager (0.26 through 0.32 at least) always adds a PrometheusStatLogger
    unless one is among the custom loggers; it observes a histogram sample per generated token
    and several per finished request, on the front end's loop -- work the console never reads
    (its own /metrics is built from the MetricsStore, console/metrics/prometheus.py). Passing this
    subclass as a custom logger makes the manager skip the real one. None when this vLLM has no
    such class (then nothing is replaced)."""
    real = prometheus_stat_logger_class()
    if real is None:
        return None

    class SilentPrometheusStatLogger(real):  # type: ignore[misc, valid-type]
        def __init__(self, vllm_config: Any, engine_indexes: Any = None, *args: Any, **kwargs: Any) -> None:
            self.vllm_config = vllm_config
            self.engine_indexes = list(engine_indexes or [0])

        def record(self, *args: Any, **kwargs: Any) -> None:
            pass

        def record_sleep_state(self, *args: Any, **kwargs: Any) -> None:
            pass

        def record_admission_rejection(self, *args: Any, **kwargs: Any) -> None:
            pass

        def log_engine_initialized(self) -> None:
            pass

        def log(self) -> None:
            pass

    return SilentPrometheusStatLogger
