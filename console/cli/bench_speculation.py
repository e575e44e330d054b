"""``inference-console bench --speculation-speedup``: the preset's speculative decoding against the
same preset without it, one request at a time on the user's own prompts."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from console.cli.bench_common import write_report
from console.cli.common import CliError
from console.config import EngineConfig
from console.jobs import TaskState
from console.bench.speculation import compare
from console.bench.workload import from_file
from console.engine.in_process import InProcessEngine


def run(args: argparse.Namespace, config: EngineConfig, task: TaskState) -> int:
    if config.speculative_config() is None:
        raise CliError(
            "this preset has no speculative decoding: choose one that has (e.g. --preset cpu-ngram) "
            "or set --speculative-method"
        )
    if not args.dataset_path:
        raise CliError(
            "--speculation-speedup needs your own prompts (--dataset-path FILE): speculation's gain "
            "depends on the text, and random token ids say nothing about it"
        )
    try:
        messages = from_file(args.dataset_path, args.output_len, args.num_prompts).messages
    except (OSError, ValueError) as exc:
        raise CliError(f"{args.dataset_path}: {exc}") from None
    report = compare(config, messages, args.output_len, InProcessEngine, task)
    if not args.json:
        print_report(report)
    write_report(report, args)
    return 0


def print_report(r: dict[str, Any]) -> None:
    def f(v: Any, fmt: str = "{:.1f}") -> str:
        return "—" if v is None else fmt.format(v)

    spec, plain = r["speculative"], r["plain"]
    print(
        f"speculative decoding {r['speculative_config']}, {r['prompts']} prompts one at a time, "
        f"{r['max_tokens']} tokens each, greedy"
    )
    print(f"  without: {f(plain['decode_tok_s'])} tok/s decode")
    print(
        f"  with:    {f(spec['decode_tok_s'])} tok/s decode, acceptance {f(spec['acceptance_rate'], '{:.0%}')}, "
        f"{f(spec['tokens_per_step'], '{:.2f}')} tokens per step"
    )
    print(
        f"  speed-up {f(r['decode_speedup'], '{:.2f}x')}; same answers {r['same_answers']}/{r['prompts']}",
        file=sys.stdout,
    )
