"""What ``bench`` and its comparison modes (``--speculation-speedup``, ``--switch-to``) share: the
engine config of a model with the command's preset and knobs, and where the report goes. Below
``console/cli/bench.py``, which dispatches to the modes, so the modes need not import it back."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from console.cli.engine_flags import engine_overrides
from console.cli.common import print_json
from console.config import EngineConfig
from console.atomic import atomic_write_json
from console.launch import engine_config_for, resolve_preset
from console.models.store import ModelStore, StoreError


def config_for(name: str, preset: str, args: argparse.Namespace) -> EngineConfig:
    """The store's model ``name`` (or a checkpoint folder) with ``preset`` and the command's knobs."""

    try:
        return engine_config_for(ModelStore(), name, preset, **engine_overrides(args))
    except StoreError:
        if not (Path(name) / "config.json").is_file():
            raise
        return resolve_preset(preset).apply(str(Path(name).resolve()), **engine_overrides(args))


def write_report(report: dict[str, Any], args: argparse.Namespace) -> None:
    """The report as JSON: on stdout with --json, into the --report file."""
    if args.report:
        atomic_write_json(Path(args.report), report)
        print(f"report -> {args.report}", file=sys.stderr)
    if args.json:
        print_json(report)
