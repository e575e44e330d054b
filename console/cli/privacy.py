"""``inference-console privacy [on|off]``: whether libraries may send usage statistics.

Off by default (:mod:`console.privacy`); the choice is saved in settings.json and shown by
``--version`` and the window's About box.
"""

from __future__ import annotations

import argparse

from console import privacy


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "privacy", help="show or set whether vLLM / Hugging Face may send usage statistics (off by default)"
    )
    p.add_argument(
        "choice",
        nargs="?",
        choices=["on", "off"],
        help="on: let the libraries send their usage statistics; off: nothing is sent",
    )
    p.set_defaults(func=cmd_privacy)


def cmd_privacy(args: argparse.Namespace) -> int:
    if args.choice is not None:
        privacy.save_choice(args.choice == "on")
    print(f"usage statistics: {privacy.status_line()}")
    if args.choice is not None:
        print("(applies to engines and servers started from now on)")
    return 0
