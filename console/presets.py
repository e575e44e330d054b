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

import sys
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Mapping
from typing import Any, Protocol

from console.atomic import sweep_stale_tmp
from console.config import CONSOLE_ONLY_FIELDS, EngineConfig
from console.paths import data_home, presets_dir
from console.schema import NOT_IN_PRESET, engine_schema, override_schema, value_message
from console.speed import speed_problems

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser, as a package
    import tomli as tomllib

GOALS = ("max-throughput", "low-latency", "long-context", "smallest-memory", "balanced")


class StoredModel(Protocol):
    """What :meth:`Preset.config_for` reads of a model of the store (a ``ModelEntry``)."""

    name: str
    path: str
    trust_remote_code: bool
    max_context: int | None


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
        """The engine configuration for ``model_path`` under this preset (overrides win, checked
        by the same schema as the preset's own values: :func:`validate_overrides`)."""
        given = {k: v for k, v in overrides.items() if v is not None}
        validate_overrides({k: v for k, v in given.items() if k not in NOT_IN_PRESET})
        return EngineConfig(model=model_path, **{**self.engine, **given})

    def config_for(self, entry: StoredModel, **overrides: Any) -> EngineConfig:
        """The configuration Load uses for a model of the store under this preset: its path,
        its name as the served name, its remote-code flag, the context capped at the model's."""
        overrides.setdefault("trust_remote_code", entry.trust_remote_code)
        config = self.apply(entry.path, **overrides)
        config.served_model_name = entry.name
        if config.max_model_len is not None and entry.max_context:
            config.max_model_len = min(config.max_model_len, int(entry.max_context))
        return config

    def to_toml(self) -> str:
        data = {
            "name": self.name,
            "description": self.description,
            "goal": self.goal,
            "gpu": self.gpu,
            "engine": dict(sorted(self.engine.items())),
        }
        try:
            import tomli_w  # only when a preset is written: `--version` needs no third-party import

            return tomli_w.dumps(data)
        except (TypeError, ValueError) as exc:  # e.g. a None engine value: TOML has no null
            raise PresetError(f"cannot write preset '{self.name}' to TOML: {exc}") from None


def validate_engine_values(values: dict[str, Any], where: str) -> dict[str, Any]:
    """Check keys, types and ranges of ``[engine]`` values (before vLLM's own checks) against
    the schema derived from EngineConfig (:func:`console.schema.engine_schema`); returns them
    unchanged."""
    from pydantic import ValidationError

    _check_unicode(where, "engine", values)
    try:
        engine_schema().model_validate(values)
    except ValidationError as exc:
        error = exc.errors()[0]
        key = str(error["loc"][0]) if error["loc"] else "engine"
        raise PresetError(f"{where}: {value_message(error, key, values.get(key))}") from None
    problems = speed_problems(values)
    if problems:
        raise PresetError(f"{where}: {'; '.join(problems)}")
    return values


def validate_overrides(values: Mapping[str, Any], names: Mapping[str, str] | None = None) -> Mapping[str, Any]:
    """Values set over a preset (CLI flags, the window's knobs, auto-tune's points) through the
    schema a preset's ``[engine]`` table passes (:func:`console.schema.override_schema`): one
    validation whatever typed them. The error is one line naming the value as the user knows it
    (``names``: field -> ``--max-num-seqs`` or the knob's label); returns ``values`` unchanged."""
    from pydantic import ValidationError

    try:
        override_schema().model_validate(dict(values))
    except ValidationError as exc:
        error = exc.errors()[0]
        key = str(error["loc"][0]) if error["loc"] else "engine"
        raise PresetError(value_message(error, (names or {}).get(key, key), values.get(key))) from None
    return values


def parse_preset(data: dict[str, Any], where: str) -> Preset:
    allowed = {"name", "description", "goal", "gpu", "engine"}
    unknown = set(data) - allowed
    if unknown:
        raise PresetError(
            f"{where}: unknown key(s) {', '.join(sorted(unknown))} (allowed: {', '.join(sorted(allowed))})"
        )
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
    return Preset(
        name=name,
        description=data.get("description", ""),
        goal=goal,
        gpu=data.get("gpu", "any"),
        engine=validate_engine_values(dict(engine), where),
    )


def _check_unicode(where: str, key: str, value: Any) -> None:
    """Strings from a dict (import, auto-tune) may hold lone surrogates that no file can store
    (pydantic lets them through); ``value`` may be a table or list holding strings."""
    if isinstance(value, dict):
        for k, v in value.items():
            _check_unicode(where, str(k) if key == "engine" else key, v)
    elif isinstance(value, list):
        for v in value:
            _check_unicode(where, key, v)
    elif isinstance(value, str) and any("\ud800" <= ch <= "\udfff" for ch in value):
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


__all__ = [
    "GOALS",
    "Preset",
    "PresetError",
    "get_preset",
    "load_preset_file",
    "load_presets",
    "parse_preset",
    "user_presets_dir",
    "validate_engine_values",
    "validate_overrides",
    "CONSOLE_ONLY_FIELDS",
]
