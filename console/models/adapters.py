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
import re
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

    @property
    def base_warning(self) -> str | None:
        """Set when the user bound it to a base other than the one it records (--base)."""
        return self.extra.get("base_warning")

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


#: "Hugging Face org/name@commit" / "ModelScope org/name@commit": what a download records as its source.
_DOWNLOAD_RE = re.compile(r"^(?:Hugging Face|ModelScope) (\S+?)@([0-9a-fA-F]+)")


def base_matches(entry: ModelEntry, recorded: str, revision: str = "") -> bool:
    """Whether store model ``entry`` is exactly the base an adapter records (``base_model_name_or_path``
    and ``revision``): the same folder, or the same repository (a download's own record, else the
    store name as the repository's name), and the same commit where both are known. Never by
    substring: an adapter of ``Llama-3.1-8B`` is not one of ``Llama-3.1-8B-Instruct``."""
    recorded = recorded.strip().rstrip("/")
    if not recorded:
        return False
    if Path(recorded).is_dir():
        return Path(entry.path).resolve() == Path(recorded).resolve()
    lineage = entry.lineage or {}
    found = _DOWNLOAD_RE.match(entry.source or "")
    repo = str(lineage.get("repo") or (found.group(1) if found else ""))
    commit = str(lineage.get("commit") or (found.group(2) if found else ""))
    if repo:
        same = recorded == repo or ("/" not in recorded and recorded == repo.rsplit("/", 1)[-1])
    else:
        same = recorded in (entry.name, entry.path) or recorded.rsplit("/", 1)[-1] == entry.name
    if same and revision and commit and re.fullmatch(r"[0-9a-fA-F]{7,40}", revision):
        same = commit.lower().startswith(revision.lower()) or revision.lower().startswith(commit.lower())
    return same


def resolve_base(store: ModelStore, info: AdapterInfo) -> ModelEntry:
    """The store model an adapter records as its base, matched exactly (:func:`base_matches`)."""
    recorded = info.base_model
    matches = [e for e in store.list() if base_matches(e, recorded, info.base_revision)] if recorded else []
    if len(matches) == 1:
        return matches[0]
    known = ", ".join(e.name for e in store.list()) or "none"
    if matches:
        raise AdapterError(
            f"The adapter was trained on '{recorded}', which several store models are "
            f"({', '.join(e.name for e in matches)}): say which with --base NAME"
        )
    raise AdapterError(
        f"The adapter was trained on '{recorded or 'an unrecorded model'}', which is not in the "
        f"store: say which store model it adapts with --base NAME (models: {known})"
    )


def base_override_warning(info: AdapterInfo, entry: ModelEntry) -> str | None:
    """The warning when the user binds an adapter to a store model that is not the base it records
    (``--base NAME``); ``None`` when it is, or the adapter records none."""
    if not info.base_model or base_matches(entry, info.base_model, info.base_revision):
        return None
    at = f"@{info.base_revision}" if info.base_revision else ""
    return (
        f"the adapter records '{info.base_model}{at}' as its base, not '{entry.name}': bound to it as --base "
        f"says. The shapes fit, but a LoRA trained on other weights (an Instruct model for a base one, "
        f"another revision) can answer worse or wrongly"
    )


def import_adapter(
    store: ModelStore, src: Path, name: str, *, base: str | None = None, copy: bool = True, source: str | None = None
) -> AdapterEntry:
    """Check ``src`` (a PEFT LoRA folder) against its base model, then register it."""
    validate_name(name)
    src = Path(src).resolve()
    info = inspect_adapter(src)
    base_entry = store.get(base) if base else resolve_base(store, info)
    base_entry.check_available()
    check_base(info, Path(base_entry.path), base_entry.name)
    warning = base_override_warning(info, base_entry)
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
        name=name,
        path=str(final if copy else src),
        base=base_entry.name,
        rank=info.rank,
        alpha=info.alpha,
        target_modules=list(info.target_modules),
        size_bytes=info.size_bytes,
        trained_on=info.base_model,
        source=source or f"folder {src}",
        managed=copy,
        added_at=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        extra={"base_warning": warning} if warning else {},
    )
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


__all__ = [
    "AdapterEntry",
    "base_matches",
    "base_override_warning",
    "get_adapter",
    "import_adapter",
    "list_adapters",
    "lora_modules_for",
    "remove_adapter",
    "resolve_base",
]
