"""LoRA adapters in the model store: ``<store>/adapters.json`` and ``<store>/adapters/<name>``.

An adapter is registered against one base model of the store. The import checks the folder
(:func:`console.models.lora.inspect_adapter`) and its shapes against that base
(:func:`console.models.lora.check_base`) before anything is copied, so a corrupt adapter or one
trained on another model never enters the store. Copies go through the store's staging area
(all or nothing); ``copy=False`` registers the folder where it is.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from console.atomic import atomic_write_json
from console.models.lora import AdapterError, AdapterInfo, check_base, inspect_adapter
from console.models.store import ModelEntry, ModelStore, StoreError, validate_name


@dataclass
class AdapterEntry:
    name: str
    path: str
    base: str  # the store model it adapts
    rank: int
    alpha: float
    target_modules: list[str]
    size_bytes: int
    trained_on: str = ""  # base_model_name_or_path as the adapter records it
    source: str = ""
    managed: bool = True
    added_at: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def available(self) -> bool:
        return (Path(self.path) / "adapter_config.json").is_file()

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "available": self.available}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "AdapterEntry":
        return cls(**{k: v for k, v in d.items() if k in cls.__dataclass_fields__})


def _registry(store: ModelStore) -> Path:
    return store.root / "adapters.json"


def _read(store: ModelStore) -> dict[str, AdapterEntry]:
    path = _registry(store)
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise StoreError(f"The adapter registry {path} is unreadable ({exc}); move it aside and re-import") from exc
    return {d["name"]: AdapterEntry.from_dict(d) for d in data.get("adapters", [])}


def _write(store: ModelStore, entries: dict[str, AdapterEntry]) -> None:
    rows = [asdict(e) for e in sorted(entries.values(), key=lambda e: e.name)]
    atomic_write_json(_registry(store), {"version": 1, "adapters": rows})


def list_adapters(store: ModelStore, base: str | None = None) -> list[AdapterEntry]:
    """The store's adapters, those of ``base`` only when given."""
    return [e for e in sorted(_read(store).values(), key=lambda e: e.name) if base is None or e.base == base]


def get_adapter(store: ModelStore, name: str) -> AdapterEntry:
    entries = _read(store)
    if name not in entries:
        raise StoreError(f"No adapter named '{name}' in the store (known: {', '.join(sorted(entries)) or 'none'})")
    return entries[name]


def resolve_base(store: ModelStore, info: AdapterInfo) -> ModelEntry:
    """The store model an adapter names as its base (same folder, same name, or same source)."""
    recorded = info.base_model
    if recorded:
        tail = recorded.rstrip("/").rsplit("/", 1)[-1]
        for entry in store.list():
            same_path = Path(recorded).is_dir() and Path(entry.path).resolve() == Path(recorded).resolve()
            if same_path or entry.name in (recorded, tail) or recorded in entry.source:
                return entry
    known = ", ".join(e.name for e in store.list()) or "none"
    raise AdapterError(f"The adapter was trained on '{recorded or 'an unrecorded model'}', which is not in the "
                       f"store: say which store model it adapts with --base NAME (models: {known})")


def import_adapter(store: ModelStore, src: Path, name: str, *, base: str | None = None, copy: bool = True,
                   source: str | None = None) -> AdapterEntry:
    """Check ``src`` (a PEFT LoRA folder) against its base model, then register it."""
    validate_name(name)
    src = Path(src).resolve()
    info = inspect_adapter(src)
    base_entry = store.get(base) if base else resolve_base(store, info)
    base_entry.check_available()
    check_base(info, Path(base_entry.path), base_entry.name)
    if name in store or name in _read(store):
        raise StoreError(f"A model or adapter named '{name}' already exists; remove it or pick another name")
    final = store.root / "adapters" / name
    if copy:
        if final.exists():
            raise StoreError(f"{final} already exists but is not registered; remove that folder first")
        staging = store.root / ".staging" / f"new-{os.getpid()}-adapter-{name}"
        shutil.rmtree(staging, ignore_errors=True)
        staging.parent.mkdir(parents=True, exist_ok=True)
        try:
            shutil.copytree(src, staging, ignore=shutil.ignore_patterns(".cache", "checkpoint-*"))
            final.parent.mkdir(parents=True, exist_ok=True)
            os.replace(staging, final)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    entry = AdapterEntry(
        name=name, path=str(final if copy else src), base=base_entry.name, rank=info.rank, alpha=info.alpha,
        target_modules=list(info.target_modules), size_bytes=info.size_bytes, trained_on=info.base_model,
        source=source or f"folder {src}", managed=copy,
        added_at=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"))
    with store._locked():
        entries = _read(store)
        if name in entries:
            if copy:
                shutil.rmtree(final, ignore_errors=True)
            raise StoreError(f"An adapter named '{name}' already exists; remove it or pick another name")
        entries[name] = entry
        _write(store, entries)
    return entry


def lora_modules_for(store: ModelStore, base: str, names: list[str]) -> dict[str, str]:
    """``lora_modules`` (name -> folder) for store adapters ``names`` of the store model ``base``."""
    modules: dict[str, str] = {}
    for name in names:
        entry = get_adapter(store, name)
        if entry.base != base:
            raise AdapterError(f"The adapter '{name}' adapts '{entry.base}', not '{base}'")
        if not entry.available:
            raise AdapterError(f"The files of adapter '{name}' are gone ({entry.path}); import it again")
        modules[name] = entry.path
    return modules


def remove_adapter(store: ModelStore, name: str) -> AdapterEntry:
    with store._locked():
        entries = _read(store)
        if name not in entries:
            raise StoreError(f"No adapter named '{name}' in the store")
        entry = entries.pop(name)
        _write(store, entries)
    target = Path(entry.path)
    if entry.managed and target.is_dir() and store.root in target.parents:
        shutil.rmtree(target, ignore_errors=True)
    return entry


__all__ = ["AdapterEntry", "get_adapter", "lora_modules_for", "import_adapter", "list_adapters", "remove_adapter",
           "resolve_base"]
