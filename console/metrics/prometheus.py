"""An optional Prometheus ``/metrics`` endpoint for the running console (off by default).

It exposes the engine series under vLLM's own metric names (``vllm:num_requests_running``,
``vllm:kv_cache_usage_perc``, ``vllm:time_to_first_token_seconds``, ...), so dashboards built for
``vllm serve`` work unchanged, and the device series (NVML, or process RAM/CPU) as
``console_gpu_*`` / ``console_process_*``. Values are read from the :class:`MetricsStore` at
scrape time. The server binds 127.0.0.1 unless the caller passes another address.

Histograms are rebuilt from the store's bounded sample buffers at each scrape: after the buffer
wraps, counts can drop (Prometheus treats that as a counter reset).
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Iterator

from prometheus_client import start_http_server
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector, CollectorRegistry

from console.metrics.store import MetricsStore

#: vLLM's own bucket edges for these histograms (vllm/v1/metrics/loggers.py).
TTFT_BUCKETS = (
    0.001,
    0.005,
    0.01,
    0.02,
    0.04,
    0.06,
    0.08,
    0.1,
    0.25,
    0.5,
    0.75,
    1.0,
    2.5,
    5.0,
    7.5,
    10.0,
    20.0,
    40.0,
    80.0,
    160.0,
    640.0,
    2560.0,
)
ITL_BUCKETS = (
    0.01,
    0.025,
    0.05,
    0.075,
    0.1,
    0.15,
    0.2,
    0.3,
    0.4,
    0.5,
    0.75,
    1.0,
    2.5,
    5.0,
    7.5,
    10.0,
    20.0,
    40.0,
    80.0,
)
REQUEST_BUCKETS = (
    0.3,
    0.5,
    0.8,
    1.0,
    1.5,
    2.0,
    2.5,
    5.0,
    10.0,
    15.0,
    20.0,
    30.0,
    40.0,
    50.0,
    60.0,
    120.0,
    240.0,
    480.0,
    960.0,
    1920.0,
    7680.0,
)

#: device sample key -> (metric name, help)
DEVICE_METRICS: dict[str, tuple[str, str]] = {
    "mem_used_bytes": ("console_gpu_memory_used_bytes", "GPU memory in use (NVML), all processes"),
    "mem_total_bytes": ("console_gpu_memory_total_bytes", "GPU memory in total (NVML)"),
    "gpu_util_pct": ("console_gpu_utilization_percent", "GPU utilisation (NVML)"),
    "mem_util_pct": ("console_gpu_memory_utilization_percent", "GPU memory-bandwidth utilisation (NVML)"),
    "power_w": ("console_gpu_power_watts", "GPU power draw (NVML)"),
    "power_limit_w": ("console_gpu_power_limit_watts", "GPU enforced power limit (NVML)"),
    "temperature_c": ("console_gpu_temperature_celsius", "GPU temperature (NVML)"),
    "sm_clock_mhz": ("console_gpu_sm_clock_mhz", "GPU SM clock (NVML)"),
    "mem_clock_mhz": ("console_gpu_memory_clock_mhz", "GPU memory clock (NVML)"),
    "throttle_reasons": ("console_gpu_throttle_reasons", "NVML clocks-throttle-reasons bit mask"),
    "rss_bytes": ("console_process_rss_bytes", "resident memory of the console and its engine processes"),
    "cpu_pct": ("console_process_cpu_percent", "CPU use of the console and its engine processes"),
    "ram_used_bytes": ("console_ram_used_bytes", "machine RAM in use"),
    "ram_total_bytes": ("console_ram_total_bytes", "machine RAM in total"),
}


class MetricsServerError(RuntimeError):
    """The endpoint could not start; the message says why and what to do."""


def _histogram(
    name: str, doc: str, values: list[float], buckets: tuple[float, ...], labels: dict[str, str]
) -> HistogramMetricFamily:
    fam = HistogramMetricFamily(name, doc, labels=list(labels))
    ordered = sorted(values)
    counts, i = [], 0
    for edge in buckets:
        while i < len(ordered) and ordered[i] <= edge:
            i += 1
        counts.append((str(edge), float(i)))
    counts.append(("+Inf", float(len(ordered))))
    fam.add_metric(list(labels.values()), counts, sum_value=float(sum(ordered)))
    return fam


class StoreCollector(Collector):
    """Reads a :class:`MetricsStore` at each scrape."""

    def __init__(self, store: MetricsStore, model_name: Callable[[], str | None] | str | None = None) -> None:
        self.store = store
        self._model = model_name

    def _labels(self) -> dict[str, str]:
        name = self._model() if callable(self._model) else self._model
        return {"model_name": name or "", "engine": "0"}

    def collect(self) -> Iterator[Metric]:
        labels = self._labels()
        keys, vals = list(labels), list(labels.values())
        latest = self.store.latest()
        running, waiting, kv_usage = (latest.running, latest.waiting, latest.kv_usage) if latest else (0, 0, 0.0)
        for name, doc, value in (
            ("vllm:num_requests_running", "Number of requests in model execution batches.", running),
            ("vllm:num_requests_waiting", "Number of requests waiting to be processed.", waiting),
            ("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", kv_usage),
        ):
            g = GaugeMetricFamily(name, doc, labels=keys)
            g.add_metric(vals, float(value))
            yield g
        totals = self.store.totals_snapshot()
        for name, doc, key in (
            ("vllm:prompt_tokens", "Number of prefill tokens processed.", "prompt_tokens"),
            ("vllm:generation_tokens", "Number of generation tokens processed.", "generation_tokens"),
            ("vllm:num_preemptions", "Cumulative number of preemptions from the engine.", "preemptions"),
            ("vllm:request_success", "Count of successfully processed requests.", "finished_requests"),
        ):
            c = CounterMetricFamily(name, doc, labels=keys)
            c.add_metric(vals, float(totals.get(key, 0)))
            yield c
        finished = self.store.finished()
        yield _histogram(
            "vllm:time_to_first_token_seconds",
            "Histogram of time to first token in seconds.",
            self.store.latency_samples("ttft"),
            TTFT_BUCKETS,
            labels,
        )
        yield _histogram(
            "vllm:inter_token_latency_seconds",
            "Histogram of inter-token latency in seconds.",
            self.store.latency_samples("itl"),
            ITL_BUCKETS,
            labels,
        )
        yield _histogram(
            "vllm:e2e_request_latency_seconds",
            "Histogram of e2e request latency in seconds.",
            [f.e2e_s for f in finished],
            REQUEST_BUCKETS,
            labels,
        )
        yield _histogram(
            "vllm:request_queue_time_seconds",
            "Histogram of time spent in WAITING phase for request.",
            [f.queued_s for f in finished],
            REQUEST_BUCKETS,
            labels,
        )
        devices = self.store.device_samples()
        if devices:
            for key, value in sorted(devices[-1].values.items()):
                name, doc = DEVICE_METRICS.get(key, (f"console_device_{key}", f"device sample '{key}'"))
                g = GaugeMetricFamily(name, doc, labels=["device"])
                g.add_metric(["0"], float(value))
                yield g


class MetricsServer:
    """``/metrics`` over HTTP in a daemon thread; :meth:`start` returns the bound address
    (port 0 picks a free port), :meth:`stop` closes the socket."""

    def __init__(
        self,
        store: MetricsStore,
        host: str = "127.0.0.1",
        port: int = 9464,
        model_name: Callable[[], str | None] | str | None = None,
    ) -> None:
        self.store = store
        self.host = host
        self.port = port
        self.registry = CollectorRegistry(auto_describe=False)
        self.registry.register(StoreCollector(store, model_name))
        self._server: Any = None
        self._thread: threading.Thread | None = None

    @property
    def running(self) -> bool:
        return self._server is not None

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/metrics"

    def start(self) -> tuple[str, int]:
        if self._server is not None:
            return self.host, self.port
        try:
            self._server, self._thread = start_http_server(self.port, addr=self.host, registry=self.registry)
        except OSError as exc:
            raise MetricsServerError(
                f"cannot serve metrics on {self.host}:{self.port}: {exc.strerror or exc}. "
                "Choose another port (0 picks a free one)"
            ) from None
        self.port = int(self._server.server_address[1])
        return self.host, self.port

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        server.shutdown()
        server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
