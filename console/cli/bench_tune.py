"""``inference-console bench --tune``: auto-tune on the in-process engine, with what is
being tried, the best so far with its figures and the time left printed as it goes, the trials
and the default-vs-tuned figures at the end, and ``--save-preset`` for the best point."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from console.cli.common import CliError, print_table
from console.config import EngineConfig
from console.jobs import Progress, TaskState
from console.bench.figures import planner_device
from console.bench.tune import describe, save_as_preset, tune
from console.bench.tune_goal import GOALS, Goal, longest_prompt_ttft_ms, tpot_ms
from console.bench.tune_one_user import goal_grid
from console.bench.tune_plan import Pruned, parse_grid
from console.bench.tune_resume import KEPT, ResumeMismatch, load_state, save_state
from console.bench.tune_result import TuneResult
from console.bench.user_workloads import from_conversations, from_prompts_file
from console.bench.workload import Workload
from console.chat.conversations import ConversationStore
from console.metrics import nvml
from console.planner import get_gpu


def add_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--tune",
        action="store_true",
        help="auto-tune engine knobs on this workload instead of one run (vLLM's defaults measured too)",
    )
    p.add_argument("--tune-budget-s", type=float, default=600, help="time budget of the tune (default 600)")
    p.add_argument(
        "--tune-grid",
        metavar="SPEC",
        help="knobs and values to search, e.g. 'max_num_seqs=64,256; kv_cache_dtype=auto,fp8' "
        "(default: the device's grid); memory fractions are fractions of --tune-card",
    )
    p.add_argument(
        "--tune-card",
        metavar="GPU",
        help="plan for this card (a planner name, e.g. rtx-4090) on a bigger device: emulates it",
    )
    p.add_argument(
        "--tune-eta",
        type=int,
        default=3,
        help="successive halving: a short run of 1/ETA of the prompts first (default 3)",
    )
    p.add_argument(
        "--tune-confirm",
        action="store_true",
        help="load the best point again at the end and re-measure it (time allowing)",
    )
    p.add_argument(
        "--goal",
        choices=GOALS,
        default="throughput",
        help="with --tune: throughput (the most output tok/s, default); one-user (the lowest time per output "
        "token with one request in flight, n-gram/EAGLE-3 speculation and FP8 KV tried; TTFT on the longest "
        "prompt reported); many (the most tok/s whose p95 TTFT/TPOT stay under --max-ttft-ms/--max-tpot-ms)",
    )
    p.add_argument("--max-ttft-ms", type=float, help="with --goal many: the p95 time to the first token at most")
    p.add_argument("--max-tpot-ms", type=float, help="with --goal many: the p95 time per output token at most")
    source = p.add_mutually_exclusive_group()
    source.add_argument(
        "--tune-prompts",
        metavar="FILE",
        help="with --tune: your own prompts, a batch file (JSONL/CSV/OpenAI batch), each answer its line's "
        "max_tokens long (else --output-len), instead of the synthetic workload",
    )
    source.add_argument(
        "--tune-conversations",
        action="store_true",
        help="with --tune: your saved conversations replayed, each answer a request with the conversation "
        "up to it as its prompt and its own length (the last --num-prompts answers)",
    )
    p.add_argument("--save-preset", metavar="NAME", help="with --tune: save the best point as this user preset")
    p.add_argument(
        "--tune-state",
        metavar="FILE",
        help="with --tune: save the tune to FILE after every trial; when FILE holds a tune of the same goal and "
        "workload that stopped early (budget, Ctrl-C, a crash), go on from it, keeping what it measured",
    )


class TunePrinter:
    """Each new progress line of the tune on stderr (what is tried, best so far, time left)."""

    def __init__(self) -> None:
        self._last = ""

    def __call__(self, p: Progress) -> None:
        if p.stage == "tune" and p.message and p.message != self._last:
            print(f"[tune] {p.message}", file=sys.stderr, flush=True)
            self._last = p.message


def check_args(args: argparse.Namespace) -> TuneResult | None:
    """The tune's own flags checked before anything loads; without ``--tune`` they would be
    silently ignored: refused. Returns the saved tune ``--tune-state`` names, to go on from
    (read here once: a file that is not a saved tune is said before anything loads)."""
    if args.tune:
        goal_of(args)
        return _prior(Path(args.tune_state) if args.tune_state else None)
    given = [
        flag
        for flag, on in (
            ("--goal", args.goal != "throughput"),
            ("--max-ttft-ms", args.max_ttft_ms is not None),
            ("--max-tpot-ms", args.max_tpot_ms is not None),
            ("--tune-prompts", bool(args.tune_prompts)),
            ("--tune-conversations", args.tune_conversations),
            ("--tune-state", bool(args.tune_state)),
        )
        if on
    ]
    if given:
        raise CliError(f"{', '.join(given)}: only with --tune")
    return None


def goal_of(args: argparse.Namespace) -> Goal:
    if args.goal != "many" and (args.max_ttft_ms is not None or args.max_tpot_ms is not None):
        raise CliError("--max-ttft-ms and --max-tpot-ms are limits of --goal many")
    try:
        return Goal(args.goal, args.max_ttft_ms, args.max_tpot_ms)
    except ValueError as exc:
        raise CliError(str(exc)) from None


def tune_workload(args: argparse.Namespace, workload: Workload) -> Workload:
    """The workload the tune runs: the user's prompts or conversations, else the bench's own."""
    try:
        if args.tune_prompts:
            return from_prompts_file(args.tune_prompts, args.output_len)
        if args.tune_conversations:
            store = ConversationStore()
            try:
                return from_conversations(store, max_requests=args.num_prompts)
            finally:
                store.close()
    except (ValueError, OSError) as exc:
        raise CliError(str(exc)) from None
    return workload


def grid_for(
    args: argparse.Namespace, config: EngineConfig, device: str, goal: Goal | None = None
) -> tuple[dict[str, list[Any]] | list[dict[str, Any]], list[Pruned]]:
    """The grid to search and what was left out of it (and why)."""
    if args.tune_grid:
        try:
            return parse_grid(args.tune_grid), []
        except ValueError as exc:
            raise CliError(f"--tune-grid: {exc}") from None

    profile = get_gpu(args.tune_card) if args.tune_card else planner_device(device)
    return goal_grid(config, device, goal.kind if goal is not None else "throughput", profile)


def run(
    args: argparse.Namespace,
    engine: Any,
    config: EngineConfig,
    device: str,
    workload: Any,
    prior: TuneResult | None = None,
) -> dict[str, Any]:
    """The tune (``prior``: the saved tune :func:`check_args` read, to go on from)."""
    device_bytes = None
    if args.tune_card:
        try:
            get_gpu(args.tune_card)
        except ValueError as exc:
            raise CliError(f"--tune-card: {exc}") from None
        if device == "cuda":
            device_bytes = nvml.memory_total_bytes(0)
    goal = goal_of(args)
    workload = tune_workload(args, workload)
    grid, pruned = grid_for(args, config, device, goal)
    print(f"[tune] goal: {goal.text()}; workload: {workload.name}", file=sys.stderr)
    state = Path(args.tune_state) if args.tune_state else None
    if prior is not None:
        kept = sum(t.status in KEPT for t in prior.trials)
        print(f"[tune] going on from {state}: {kept} trial(s) measured in {prior.tune_seconds:.0f} s", file=sys.stderr)
    try:
        result = _run_tune(args, engine, config, grid, workload, goal, pruned, device_bytes, state, prior)
    except ResumeMismatch as exc:
        raise CliError(f"--tune-state {state}: {exc}; remove the file or name another") from None
    if state is not None:
        save_state(state, result)
        print(f"[tune] state -> {state}", file=sys.stderr)
    print_result(result)
    out = result.to_dict()
    if args.save_preset and result.best is not None:
        path = save_as_preset(
            result.trials[result.best],
            args.save_preset,
            dict(config.engine_kwargs()),
            description=describe(result, result.best),
            gpu="cpu" if device == "cpu" else "any",
            goal=goal.kind,
        )
        out["saved_preset"] = str(path)
        print(f"saved preset '{args.save_preset}' -> {path}", file=sys.stderr)
    return out


def _run_tune(
    args: argparse.Namespace,
    engine: Any,
    config: EngineConfig,
    grid: Any,
    workload: Workload,
    goal: Goal,
    pruned: list[Pruned],
    device_bytes: int | None,
    state: Path | None,
    prior: TuneResult | None,
) -> TuneResult:
    return tune(
        engine,
        config,
        grid,
        workload,
        goal=goal,
        pruned=pruned,
        budget_s=args.tune_budget_s,
        task=TaskState(TunePrinter()),
        card=args.tune_card,
        device_bytes=device_bytes,
        eta=max(2, args.tune_eta),
        max_concurrency=args.max_concurrency,
        confirm_best=args.tune_confirm,
        on_trial=None if state is None else lambda r: save_state(state, r),
        resume=prior,
    )


def _prior(state: Path | None) -> TuneResult | None:
    """The saved tune to go on from (None: no file yet)."""
    if state is None:
        return None
    try:
        return load_state(state)
    except ValueError as exc:
        raise CliError(f"--tune-state: {exc}") from None


def _f(v: Any, fmt: str = "{:.1f}") -> str:
    return "-" if v is None else fmt.format(v)


def print_result(result: Any) -> None:
    rows = []
    for i, t in enumerate(result.trials):
        mark = "*" if i == result.best else ("+" if i in result.pareto else "")
        p99 = (t.figures.get("e2e_s") or {}).get("p99")
        p95_ttft = (t.figures.get("ttft_s") or {}).get("p95")
        knobs = json.dumps(t.preset_knobs()) if t.label != "default" else "vLLM's defaults"
        rows.append(
            [
                str(i + 1),
                mark,
                t.label or "",
                knobs,
                t.status + (" (over)" if t.over_limits else ""),
                _f(t.figures.get("output_tokens_per_s")),
                _f(tpot_ms(t.figures)),
                _f(tpot_ms(t.figures, "p95")),
                _f(None if p95_ttft is None else 1000 * p95_ttft, "{:.0f}"),
                _f(longest_prompt_ttft_ms(t.figures), "{:.0f}"),
                _f(p99, "{:.2f}"),
                _f(t.load_seconds),
                (t.over_limits or t.error or "")[:70],
            ]
        )
    heads = ["#", "chosen/front", "", "knobs", "status", "out tok/s", "TPOT ms", "TPOT p95", "TTFT p95 ms"]
    print_table(rows, [*heads, "TTFT longest ms", "e2e p99 s", "load s", "note"])
    print(
        f"goal: {result.goal.get('text')}; workload: {result.workload.get('name')} "
        f"({result.workload.get('source', 'synthetic')}); vLLM {result.vllm_version} on {result.device}"
        + (f" (planned for {result.card})" if result.card else "")
        + f"; tuned in {result.tune_seconds:.0f} s"
        + (f" in {len(result.resumed) + 1} parts (this one's budget {result.budget_s:.0f} s)" if result.resumed else "")
        + ("" if result.resumed else f" of a {result.budget_s:.0f} s budget")
        + ("; CANCELLED" if result.cancelled else "")
    )
    if result.note:
        print(result.note)
    if result.goal.get("kind") == "one-user" and result.best is not None and result.tpot_ratio_vs_default:
        print(
            f"chosen: trial {result.best + 1}, TPOT {result.tpot_ratio_vs_default:.2f}x vLLM's defaults' "
            "(below 1: faster per token)"
        )
    elif result.speedup_vs_default is not None and result.best is not None:
        print(f"chosen: trial {result.best + 1}, {result.speedup_vs_default:.2f}x the output tok/s of vLLM's defaults")
    pruned = result.plan.get("pruned", [])
    for p in pruned[:12]:
        print(f"left out {json.dumps(p['point'])}: {p['reason']}")
    if len(pruned) > 12:
        print(f"... and {len(pruned) - 12} more point(s) left out (the report's tune.plan.pruned lists them)")
    print(
        f"pruned before loading: {len(result.plan.get('pruned', []))} point(s); "
        f"{len(result.plan.get('candidates', []))} candidate load(s)"
    )
    for pair in result.compile_cache.get("same_key_reloads", []):
        again = ", ".join(f"{x:.1f}" for x in pair["later_s"])
        print(f"loads of one compile key ({pair['compile_key']}): first {pair['first_s']:.1f} s, again {again} s")
