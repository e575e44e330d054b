"""The engine knobs on the command line, generated from their description on
:class:`~console.config.EngineConfig`'s fields (:mod:`console.knobs`): each flag has vLLM's
spelling, the field's name as its ``dest``, the field's type (a ``bool | None`` field is
``--x/--no-x``, one a command defaults to False is ``--x``; a ``Literal`` field offers its values),
and the knob's help, unit and device. A command picks the knobs it takes and may give its own
defaults, choices and a note on them (``plan``'s are the planner's)."""

from __future__ import annotations

import argparse
import json
import types
from typing import Any, Iterable, Literal, Mapping, Union, get_args, get_origin, get_type_hints

from console.config import EngineConfig, engine_knobs
from console.knobs import Knob

_METAVAR_OF_UNIT = {"bytes": "BYTES", "GiB": "GIB"}


def add_knob_flags(
    p: argparse.ArgumentParser,
    names: Iterable[str],
    *,
    defaults: Mapping[str, Any] | None = None,
    choices: Mapping[str, Iterable[Any]] | None = None,
    notes: Mapping[str, str] | None = None,
    short: bool = False,
) -> None:
    """One flag per EngineConfig field in ``names`` (each must describe a knob), in that order.

    ``defaults``: this command's default by field (none: the flag is None when not given);
    ``choices``: the values argparse accepts, where this command checks them itself (else the
    knob's ``cli_choices``, or the field's ``Literal``); ``notes``: a word on the value in this
    command, shown after the help in parentheses (else the default, if any); ``short``: offer the
    knobs' short spellings too (``-tp``)."""
    knobs, hints = engine_knobs(), get_type_hints(EngineConfig)
    for name in names:
        k = knobs[name]
        default = (defaults or {}).get(name)
        kind, literal = _value_type(hints[name])
        kwargs: dict[str, Any] = {"dest": name, "help": flag_help(k, default, (notes or {}).get(name))}
        if kind is bool and default is False:
            kwargs["action"] = "store_true"
        elif kind is bool:
            kwargs.update(action=argparse.BooleanOptionalAction, default=default)
        else:
            kwargs.update(type=_json_object if kind is dict else kind, default=default)
            offered = (choices or {}).get(name) or k.cli_choices or literal
            if offered:
                kwargs["choices"] = list(offered)
            metavar = k.metavar or _METAVAR_OF_UNIT.get(k.unit, "")
            if metavar:
                kwargs["metavar"] = metavar
        p.add_argument(*([k.flag(name)] + ([k.short] if short and k.short else [])), **kwargs)


def flag_help(k: Knob, default: Any = None, note: str | None = None) -> str:
    """A knob flag's help: the knob's help, where it applies, and the note (else the default)."""
    text = k.help.rstrip(".")
    if k.device == "gpu":
        text += " (GPU only)"
    if note:
        text += f" ({note})"
    elif default not in (None, False):
        text += f" (default {default})"
    return text.replace("%", "%%")  # argparse formats help with %


def given_knobs(args: argparse.Namespace, names: Iterable[str]) -> dict[str, Any]:
    """The knob flags of ``names`` given on the command line, by EngineConfig field."""
    return {name: getattr(args, name) for name in names if getattr(args, name, None) is not None}


def _value_type(hint: Any) -> tuple[type, tuple[Any, ...]]:
    """The type argparse converts a field's value to (``int | None`` -> int, a mapping -> dict),
    and a ``Literal``'s values."""
    if get_origin(hint) in (Union, types.UnionType):
        hint = next(a for a in get_args(hint) if a is not type(None))
    if get_origin(hint) is Literal:
        values = get_args(hint)
        return type(values[0]), values
    if get_origin(hint) is dict:
        return dict, ()
    return hint, ()


def _json_object(text: str) -> dict[str, Any]:
    """A mapping flag's value: a JSON object, as vLLM's own flag reads it."""
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError('a JSON object is needed, e.g. {"image": 2}')
    return value


__all__ = ["add_knob_flags", "flag_help", "given_knobs"]
