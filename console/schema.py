"""pydantic validation derived from the console's dataclasses.

The dataclasses (:class:`~console.config.EngineConfig`, :class:`~console.sampling.SamplingSettings`,
:class:`~console.settings.Settings`) stay the types the code passes around: callers build them by
keyword, copy them with ``dataclasses.replace`` and list ``dataclasses.fields``. This module
derives a pydantic model from one, field by field from its type hints, so a new field is validated
by its hint with nothing to add here; ranges and choices come from tables keyed by field name
(:data:`console.config.ENGINE_LIMITS`, :data:`console.config.ENGINE_CHOICES`). Every field of a
derived model is optional (a preset or a settings file gives some of them) and strict (no ``"8"``
for an int, no ``true`` for a number).

pydantic is imported on first use: ``--version`` and the modules that only import the
dataclasses pay nothing for it.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union, get_args, get_type_hints

from console.config import ENGINE_CHOICES, ENGINE_LIMITS, EngineConfig

if TYPE_CHECKING:
    from pydantic import BaseModel

#: EngineConfig fields a preset does not hold (Load fills them in from the model store).
NOT_IN_PRESET = frozenset(  # paths of this machine
    {"model", "served_model_name", "tokenizer", "lora_modules", "allowed_local_media_path"}
)


def derive_model(
    cls: type,
    *,
    extra: str = "ignore",
    nullable: bool = True,
    exclude: Iterable[str] = (),
    limits: Mapping[str, Mapping[str, float]] | None = None,
    choices: Mapping[str, tuple[Any, ...]] | None = None,
) -> "type[BaseModel]":
    """A strict pydantic model with the fields of dataclass ``cls`` (nested dataclasses too).

    ``nullable=False`` takes ``None`` out of ``X | None`` hints (TOML has no null); ``limits`` maps
    a field name to pydantic bounds (``ge``, ``gt``, ``le``, ``lt``) and ``choices`` to the values
    it accepts; ``extra`` is pydantic's handling of keys that are no field ("ignore", "forbid")."""
    from pydantic import ConfigDict, Field, create_model

    limits = limits or {}
    choices = choices or {}
    hints = get_type_hints(cls)
    fields: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name in exclude:
            continue
        hint = hints[f.name]
        if dataclasses.is_dataclass(hint):
            nested: Any = hint  # a dataclass type (checked above)
            hint = derive_model(nested, extra=extra, nullable=nullable, limits=limits, choices=choices)
        else:
            hint = _field_hint(hint, choices.get(f.name), nullable)
        bounds: dict[str, Any] = dict(limits.get(f.name, {}))  # ge=, le=, ... for this field
        fields[f.name] = (hint, Field(default=None, **bounds))
    config = ConfigDict(strict=True, extra=extra, allow_inf_nan=False)  # type: ignore[typeddict-item]
    return create_model(f"{cls.__name__}Schema", __config__=config, **fields)


def _field_hint(hint: Any, allowed: tuple[Any, ...] | None, nullable: bool) -> Any:
    """The pydantic type of one scalar field: its hint, or its choices, numbers refusing booleans.

    A ``Literal`` of ints matches by equality, so ``True`` passed as the rank 1 and ``16.0`` as 16:
    whole-number choices are an ``int`` (strict in presets, "16" -> 16 in the importer's lax mode)
    checked against the list after. pydantic's lax mode reads ``true`` as 1 for any number, so
    every number field refuses a boolean before pydantic looks at it."""
    from pydantic import AfterValidator, BeforeValidator

    optional = type(None) in get_args(hint)
    base = Union[tuple(a for a in get_args(hint) if a is not type(None))] if optional else hint  # noqa: UP007
    if allowed is not None and all(type(v) is int for v in allowed):
        base = Annotated[int, AfterValidator(functools.partial(_one_of, allowed))]
    elif allowed is not None:
        base = Literal[allowed]
    if base in (int, float) or (allowed is not None and type(allowed[0]) is int):
        base = Annotated[base, BeforeValidator(_not_bool)]
    return Union[base, None] if optional and nullable else base  # noqa: UP007


def _not_bool(value: Any) -> Any:
    if isinstance(value, bool):
        from pydantic_core import PydanticCustomError

        raise PydanticCustomError("int_type", "Input should be a valid number, not a boolean")
    return value


def _one_of(allowed: tuple[Any, ...], value: Any) -> Any:
    if value not in allowed:
        from pydantic_core import PydanticCustomError

        raise PydanticCustomError(
            "literal_error", "Input should be {expected}", {"expected": ", ".join(map(str, allowed))}
        )
    return value


@functools.cache
def engine_schema() -> "type[BaseModel]":
    """A preset's ``[engine]`` table: EngineConfig's fields bar the model's own, no nulls,
    unknown keys refused, with the console's ranges and choices."""
    return derive_model(
        EngineConfig,
        extra="forbid",
        nullable=False,
        exclude=NOT_IN_PRESET,
        limits=ENGINE_LIMITS,
        choices=ENGINE_CHOICES,
    )


@functools.cache
def override_schema() -> "type[BaseModel]":
    """Values typed over a preset (CLI flags, the window's knobs): the ``[engine]`` schema, with
    ``speculative_method = ""`` allowed (it turns a preset's speculation off)."""
    choices = {**ENGINE_CHOICES, "speculative_method": ("", *ENGINE_CHOICES["speculative_method"])}
    return derive_model(
        EngineConfig, extra="forbid", nullable=False, exclude=NOT_IN_PRESET, limits=ENGINE_LIMITS, choices=choices
    )


def range_text(key: str) -> str:
    """``ENGINE_LIMITS[key]`` in words, e.g. ``(0, 1]`` or ``>= 1``."""
    lim = ENGINE_LIMITS.get(key, {})
    lo = ("[", lim["ge"]) if "ge" in lim else ("(", lim["gt"]) if "gt" in lim else None
    hi = ("]", lim["le"]) if "le" in lim else (")", lim["lt"]) if "lt" in lim else None
    if lo and hi:
        return f"{lo[0]}{_num(lo[1])}, {_num(hi[1])}{hi[0]}"
    if lo:
        return f"{'>=' if lo[0] == '[' else '>'} {_num(lo[1])}"
    if hi:
        return f"{'<=' if hi[0] == ']' else '<'} {_num(hi[1])}"
    return "(finite numbers)"


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


_KIND = {"bool": "true or false", "int": "a whole number", "float": "a number", "string": "a string"}


def value_message(error: Mapping[str, Any], key: str, value: Any) -> str:
    """One pydantic error about ``key`` (as the user wrote it) as the console words it."""
    kind = str(error["type"])
    name = str(error["loc"][0]) if error.get("loc") else key
    if kind == "extra_forbidden":
        return f"unknown engine key '{key}'"
    if kind == "literal_error":
        allowed = ", ".join(map(str, ENGINE_CHOICES[name])) if name in ENGINE_CHOICES else error["ctx"]["expected"]
        return f"'{key}' = {value!r} is not one of {allowed}"
    if kind in ("greater_than", "greater_than_equal", "less_than", "less_than_equal", "finite_number"):
        return f"'{key}' = {value} is out of range {range_text(name)}"
    base, _, how = kind.partition("_")  # int_type, int_parsing, int_from_float, bool_type, ...
    if base in _KIND and len(error["loc"]) == 1:
        if (
            base in ("int", "float")
            and how == "type"
            and (isinstance(value, bool) or not isinstance(value, (int, float)))
        ):
            return f"'{key}' must be a number, not {value!r}"
        return f"'{key}' must be {_KIND[base]}, not {value!r}"
    return f"'{key}' = {value!r} is not valid: {error['msg']}"


__all__ = ["NOT_IN_PRESET", "derive_model", "engine_schema", "override_schema", "range_text", "value_message"]
