"""The LoRA adapters attached to a loaded base model, and the vLLM settings they need.

vLLM serves many adapters over one base: the engine is built with ``enable_lora`` (slots for
``max_loras`` adapters at ``max_lora_rank``) and each request names its adapter with a
``LoRARequest(name, id, path)``; vLLM loads the adapter's weights at its first request and keeps
up to ``max_cpu_loras`` of them in host memory. :class:`AttachedAdapters` is the host's list: each
adapter is checked (corrupt folder, wrong base, rank above the slots) when it is attached, so a
bad one is refused with the reason instead of failing every request that names it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from console.config import EngineConfig
from console import vllm_compat
from console.engine.types import EngineError
from console.models.lora import (
    DEFAULT_MAX_LORA_RANK,
    DEFAULT_MAX_LORAS,
    AdapterError,
    AdapterInfo,
    check_base,
    check_rank,
    inspect_adapter,
    rank_slot,
)


#: The CPU build's workaround (see :func:`cpu_base_slot`): the base model's requests go through an
#: all-zero adapter of this name, which takes one extra slot.
NULL_ADAPTER = "__base__"


def cpu_base_slot(config: EngineConfig, device: str) -> EngineConfig:
    """On CPU, one more LoRA slot for the all-zero adapter that base-model requests use.

    vLLM's CPU LoRA kernels (``vllm/lora/ops/torch_ops``, 0.32) pick each row's adapter with
    ``lora_weights[lora_indices]``; a row without an adapter has index -1, which Python reads as
    *the last slot*: once an adapter sits there, base-model rows batched beside adapter rows get
    that adapter (measured: a mixed batch's base rows answered like adapter "b"). Sending base
    requests through an all-zero adapter gives every row a real slot, and adds exactly zero."""
    if device != "cpu" or not config.enable_lora:
        return config
    changes: dict[str, Any] = {"max_loras": (config.max_loras or DEFAULT_MAX_LORAS) + 1}
    if config.max_cpu_loras is not None:
        changes["max_cpu_loras"] = config.max_cpu_loras + 1
    return config.replace(**changes)


def lora_settings(config: EngineConfig) -> EngineConfig:
    """``config`` with what its ``lora_modules`` need: LoRA on, and a ``max_lora_rank`` that holds
    the largest adapter when none was chosen. Corrupt adapters raise :class:`AdapterError`."""
    if not config.lora_modules:
        return config
    changes: dict[str, Any] = {}
    if not config.enable_lora:
        changes["enable_lora"] = True
    if config.max_lora_rank is None:
        top = max(inspect_adapter(Path(p)).rank for p in config.lora_modules.values())
        if top > DEFAULT_MAX_LORA_RANK:
            changes["max_lora_rank"] = rank_slot(top)
    return config.replace(**changes) if changes else config


@dataclass(frozen=True)
class Attached:
    name: str
    lora_id: int  # vLLM's integer id for the adapter (unique per engine, from 1)
    info: AdapterInfo


class AttachedAdapters:
    """Adapters usable by requests on one loaded engine (thread-safe; cleared at unload)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_name: dict[str, Attached] = {}
        self._next_id = 1
        self._config: EngineConfig | None = None
        self._null: Attached | None = None  # the CPU workaround's all-zero adapter, when in use

    def reset(self, config: EngineConfig | None) -> None:
        with self._lock:
            self._by_name.clear()
            self._config = config
            self._null = None

    def use_null_adapter(self, folder: Path) -> None:
        """Send base-model requests through the all-zero adapter in ``folder`` (:func:`cpu_base_slot`)."""
        with self._lock:
            self._null = Attached(NULL_ADAPTER, self._next_id, inspect_adapter(folder))
            self._next_id += 1

    def check(self, path: Path, config: EngineConfig) -> AdapterInfo:
        """The adapter at ``path`` if ``config``'s engine can serve it, else :class:`AdapterError`."""
        if not config.enable_lora:
            raise AdapterError(
                "This model was loaded without LoRA slots: load it again with an adapter "
                "(or enable_lora) to use adapters"
            )
        info = inspect_adapter(path)
        check_base(info, Path(config.model), config.served_model_name or Path(config.model).name)
        check_rank(info, config.max_lora_rank)
        return info

    def attach(self, name: str, path: str | Path, config: EngineConfig | None = None) -> Attached:
        config = config or self._config
        if config is None:
            raise EngineError("no model is loaded")
        if not name or name in (config.served_model_name, Path(config.model).name, NULL_ADAPTER):
            raise AdapterError(f"'{name}' cannot name an adapter: it is empty or the base model's own name")
        info = self.check(Path(path), config)
        with self._lock:
            current = self._by_name.get(name)
            if current is not None and current.info.path == info.path:
                return current
            attached = Attached(name, self._next_id, info)
            self._next_id += 1
            self._by_name[name] = attached
            return attached

    def names(self) -> dict[str, str]:
        """name -> adapter folder."""
        with self._lock:
            return {n: a.info.path for n, a in self._by_name.items()}

    def request(self, name: str | None) -> Any:
        """vLLM's ``LoRARequest`` for ``name``; None for the base model (``name`` None or empty)."""
        if not name:
            null = self._null
            return None if null is None else vllm_compat.lora_request_class()(null.name, null.lora_id, null.info.path)
        with self._lock:
            attached = self._by_name.get(name)
            known = ", ".join(sorted(self._by_name)) or "none"
        if attached is None:
            raise EngineError(f"No adapter named '{name}' is attached to the loaded model (attached: {known})")
        return vllm_compat.lora_request_class()(attached.name, attached.lora_id, attached.info.path)


__all__ = ["Attached", "AttachedAdapters", "NULL_ADAPTER", "cpu_base_slot", "lora_settings"]
