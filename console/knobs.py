"""The record that describes an engine knob, attached to its :class:`~console.config.EngineConfig`
field as metadata (``field(default=None, metadata=knob(...))``): what it does, its unit, the
device it means something on, its RTX 4090 default and why, whether the window shows it under
"Advanced", its command-line flag and its name in the settings.

Everything that offers a knob is generated from these records: the command line's flags
(``console/cli/knob_flags.py``), the settings' knobs (:class:`console.settings.Knobs`, one field
per window knob), the window's knob rows (label, widget, range, choices, tooltip), their
translations (:mod:`console.knob_help`), and the ranges and choices every check applies
(:class:`Check`, ``config.ENGINE_LIMITS``/``config.ENGINE_CHOICES``). A field that is no knob
but has a range says it with :func:`check`. No Qt, no other console module: ``config.py``
imports this one.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal, Mapping

#: The device a knob means something on: "gpu" rows are hidden on the CPU engine, "cpu" rows on a GPU.
Applies = Literal["any", "gpu", "cpu"]
#: A value's unit where a surface must convert or say it ("": a count, a share or a name).
Unit = Literal["", "bytes", "GiB"]

#: The key of a field's metadata that holds its :class:`Knob`.
KNOB = "knob"
#: The key of a field's metadata that holds its :class:`Check`.
CHECK = "check"

_BYTES_PER = {"bytes": 1, "GiB": 1024**3}


@dataclass(frozen=True)
class Knob:
    """One engine knob, described once.

    ``help`` is what it does: the CLI flag's help and the first paragraph of the window's tooltip.
    A knob with ``window`` set is a row of the Models panel's knobs and a field of the settings'
    knobs; ``default_4090`` and ``why`` complete its tooltip. ``settings_name``/``settings_unit``
    say how the settings (and the row) hold it when that differs from the engine field."""

    help: str
    unit: Unit = ""
    device: Applies = "any"
    window: bool = False
    advanced: bool = False  # the window: under the collapsed "Advanced" section
    default_4090: str = ""
    why: str = ""
    settings_name: str = ""  # "" = the field's own name
    settings_unit: Unit = ""  # "" = the field's unit
    metavar: str = ""  # the CLI's word for the value ("" = from the unit, else argparse's)
    short: str = ""  # a short CLI spelling some commands offer (e.g. "-tp")
    cli_choices: tuple[Any, ...] = ()  # the values a CLI flag accepts, where argparse checks them
    # the window's row (a knob with ``window`` set): its label, the spin box's step and decimals,
    # the word for a preset that leaves the knob unset, and for a list of values the ones the row
    # offers (default: all the field's choices) with the words it shows for some of them
    label: str = ""
    step: float = 0  # 0: the spin box's own
    decimals: int = 2
    unset: str = "default"
    window_choices: tuple[Any, ...] = ()
    choice_labels: tuple[tuple[Any, str], ...] = ()

    def flag(self, name: str) -> str:
        """The CLI flag of field ``name``: vLLM's spelling, ``--max-model-len``."""
        return "--" + name.replace("_", "-")

    def to_settings(self, value: Any) -> Any:
        """An engine value in the settings' unit (a size of 0 or None: unset)."""
        if not self.settings_unit or self.settings_unit == self.unit or value is None:
            return value
        if not value:
            return None
        scaled = value * _BYTES_PER[self.unit or "bytes"] / _BYTES_PER[self.settings_unit]
        return max(round(scaled, 2), 0.01)

    def to_engine(self, value: Any) -> Any:
        """A settings value in the engine field's unit (whole bytes where the field counts bytes)."""
        if not self.settings_unit or self.settings_unit == self.unit or value is None:
            return value
        if not value:
            return None
        scaled = value * _BYTES_PER[self.settings_unit] / _BYTES_PER[self.unit or "bytes"]
        return int(scaled) if self.unit == "bytes" else scaled


@dataclass(frozen=True)
class Check:
    """What a field accepts beyond its type hint: pydantic bounds and a list of values."""

    ge: float | None = None
    gt: float | None = None
    le: float | None = None
    lt: float | None = None
    choices: tuple[Any, ...] = ()

    def bounds(self) -> dict[str, float]:
        """The bounds that are set, as pydantic's ``Field`` takes them (``{"ge": 1, "le": 1024}``)."""
        return {k: v for k in ("ge", "gt", "le", "lt") if (v := getattr(self, k)) is not None}


_CHECK_KEYS = ("ge", "gt", "le", "lt", "choices")


def check(**bounds: Any) -> Mapping[str, Check]:
    """A field's metadata with its range or choices only (no knob): ``metadata=check(ge=1, le=1024)``."""
    return {CHECK: Check(**bounds)}


def knob(**description: Any) -> Mapping[str, Any]:
    """A field's metadata describing its knob: ``field(default=None, metadata=knob(help=...))``;
    ``ge``, ``gt``, ``le``, ``lt`` and ``choices`` are its :class:`Check`."""
    bounds = {k: description.pop(k) for k in _CHECK_KEYS if k in description}
    meta: dict[str, Any] = {KNOB: Knob(**description)}
    if bounds:
        meta[CHECK] = Check(**bounds)
    return meta


def knobs_of(cls: type) -> dict[str, Knob]:
    """Each field of dataclass ``cls`` that describes a knob -> its :class:`Knob`, in field order."""
    return {f.name: f.metadata[KNOB] for f in dataclasses.fields(cls) if KNOB in f.metadata}


def checks_of(cls: type) -> dict[str, Check]:
    """Each field of dataclass ``cls`` with a range or choices -> its :class:`Check`, in field order."""
    return {f.name: f.metadata[CHECK] for f in dataclasses.fields(cls) if CHECK in f.metadata}


__all__ = ["Applies", "CHECK", "Check", "KNOB", "Knob", "Unit", "check", "checks_of", "knob", "knobs_of"]
