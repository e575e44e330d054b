"""``inference-console gate --model NAME (--against QUANTIZED | --preset FP8-PRESET)``.

The quality gate on its own: measures the original and the quantized model one after the other in
the engine this machine runs (on a GPU: the CUDA kernels vLLM picks for the checkpoint or preset,
named in the verdict; on the CPU the verdict says so), then prints perplexity, task accuracy on
the shipped evaluation set, size, speed and every question that went from right to wrong.
Exit status 1 when the gate rejects.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from console.cli.common import CliError, print_json, print_table, quiet_engine_logs
from console.models.store import ModelStore
from console.quant.evalset import EvalSetError, load_eval_set
from console.quant.job import QuantizeError
from console.quant.pipeline import run_gate


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "gate",
        help="judge a quantized model (or an FP8 preset) against its original: "
        "perplexity, task accuracy, every answer that changed",
    )
    p.add_argument("--model", required=True, help="the original model in the store")
    p.add_argument("--against", help="the quantized model in the store (e.g. smollm2-awq-w4)")
    p.add_argument(
        "--preset",
        help="with --against: run both under this preset; without it: the "
        "on-the-fly FP8 preset to gate (e.g. 4090-fp8-kv8; needs a GPU)",
    )
    p.add_argument(
        "--method", choices=["awq", "fp8"], help="whose limits apply (default: fp8 for a preset, awq for a model)"
    )
    p.add_argument("--eval", type=Path, help="evaluation set (JSONL; default: the shipped quick-v2)")
    p.add_argument("--json", action="store_true", help="print the full result as JSON")
    p.set_defaults(func=cmd_gate)


def report(result: Any, left: str, right: str, as_json: bool, extra: dict[str, Any] | None = None) -> int:
    """Print a gate result (shared with ``quantize``); the exit status follows the verdict."""
    if as_json:
        print_json({**(extra or {}), **result.to_dict()})
    else:
        print_table([list(r) for r in result.table()], ["", left, right])
        if result.regressions:
            print(f"\nRight -> wrong ({len(result.regressions)}):")
            for f in result.regressions:
                print(f"  {f.line()}")
        if result.fixes:
            print(f"\nWrong -> right ({len(result.fixes)}):")
            for f in result.fixes:
                print(f"  {f.line()}")
        print(result.message)
    return 0 if result.passed else 1


def cmd_gate(args: argparse.Namespace) -> int:
    if not args.against and not args.preset:
        raise CliError("give --against QUANTIZED_MODEL or --preset FP8_PRESET")
    quiet_engine_logs(getattr(args, "verbose", False))
    method = args.method or ("awq" if args.against else "fp8")
    try:
        evalset = load_eval_set(args.eval) if args.eval else None
        result = run_gate(
            ModelStore(),
            args.model,
            args.against,
            method,
            preset=args.preset,
            evalset=evalset,
            on_stage=lambda s: print(f"gate: {s}", file=sys.stderr),
        )
    except (QuantizeError, EvalSetError) as exc:
        raise CliError(str(exc)) from exc
    right = args.against or f"{args.model} + {args.preset}"
    return report(result, args.model, right, args.json)
