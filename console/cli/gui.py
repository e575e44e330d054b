"""``inference-console gui`` and the default action with no command.

The desktop console needs a display; on a server (no DISPLAY/WAYLAND_DISPLAY) the default action
falls back to a terminal chat on the default model, so the README's first command is useful on
any machine.
"""

from __future__ import annotations

import argparse
import os
import sys


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("gui", help="open the desktop console")
    p.set_defaults(func=cmd_gui)


def have_display() -> bool:
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
                or os.environ.get("QT_QPA_PLATFORM") in ("offscreen", "minimal", "vnc"))


def cmd_gui(args: argparse.Namespace) -> int:
    try:
        from console.ui.app import run
    except ImportError as exc:
        print(f"error: the desktop console is not available ({exc})", file=sys.stderr)
        return 2
    return run(sys.argv[:1])


def run_default(args: argparse.Namespace) -> int:
    if have_display():
        return cmd_gui(args)
    print("No display found: starting a terminal chat on the default model instead of the window.",
          file=sys.stderr)
    from console.cli.chat import cmd_chat
    from console.cli.main import build_parser

    chat_args = build_parser().parse_args(["chat"])
    chat_args.verbose = args.verbose
    return cmd_chat(chat_args)
