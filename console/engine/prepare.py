"""What the configuration becomes on the device it runs on, before vLLM sees it: the device
("auto" -> cuda when NVML sees a GPU), and on the CPU eager mode, an explicit KV-cache size and the
dtype this CPU was checked to run fastest and correctly (``engine/cpu_dtype.py``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from console.config import EngineConfig
from console.engine.types import EngineInfo
from console.metrics import nvml
from console.engine import cpu_dtype

#: KV-cache size used on the CPU engine when a config gives none (vLLM would otherwise size it
#: from a RAM fraction and may refuse to start).
DEFAULT_CPU_KV_BYTES = 2 * 1024**3


def cuda_available() -> bool:
    """True when an NVIDIA GPU is usable, without importing torch (NVML is enough)."""
    return nvml.available()


def resolve_device(config: EngineConfig) -> str:
    if config.device != "auto":
        return config.device
    return "cuda" if cuda_available() else "cpu"


def dtype_note(config: EngineConfig, device: str) -> str:
    """Where the dtype of ``config`` (before :func:`prepare_config`) comes from, for the user."""
    if config.dtype != "auto":
        return f"{config.dtype} (set by the preset or config)"
    if device != "cpu":
        return "auto (the model's own dtype)"

    return cpu_dtype.resolve(sixteen_bit=needs_sixteen_bit(config)).note


def needs_sixteen_bit(config: EngineConfig) -> bool:
    """AWQ / GPTQ weights (asked for, or recorded in the checkpoint's config.json): vLLM's kernels
    for them run in float16 / bfloat16 only."""
    methods = ("awq", "gptq")
    if config.quantization and any(m in config.quantization.lower() for m in methods):
        return True
    try:
        cfg = json.loads((Path(config.model) / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    method = str((cfg.get("quantization_config") or {}).get("quant_method", "")).lower()
    return any(m in method for m in methods)


def prepare_config(config: EngineConfig) -> tuple[EngineConfig, str]:
    """Fill in what the device needs: on CPU eager mode, an explicit KV-cache size and the dtype
    this CPU was checked to run fastest and correctly (a dtype other than "auto" is kept)."""
    device = resolve_device(config)
    if device == "cpu":
        changes: dict[str, Any] = {}
        if config.enforce_eager is None:
            changes["enforce_eager"] = True  # torch.compile costs ~85 s here for ~5% speed
        if config.kv_cache_memory_bytes is None:
            changes["kv_cache_memory_bytes"] = DEFAULT_CPU_KV_BYTES
        if config.dtype == "auto":
            # The right dtype depends on the CPU (bf16: 7x faster than fp16 on an AMD EPYC,
            # gibberish on a Xeon with AMX): this machine's checked choice, else float32.

            changes["dtype"] = cpu_dtype.resolve(sixteen_bit=needs_sixteen_bit(config)).dtype
        config = config.replace(**changes)
    return config, device


def engine_info(
    name: str, config: EngineConfig, device: str, vc: Any, vllm_version: str, note: str | None, load_seconds: float
) -> EngineInfo:
    """What a loaded engine reports about itself, read from vLLM's own config (``vc``)."""
    return EngineInfo(
        model=name,
        model_path=config.model,
        device=device,
        max_model_len=int(vc.model_config.max_model_len),
        num_kv_blocks=getattr(vc.cache_config, "num_gpu_blocks", None),
        block_size=getattr(vc.cache_config, "block_size", None),
        load_seconds=load_seconds,
        vllm_version=vllm_version,
        dtype=str(getattr(vc.model_config, "dtype", config.dtype)).removeprefix("torch."),
        dtype_note=note or "",
        quantization=getattr(vc.model_config, "quantization", None),
        kv_cache_dtype=str(getattr(vc.cache_config, "cache_dtype", "")),
        speculative_method=getattr(getattr(vc, "speculative_config", None), "method", None),
        takes_images=bool(vc.model_config.is_multimodal_model),
    )


__all__ = [
    "DEFAULT_CPU_KV_BYTES",
    "cuda_available",
    "dtype_note",
    "engine_info",
    "needs_sixteen_bit",
    "prepare_config",
    "resolve_device",
]
