"""``inference-console advise``: replay a session recording through the advisor's rules and say
what fired, why, and which knob to change. ``serve-metrics`` serves a recording (or nothing yet)
on a local Prometheus ``/metrics`` endpoint, for trying a Grafana dashboard."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from console.advisor import AdvisorContext, RuleError, evaluate, load_rules, planner_view
from console.cli.common import CliError, print_json
from console.cli.knob_flags import add_knob_flags, given_knobs
from console.metrics.recording import RecordingError, load_recording
from console.models.store import shape_of
from console.planner import PlanRequest
from console.planner.shapes import ShapeError
from console.presets import get_preset

#: The engine knobs a recording's run may be described with (knob flags, ``knob_flags.py``).
_KNOB_FLAGS = ("gpu_memory_utilization", "max_num_seqs", "max_num_batched_tokens", "kv_cache_dtype")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "advise",
        help="replay a metrics recording through the advisor's rules",
        description="Replay a session recording (Monitor > Save recording, or a GPU evidence "
        "series) through the advisor. Example: inference-console advise "
        "--recording run.json --gpu-memory-utilization 0.9",
    )
    p.add_argument("--recording", required=True, type=Path, help="a metrics recording (JSON)")
    p.add_argument("--rules", type=Path, help="a rules TOML file (default: the shipped rules or your copy)")
    p.add_argument("--preset", help="the preset the run used (its knobs are the starting point of each change)")
    add_knob_flags(p, _KNOB_FLAGS, notes={name: "the run's; overrides the preset" for name in _KNOB_FLAGS})
    p.add_argument("--model", help="a model shape (e.g. Llama-3.1-8B) to show the planner's view of each change")
    p.add_argument("--gpu", default="rtx-4090", help="GPU profile for the planner's view (default rtx-4090)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_advise)

    s = sub.add_parser(
        "serve-metrics",
        help="serve a recording on a local Prometheus /metrics endpoint",
        description="Expose a recording's series under vLLM's metric names on "
        "http://127.0.0.1:PORT/metrics until interrupted.",
    )
    s.add_argument("--recording", required=True, type=Path)
    s.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    s.add_argument("--port", type=int, default=9464, help="port (0 picks a free one; default 9464)")
    s.add_argument("--seconds", type=float, help="stop after this many seconds (default: until Ctrl-C)")
    s.set_defaults(func=cmd_serve_metrics)


def _engine_settings(args: argparse.Namespace, meta: dict[str, Any]) -> dict[str, Any]:
    engine: dict[str, Any] = dict(meta.get("engine") or {})
    if args.preset:
        engine.update(get_preset(args.preset).engine)
    engine.update(given_knobs(args, _KNOB_FLAGS))
    return engine


def cmd_advise(args: argparse.Namespace) -> int:
    try:
        store, meta = load_recording(args.recording)
        rules = load_rules(args.rules)
    except (RecordingError, RuleError) as exc:
        raise CliError(str(exc)) from None
    engine = _engine_settings(args, meta)
    report = evaluate(store, rules, AdvisorContext(engine=engine))
    out = report.to_dict()
    out["recording"] = str(args.recording)
    out["label"] = meta.get("label", "")
    if args.model:
        try:
            base = PlanRequest(
                shape_of(args.model),
                gpu=args.gpu,
                **{
                    k: engine[k]
                    for k in (
                        "kv_cache_dtype",
                        "gpu_memory_utilization",
                        "max_num_seqs",
                        "max_num_batched_tokens",
                        "max_model_len",
                        "quantization",
                    )
                    if engine.get(k) is not None
                },
            )
        except (ShapeError, ValueError, KeyError) as exc:
            raise CliError(f"planner view: {exc}") from None
        for f in out["findings"]:
            f["planner"] = planner_view(f["change"], base) if f["change"] else None
    if args.json:
        print_json(out)
        return 0
    if out["label"]:
        print(out["label"])
    if not report.findings:
        print("No rule fired: nothing to change.")
    for f in out["findings"]:
        print(f"\n[{f['severity']}] {f['title']}")
        print(f"  what:   {f['what']}")
        print(f"  why:    {f['why']}")
        if f["change"]:
            knobs = ", ".join(f"{k}={v}" for k, v in f["change"].items())
            print(f"  change: {knobs}  ({f['change_says']})")
        else:
            print("  change: none in the engine's settings (see why)")
        view = f.get("planner")
        if view:
            b, a = view["before"], view["after"]
            print(
                f"  planner: KV cache {b['kv_tokens']} -> {a['kv_tokens']} tokens, "
                f"max concurrency {b['max_concurrency']} -> {a['max_concurrency']}, verdict {a['verdict']}"
            )
    if report.silent:
        print("\nsilent: " + ", ".join(report.silent))
    for rid, why in report.not_evaluated.items():
        print(f"not evaluated: {rid} ({why})")
    return 0


def cmd_serve_metrics(args: argparse.Namespace) -> int:
    # deferred: imports prometheus_client
    from console.metrics.prometheus import MetricsServer, MetricsServerError

    try:
        store, meta = load_recording(args.recording)
    except RecordingError as exc:
        raise CliError(str(exc)) from None
    server = MetricsServer(store, host=args.host, port=args.port, model_name=str(meta.get("model", "")))
    try:
        server.start()
    except MetricsServerError as exc:
        raise CliError(str(exc)) from None
    print(f"serving {server.url} (Ctrl-C stops)", flush=True)
    try:
        deadline = None if args.seconds is None else time.monotonic() + args.seconds
        while deadline is None or time.monotonic() < deadline:
            time.sleep(0.2)
    finally:
        server.stop()
    return 0
