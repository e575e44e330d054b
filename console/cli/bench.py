"""``inference-console bench``: throughput and latency of the console's engine path, side by side
with plain vLLM ``LLM.generate`` and Hugging Face ``generate`` on the same prompts; ``--tune``
auto-tunes engine knobs against vLLM's defaults and can save the best point as a preset.

Flags follow ``vllm bench throughput`` / ``vllm bench serve``: ``--num-prompts``, ``--input-len``,
``--output-len``, ``--dataset-path``, ``--request-rate``, ``--max-concurrency``, ``--seed``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from console.cli.bench_common import config_for, write_report
from console.cli.engine_flags import add_engine_args, start_engine
from console.cli.common import CliError, ProgressPrinter, print_table, quiet_engine_logs
from console.cli.flags import check_file, check_model_and_preset
from console.engine.factory import parse_engine_choice
from console.config import EngineConfig
from console.jobs import TaskState
from console.bench import workload as wl
from console.bench.baselines import run_baseline
from console.bench.figures import concurrency_points, roofline_points
from console.bench.report import add_comparison, describe_conditions, environment, write_plots
from console.bench.runner import run_console
from console.bench.suite import parse_concurrencies, run_console_suite
from console.bench.workload import structured
from console.cli import bench_compare, bench_speculation, bench_switch, bench_tune
from console.engine.in_process import InProcessEngine, dtype_note, prepare_config
from console.engine.interface import NEEDS_LOADER
from console.launch import default_model_name, default_preset_name


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "bench",
        help="benchmark the engine (and baselines); --tune auto-tunes knobs",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_engine_args(p)
    p.add_argument("--num-prompts", type=int, default=32)
    p.add_argument("--input-len", type=int, default=128, help="synthetic prompt length in tokens")
    p.add_argument("--output-len", type=int, default=64, help="generated tokens per request (EOS ignored)")
    p.add_argument("--dataset-path", help="prompt file (JSONL/CSV/OpenAI batch) instead of synthetic prompts")
    p.add_argument(
        "--request-rate",
        type=float,
        default=float("inf"),
        help="Poisson arrivals at R req/s (default inf: all at once)",
    )
    p.add_argument("--max-concurrency", type=int, help="at most C requests in flight")
    p.add_argument(
        "--concurrency-sweep",
        metavar="LIST",
        default="",
        help="also run the console path at each of these concurrencies, e.g. 1,4,16,64 "
        "(throughput vs concurrency, fraction of the roofline)",
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--json-schema",
        metavar="FILE",
        help="also run the same prompts with every answer constrained "
        "to the JSON schema in FILE: what a schema costs in tok/s",
    )
    p.add_argument(
        "--baselines",
        default="vllm,hf",
        help="comma list of vllm, asyncllm (vLLM's AsyncLLM without the console), hf "
        "(or 'none'); each runs in a fresh process",
    )
    p.add_argument(
        "--adapter-mix",
        metavar="LIST",
        help="comma list of LoRA adapters ('base' for none) the requests cycle through, e.g. base,a,b "
        "(default with --adapter: the adapters given; the baselines run the base model)",
    )
    p.add_argument(
        "--hf-batch-size",
        type=int,
        default=None,
        help="static batch size of the HF baseline (default: the run's concurrency, --max-concurrency or "
        "every prompt; another size gives no console/hf ratio)",
    )
    p.add_argument(
        "--json",
        nargs="?",
        const=True,
        default=False,
        metavar="PATH",
        help="print the full report (figures + environment) as JSON on stdout, as --json does in every "
        "command (--json PATH, the old spelling of --report PATH, still writes the file)",
    )
    p.add_argument("--report", metavar="PATH", help="write the full report (figures + environment) as a JSON file")
    p.add_argument("--plot-dir", metavar="DIR", help="write PNG plots here")
    p.add_argument(
        "--speculation-speedup",
        action="store_true",
        help="single-stream speed-up of the preset's speculative decoding against the same preset "
        "without it, on your --dataset-path prompts (one at a time, greedy, --output-len tokens)",
    )
    p.add_argument(
        "--switch-to",
        metavar="MODEL",
        help="measure switching between --model and MODEL kept warm (sleep mode on the GPU) "
        "against loading --model again; --rounds switches each way",
    )
    p.add_argument("--switch-preset", metavar="NAME", help="with --switch-to: MODEL's preset (default: --preset)")
    p.add_argument("--rounds", type=int, default=2, help="with --switch-to: switches each way (default 2)")
    p.add_argument(
        "--compare-local",
        action="store_true",
        help="with --engine URL: run the same prompts on the console's in-process vLLM engine (--model, "
        "--preset) too, side by side in one report (e.g. a trtllm-serve against vLLM)",
    )

    bench_tune.add_args(p)
    p.set_defaults(func=cmd_bench)


def _config(args: argparse.Namespace) -> tuple[EngineConfig, str, str]:
    name = args.model or default_model_name()
    preset = args.preset or default_preset_name()
    return config_for(name, preset, args), name, preset


def _vocab_size(model_path: str) -> int:
    cfg = json.loads((Path(model_path) / "config.json").read_text())
    return int(cfg.get("vocab_size") or (cfg.get("text_config") or {}).get("vocab_size") or 32000)


def report_flags(args: argparse.Namespace) -> None:
    """``--json PATH`` (the old spelling) becomes ``--report PATH``, with a note."""
    if isinstance(args.json, str):
        print(
            "note: --json PATH is deprecated in `bench`; use --report PATH (--json alone prints the report)",
            file=sys.stderr,
        )
        args.report, args.json = args.report or args.json, False


def cmd_bench(args: argparse.Namespace) -> int:
    report_flags(args)
    prior = bench_tune.check_args(args)  # the tune's flags, before the model is looked up
    check_model_and_preset(args, folder_ok=True)  # the cheap checks before anything slow
    check_file(args.dataset_path, "--dataset-path")
    check_file(args.tune_prompts, "--tune-prompts")

    quiet_engine_logs(getattr(args, "verbose", False))
    try:
        choice = parse_engine_choice(args.engine)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if choice.kind != "local":
        return _bench_server(args, choice.kind)
    if args.compare_local:
        raise CliError("--compare-local compares a server (--engine URL) with the in-process engine")
    config, name, preset = _config(args)
    if args.speculation_speedup:
        return bench_speculation.run(args, config, TaskState(ProgressPrinter()))
    if args.switch_to:
        return bench_switch.run(args, (name, config), TaskState(ProgressPrinter()))
    prepared, device = prepare_config(config)
    try:
        workload = _workload(args, _vocab_size(config.model))
    except ValueError as exc:
        raise CliError(str(exc)) from None
    constrained = _structured(workload, args.json_schema) if args.json_schema else None
    baselines = [] if args.baselines in ("", "none") else [b.strip() for b in args.baselines.split(",")]
    unknown = set(baselines) - {"vllm", "asyncllm", "hf"}
    if unknown:
        raise CliError(f"unknown baseline(s) {', '.join(sorted(unknown))} (choose from vllm, asyncllm, hf)")

    try:
        concurrencies = parse_concurrencies(args.concurrency_sweep)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    rate = None if args.request_rate == float("inf") else args.request_rate
    report: dict[str, Any] = {
        "environment": environment(),
        "model": name,
        "model_path": config.model,
        "preset": preset,
        "device": device,
        "engine_kwargs": prepared.engine_kwargs(),
        "dtype_choice": dtype_note(config, device),
        "workload": _workload_report(args, workload, rate),
        "results": {},
    }
    task = TaskState(ProgressPrinter())
    engine = InProcessEngine()
    try:
        if args.tune:
            report["tune"] = bench_tune.run(args, engine, config, device, workload, prior)
        else:
            info = engine.load(config, name).result()
            report["load_s"] = info.load_seconds
            print(f"[bench] console path: {workload.name}", file=sys.stderr)
            suite = run_console_suite(
                engine,
                workload,
                request_rate=rate,
                max_concurrency=args.max_concurrency,
                concurrency_sweep=concurrencies,
                seed=args.seed,
                task=task,
            )
            report["results"]["console"] = suite["console"]
            report["concurrency_sweep"] = suite["concurrency_sweep"]
            report["roofline"] = suite.get("roofline")
            if constrained is not None:
                print(f"[bench] console path: {constrained.name}", file=sys.stderr)
                report["results"]["console + JSON schema"] = run_console(
                    engine,
                    constrained,
                    request_rate=rate,
                    max_concurrency=args.max_concurrency,
                    seed=args.seed,
                    task=task,
                )
    finally:
        engine.close()  # free the cores and memory before the baselines start
    _finish_report(report, args, baselines, workload, prepared.engine_kwargs())
    return 0


def _structured(workload: Any, path: str) -> Any:
    import json
    from pathlib import Path

    try:
        schema = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CliError(f"cannot read the JSON schema {path}: {exc}") from None
    return structured(workload, schema)


def _workload(args: argparse.Namespace, vocab_size: int) -> Any:
    if args.dataset_path:
        workload = wl.from_file(args.dataset_path, args.output_len, args.num_prompts)
    else:
        workload = wl.synthetic(args.num_prompts, args.input_len, args.output_len, vocab_size, args.seed)
    workload.adapters = adapter_mix(getattr(args, "adapter_mix", None), getattr(args, "adapter", None) or [])
    return workload


def _workload_report(args: argparse.Namespace, workload: Any, rate: float | None) -> dict[str, Any]:
    """The report's description of the workload (the in-process and the server paths alike)."""
    return {
        "name": workload.name,
        "num_prompts": workload.num_prompts,
        "input_len": args.input_len,
        "output_len": args.output_len,
        "dataset_path": args.dataset_path,
        "request_rate": rate,
        "max_concurrency": args.max_concurrency,
        "seed": args.seed,
        "sampling": "greedy, ignore_eos",
        "adapters": workload.adapters,
    }


def adapter_mix(text: str | None, loaded: list[str]) -> list[str]:
    """The adapters bench requests cycle through ("" = base): ``--adapter-mix`` or the ``--adapter``s."""
    if not text:
        return list(loaded)
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = sorted({n for n in names if n != "base"} - set(loaded))
    if unknown:
        raise ValueError(f"--adapter-mix names {', '.join(unknown)}, not loaded: add --adapter NAME for each")
    return ["" if n == "base" else n for n in names]


#: bench options only the in-process run reads (flag -> argparse dest): refused with a server engine.
_LOCAL_ONLY = {
    "--speculation-speedup": "speculation_speedup",
    "--switch-to": "switch_to",
    "--switch-preset": "switch_preset",
    "--json-schema": "json_schema",
    "--concurrency-sweep": "concurrency_sweep",
}

#: Synthetic prompts for a server whose tokenizer we cannot see: token ids below this exist in
#: every vocabulary the console supports.
REMOTE_VOCAB = 256


def _bench_server(args: argparse.Namespace, kind: str) -> int:
    """The console path against a server (``--engine serve`` or a URL). Baselines run vLLM in a
    fresh local process, so they are not measured here (compare with ``--engine local``);
    ``--tune`` reloads engines, which only the in-process engine does."""

    if args.tune:
        why = NEEDS_LOADER if kind == "remote" else "reloads the in-process engine"
        raise CliError(f"--tune {why}: use it with --engine local")
    local_only = [flag for flag, dest in _LOCAL_ONLY.items() if getattr(args, dest, None) not in (None, "", False)]
    if local_only:
        raise CliError(
            f"{', '.join(local_only)} measure(s) the in-process engine only: use --engine local "
            f"(with --engine {'URL' if kind == 'remote' else 'serve'} they would be ignored)"
        )
    if args.baselines not in ("", "none"):
        print("[bench] baselines skipped with a server engine (run with --engine local to compare)", file=sys.stderr)
    config = name = None
    vocab = REMOTE_VOCAB
    if kind == "serve":
        config, name, _preset = _config(args)
        vocab = _vocab_size(config.model)
    try:
        workload = _workload(args, vocab)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    rate = None if args.request_rate == float("inf") else args.request_rate
    engine = start_engine(args, config, name)
    report: dict[str, Any] = {"environment": environment(), "engine": args.engine, "results": {}}
    try:
        info = engine.status.info
        report["model"] = info.model if info else name
        report["load_s"] = info.load_seconds if info else None
        report["workload"] = _workload_report(args, workload, rate)
        print(f"[bench] console path via {args.engine}: {workload.name}", file=sys.stderr)
        # Streamed, as `vllm bench serve` measures a server: TTFT and ITL as a client sees them.
        report["results"]["console"] = bench_compare.run_streamed(engine, workload, rate, args)
        # Engine figures come from the server's /metrics; process memory is this process's, not the server's.
        report["results"]["console"]["peak_memory_kind"] = "not measured (the engine is a server)"
    finally:
        engine.close()
    if args.compare_local:
        local, local_name, _preset = _config(args)
        report["results"][bench_compare.LOCAL] = bench_compare.run_local(local, local_name, workload, rate, args)
        report["side_by_side"] = bench_compare.side_by_side(report)
    _finish_report(report, args, [])
    return 0


def _finish_report(
    report: dict[str, Any],
    args: argparse.Namespace,
    baselines: list[str],
    workload: Any = None,
    engine_kwargs: dict[str, Any] | None = None,
) -> None:
    """Baselines (in fresh processes), ratios, the table, plots and the JSON report."""

    if not args.tune:
        rate = None if args.request_rate == float("inf") else args.request_rate
        for kind in baselines:
            print(f"[bench] baseline {kind} (fresh process)", file=sys.stderr)
            # under the console run's concurrency and arrival schedule (the same seed draws the same arrivals)
            report["results"][kind] = run_baseline(
                kind,
                engine_kwargs or {},
                workload,
                request_rate=rate,
                max_concurrency=args.max_concurrency,
                seed=args.seed,
                hf_batch_size=args.hf_batch_size,
                task=TaskState(ProgressPrinter()),
            )
        add_comparison(report)
        if not args.json:
            _print_results(report)
    report["plots"] = write_plots(report, Path(args.plot_dir)) if args.plot_dir else "not requested (--plot-dir)"
    if args.plot_dir:
        print(f"plots -> {', '.join(report['plots'])}", file=sys.stderr)
    write_report(report, args)


def _f(v: Any, scale: float = 1.0, fmt: str = "{:.1f}") -> str:
    return "-" if v is None else fmt.format(v * scale)


def _print_results(report: dict[str, Any]) -> None:
    rows = []
    for kind, r in report["results"].items():
        if "error" in r:
            rows.append([kind, "failed: " + r["error"][:60], "", "", "", "", ""])
            continue
        rows.append(
            [
                kind,
                _f(r["output_tokens_per_s"]),
                _f(r["total_tokens_per_s"]),
                _f(r["requests_per_s"], fmt="{:.2f}"),
                _f((r.get("ttft_s") or {}).get("p99"), 1000, "{:.0f}"),
                _f((r.get("itl_s") or {}).get("p99"), 1000, "{:.1f}"),
                _f((r.get("e2e_s") or {}).get("p99"), 1, "{:.2f}"),
            ]
        )
    print_table(rows, ["path", "out tok/s", "total tok/s", "req/s", "TTFT p99 ms", "ITL p99 ms", "e2e p99 s"])
    if report.get("dtype_choice"):
        print(f"dtype: {report['dtype_choice']}")
    c = report["results"].get("console", {})
    if "engine" in c:
        print(
            f"peak KV cache {100 * c['engine']['peak_kv_cache_usage']:.1f}%, preemptions "
            f"{c['engine']['preemptions']}, peak memory {c['peak_memory_bytes'] / 2**30:.2f} GiB "
            f"({c['peak_memory_kind']})"
        )
    if c.get("ttft_measured"):
        e = c.get("engine_ttft_s") or {}
        print(
            f"console TTFT: {c['ttft_measured']}; in the engine (queued -> first token) "
            f"p50 {_f(e.get('p50'), 1000, '{:.0f}')} ms, p99 {_f(e.get('p99'), 1000, '{:.0f}')} ms"
        )
    t = c.get("thinking")
    if t:
        print(
            f"thinking ({t['reasoning_parser']} parser): {t['reasoning_tokens']} of {t['output_tokens']} output "
            f"tokens, answer {t['answer_tokens']}"
        )
    if "prefix_cache" in c:
        hits = c.get("engine", {}).get("prefix_cache_hit_tokens")
        print(f"prefix cache: {c['prefix_cache']}" + ("" if hits is None else f"; {hits} prompt tokens served from it"))
    mix = (report.get("workload") or {}).get("adapters")
    if mix:
        print(
            f"LoRA: the console's requests cycle through {', '.join(n or 'base' for n in mix)} "
            "(baselines: the base model)"
        )
    for kind, cond in (report.get("run_conditions") or {}).items():
        print(f"{kind} ran with {describe_conditions(cond)}")
    notes = report.get("ratio_notes") or {}
    for k, v in report.get("ratios", {}).items():
        print(f"{k}: {_f(v, fmt='{:.3f}')}" if v is not None or k not in notes else f"{k}: no ratio ({notes[k]})")
    for k, v in (report.get("side_by_side") or {}).items():
        print(f"server / in-process {k}: {v if isinstance(v, str) or v is None else f'{v:.3f}'}")

    for p in concurrency_points(report) if report.get("concurrency_sweep") else []:
        print(f"concurrency {p['concurrency']}: {p['output_tokens_per_s']:.1f} output tok/s")
    rl = report.get("roofline") or {}
    for p in roofline_points(report):
        print(
            f"roofline ({rl.get('profile')}) at concurrency {p['concurrency']}: {p['measured_tok_s']:.1f} of "
            f"{p['bound_tok_s']:.1f} tok/s = {100 * p['fraction']:.1f}%"
        )
    if rl.get("note") or rl.get("error"):
        print(rl.get("error") or rl["note"])
