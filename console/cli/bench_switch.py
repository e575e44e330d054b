"""``inference-console bench --switch-to MODEL``: switching between two models kept warm against
loading one again; the figures of ``console/bench/switching.py``."""

from __future__ import annotations

import argparse
from typing import Any

from console.cli.bench_common import config_for, write_report
from console.cli.common import CliError
from console.config import EngineConfig
from console.jobs import TaskState
from console.engine.in_process import InProcessEngine, keep_warm_refusal, resolve_device
from console.launch import default_preset_name
from console.models.store import StoreError


def run(args: argparse.Namespace, a: tuple[str, EngineConfig], task: TaskState) -> int:
    # deferred: imports psutil
    from console.bench.switching import measure

    if args.rounds < 1:
        raise CliError("--rounds must be at least 1")
    preset = args.switch_preset or args.preset or default_preset_name()
    try:
        cfg_b = config_for(args.switch_to, preset, args)
    except (StoreError, ValueError) as exc:
        raise CliError(f"--switch-to {args.switch_to}: {exc}") from None
    for name, cfg in (a, (args.switch_to, cfg_b)):
        refusal = keep_warm_refusal(cfg, resolve_device(cfg))
        if refusal:
            raise CliError(f"{name}: {refusal}")
    try:
        report = measure(a, (args.switch_to, cfg_b), InProcessEngine, rounds=args.rounds, task=task)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if not args.json:
        print_report(report)
    write_report(report, args)
    return 0


def print_report(r: dict[str, Any]) -> None:
    gib = 1024**3
    print(f"model switching on {r['device']} (vLLM {r['vllm_version']})")
    for name, m in r["models"].items():
        print(f"  {name}: first load {m['first_load_s']:.1f} s")
    for s in r["switches"]:
        how = f"woken in {_seconds(s['switch_s'])}" if s["woken"] else "rebuilt (it was not warm)"
        print(f"  switch to {s['to']}: {how}, same answer as before: {'yes' if s['same_answer'] else 'NO'}")
    median = r["switch_s_median"]
    speedup = r["speedup_vs_reload"]
    print(
        f"  reload of {next(iter(r['models']))} from nothing: {r['reload_s']:.1f} s; median switch "
        + (f"{_seconds(median)} ({speedup:,.0f}x faster)" if median and speedup else "-")
    )
    print(
        f"  engine processes' RAM: {r['engine_rss_one_loaded'] / gib:.2f} GiB with one model, "
        f"{r['engine_rss_both_loaded'] / gib:.2f} GiB with both"
    )
    print(f"  {r['note']}")


def _seconds(value: float) -> str:
    return f"{value * 1000:.1f} ms" if value < 1 else f"{value:.2f} s"
