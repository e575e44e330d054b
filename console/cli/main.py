"""``inference-console``: the GUI by default, subcommands for headless use.

Each subcommand lives in its own module in this package and exposes
``register(subparsers) -> None``; the parser it adds sets ``func(args) -> int``.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys

from console import privacy
from console.cli import (
    advise,
    batch,
    bench,
    chat,
    doctor,
    export,
    gate,
    gui,
    models,
    plan,
    presets,
    privacy as privacy_command,
    quantize,
)
from console.cli.common import CliError
from console.cli.flags import ConsoleArgumentParser
from console.paths import HOME_ENV, STORE_ENV
from console.versions import version_report
from console.engine.types import EngineError
from console.models.inspect import ModelFormatError
from console.models.store import StoreError
from console.presets import PresetError

#: Subcommand modules, in the order ``--help`` lists them.
COMMANDS = (models, chat, gui, plan, presets, batch, export, bench, quantize, gate, advise, doctor, privacy_command)


def build_parser() -> ConsoleArgumentParser:
    parser = ConsoleArgumentParser(  # one-line errors with "did you mean" (its subcommands too)
        prog="inference-console",
        description="A tuned vLLM inference console. With no command, opens the desktop console "
        "(or a terminal chat when there is no display).",
    )
    parser.add_argument("--version", action="store_true", help="print versions and exit")
    parser.add_argument("--home", help=f"data folder (default ${HOME_ENV} or ~/.local/share/inference-console)")
    parser.add_argument("--store", help=f"model store folder (default ${STORE_ENV} or <home>/models)")
    parser.add_argument("-v", "--verbose", action="store_true", help="show the engine's own logs")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in COMMANDS:
        module.register(sub)
    return parser


def run_default(args: argparse.Namespace) -> int:
    """No command: the window with the last (or bundled) model loading, else a terminal chat on the
    default model, so the README's first command is useful on a server too (no DISPLAY/WAYLAND_DISPLAY)."""
    if gui.have_display():
        args.load = ""
        return gui.cmd_gui(args)
    print("No display found: starting a terminal chat on the default model instead of the window.", file=sys.stderr)
    chat_args = build_parser().parse_args(["chat"])
    chat_args.verbose = args.verbose
    return chat.cmd_chat(chat_args)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    parser.argv = list(argv) if argv is not None else sys.argv[1:]  # for "did you mean" on a subcommand's flag
    args = parser.parse_args(argv)
    if args.home:
        os.environ[HOME_ENV] = os.path.abspath(args.home)
    if args.store:
        os.environ[STORE_ENV] = os.path.abspath(args.store)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s"
    )
    # Before any library is imported or child started: telemetry off unless the user opted in.
    privacy.apply_to_process()
    if args.version:
        for k, v in version_report().items():
            print(f"{k}: {v}")
        return 0
    if args.command is None:
        return run_default(args)
    try:
        return int(args.func(args) or 0)
    except CliError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # user-facing errors from the core carry readable messages
        if isinstance(exc, (EngineError, ModelFormatError, StoreError, PresetError, FileNotFoundError, ValueError)):
            print(f"error: {exc}", file=sys.stderr)
            return 2
        raise
