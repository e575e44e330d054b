"""``inference-console gui``: the desktop console (the only module of the CLI that reaches
``console.ui``). The default action with no command (the window when there is a display, else a
terminal chat) is ``console.cli.main.run_default``, beside the parser it reuses.
"""

from __future__ import annotations

import argparse
import os
import sys
from console.settings import load_settings
from console.launch import default_model_name


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("gui", help="open the desktop console")
    p.add_argument(
        "--load",
        metavar="MODEL",
        nargs="?",
        const="",
        default=None,
        help="load a model at start (without a name: the last used one, else the bundled smollm2)",
    )
    p.set_defaults(func=cmd_gui)


def have_display() -> bool:
    return bool(
        os.environ.get("DISPLAY")
        or os.environ.get("WAYLAND_DISPLAY")
        or os.environ.get("QT_QPA_PLATFORM") in ("offscreen", "minimal", "vnc")
    )


def startup_model(requested: str | None) -> str | None:
    """``None``: load nothing; ``""``: the last used model, else the bundled default."""
    if requested is None or requested:
        return requested

    return load_settings().last_model or default_model_name()


def cmd_gui(args: argparse.Namespace) -> int:
    try:
        # deferred: imports PySide6
        from console.ui.app import run
    except ImportError as exc:
        print(f"error: the desktop console is not available ({exc})", file=sys.stderr)
        return 2
    return run(sys.argv[:1], load_model=startup_model(getattr(args, "load", None)))
