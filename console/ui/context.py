"""What every panel of the window shares: the core objects and the engine bridge."""

from __future__ import annotations

from dataclasses import dataclass

from console.engine.host import EngineHost
from console.engine.metrics import MetricsStore
from console.models.store import ModelStore
from console.monitor.device import DeviceSampler
from console.ui.bridge import EngineBridge


@dataclass
class AppContext:
    host: EngineHost
    metrics: MetricsStore
    store: ModelStore
    sampler: DeviceSampler
    bridge: EngineBridge

    @classmethod
    def create(cls, host: EngineHost | None = None, store: ModelStore | None = None) -> "AppContext":
        host = host or EngineHost()
        metrics = host.metrics
        sampler = DeviceSampler(metrics)
        return cls(host=host, metrics=metrics, store=store or ModelStore(), sampler=sampler,
                   bridge=EngineBridge(host))
