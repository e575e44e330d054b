"""The model store: a folder of checkpoints plus ``registry.json`` describing each.

Models either live inside the store (imported by copy, converted from GGUF, quantized,
downloaded) or are registered *by reference* to a folder elsewhere. Anything that creates a model
writes it into a private staging folder first and only then renames it into place and registers
it, so the registry never lists a half-written model, whatever happens mid-way (error, cancel,
kill -9). Stale staging folders of dead processes are swept on open.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import fcntl
import json
import os
import re
import shutil
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Iterator

from console.atomic import atomic_write_json, pid_alive, sweep_stale_tmp
from console.models.inspect import CheckpointInfo, ModelFormatError, inspect_checkpoint
from console.paths import store_root
from console.planner.shapes import ModelShape, ShapeError
from console.planner.shape_lookup import shape_for, shape_from_folder
from console.models.support import check_supported

REGISTRY_VERSION = 1
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


class StoreError(Exception):
    """A store operation that cannot be done; the message is meant for the user."""


@dataclass
class ModelEntry:
    name: str
    path: str
    architecture: str
    params: int
    dtype: str
    quantization: str | None
    size_bytes: int
    max_context: int | None
    source: str
    managed: bool = True
    added_at: str = ""
    lineage: dict[str, Any] | None = None
    trust_remote_code: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def available(self) -> bool:
        return (Path(self.path) / "config.json").is_file()

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["available"] = self.available
        return d

    def check_available(self) -> None:
        """Raise FileNotFoundError, with what to do, when the model's files are gone."""
        if not self.available:
            raise FileNotFoundError(
                f"The files of model '{self.name}' are gone ({self.path}); "
                f"re-import it or `inference-console models remove {self.name}`"
            )

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "ModelEntry":
        known = {k: v for k, v in d.items() if k in cls.__dataclass_fields__}
        return cls(**known)

    @classmethod
    def from_checkpoint(
        cls,
        name: str,
        folder: Path,
        info: CheckpointInfo,
        *,
        source: str,
        managed: bool,
        lineage: dict[str, Any] | None = None,
    ) -> "ModelEntry":
        return cls(
            name=name,
            path=str(folder),
            architecture=info.architecture,
            params=info.params,
            dtype=info.dtype,
            quantization=info.quantization,
            size_bytes=info.size_bytes,
            max_context=info.max_context,
            source=source,
            managed=managed,
            added_at=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            lineage=lineage,
        )


def suggest_name(text: str) -> str:
    """A usable store name made from ``text`` (a file or repository name): runs of other
    characters become '-', at most 64 characters."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-._")[:64] or "model"


def validate_name(name: str) -> str:
    if not _NAME_RE.match(name or ""):
        raise StoreError(
            f"'{name}' is not a usable model name: use letters, digits, '.', '_' or '-' "
            "(at most 64 characters, starting with a letter or digit)"
        )
    return name


class ModelStore:
    def __init__(self, root: Path | None = None) -> None:
        self.root = Path(root) if root is not None else store_root()
        self.root.mkdir(parents=True, exist_ok=True)
        self._registry_path = self.root / "registry.json"
        self._staging = self.root / ".staging"
        self._sweep_staging()
        sweep_stale_tmp(self.root)  # a registry write killed mid-way

    # -- registry ---------------------------------------------------------------------------
    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        with open(self.root / ".lock", "a+") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _read(self) -> dict[str, ModelEntry]:
        if not self._registry_path.exists():
            return {}
        try:
            data = json.loads(self._registry_path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise StoreError(
                f"The model registry {self._registry_path} is unreadable ({exc}); "
                "move it aside and re-import your models"
            ) from exc
        return {d["name"]: ModelEntry.from_dict(d) for d in data.get("models", [])}

    def _write(self, entries: dict[str, ModelEntry]) -> None:
        models = [asdict(e) for e in sorted(entries.values(), key=lambda e: e.name)]
        atomic_write_json(self._registry_path, {"version": REGISTRY_VERSION, "models": models})

    def list(self) -> list[ModelEntry]:
        return sorted(self._read().values(), key=lambda e: e.name)

    def get(self, name: str) -> ModelEntry:
        entries = self._read()
        if name not in entries:
            known = ", ".join(sorted(entries)) or "none"
            raise StoreError(f"No model named '{name}' in the store (known: {known})")
        return entries[name]

    def __contains__(self, name: str) -> bool:
        return name in self._read()

    def register(self, entry: ModelEntry, *, replace: bool = False) -> ModelEntry:
        validate_name(entry.name)
        with self._locked():
            entries = self._read()
            if entry.name in entries and not replace:
                raise StoreError(f"A model named '{entry.name}' already exists; remove it or pick another name")
            entries[entry.name] = entry
            self._write(entries)
        return entry

    def update(self, name: str, **changes: Any) -> ModelEntry:
        with self._locked():
            entries = self._read()
            if name not in entries:
                raise StoreError(f"No model named '{name}' in the store")
            entry = entries[name]
            for k, v in changes.items():
                if k not in {f.name for f in fields(ModelEntry)}:
                    raise StoreError(f"Unknown model field '{k}'")
                setattr(entry, k, v)
            self._write(entries)
        return entry

    def remove(self, name: str, *, delete_files: bool = True) -> ModelEntry:
        with self._locked():
            entries = self._read()
            if name not in entries:
                raise StoreError(f"No model named '{name}' in the store")
            entry = entries.pop(name)
            self._write(entries)
        if delete_files and entry.managed:
            target = Path(entry.path)
            if target.is_dir() and self.root in target.parents:
                # Rename first so a crash mid-delete leaves a swept-later folder, not a half model.
                trash = self._staging / f"removed-{os.getpid()}-{name}"
                self._staging.mkdir(exist_ok=True)
                os.replace(target, trash)
                shutil.rmtree(trash, ignore_errors=True)
        return entry

    # -- staging: how every new model gets into the store ----------------------------------------
    def _sweep_staging(self) -> None:
        if not self._staging.is_dir():
            return
        for d in self._staging.iterdir():
            m = re.match(r"^[a-z]+-(\d+)-", d.name)
            if m and pid_alive(int(m.group(1))) and int(m.group(1)) != os.getpid():
                continue  # another live process is writing it
            shutil.rmtree(d, ignore_errors=True)

    def model_dir(self, name: str) -> Path:
        return self.root / validate_name(name)

    @contextlib.contextmanager
    def staging(self, name: str) -> Iterator[Path]:
        """Yield an empty folder to write a new model into; on clean exit it is moved to
        ``<store>/<name>``. On any exception (cancel included) it is deleted."""
        validate_name(name)
        if name in self:
            raise StoreError(f"A model named '{name}' already exists; remove it or pick another name")
        final = self.model_dir(name)
        if final.exists():
            raise StoreError(f"{final} already exists but is not registered; remove that folder first")
        self._staging.mkdir(parents=True, exist_ok=True)
        tmp = self._staging / f"new-{os.getpid()}-{name}"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        try:
            yield tmp
            os.replace(tmp, final)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise

    def add_staged(
        self, name: str, folder_writer: Any, *, source: str, lineage: dict[str, Any] | None = None
    ) -> ModelEntry:
        """Run ``folder_writer(tmp_dir)``, check the result is a loadable checkpoint, then
        move it into the store and register it — all or nothing."""
        with self.staging(name) as tmp:
            folder_writer(tmp)
            info = inspect_checkpoint(tmp)

            check_supported(info)  # a converted or downloaded model this vLLM cannot run stays out
        final = self.model_dir(name)
        try:
            entry = ModelEntry.from_checkpoint(name, final, info, source=source, managed=True, lineage=lineage)
            return self.register(entry)
        except BaseException:
            shutil.rmtree(final, ignore_errors=True)
            raise

    def add_reference(self, name: str, folder: Path, *, source: str | None = None) -> ModelEntry:
        folder = Path(folder).resolve()
        info = inspect_checkpoint(folder)
        entry = ModelEntry.from_checkpoint(name, folder, info, source=source or f"reference to {folder}", managed=False)
        return self.register(entry)


def shape_of(model: Any) -> ModelShape:
    """:func:`~console.planner.shape_lookup.shape_for`, and else the model of the store named ``model``."""
    try:
        return shape_for(model)
    except ShapeError as exc:
        try:
            entry = ModelStore().get(str(model))
        except Exception:
            raise exc from None
        return shape_from_folder(Path(entry.path), entry.name)


__all__ = ["ModelEntry", "ModelFormatError", "ModelStore", "StoreError", "shape_of", "validate_name"]
