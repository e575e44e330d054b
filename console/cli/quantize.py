"""``inference-console quantize --model NAME --method awq [--calib FILE] [--out NAME]``.

Progress (per layer, with an ETA) and the job's log go to stderr; the comparison of the original
and the quantized model (perplexity, task accuracy, answers, size, memory, speed, every question
that went from right to wrong) to stdout. Exit status 1 when the quality gate rejects the result
(the new model is then removed unless ``--keep-rejected``).

``--method fp8`` runs no job (vLLM quantizes on load): it gates the model under an FP8 preset
(``--preset``, default 4090-fp8) against the same model in 16 bits, on the GPU; on a CPU machine
it says FP8 cannot be measured there.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from console.cli.common import CliError, ProgressPrinter, quiet_engine_logs
from console.jobs import TaskState
from console.models.store import ModelStore
from console.cli.gate import report
from console.quant.job import AwqParams, QuantizeError
from console.quant.pipeline import quantize_and_gate, run_gate


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("quantize", help="quantize a model (AWQ int4), check its quality and speed")
    p.add_argument("--model", required=True, help="the source model in the store")
    p.add_argument(
        "--method",
        default="awq",
        choices=["awq", "fp8"],
        help="awq: int4 weights with AutoAWQ; fp8: no job (vLLM quantizes on load), gate the "
        "model under an FP8 preset on the GPU",
    )
    p.add_argument("--preset", default="4090-fp8", help="with --method fp8: the FP8 preset to gate (default 4090-fp8)")
    p.add_argument(
        "--calib",
        type=Path,
        help="calibration text (paragraphs separated by blank lines; default: the built-in corpus)",
    )
    p.add_argument("--out", help="name of the new model (default: <model>-awq-w4)")
    p.add_argument("--group-size", type=int, help="AWQ group size (default 128, or 64 when the model's widths need it)")
    p.add_argument(
        "--calib-blocks",
        type=int,
        default=5,
        help="calibrate on this many blocks of 128 tokens spread over the text (default 5; "
        "more: better scales, proportionally slower)",
    )
    p.add_argument("--no-zero-point", action="store_true", help="symmetric quantization")
    p.add_argument("--no-gate", action="store_true", help="skip the quality and speed comparison")
    p.add_argument("--keep-rejected", action="store_true", help="keep the model even if the gate rejects it")
    p.add_argument("--log", action="store_true", help="echo the job's log lines on stderr")
    p.add_argument("--json", action="store_true", help="print the comparison as JSON")
    p.set_defaults(func=cmd_quantize)


def cmd_quantize(args: argparse.Namespace) -> int:
    quiet_engine_logs(getattr(args, "verbose", False))
    if args.method == "fp8":
        try:
            result = run_gate(
                ModelStore(),
                args.model,
                None,
                "fp8",
                preset=args.preset,
                on_stage=lambda s: print(f"gate: {s}", file=sys.stderr),
            )
        except QuantizeError as exc:
            raise CliError(str(exc)) from exc
        return report(result, args.model, f"{args.model} + {args.preset}", args.json)
    printer = ProgressPrinter()
    task = TaskState(printer)

    def on_log(line: str) -> None:
        if args.log:
            print(f"  | {line}", file=sys.stderr)

    params = AwqParams(group_size=args.group_size, zero_point=not args.no_zero_point, max_blocks=args.calib_blocks)
    try:
        outcome = quantize_and_gate(
            ModelStore(),
            args.model,
            args.out,
            params=params,
            calib_file=args.calib,
            task=task,
            on_log=on_log,
            gate=not args.no_gate,
            keep_rejected=args.keep_rejected,
        )
    except QuantizeError as exc:
        raise CliError(str(exc)) from exc
    entry, gate = outcome.entry, outcome.gate
    seconds = (entry.lineage or {}).get("seconds")
    print(f"quantized {args.model} -> {entry.name} in {seconds} s", file=sys.stderr)
    if gate is None:
        return 0
    rc = report(gate, args.model, entry.name, args.json, {"model": entry.name, "kept": outcome.kept})
    if not outcome.kept:
        print(f"{entry.name} was removed from the store (use --keep-rejected to keep it)", file=sys.stderr)
    return rc
