"""``inference-console batch``: the headless twin of the GUI's Batch tab.

Same flags and file formats as ``vllm run-batch`` (``-i/--input-file``, ``-o/--output-file``,
``--model``, vLLM's engine flags), so a file that works with one works with the other. The input
may also be plain JSONL prompts or CSV (see ``console/batch/formats.py``). Results are appended
as they complete; running the same command again resumes (``--no-resume`` starts over).
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path
from types import FrameType

from console.batch.formats import BatchFormatError, batch_defaults, read_batch_file
from console.batch.provenance import ResumeMismatch, check_resume
from console.batch.results import export_csv
from console.batch.runner import DEFAULT_CONCURRENCY, BatchSummary, run_batch
from console.cli.engine_flags import (
    add_engine_args,
    add_sampling_args,
    engine_overrides,
    sampling_from_args,
    start_engine,
)
from console.cli.common import CliError, ProgressPrinter, print_json
from console.cli.flags import check_file, check_model_and_preset, deprecated_alias
from console.engine.interface import Engine
from console.jobs import TaskState
from console.engine.factory import parse_engine_choice
from console.launch import default_model_name, resolve_preset
from console.models.store import ModelStore, StoreError


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "batch",
        help="run a file of prompts (vllm run-batch format, JSONL or CSV)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("-i", "--input-file", required=True, help="batch file (.jsonl or .csv)")
    p.add_argument("-o", "--output-file", required=True, help="results, OpenAI batch output format (JSONL)")
    p.add_argument(
        "--output-tmp-dir",
        help="accepted for vllm run-batch compatibility (results are written in place, line by line)",
    )
    p.add_argument("--served-model-name", help="model name written in the results (default: --model)")
    p.add_argument(
        "--max-concurrency",
        type=int,
        default=DEFAULT_CONCURRENCY,
        help="at most N requests in flight (default: every line at once, as vLLM's offline batch "
        "does; identical greedy lines then answer alike; as bench)",
    )
    deprecated_alias(p, "--concurrency", "--max-concurrency", "max_concurrency", type=int)  # plan's: users
    p.add_argument("--no-resume", action="store_true", help="overwrite the output instead of resuming")
    p.add_argument("--csv", metavar="PATH", help="also export the results as CSV")
    p.add_argument("--json", action="store_true", help="print a JSON summary on stdout")
    add_engine_args(p)
    add_sampling_args(p, batch_defaults())
    p.set_defaults(func=cmd_batch)


def _local(path: str, what: str) -> Path:
    if path.startswith(("http://", "https://")):
        raise CliError(f"the {what} must be a local file: the console sends no data off this machine")
    return Path(path)


def _load(args: argparse.Namespace) -> Engine:
    """Like chat's start_engine, but ``--model`` may also be a model folder (as in vLLM)."""

    try:
        if not parse_engine_choice(args.engine).needs_model:
            return start_engine(args)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    name = args.model or default_model_name()
    try:
        ModelStore().get(name)
    except StoreError:
        folder = Path(name)
        if not (folder / "config.json").is_file():
            raise
        config = resolve_preset(args.preset).apply(str(folder.resolve()), **engine_overrides(args))
        config.served_model_name = args.served_model_name or name
        return start_engine(args, config, name)
    return start_engine(args)


def cmd_batch(args: argparse.Namespace) -> int:
    inp = _local(args.input_file, "input file")
    out = _local(args.output_file, "output file")
    if args.max_concurrency is not None and args.max_concurrency < 1:
        raise CliError("--max-concurrency must be at least 1")
    check_file(args.input_file, "--input-file")  # the cheap checks first: reading the file imports vLLM
    check_model_and_preset(args, folder_ok=True)
    sampling = sampling_from_args(args)
    try:
        parsed = read_batch_file(inp, sampling)
    except BatchFormatError as exc:
        raise CliError(str(exc)) from None
    for w in parsed.warnings:
        print(f"warning: {w}", file=sys.stderr)
    for e in parsed.errors:
        print(f"{inp}: {e}", file=sys.stderr)
    if parsed.errors:
        print(f"{len(parsed.errors)} line(s) skipped; the {len(parsed.requests)} good line(s) run", file=sys.stderr)
    if not parsed.requests:
        raise CliError(f"{inp} has no usable requests")
    if not args.no_resume:  # before the engine starts: another input's results are refused at once
        try:
            check_resume(out, parsed.requests)
        except ResumeMismatch as exc:
            raise CliError(f"{exc} (--no-resume)") from None
    engine = _load(args)
    task = TaskState(ProgressPrinter())
    # Ctrl-C cancels cleanly: in-flight requests are aborted, finished lines are already on disk.
    previous = None
    if threading.current_thread() is threading.main_thread():

        def on_sigint(signum: int, frame: FrameType | None) -> None:
            print("\ncancelling (finished results are kept; re-run to resume)", file=sys.stderr)
            task.cancel()

        previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        summary = run_batch(
            engine,
            parsed.requests,
            out,
            task,
            concurrency=args.max_concurrency,
            resume=not args.no_resume,
            model_name=args.served_model_name or args.model,
        )
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
        engine.close()
    if args.csv:
        prompts = {r.custom_id: r.display_prompt for r in parsed.requests}
        export_csv(out, _local(args.csv, "CSV file"), prompts)
    _print_summary(summary, out, args.json, len(parsed.errors))
    if summary.engine_error:
        raise CliError(summary.engine_error)
    return 1 if (summary.cancelled or parsed.errors or summary.failed) else 0


def _print_summary(s: BatchSummary, out: Path, as_json: bool, bad_lines: int) -> None:
    if as_json:
        print_json(
            {
                "output": str(out),
                "total": s.total,
                "skipped_resumed": s.skipped,
                "succeeded": s.succeeded,
                "failed": s.failed,
                "not_run": s.not_run,
                "malformed_lines": bad_lines,
                "cancelled": s.cancelled,
                "elapsed_s": round(s.elapsed_s, 3),
                "prompt_tokens": s.prompt_tokens,
                "output_tokens": s.output_tokens,
                "output_tokens_per_s": round(s.output_tokens_per_s, 2),
                "engine_error": s.engine_error,
            }
        )
        return
    print(
        f"{s.succeeded} ok, {s.failed} failed, {s.skipped} already done, {s.not_run} not run; "
        f"{s.output_tokens} tokens in {s.elapsed_s:.1f}s ({s.output_tokens_per_s:.1f} tok/s) -> {out}",
        file=sys.stderr,
    )
    for r in s.results:
        if not r.ok:
            print(f"  {r.custom_id} (line {r.line}): {r.error}", file=sys.stderr)
