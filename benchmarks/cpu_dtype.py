"""CPU dtype benchmark: the console's dtype check on the bundled SmolLM2, per-dtype figures, and
whether the default CPU path ("auto") runs at >= 90% of the fastest correct dtype.

    PYTHONPATH=. python benchmarks/cpu_dtype.py [--json out.json] [--no-save]

Runs the same check as ``inference-console doctor`` (three engine loads, minutes on 2 cores), then
times the default path: a fresh engine with ``dtype="auto"`` resolved exactly as the console
resolves it (the cached choice after the check is saved), on the same speed workload.
Figures and commands: benchmarks/cpu-dtype.md.
"""

from __future__ import annotations

import argparse
import json
import sys


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--json", help="write the figures here")
    p.add_argument("--no-save", action="store_true", help="do not store the choice in the data folder")
    args = p.parse_args()

    from console.engine import cpu_dtype
    from console.bench.cpu_dtype_check import bundled_model, measure, run_check
    from console.jobs import TaskState

    def show(pr: object) -> None:
        print(f"[check] {getattr(pr, 'stage', '')} {getattr(pr, 'message', '')}", file=sys.stderr)

    model = bundled_model()
    result = run_check(model, task=TaskState(show))
    print(f"{result.fingerprint.describe()}  ({result.seconds:.0f} s)")
    print(f"{'dtype':10} {'answer ok':9} {'top-1 agree':11} {'mean |dlogp|':12} {'out tok/s':9}  verdict")
    for r in result.results:
        agree = "-" if r.top1_agreement is None else f"{100 * r.top1_agreement:.1f}%"
        delta = "-" if r.mean_abs_logprob_delta is None else f"{r.mean_abs_logprob_delta:.4f}"
        tps = "-" if r.output_tokens_per_s is None else f"{r.output_tokens_per_s:.1f}"
        print(f"{r.dtype:10} {str(r.answer_ok):9} {agree:11} {delta:12} {tps:9}  {r.reason}")
    print(result.message)
    if not args.no_save:
        print(f"saved -> {cpu_dtype.save(result)}")
    resolved = cpu_dtype.resolve()
    default, _ = measure(model, resolved.dtype, None, TaskState())
    best = max((r.output_tokens_per_s or 0.0) for r in result.results if r.ok) if result.choice else 0.0
    share = (default.output_tokens_per_s or 0.0) / best if best else 0.0
    print(
        f"default path (auto -> {resolved.note}): {default.output_tokens_per_s or 0:.1f} tok/s = "
        f"{100 * share:.0f}% of the fastest correct dtype"
    )
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(
                {
                    "check": result.to_json(),
                    "default": {
                        "dtype": resolved.dtype,
                        "source": resolved.source,
                        "output_tokens_per_s": default.output_tokens_per_s,
                        "share_of_fastest": share,
                    },
                },
                fh,
                indent=2,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
