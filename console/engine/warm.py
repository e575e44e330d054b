"""Models kept warm beside the one in use: what the in-process engine holds for each, and
when the GPU refuses to keep one."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from typing import Any

from console.config import EngineConfig
from console.engine import reaper
from console.engine.adapters import AttachedAdapters
from console.engine.types import EngineInfo, WarmModel  # WarmModel re-exported: the in-process engine's name for it


@dataclass
class Parked:
    """Everything the in-process engine holds for one loaded engine, while it waits warm."""

    name: str
    requested: EngineConfig  # what load() was given: a later load of the same is a switch
    config: EngineConfig  # what the engine was built with
    engine: Any
    tokenizer: Any
    info: EngineInfo
    reaper: reaper.Reaper | None
    adapters: AttachedAdapters
    null_dir: tempfile.TemporaryDirectory[str] | None
    asleep: bool

    def public(self) -> WarmModel:
        return WarmModel(self.name, self.config.model, self.info.device, self.asleep, self.info.load_seconds)


#: Sleep mode's level: 1 keeps the weights in host RAM (a wake copies them back, seconds), 2 would
#: drop them too (a wake reloads from disk) -- level 1 keeps a switch to seconds.
SLEEP_LEVEL = 1


def keep_warm_refusal(current: EngineConfig | None, device: str) -> str | None:
    """Why the loaded model (built with ``current`` on ``device``) cannot be kept warm, or None.

    On the GPU a warm model must sleep, or it keeps its share of GPU memory and the next model
    cannot be built beside it; sleeping needs ``enable_sleep_mode`` at build time. The CPU build
    ignores sleep: there the warm model simply keeps its RAM."""
    if current is None or device == "cpu" or current.enable_sleep_mode:
        return None
    return (
        "To keep the loaded model warm on the GPU it must have been loaded with sleep mode on "
        "(Speed > Sleep mode, or --enable-sleep-mode): awake, it would keep its GPU memory and the next "
        "model could not load beside it. Reload it with sleep mode, or load without keeping it warm."
    )


__all__ = ["Parked", "SLEEP_LEVEL", "WarmModel", "keep_warm_refusal"]
