"""``inference-console presets list|show|validate``: the shipped and user presets, and the
planner's "auto" preset for a model, a GPU and a goal."""

from __future__ import annotations

import argparse
from typing import Any

from console.cli.common import CliError, print_json, print_table, quiet_engine_logs
from console.models.store import shape_of
from console.planner import GOALS, GPU_PROFILES, auto_config
from console.presets import Preset, get_preset, load_presets
from console.planner.validate import EngineArgsError, validate_with_vllm


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("presets", help="list and show engine presets (and the planner's 'auto' preset)")
    psub = p.add_subparsers(dest="presets_command", metavar="ACTION", required=True)

    ls = psub.add_parser("list", help="all presets: shipped, then yours")
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(func=cmd_list)

    show = psub.add_parser("show", help="one preset's engine arguments ('auto' needs --model, --gpu, --goal)")
    show.add_argument("name")
    show.add_argument("--model", help="for 'auto': a known shape, a store model or a folder")
    show.add_argument("--gpu", default="rtx-4090", help=f"for 'auto': {', '.join(GPU_PROFILES)} (default rtx-4090)")
    show.add_argument("--goal", default="balanced", choices=GOALS, help="for 'auto' (default balanced)")
    show.add_argument("--json", action="store_true")
    show.set_defaults(func=cmd_show)

    val = psub.add_parser("validate", help="check presets with vLLM's own argument parser (needs vLLM)")
    val.add_argument("names", nargs="*", help="default: all")
    val.set_defaults(func=cmd_validate)


def _as_dict(preset: Preset) -> dict[str, Any]:
    return {
        "name": preset.name,
        "description": preset.description,
        "goal": preset.goal,
        "gpu": preset.gpu,
        "engine": preset.engine,
        "path": str(preset.path) if preset.path else None,
    }


def cmd_list(args: argparse.Namespace) -> int:
    presets = load_presets()
    if args.json:
        print_json([_as_dict(p) for p in presets.values()])
        return 0
    rows = [
        [
            p.name,
            p.goal,
            p.gpu,
            str(p.engine.get("quantization", "-")),
            str(p.engine.get("kv_cache_dtype", "auto")),
            str(p.engine.get("max_model_len", "model")),
            str(p.engine.get("max_num_seqs", "default")),
        ]
        for p in presets.values()
    ]
    rows.append(["auto", "(--goal)", "(--gpu)", "planner", "planner", "planner", "planner"])
    print_table(rows, ["NAME", "GOAL", "GPU", "QUANT", "KV", "CONTEXT", "SEQS"])
    return 0


def auto_preset(model: str | None, gpu: str, goal: str) -> Preset:
    if not model:
        raise CliError("the 'auto' preset needs --model (and --gpu, --goal): the planner picks the knobs for it")
    shape = shape_of(model)
    engine = auto_config(shape, gpu, goal)
    return Preset(
        name="auto",
        description=f"planner's choice for {shape.name} on {gpu}, goal {goal}",
        goal=goal,
        gpu=gpu,
        engine=engine,
    )


def cmd_show(args: argparse.Namespace) -> int:
    preset = auto_preset(args.model, args.gpu, args.goal) if args.name == "auto" else get_preset(args.name)
    if args.json:
        print_json(_as_dict(preset))
        return 0
    print(f"{preset.name}  (goal {preset.goal}, gpu {preset.gpu})")
    if preset.description:
        print(f"  {preset.description}")
    if preset.path:
        print(f"  file: {preset.path}")
    print()
    print_table([[k, str(v)] for k, v in preset.engine.items()], ["ENGINE ARGUMENT", "VALUE"])
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    quiet_engine_logs(getattr(args, "verbose", False))
    presets = load_presets()
    names = args.names or list(presets)
    failed = 0
    for name in names:
        preset = get_preset(name) if name not in presets else presets[name]
        try:
            validate_with_vllm(preset.engine, where=name)
            print(f"ok      {name}")
        except EngineArgsError as exc:
            failed += 1
            print(f"REFUSED {exc}")
    if failed:
        raise CliError(f"{failed} preset(s) refused by vLLM")
    return 0
