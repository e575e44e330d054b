"""The console's user settings: one typed schema with a version number, stored as JSON.

The file is ``<data home>/settings.json``, written atomically (:mod:`console.atomic`), so a crash
mid-save leaves the previous settings. Reading never fails: an unreadable or corrupt file is moved
aside (``settings.json.bad``) and the defaults are used; unknown keys are dropped, values of the
wrong type or out of range (pydantic, :mod:`console.schema`) fall back to their defaults, and
older schema versions are migrated forward.
No Qt here: window geometry is kept as the base64 text Qt hands us.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, get_type_hints

from console.atomic import atomic_write_json, sweep_stale_tmp
from console.config import ENGINE_CHOICES, ENGINE_LIMITS, EngineConfig, window_knobs, with_ngram_tokens
from console.sampling import CHAT_MAX_TOKENS, FIT_CONTEXT, SamplingSettings
from console.paths import data_home
from console.schema import derive_model

log = logging.getLogger(__name__)

SCHEMA_VERSION = 5
SETTINGS_FILE = "settings.json"
#: The window's theme choices: "system" follows the OS colour scheme (light or dark).
THEMES = ("system", "light", "dark")


class KnobValues:
    """What the settings' knobs do; :class:`Knobs` is this with one field per window knob."""

    def overrides(self) -> dict[str, Any]:
        """The knobs that are set, by EngineConfig field and in its unit (what Load applies over the
        preset); n-gram chosen without draft tokens gets :data:`~console.config.NGRAM_DRAFT_TOKENS`."""
        values = {name: k.to_engine(getattr(self, settings_name(name))) for name, k in window_knobs().items()}
        return with_ngram_tokens({name: v for name, v in values.items() if v is not None})

    def with_change(self, change: dict[str, Any]) -> tuple[Any, list[str]]:
        """These knobs with ``change`` (engine values by field, e.g. a planner suggestion's) applied,
        and the fields of ``change`` that are no knob (set in a preset file)."""
        knobs = window_knobs()
        applied = {settings_name(n): knobs[n].to_settings(v) for n, v in change.items() if n in knobs}
        return dataclasses.replace(self, **applied), sorted(set(change) - set(knobs))  # type: ignore[type-var]


def knob_fields() -> list[tuple[str, Any, Any]]:
    """The settings' knob fields, made from the window knobs' metadata: (name, type, field), named
    and in the unit the metadata says (``settings_name``, ``settings_unit``: the KV cache in GiB),
    ``None`` (the preset's value) by default."""
    hints = get_type_hints(EngineConfig)
    out: list[tuple[str, Any, Any]] = []
    for name, k in window_knobs().items():
        converted = bool(k.settings_unit) and k.settings_unit != k.unit
        kind = float if converted else hints[name]
        out.append((k.settings_name or name, kind | None, field(default=None)))
    return out


if TYPE_CHECKING:

    class Knobs(KnobValues):
        """The type checker's view of the generated class below (its fields are the knobs')."""

        def __init__(self, **values: Any) -> None: ...
        def __getattr__(self, name: str) -> Any: ...
        def with_change(self, change: dict[str, Any]) -> tuple[Knobs, list[str]]: ...

else:
    #: The engine knobs the user last edited in the Models panel (``None``: the preset's value): one
    #: field per window knob of :class:`~console.config.EngineConfig` (:func:`knob_fields`). A
    #: ``speculative_method`` of "" is "off" over the preset.
    Knobs = dataclasses.make_dataclass("Knobs", knob_fields(), bases=(KnobValues,))
    Knobs.__module__ = __name__  # pickle and copy find it here


def settings_name(field_name: str) -> str:
    """The :class:`Knobs` field that holds EngineConfig field ``field_name``'s knob."""
    return window_knobs()[field_name].settings_name or field_name


@dataclass
class Settings:
    schema_version: int = SCHEMA_VERSION
    #: QMainWindow.saveGeometry()/saveState() as base64 text ("" = first start).
    window_geometry: str = ""
    window_state: str = ""
    last_model: str | None = None
    last_preset: str | None = None
    last_tab: int = 0
    last_conversation: int | None = None
    system_prompt: str = ""
    #: "" follows the system locale; otherwise a Qt locale name such as "zh_CN".
    language: str = ""
    #: Let vLLM and Hugging Face libraries send their usage statistics (console.privacy); off.
    usage_stats: bool = False
    #: the chat panel's last sampling controls
    sampling: SamplingSettings = field(default_factory=SamplingSettings)
    knobs: Knobs = field(default_factory=Knobs)
    #: Models panel: keep the loaded model warm when loading another
    keep_warm: bool = False
    #: Chat: Enter sends and Shift+Enter breaks the line; False: Ctrl+Enter sends, Enter breaks it
    enter_sends: bool = True
    #: Chat: the side panel of settings (sampling, output, adapter, tools) unfolded; None (first
    #: start): unfolded where the screen leaves the window 1200 px or more
    chat_settings_shown: bool | None = None
    #: View > Theme: one of THEMES
    theme: str = "system"

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _valid_part(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` less every value the settings schema refuses (each logged): pydantic validates
    against the model derived from :class:`Settings`, and each refused value is dropped (a value
    inside a list or a non-table drops the whole field) until what is left passes."""
    from pydantic import ValidationError

    data = copy.deepcopy(data)
    while True:
        try:
            _schema().model_validate(data)
            return data
        except ValidationError as exc:
            dropped = [_drop(data, error["loc"], error["msg"]) for error in exc.errors()]
            if not any(dropped):  # nothing left to drop: keep the defaults
                return {}


def _drop(data: dict[str, Any], loc: tuple[Any, ...], why: str) -> bool:
    node = data
    for depth, key in enumerate(loc):
        child = node.get(key)
        if depth == len(loc) - 1 or not isinstance(child, dict):
            if key not in node:
                return False
            log.warning("settings: ignoring %s=%r (%s)", ".".join(map(str, loc[: depth + 1])), node.pop(key), why)
            return True
        node = child
    return False


@functools.cache
def _schema() -> Any:
    # The knobs take EngineConfig's ranges and choices under their settings names and units; a
    # knob's speculative_method "" means "off over the preset".
    limits = {**ENGINE_LIMITS, **knob_limits()}
    choices = {
        **ENGINE_CHOICES,
        "speculative_method": ("", *ENGINE_CHOICES["speculative_method"]),
        "theme": THEMES,
    }
    return derive_model(Settings, limits=limits, choices=choices)


def knob_limits() -> dict[str, dict[str, float]]:
    """The window knobs' ranges by settings name, in the settings' unit (the KV cache in GiB)."""
    out: dict[str, dict[str, float]] = {}
    for name, k in window_knobs().items():
        bounds = ENGINE_LIMITS.get(name)
        if bounds:
            out[k.settings_name or name] = {b: k.to_settings(v) if v else v for b, v in bounds.items()}
    return out


def _build(cls: Any, data: dict[str, Any]) -> Any:
    """Dataclass ``cls`` from validated ``data`` (nested dataclasses from nested tables)."""
    hints = get_type_hints(cls)
    return cls(
        **{
            f.name: _build(hints[f.name], data[f.name]) if dataclasses.is_dataclass(hints[f.name]) else data[f.name]
            for f in dataclasses.fields(cls)
            if f.name in data
        }
    )


def _migrate_1_to_2(data: dict[str, Any]) -> dict[str, Any]:
    # Version 1 kept the sampling controls flat at the top level and had no knobs.
    sampling = {k: data.pop(k) for k in list(data) if k in {f.name for f in dataclasses.fields(SamplingSettings)}}
    data["sampling"] = sampling
    data["schema_version"] = 2
    return data


def _migrate_2_to_3(data: dict[str, Any]) -> dict[str, Any]:
    # Version 2's chat cut answers at 256 tokens by default; 0 now means "up to the context". A
    # 256 saved then was that default (the window saves its controls), so it follows the new one.
    sampling = data.get("sampling")
    if isinstance(sampling, dict) and sampling.get("max_tokens") == 256:
        sampling["max_tokens"] = 0
    data["schema_version"] = 3
    return data


#: The chat's sampling defaults before they came from the loaded model (version 3 and older).
_OLD_SAMPLING_DEFAULTS = {"temperature": 0.7, "top_p": 1.0, "top_k": 0, "repetition_penalty": 1.0}


def _migrate_3_to_4(data: dict[str, Any]) -> dict[str, Any]:
    # Version 3's chat used one sampling default for every model (temperature 0.7, top-p 1, top-k
    # off, repetition penalty 1) and the window saved its controls whatever they were, so a saved
    # value equal to that default was the default, not a choice: it now follows the model's own
    # (None). A value the user had changed stays theirs.
    sampling = data.get("sampling")
    if isinstance(sampling, dict):
        for key, old in _OLD_SAMPLING_DEFAULTS.items():
            if key in sampling and sampling[key] == old:
                sampling[key] = None
    data["schema_version"] = 4
    return data


def _migrate_4_to_5(data: dict[str, Any]) -> dict[str, Any]:
    # Versions 3 and 4 let the chat's answers run to the context's end by default (max tokens 0),
    # and the window saved that default as if chosen: a saved 0 follows the new default answer
    # length, so an answer that loops no longer fills the whole context. Other values stay.
    sampling = data.get("sampling")
    if isinstance(sampling, dict) and sampling.get("max_tokens") == FIT_CONTEXT:
        sampling["max_tokens"] = CHAT_MAX_TOKENS
    data["schema_version"] = 5
    return data


MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {
    1: _migrate_1_to_2,
    2: _migrate_2_to_3,
    3: _migrate_3_to_4,
    4: _migrate_4_to_5,
}


def migrate(data: dict[str, Any]) -> dict[str, Any]:
    version = data.get("schema_version", 1)
    if not isinstance(version, int) or version > SCHEMA_VERSION:
        # A newer console wrote this; read what we understand, never write an older version over it
        # silently: the caller saves with our version.
        return data
    while version < SCHEMA_VERSION:
        data = MIGRATIONS[version](data)
        version = data["schema_version"]
    return data


def settings_path() -> Path:
    return data_home() / SETTINGS_FILE


def load_settings(path: Path | None = None) -> Settings:
    path = path or settings_path()
    sweep_stale_tmp(path.parent)  # a save killed mid-way (the settings are read at every start)
    if not path.exists():
        return Settings()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        log.warning("settings file %s is unreadable (%s); using defaults", path, exc)
        try:
            os.replace(path, path.with_name(path.name + ".bad"))
        except OSError:
            pass
        return Settings()
    settings: Settings = _build(Settings, _valid_part(migrate(data)))
    settings.schema_version = SCHEMA_VERSION
    return settings


def saved_usage_stats(path: Path | None = None) -> bool:
    """settings.json's ``usage_stats`` alone, read without the schema the whole file passes: every
    start reads it first (``--version`` too, console.privacy), and the schema costs a pydantic
    import. Anything but ``true`` reads as the default, off, as :func:`load_settings` would have it."""
    try:
        data = json.loads((path or settings_path()).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return False
    return isinstance(data, dict) and data.get("usage_stats") is True


def save_settings(settings: Settings, path: Path | None = None) -> None:
    settings.schema_version = SCHEMA_VERSION
    atomic_write_json(path or settings_path(), settings.to_dict())


__all__ = [
    "KnobValues",
    "Knobs",
    "knob_fields",
    "knob_limits",
    "SCHEMA_VERSION",
    "Settings",
    "THEMES",
    "load_settings",
    "migrate",
    "save_settings",
    "saved_usage_stats",
    "settings_name",
    "settings_path",
]
