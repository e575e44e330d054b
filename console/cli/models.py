"""``inference-console models list|import|remove|info``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from console.cli.common import CliError, ProgressPrinter, human_bytes, human_count, print_json, print_table
from console.jobs import TaskState
from console.models.adapters import import_adapter, list_adapters, remove_adapter
from console.models.importers import import_gguf, import_hf_folder
from console.models.lora import is_adapter_folder
from console.models.store import ModelStore
from console.cli.models_pull import register_pull
from console.cli.models_search import register_search
from console.config import EngineConfig
from console.engine.in_process import dtype_note, resolve_device


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("models", help="list, import, inspect and remove local models")
    msub = p.add_subparsers(dest="models_command", metavar="ACTION", required=True)

    ls = msub.add_parser("list", help="list the models in the store")
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(func=cmd_list)

    imp = msub.add_parser(
        "import", help="import a .gguf file, a Hugging Face checkpoint folder or a PEFT LoRA adapter folder"
    )
    imp.add_argument(
        "source",
        help="a .gguf file, a folder with config.json + safetensors, or an adapter "
        "folder (adapter_config.json + adapter_model.safetensors)",
    )
    imp.add_argument(
        "--base",
        metavar="MODEL",
        help="for an adapter: the store model it adapts (default: the one it records, matched exactly; "
        "naming another binds it there, with a warning)",
    )
    imp.add_argument("--name", help="name in the store (default: derived from the source)")
    imp.add_argument(
        "--reference", action="store_true", help="register a folder where it is instead of copying it into the store"
    )
    imp.add_argument(
        "--trust-remote-code",
        action="store_true",
        help="allow this model's own Python code to run (only for sources you trust)",
    )
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

    register_pull(msub)
    register_search(msub)


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
    rows = [
        [
            e.name,
            e.architecture,
            human_count(e.params),
            e.quantization or e.dtype,
            human_bytes(e.size_bytes),
            str(e.max_context or "?"),
            "yes" if e.available else "MISSING",
        ]
        for e in entries
    ]
    print_table(rows, ["NAME", "ARCHITECTURE", "PARAMS", "WEIGHTS", "SIZE", "CONTEXT", "FILES"])
    adapters = list_adapters(ModelStore())
    if adapters:
        print("\nLoRA adapters (use with --adapter NAME):")
        print_table(
            [
                [
                    a.name,
                    a.base + (" (--base, not its recorded base)" if a.base_warning else ""),
                    str(a.rank),
                    ",".join(a.target_modules),
                    human_bytes(a.size_bytes),
                    "yes" if a.available else "MISSING",
                ]
                for a in adapters
            ],
            ["NAME", "BASE", "RANK", "TARGETS", "SIZE", "FILES"],
        )
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    src = Path(args.source).expanduser()
    if not src.exists():
        raise CliError(f"{src} does not exist")
    store = ModelStore()
    name = args.name or default_name(src)
    task = TaskState(ProgressPrinter())
    if is_adapter_folder(src):
        adapter = import_adapter(store, src, name, base=args.base, copy=not args.reference)
        if adapter.base_warning:
            print(f"warning: {adapter.base_warning}", file=sys.stderr)
        return _imported(
            args.json,
            adapter.to_dict(),
            f"imported adapter '{adapter.name}' for '{adapter.base}': "
            f"rank {adapter.rank}, {', '.join(adapter.target_modules)}, "
            f"{human_bytes(adapter.size_bytes)} at {adapter.path}",
        )
    if src.is_file():
        if args.reference:
            raise CliError("--reference applies to folders; a GGUF file is always converted into the store")
        entry = import_gguf(store, src, name, task)
    else:
        entry = import_hf_folder(store, src, name, task, copy=not args.reference)
    if args.trust_remote_code:
        entry = store.update(entry.name, trust_remote_code=True)
        print("warning: trust_remote_code is ON for this model: its repository's Python code will run")
    return _imported(
        args.json,
        entry.to_dict(),
        f"imported '{entry.name}': {entry.architecture}, "
        f"{human_count(entry.params)} parameters, {human_bytes(entry.size_bytes)} at {entry.path}",
    )


def _imported(as_json: bool, record: dict[str, object], line: str) -> int:
    if as_json:
        print_json(record)
    else:
        print(line)
    return 0


def cmd_remove(args: argparse.Namespace) -> int:
    store = ModelStore()
    if args.name not in store and args.name in {a.name for a in list_adapters(store)}:
        adapter = remove_adapter(store, args.name)
        print(f"removed adapter '{adapter.name}'" + ("" if adapter.managed else " (files kept)"))
        return 0
    entry = store.remove(args.name, delete_files=not args.keep_files)
    kept = " (files kept)" if args.keep_files or not entry.managed else ""
    print(f"removed '{entry.name}'{kept}")
    return 0


def cmd_info(args: argparse.Namespace) -> int:
    entry = ModelStore().get(args.name)
    d = entry.to_dict()
    if args.json:
        print_json(d)
        return 0
    for k in (
        "name",
        "path",
        "architecture",
        "params",
        "dtype",
        "quantization",
        "size_bytes",
        "max_context",
        "source",
        "managed",
        "added_at",
        "trust_remote_code",
        "available",
        "lineage",
    ):
        print(f"{k:18} {d[k]}")

    device = resolve_device(EngineConfig(model=entry.path))
    print(f"{'dtype (' + device + ')':18} {dtype_note(EngineConfig(model=entry.path), device)}")
    return 0
