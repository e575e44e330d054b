"""TensorRT-LLM's configuration model, offline: check a ``trtllm-serve --config`` mapping against it.

The model is ``resources/trtllm/llm_args-<release>.json``, written by
``resources/trtllm/regenerate.py`` from TensorRT-LLM's own ``llm_args.py`` and ``serve.py`` (no
TensorRT-LLM import, here or there). :func:`check` walks a mapping the way ``trtllm-serve`` hands
it to ``TorchLlmArgs``: every key must be a field of the class it lands in (the classes forbid
extra fields), and every value must have the field's type as written in the source
(``Optional[...]``, ``Union[...]``, ``List[...]``, ``Literal[...]``, enums, nested classes; a
speculative configuration is picked by its ``decoding_type``, as ``DecodingBaseConfig.from_dict``
does). What the schema cannot know (a type defined outside ``llm_args.py``) is accepted and
listed by :func:`opaque_fields`, never guessed.
"""

from __future__ import annotations

import ast
import difflib
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from console.paths import resources_dir

#: The release the exports name and are checked against (``resources/trtllm/llm_args-<it>.json``).
RELEASE = "1.1-line"
#: Types accepted as they are: anything goes (Python objects, or a class from another module).
_ANY = {"object", "Any", "dict", "Dict"}
_INTS = {"int", "NonNegativeInt", "PositiveInt", "StrictInt"}
_FLOATS = {"float", "NonNegativeFloat"}


@dataclass(frozen=True)
class Schema:
    """One release's classes, aliases and ``trtllm-serve`` options, as the JSON holds them."""

    release: str
    root: str
    classes: dict[str, Any]
    aliases: dict[str, str]
    serve_options: dict[str, Any]
    regenerate: str

    def fields(self, cls: str) -> dict[str, Any]:
        """Every field of ``cls``, its bases' first (as pydantic collects them)."""
        entry = self.classes.get(cls)
        if entry is None:
            return {}
        out: dict[str, Any] = {}
        for base in entry.get("bases", []):
            out.update(self.fields(base))
        out.update(entry.get("fields", {}))
        return out

    def serve_flags(self) -> set[str]:
        return {flag for option in self.serve_options.values() for flag in option.get("flags", [])}


def schema_path(release: str = RELEASE) -> Path:
    return resources_dir() / "trtllm" / f"llm_args-{release}.json"


@cache
def load_schema(release: str = RELEASE) -> Schema:
    data = json.loads(schema_path(release).read_text(encoding="utf-8"))
    return Schema(
        release=str(data["release"]),
        root=str(data["root"]),
        classes=dict(data["classes"]),
        aliases=dict(data.get("aliases", {})),
        serve_options=dict(data.get("trtllm_serve_options", {})),
        regenerate=str(data.get("regenerate", "")),
    )


def check(config: dict[str, Any], schema: Schema | None = None) -> list[str]:
    """Every problem of ``config`` as a ``--config`` YAML for the schema's release ([] when none).

    Each problem names the key path, what is wrong and, for an unknown key, the nearest known ones.
    """
    schema = schema or load_schema()
    return _check_class(schema, schema.root, config, "")


def _check_class(schema: Schema, cls: str, value: Any, path: str) -> list[str]:
    where = path or "the top level"
    if not isinstance(value, dict):
        return [f"{where}: expected a mapping for {cls}, got {type(value).__name__} {value!r}"]
    fields = schema.fields(cls)
    problems: list[str] = []
    for key, item in value.items():
        sub = f"{path}.{key}" if path else str(key)
        field = fields.get(key) or next((f for f in fields.values() if f.get("alias") == key), None)
        if field is None:
            if cls in _speculative_classes(schema) and key == "decoding_type":
                continue
            near = difflib.get_close_matches(str(key), list(fields), n=3, cutoff=0.6)
            hint = f" (did you mean {', '.join(near)}?)" if near else ""
            problems.append(
                f"{sub}: TensorRT-LLM {schema.release} has no such key in {cls}{hint}; "
                f"{cls} refuses unknown keys (extra='forbid')"
            )
            continue
        problems += _check_type(schema, _parse(field["type"]), item, sub)
    for key, field in fields.items():
        if field.get("required") and key not in value and path:
            problems.append(f"{path}.{key}: required by {cls} and missing")
    return problems


def _speculative_classes(schema: Schema) -> set[str]:
    return set(_dispatch(schema).values())


def _dispatch(schema: Schema) -> dict[str, str]:
    for entry in schema.classes.values():
        if entry.get("dispatch"):
            return dict(entry["dispatch"])
    return {}


def _parse(type_text: str) -> ast.expr:
    return ast.parse(type_text, mode="eval").body


def _check_type(schema: Schema, node: ast.expr, value: Any, path: str) -> list[str]:
    """[] when ``value`` fits the annotation ``node``; else one problem naming both."""
    name = ast.unparse(node)
    if isinstance(node, ast.Subscript):
        head = ast.unparse(node.value)
        args = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        if head == "Optional":
            return [] if value is None else _check_type(schema, args[0], value, path)
        if head == "Union":
            return _check_union(schema, args, value, path, name)
        if head in ("List", "list", "Set", "set", "Tuple", "tuple"):
            if not isinstance(value, list):
                return [f"{path}: expected a list ({name}), got {type(value).__name__} {value!r}"]
            return [p for i, item in enumerate(value) for p in _check_type(schema, args[0], item, f"{path}[{i}]")]
        if head in ("Dict", "dict"):
            return [] if isinstance(value, dict) else [f"{path}: expected a mapping ({name}), got {value!r}"]
        if head == "Literal":
            choices = [ast.literal_eval(a) for a in args]
            return [] if value in choices else [f"{path}: {value!r} is not one of {choices}"]
        if head == "Annotated":
            return _check_type(schema, args[0], value, path)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):  # X | Y
        return _check_union(schema, [node.left, node.right], value, path, name)
    if (isinstance(node, ast.Constant) and node.value is None) or name == "None":
        return [] if value is None else [f"{path}: expected null, got {value!r}"]
    return _check_named(schema, name, value, path)


def _check_union(schema: Schema, args: list[ast.expr], value: Any, path: str, name: str) -> list[str]:
    options = [ast.unparse(a) for a in args]
    if isinstance(value, dict) and set(options) & _speculative_classes(schema):
        kind = value.get("decoding_type")
        cls = _dispatch(schema).get(str(kind))
        if cls is None:
            return [f"{path}.decoding_type: {kind!r} is not one of {sorted(_dispatch(schema))}"]
        return _check_class(schema, cls, value, path)
    for arg in args:
        if not _check_type(schema, arg, value, path):
            return []
    return [f"{path}: {value!r} does not fit {name}"]


def _check_named(schema: Schema, name: str, value: Any, path: str) -> list[str]:
    alias = schema.aliases.get(name)
    if alias is not None:
        return _check_type(schema, _parse(alias), value, path)
    bad = [f"{path}: expected {name}, got {type(value).__name__} {value!r}"]
    if name == "bool":
        return [] if isinstance(value, bool) else bad
    if name in _INTS:
        ok = isinstance(value, int) and not isinstance(value, bool)
        if ok and name == "NonNegativeInt" and value < 0 or ok and name == "PositiveInt" and value <= 0:
            return [f"{path}: {value} is out of range for {name}"]
        return [] if ok else bad
    if name in _FLOATS:
        return [] if isinstance(value, (int, float)) and not isinstance(value, bool) else bad
    if name in ("str", "Path"):
        return [] if isinstance(value, str) else bad
    entry = schema.classes.get(name)
    if entry is not None and "enum" in entry:
        allowed = list(entry["enum"]) + [v for v in entry.get("values", {}).values() if isinstance(v, str)]
        return [] if value in allowed else [f"{path}: {value!r} is not one of {sorted(set(allowed))}"]
    if entry is not None:
        return _check_class(schema, name, value, path)
    return []  # a type defined outside llm_args.py (or object): see opaque_fields


def opaque_fields(schema: Schema | None = None) -> list[str]:
    """``Class.field`` whose type the schema cannot check (defined outside ``llm_args.py``)."""
    schema = schema or load_schema()
    known = set(schema.classes) | set(schema.aliases) | _ANY | _INTS | _FLOATS | {"bool", "str", "Path", "None"}
    typing_heads = {"Optional", "Union", "List", "list", "Dict", "dict", "Literal", "Set", "Tuple", "Annotated"}
    out = []
    for cls, entry in schema.classes.items():
        for field, info in entry.get("fields", {}).items():
            names = {n.id for n in ast.walk(_parse(info["type"])) if isinstance(n, ast.Name)}
            if names - known - typing_heads:
                out.append(f"{cls}.{field}")
    return out
