"""Finding a model's shape by name or place: the built-in table's loose name lookup (a published
repository's name with its quantization and version suffixes), a ``config.json`` folder, a store
entry. The shapes themselves and the table are in :mod:`console.planner.shapes`."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from console.planner.shapes import KNOWN_SHAPES, ModelShape, ShapeError


def _norm(name: str) -> str:
    return re.sub(r"[^a-z0-9.]", "", name.lower())


_SUFFIXES = ("awq", "gptq", "fp8", "int4", "instruct", "chat", "it")
#: What a published repository's name adds to the model's (the picker's loose lookup strips it): a
#: "Meta-" prefix; -GGUF, GGUF quant types (-Q4_K_M, -IQ3_XS, -F16...), -4bit, -Int4, -W4A16,
#: -dynamic, -AWQ/-GPTQ/-FP8, -Instruct/-it/-chat, versions (-v0.3) and dates (-2501).
_NAME_NOISE = re.compile(
    r"(?i)^(meta-)|(-gguf|-(q\d|iq\d|f16|bf16|fp16)[a-z0-9_]*|-\d+bit|-int\d|-w\d+a\d+|-dynamic|-awq|-gptq|-fp8"
    r"|-instruct|-it|-chat|-v\d[\d.]*|-\d{4})+$"
)


def _table_shape(name: str) -> ModelShape | None:
    key = _norm(name.rsplit("/", 1)[-1])
    table = {_norm(n): s for n, s in KNOWN_SHAPES.items()}
    while key not in table:
        stripped = next((key[: -len(x)] for x in _SUFFIXES if key.endswith(x)), key)
        if stripped == key:
            return None
        key = stripped
    return table[key]


def known_shape(*names: str, loose: bool = False) -> ModelShape | None:
    """The table's shape the first of ``names`` stands for: case, dashes, an org prefix and
    -Instruct/-Chat/-AWQ/-GPTQ/-FP8/-Int4 suffixes ignored. ``loose`` (the model picker's
    repository and GGUF names) also ignores what :data:`_NAME_NOISE` lists ("Meta-", -GGUF and
    quant-type suffixes, versions, dates); None if no name stands for a known shape."""
    for name in names:
        base = name.rstrip("/").split("/")[-1] if loose else name
        for candidate in (base, _NAME_NOISE.sub("", base)) if loose else (base,):
            shape = _table_shape(candidate)
            if shape is not None:
                return shape
    return None


def shape_by_config(model_type: str | None, params: int | None) -> ModelShape | None:
    """The known shape a fine-tune or merge has: one of the family its config's ``model_type``
    names (``qwen3``, ``llama``, ``gemma3_text``...) within 2% of ``params``; None if none."""
    if not model_type or not params:
        return None
    family = re.sub(r"[^a-z0-9]", "", str(model_type).lower().split("_")[0])
    near = [
        s
        for s in KNOWN_SHAPES.values()
        if re.sub(r"[^a-z0-9]", "", s.name.lower()).startswith(family) and abs(s.params - params) <= 0.02 * params
    ]
    return min(near, key=lambda s: abs(s.params - params)) if family and near else None


def shape_from_folder(folder: Path, name: str = "") -> ModelShape:
    cfg_path = Path(folder) / "config.json"
    if not cfg_path.is_file():
        raise ShapeError(f"{folder} has no config.json")
    try:
        config = json.loads(cfg_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ShapeError(f"{cfg_path} is unreadable ({exc})") from exc
    return ModelShape.from_hf_config(config, name or Path(folder).name)


@runtime_checkable
class StoredModel(Protocol):
    """A model in the store (:class:`~console.models.store.ModelEntry`): its name and folder."""

    @property
    def name(self) -> str: ...

    @property
    def path(self) -> str | Path: ...


def shape_for(model: Any) -> ModelShape:
    """A shape from a :class:`ModelShape`, a store entry (anything with ``.path``), a folder with
    config.json or a name in the built-in table (a model of the store by its name:
    :func:`console.models.store.shape_of`)."""
    if isinstance(model, ModelShape):
        return model
    if isinstance(model, StoredModel):
        return shape_from_folder(Path(model.path), model.name)
    text = str(model)
    if Path(text).expanduser().is_dir():
        return shape_from_folder(Path(text).expanduser())
    shape = known_shape(text)
    if shape is not None:
        return shape
    raise ShapeError(
        f"Unknown model '{text}': give a folder with config.json, a model in the store, "
        f"or one of: {', '.join(KNOWN_SHAPES)}"
    )
