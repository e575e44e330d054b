"""``inference-console``: the GUI by default, subcommands for headless use.

Each subcommand lives in its own module in this package and exposes
``register(subparsers) -> None``; the parser it adds sets ``func(args) -> int``.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys

from console import __version__
from console.cli.common import CliError
from console.paths import HOME_ENV, STORE_ENV

#: Subcommand modules, in the order ``--help`` lists them.
COMMANDS = ["console.cli.models", "console.cli.chat", "console.cli.gui"]
OPTIONAL_COMMANDS = ["console.cli.plan", "console.cli.presets", "console.cli.batch",
                     "console.cli.export", "console.cli.bench", "console.cli.quantize",
                     "console.cli.gate", "console.cli.advise"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="inference-console",
        description="A tuned vLLM inference console. With no command, opens the desktop console "
                    "(or a terminal chat when there is no display).")
    parser.add_argument("--version", action="store_true", help="print versions and exit")
    parser.add_argument("--home", help=f"data folder (default ${HOME_ENV} or ~/.local/share/inference-console)")
    parser.add_argument("--store", help=f"model store folder (default ${STORE_ENV} or <home>/models)")
    parser.add_argument("-v", "--verbose", action="store_true", help="show the engine's own logs")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS + OPTIONAL_COMMANDS:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if name in OPTIONAL_COMMANDS and exc.name == name:
                continue
            raise
        module.register(sub)
    return parser


def version_report() -> dict[str, str]:
    """What a bug report needs first: console, Python, engine build, torch, CUDA, GPU and driver.
    Reads package metadata and NVML only (no torch or vLLM import: it stays fast)."""
    from importlib.metadata import PackageNotFoundError, version

    from console.engine.vllm_compat import vllm_distribution

    out = {"inference-console": __version__, "python": sys.version.split()[0]}
    dist = vllm_distribution()
    out["engine"] = f"{dist[0]} {dist[1]}" if dist else "not installed"
    try:
        torch_version = version("torch")
        out["torch"] = torch_version
        out["cuda"] = "none (CPU build)" if "+cpu" in torch_version else "see torch build"
    except PackageNotFoundError:
        out["torch"] = "not installed"
    try:
        import pynvml

        pynvml.nvmlInit()
        try:
            drv = pynvml.nvmlSystemGetDriverVersion()
            out["driver"] = drv.decode() if isinstance(drv, bytes) else str(drv)
            cuda = pynvml.nvmlSystemGetCudaDriverVersion()
            out["cuda"] = f"{cuda // 1000}.{cuda % 1000 // 10} (driver)"
            names = []
            for i in range(pynvml.nvmlDeviceGetCount()):
                n = pynvml.nvmlDeviceGetName(pynvml.nvmlDeviceGetHandleByIndex(i))
                names.append(n.decode() if isinstance(n, bytes) else str(n))
            out["gpus"] = ", ".join(names) or "none"
        finally:
            pynvml.nvmlShutdown()
    except Exception:
        out["gpus"] = "none visible to NVML"
    return out


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.home:
        os.environ[HOME_ENV] = os.path.abspath(args.home)
    if args.store:
        os.environ[STORE_ENV] = os.path.abspath(args.store)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    if args.version:
        for k, v in version_report().items():
            print(f"{k}: {v}")
        return 0
    if args.command is None:
        from console.cli.gui import run_default

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
        from console.engine.types import EngineError
        from console.models.inspect import ModelFormatError
        from console.models.store import StoreError
        from console.presets import PresetError

        if isinstance(exc, (EngineError, ModelFormatError, StoreError, PresetError, FileNotFoundError, ValueError)):
            print(f"error: {exc}", file=sys.stderr)
            return 2
        raise
