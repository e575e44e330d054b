"""Sample the device the engine runs on, into the metrics store's device series.

On an NVIDIA GPU: memory used/total, GPU and memory utilisation, power draw and limit,
temperature, SM and memory clocks and throttle reasons, from NVML (``nvidia-ml-py``). Without
one: this process's (and its children's: the engine core and workers) RSS and CPU, and the
machine's RAM, from psutil — and :attr:`DeviceSampler.reason` says why. Sampling costs one
NVML call per value (microseconds); the sampler thread wakes every ``interval_s``.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Protocol

from console.messages import Message, message_of
from console.metrics.store import MetricsStore
from console.metrics import nvml


class DeviceSource(Protocol):
    """What the sampler reads: ``kind`` ("nvml" or "process"), the device's ``name``, the NVIDIA
    driver's version (None without one), and one sample of its series."""

    kind: str
    name: str
    driver: str | None

    def sample(self) -> dict[str, float]: ...


class NvmlSource:
    kind = "nvml"

    def __init__(self, index: int = 0) -> None:
        self.nv = nvml.nvml()  # raises NoNvidiaGpu (with the reason) without one
        self.handle = nvml.handle(index)
        self.name: str = nvml.gpu_name(index) or f"GPU {index}"
        self.driver: str | None = nvml.driver_version()

    def _safe(self, fn: Any, default: Any = None) -> Any:
        try:
            value = fn()
            return nvml.text(value) if isinstance(value, bytes) else value
        except Exception:
            return default

    def sample(self) -> dict[str, float]:
        nv, h = self.nv, self.handle
        out: dict[str, float] = {}
        mem = self._safe(lambda: nv.nvmlDeviceGetMemoryInfo(h))
        if mem is not None:
            out["mem_used_bytes"] = float(mem.used)
            out["mem_total_bytes"] = float(mem.total)
        util = self._safe(lambda: nv.nvmlDeviceGetUtilizationRates(h))
        if util is not None:
            out["gpu_util_pct"] = float(util.gpu)
            out["mem_util_pct"] = float(util.memory)
        for key, fn, scale in (
            ("power_w", lambda: nv.nvmlDeviceGetPowerUsage(h), 1e-3),
            ("power_limit_w", lambda: nv.nvmlDeviceGetEnforcedPowerLimit(h), 1e-3),
            ("temperature_c", lambda: nv.nvmlDeviceGetTemperature(h, nv.NVML_TEMPERATURE_GPU), 1.0),
            ("sm_clock_mhz", lambda: nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_SM), 1.0),
            ("mem_clock_mhz", lambda: nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_MEM), 1.0),
            ("throttle_reasons", lambda: nv.nvmlDeviceGetCurrentClocksThrottleReasons(h), 1.0),
        ):
            v = self._safe(fn)
            if v is not None:
                out[key] = float(v) * scale
        return out


class ProcessSource:
    kind = "process"

    def __init__(self) -> None:
        import psutil

        self.ps = psutil
        self.proc = psutil.Process()
        self.name = "CPU"
        self.driver: str | None = None
        self._cpu_seen: dict[int, Any] = {}

    def sample(self) -> dict[str, float]:
        procs = [self.proc]
        try:
            procs += self.proc.children(recursive=True)
        except self.ps.Error:
            pass
        rss = 0.0
        cpu = 0.0
        for p in procs:
            try:
                rss += p.memory_info().rss
                # psutil needs the same Process object across calls for cpu_percent deltas
                cached = self._cpu_seen.setdefault(p.pid, p)
                cpu += cached.cpu_percent(None)
            except self.ps.Error:
                self._cpu_seen.pop(p.pid, None)
        vm = self.ps.virtual_memory()
        return {
            "rss_bytes": rss,
            "cpu_pct": cpu,
            "ram_used_bytes": float(vm.total - vm.available),
            "ram_total_bytes": float(vm.total),
        }


def open_source() -> tuple[DeviceSource, str]:
    """The best available source and, when it is not NVML, the reason why."""
    try:
        return NvmlSource(), ""
    except Exception as exc:
        return ProcessSource(), Message("{0}; showing process RAM and CPU", message_of(exc))


class DeviceSampler:
    def __init__(self, metrics: MetricsStore, interval_s: float = 0.5, source: DeviceSource | None = None) -> None:
        self.metrics = metrics
        self.interval_s = interval_s
        if source is None:
            source, self.reason = open_source()
        else:
            self.reason = ""
        self.source: DeviceSource = source
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def kind(self) -> str:
        return self.source.kind

    def sample_once(self) -> dict[str, float]:
        values = self.source.sample()
        self.metrics.record_device(values)
        return values

    def start(self) -> None:
        if self._thread is not None:
            return
        self._stop.clear()

        def loop() -> None:
            while not self._stop.is_set():
                t0 = time.monotonic()
                try:
                    self.sample_once()
                except Exception:
                    pass
                self._stop.wait(max(0.0, self.interval_s - (time.monotonic() - t0)))

        self._thread = threading.Thread(target=loop, name="device-sampler", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
