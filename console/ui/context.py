"""What every panel of the window shares: the core objects and the engine bridge."""

from __future__ import annotations

from dataclasses import dataclass, field

from console.app_state import AppState
from console.engine.interface import Engine
from console.metrics.store import MetricsStore
from console.models.store import ModelStore
from console.metrics.device import DeviceSampler
from console.ui.bridge import EngineBridge
from console.engine.switch import EngineSwitch


@dataclass
class AppContext:
    engine: Engine
    metrics: MetricsStore
    store: ModelStore
    sampler: DeviceSampler
    bridge: EngineBridge
    #: the store's models and the model and preset chosen (the Models panel writes it, the other views follow it)
    state: AppState = field(default_factory=AppState)

    @classmethod
    def create(cls, engine: Engine | None = None, store: ModelStore | None = None) -> "AppContext":
        """``engine`` defaults to an :class:`EngineSwitch` (in-process first; the engine picker can
        move it to a console-launched or remote server)."""

        engine = engine or EngineSwitch()
        metrics = engine.metrics
        sampler = DeviceSampler(metrics)
        return cls(
            engine=engine, metrics=metrics, store=store or ModelStore(), sampler=sampler, bridge=EngineBridge(engine)
        )
