"""Presets: named engine configurations stored as TOML data files in ``presets/``.

A preset file looks like::

    name = "cpu-default"
    description = "..."
    goal = "low-latency"            # max-throughput | low-latency | long-context | smallest-memory
    gpu = "cpu"                     # a GPU profile name from the planner, or "any"
    [engine]                        # vLLM engine arguments, by vLLM's own names
    enforce_eager = true
    max_model_len = 4096

Unknown keys, wrong types and out-of-range values are refused with the file and key named.
User presets (saved from auto-tune or import) live in ``<data home>/presets`` and shadow shipped
ones of the same name.
"""

from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, get_type_hints

from console.atomic import sweep_stale_tmp
from console.config import CONSOLE_ONLY_FIELDS, KV_CACHE_DTYPES, VLLM_LORA_RANKS, EngineConfig
from console.paths import data_home, presets_dir

if TYPE_CHECKING:
    from console.models.store import ModelEntry

GOALS = ("max-throughput", "low-latency", "long-context", "smallest-memory", "balanced")
_ENGINE_FIELDS = {f.name: f for f in dataclasses.fields(EngineConfig)} 
_NOT_IN_PRESET = {"model", "served_model_name", "tokenizer", "lora_modules"}  # paths of this machine


class PresetError(ValueError):
    """A preset file that cannot be used; the message names the file and the key."""


@dataclass
class Preset:
    name: str
    description: str = ""
    goal: str = "balanced"
    gpu: str = "any"
    engine: dict[str, Any] = field(default_factory=dict)
    path: Path | None = None

    def apply(self, model_path: str, **overrides: Any) -> EngineConfig:
        """The engine configuration for ``model_path`` under this preset (overrides win)."""
        values = {**self.engine, **{k: v for k, v in overrides.items() if v is not None}}
        return EngineConfig(model=model_path, **values)

    def config_for(self, entry: "ModelEntry", **overrides: Any) -> EngineConfig:
        """The configuration Load uses for a model of the store under this preset: its path,
        its name as the served name, its remote-code flag, the context capped at the model's."""
        overrides.setdefault("trust_remote_code", entry.trust_remote_code)
        config = self.apply(entry.path, **overrides)
        config.served_model_name = entry.name
        if config.max_model_len is not None and entry.max_context:
            config.max_model_len = min(config.max_model_len, int(entry.max_context))
        return config

    def to_toml(self) -> str:
        data = {"name": self.name, "description": self.description, "goal": self.goal, "gpu": self.gpu,
                "engine": dict(sorted(self.engine.items()))}
        try:
            import tomli_w  # only when a preset is written: `--version` needs no third-party import

            return tomli_w.dumps(data)
        except (TypeError, ValueError) as exc:  # e.g. a None engine value: TOML has no null
            raise PresetError(f"cannot write preset '{self.name}' to TOML: {exc}") from None


_RANGES: dict[str, tuple[float, float]] = {
    "gpu_memory_utilization": (0.05, 1.0),
    "max_model_len": (16, 10_000_000),
    "max_num_seqs": (1, 65_536),
    "max_num_batched_tokens": (16, 10_000_000),
    "tensor_parallel_size": (1, 1024),
    "pipeline_parallel_size": (1, 1024),
    "kv_cache_memory_bytes": (1, 1 << 50),
    "cpu_offload_gb": (0, 1 << 20),
    "block_size": (1, 1024),
    "max_loras": (1, 1024),
    "max_cpu_loras": (1, 1 << 20),
}
_CHOICES: dict[str, tuple[Any, ...]] = {
    "max_lora_rank": VLLM_LORA_RANKS,
    "kv_cache_dtype": KV_CACHE_DTYPES,
    "dtype": ("auto", "bfloat16", "float16", "half", "float32", "float"),
    "quantization": ("awq", "awq_marlin", "gptq", "gptq_marlin", "fp8", "compressed-tensors"),
    "device": ("auto", "cuda", "cpu"),
}


def validate_engine_values(values: dict[str, Any], where: str) -> dict[str, Any]:
    """Check keys, types and ranges of ``[engine]`` values (before vLLM's own checks)."""
    hints = get_type_hints(EngineConfig)
    for key, value in values.items():
        if key not in _ENGINE_FIELDS or key in _NOT_IN_PRESET:
            raise PresetError(f"{where}: unknown engine key '{key}'")
        hint = str(hints[key])
        if "bool" in hint and not isinstance(value, bool):
            raise PresetError(f"{where}: '{key}' must be true or false, not {value!r}")
        if ("int" in hint or "float" in hint) and "bool" not in hint:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise PresetError(f"{where}: '{key}' must be a number, not {value!r}")
            if "float" not in hint and not isinstance(value, int):
                raise PresetError(f"{where}: '{key}' must be a whole number, not {value!r}")
            lo, hi = _RANGES.get(key, (float("-inf"), float("inf")))
            if not lo <= value <= hi:
                raise PresetError(f"{where}: '{key}' = {value} is out of range [{lo}, {hi}]")
        if "str" in hint and not isinstance(value, str):
            raise PresetError(f"{where}: '{key}' must be a string, not {value!r}")
        if isinstance(value, str):
            _check_unicode(where, key, value)
        if key in _CHOICES and value not in _CHOICES[key]:
            raise PresetError(f"{where}: '{key}' = {value!r} is not one of {', '.join(map(str, _CHOICES[key]))}")
    return values


def parse_preset(data: dict[str, Any], where: str) -> Preset:
    allowed = {"name", "description", "goal", "gpu", "engine"}
    unknown = set(data) - allowed
    if unknown:
        raise PresetError(f"{where}: unknown key(s) {', '.join(sorted(unknown))} (allowed: {', '.join(sorted(allowed))})")
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise PresetError(f"{where}: 'name' is required")
    # description and gpu were str()-ed, so `gpu = ["rtx-4090"]` became the GPU "['rtx-4090']".
    for key in ("name", "description", "gpu"):
        if key in data and not isinstance(data[key], str):
            raise PresetError(f"{where}: '{key}' must be a string, not {data[key]!r}")
        _check_unicode(where, key, data.get(key, ""))
    goal = data.get("goal", "balanced")
    if goal not in GOALS:
        raise PresetError(f"{where}: goal '{goal}' is not one of {', '.join(GOALS)}")
    engine = data.get("engine", {})
    if not isinstance(engine, dict):
        raise PresetError(f"{where}: [engine] must be a table")
    return Preset(name=name, description=data.get("description", ""), goal=goal,
                  gpu=data.get("gpu", "any"), engine=validate_engine_values(dict(engine), where))


def _check_unicode(where: str, key: str, value: str) -> None:
    """Strings from a dict (import, auto-tune) may hold lone surrogates that no file can store."""
    if any("\ud800" <= ch <= "\udfff" for ch in value):
        raise PresetError(f"{where}: '{key}' contains text that is not valid Unicode")


def load_preset_file(path: Path) -> Preset:
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise PresetError(f"{path}: not UTF-8 text") from exc
    except tomllib.TOMLDecodeError as exc:
        raise PresetError(f"{path}: invalid TOML ({exc})") from exc
    preset = parse_preset(data, str(path))
    preset.path = Path(path)
    return preset


def user_presets_dir() -> Path:
    return data_home() / "presets"


def load_presets(extra_dirs: list[Path] | None = None) -> dict[str, Preset]:
    """Shipped presets, then user presets (same name: the user's wins)."""
    out: dict[str, Preset] = {}
    sweep_stale_tmp(user_presets_dir())  # a preset save killed mid-way
    for d in [presets_dir(), user_presets_dir(), *(extra_dirs or [])]:
        if d.is_dir():
            for p in sorted(d.glob("*.toml")):
                preset = load_preset_file(p)
                out[preset.name] = preset
    return out


def get_preset(name: str) -> Preset:
    presets = load_presets()
    if name not in presets:
        raise PresetError(f"No preset named '{name}' (known: {', '.join(sorted(presets))})")
    return presets[name]


__all__ = ["GOALS", "Preset", "PresetError", "get_preset", "load_preset_file", "load_presets",
           "parse_preset", "user_presets_dir", "validate_engine_values", "CONSOLE_ONLY_FIELDS"]
