"""From "model NAME with preset P (and these overrides)" to an :class:`EngineConfig`.

The one place the CLI commands, the GUI and the benchmarks turn user choices into an engine
configuration, so they all load a model the same way.
"""

from __future__ import annotations

import os
from typing import Any

from console.config import EngineConfig
from console.engine.in_process import cuda_available
from console.models.store import ModelStore
from console.presets import Preset, get_preset

#: The bundled model's store name (imported by packaging/setup.sh).
DEFAULT_MODEL = "smollm2"
DEFAULT_MODEL_ENV = "INFERENCE_CONSOLE_MODEL"


def default_model_name() -> str:
    return os.environ.get(DEFAULT_MODEL_ENV, DEFAULT_MODEL)


def default_preset_name() -> str:
    return "gpu-default" if cuda_available() else "cpu-default"


def resolve_preset(name: str | None) -> Preset:
    return get_preset(name or default_preset_name())


def engine_config_for(
    store: ModelStore, model_name: str, preset_name: str | None = None, **overrides: Any
) -> EngineConfig:
    entry = store.get(model_name)
    entry.check_available()
    return resolve_preset(preset_name).config_for(entry, **overrides)
