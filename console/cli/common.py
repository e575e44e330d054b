"""Helpers shared by the CLI subcommands: output, errors, progress and the engine lifecycle."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from console.cli.progress import ProgressPrinter
from console.units import human_bytes, human_count

__all__ = [
    "CliError",
    "ProgressPrinter",
    "human_bytes",
    "human_count",
    "print_json",
    "print_table",
    "quiet_engine_logs",
]


class CliError(Exception):
    """A user-facing error: printed as one message, exit code 2, no traceback."""


def print_json(obj: Any) -> None:
    json.dump(obj, sys.stdout, indent=2, ensure_ascii=False, default=str)
    sys.stdout.write("\n")


def print_table(rows: list[list[str]], headers: list[str]) -> None:
    widths = [max(len(str(x)) for x in col) for col in zip(headers, *rows)]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths))
    print(line)
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print("  ".join(str(x).ljust(w) for x, w in zip(r, widths)))


def quiet_engine_logs(verbose: bool) -> None:
    """vLLM logs a lot at INFO; keep stdout/stderr readable unless --verbose."""
    if not verbose:
        # ERROR, not WARNING: the CPU engine warns once per weight when it casts bf16 to fp16.
        os.environ.setdefault("VLLM_LOGGING_LEVEL", "ERROR")
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
        os.environ.setdefault("TQDM_DISABLE", "1")
