"""``inference-console models list|import|remove|info``."""

from __future__ import annotations

import argparse
from pathlib import Path

from console.cli.common import CliError, ProgressPrinter, human_bytes, human_count, print_json, print_table
from console.jobs import TaskState
from console.models.importers import import_gguf, import_hf_folder
from console.models.store import ModelStore


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("models", help="list, import, inspect and remove local models")
    msub = p.add_subparsers(dest="models_command", metavar="ACTION", required=True)

    ls = msub.add_parser("list", help="list the models in the store")
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(func=cmd_list)

    imp = msub.add_parser("import", help="import a .gguf file or a Hugging Face checkpoint folder")
    imp.add_argument("source", help="a .gguf file or a folder with config.json + safetensors")
    imp.add_argument("--name", help="name in the store (default: derived from the source)")
    imp.add_argument("--reference", action="store_true",
                     help="register a folder where it is instead of copying it into the store")
    imp.add_argument("--trust-remote-code", action="store_true",
                     help="allow this model's own Python code to run (only for sources you trust)")
    imp.add_argument("--json", action="store_true")
    imp.set_defaults(func=cmd_import)

    rm = msub.add_parser("remove", help="remove a model (its files too, unless it was a reference)")
    rm.add_argument("name")
    rm.add_argument("--keep-files", action="store_true")
    rm.set_defaults(func=cmd_remove)

    info = msub.add_parser("info", help="details of one model")
    info.add_argument("name")
    info.add_argument("--json", action="store_true")
    info.set_defaults(func=cmd_info)

    from console.cli.models_pull import register_pull

    register_pull(msub)


def default_name(source: Path) -> str:
    stem = source.name[:-5] if source.name.endswith(".gguf") else source.name
    cleaned = "".join(c if c.isalnum() or c in "._-" else "-" for c in stem).strip("-.")
    return cleaned[:64] or "model"


def cmd_list(args: argparse.Namespace) -> int:
    entries = ModelStore().list()
    if args.json:
        print_json([e.to_dict() for e in entries])
        return 0
    if not entries:
        print("The store is empty. Import a model: inference-console models import FILE.gguf|FOLDER")
        return 0
    rows = [[e.name, e.architecture, human_count(e.params), e.quantization or e.dtype,
             human_bytes(e.size_bytes), str(e.max_context or "?"), "yes" if e.available else "MISSING"]
            for e in entries]
    print_table(rows, ["NAME", "ARCHITECTURE", "PARAMS", "WEIGHTS", "SIZE", "CONTEXT", "FILES"])
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    src = Path(args.source).expanduser()
    if not src.exists():
        raise CliError(f"{src} does not exist")
    store = ModelStore()
    name = args.name or default_name(src)
    task = TaskState(ProgressPrinter())
    if src.is_file():
        if args.reference:
            raise CliError("--reference applies to folders; a GGUF file is always converted into the store")
        entry = import_gguf(store, src, name, task)
    else:
        entry = import_hf_folder(store, src, name, task, copy=not args.reference)
    if args.trust_remote_code:
        entry = store.update(entry.name, trust_remote_code=True)
        print("warning: trust_remote_code is ON for this model: its repository's Python code will run")
    if args.json:
        print_json(entry.to_dict())
    else:
        print(f"imported '{entry.name}': {entry.architecture}, {human_count(entry.params)} parameters, "
              f"{human_bytes(entry.size_bytes)} at {entry.path}")
    return 0


def cmd_remove(args: argparse.Namespace) -> int:
    entry = ModelStore().remove(args.name, delete_files=not args.keep_files)
    kept = " (files kept)" if args.keep_files or not entry.managed else ""
    print(f"removed '{entry.name}'{kept}")
    return 0


def cmd_info(args: argparse.Namespace) -> int:
    entry = ModelStore().get(args.name)
    d = entry.to_dict()
    if args.json:
        print_json(d)
        return 0
    for k in ("name", "path", "architecture", "params", "dtype", "quantization", "size_bytes",
              "max_context", "source", "managed", "added_at", "trust_remote_code", "available", "lineage"):
        print(f"{k:18} {d[k]}")
    from console.config import EngineConfig
    from console.engine.host import dtype_note, resolve_device

    device = resolve_device(EngineConfig(model=entry.path))
    print(f"{'dtype (' + device + ')':18} {dtype_note(EngineConfig(model=entry.path), device)}")
    return 0
