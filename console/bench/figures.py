"""What the bench plots show, computed once from a report dict so the GUI (pyqtgraph) and the CLI's
PNGs (matplotlib) draw the same figures:

- throughput vs concurrency: the console path at each concurrency of the sweep (or its one run);
- latency percentiles: TTFT, inter-token and end-to-end latency, p50/p90/p99;
- fraction of the roofline: measured output tok/s over the planner's bound for that many
  sequences (:mod:`console.planner.roofline`). The planner's ceilings are GPU ceilings (memory
  bandwidth, tensor cores); on the CPU engine they come from the planner's nominal CPU profile
  (its memory bandwidth), and the note says so.

Pure functions on plain data, no Qt, no engine.
"""

from __future__ import annotations

from typing import Any
from console.metrics import nvml
from console.metrics.timings import pareto_front
from console.planner import get_gpu, plan, request_from_engine
from console.planner.selfcal import gpu_key

LATENCY_METRICS = (("ttft_s", "TTFT"), ("itl_s", "ITL"), ("e2e_s", "e2e"))
PERCENTILES = ("p50", "p90", "p99")


def effective_concurrency(figures: dict[str, Any], num_prompts: int, max_num_seqs: int | None) -> int:
    """Sequences in flight at once: ``max_concurrency`` when set, else every prompt (capped by the
    engine's ``max_num_seqs``)."""
    c = figures.get("max_concurrency") or num_prompts
    return max(1, min(int(c), int(max_num_seqs or c)))


def concurrency_points(report: dict[str, Any]) -> list[dict[str, Any]]:
    """``[{"concurrency", "output_tokens_per_s", "total_tokens_per_s", "e2e_p99_s"}]`` sorted by
    concurrency: the sweep's runs, else the console run alone."""
    wl = report.get("workload") or {}
    n = int(wl.get("num_prompts") or 1)
    max_seqs = (report.get("engine_kwargs") or {}).get("max_num_seqs")
    runs = list(report.get("concurrency_sweep") or [])
    console = (report.get("results") or {}).get("console")
    if not runs and console and "error" not in console:
        runs = [console]
    pts = [
        {
            "concurrency": effective_concurrency(r, n, max_seqs),
            "output_tokens_per_s": float(r.get("output_tokens_per_s") or 0.0),
            "total_tokens_per_s": float(r.get("total_tokens_per_s") or 0.0),
            "e2e_p99_s": (r.get("e2e_s") or {}).get("p99"),
        }
        for r in runs
        if "error" not in r
    ]
    return sorted(pts, key=lambda p: p["concurrency"])


def latency_table(figures: dict[str, Any]) -> dict[str, dict[str, float | None]]:
    """``{"TTFT": {"p50": s, "p90": s, "p99": s}, "ITL": ..., "e2e": ...}`` in seconds."""
    return {label: {p: (figures.get(key) or {}).get(p) for p in PERCENTILES} for key, label in LATENCY_METRICS}


def roofline_points(report: dict[str, Any]) -> list[dict[str, Any]]:
    """``[{"concurrency", "measured_tok_s", "bound_tok_s", "fraction"}]`` for every concurrency
    point the report's ``roofline`` has a bound for."""
    bounds = ((report.get("roofline") or {}).get("bounds")) or {}
    out = []
    for p in concurrency_points(report):
        bound = bounds.get(str(p["concurrency"]))
        if bound:
            out.append(
                {
                    "concurrency": p["concurrency"],
                    "measured_tok_s": p["output_tokens_per_s"],
                    "bound_tok_s": float(bound),
                    "fraction": p["output_tokens_per_s"] / float(bound),
                }
            )
    return out


def tune_points(trials: list[dict[str, Any]]) -> list[tuple[int, float, float]]:
    """(trial index, output tok/s, p99 end-to-end latency) of each measured auto-tune trial."""
    out = []
    for i, t in enumerate(trials):
        if t.get("status") == "ok":
            p99 = (t["figures"].get("e2e_s") or {}).get("p99")
            if p99 is not None:
                out.append((i, float(t["figures"]["output_tokens_per_s"]), float(p99)))
    return out


def tune_tradeoff(tune: dict[str, Any]) -> dict[str, Any]:
    """The auto-tune trials drawn as output tok/s against TPOT (median ms per output token):
    ``{"points": [(trial index, tok/s, TPOT ms)], "front": [trial indices on the Pareto front (most
    tok/s, least TPOT), by TPOT], "default": i or None, "chosen": i or None}``. Only trials measured on
    the whole workload; the confirmation run of the chosen one is left out (the same point again)."""
    trials = tune.get("trials") or []
    points = []
    for i, t in enumerate(trials):
        f = t.get("figures") or {}
        tpot = (f.get("tpot_s") or f.get("itl_s") or {}).get("p50")
        if t.get("status") == "ok" and t.get("label") != "confirmation" and tpot is not None:
            points.append((i, float(f.get("output_tokens_per_s") or 0.0), 1000.0 * float(tpot)))
    front = [points[j][0] for j in pareto_front([(p[1], p[2]) for p in points])]
    front.sort(key=lambda i: next(p[2] for p in points if p[0] == i))
    measured = {p[0] for p in points}
    default, chosen = tune.get("default"), tune.get("best")
    return {
        "points": points,
        "front": front,
        "default": default if default in measured else None,
        "chosen": chosen if chosen in measured else None,
    }


def planner_device(device: str) -> Any:
    """The planner's profile for this machine: the NVML card's, or the CPU engine's with this
    machine's RAM; None when the GPU is not in the planner's table."""

    if device != "cuda":
        import psutil

        return get_gpu(f"cpu:{psutil.virtual_memory().total / 1024**3:.0f}")

    name = nvml.gpu_name(0)
    if name is None:
        return None
    try:  # NVML says "NVIDIA H200"; the planner's table says "h200"
        return get_gpu(gpu_key(name))
    except ValueError:
        return None


def roofline(
    model_path: str, engine_kwargs: dict[str, Any], device: str, context: int, concurrencies: list[int]
) -> dict[str, Any]:
    """The planner's decode ceilings for this model and engine, at a context of ``context`` tokens
    (the workload's prompt + output), one bound per concurrency; ``{"error": ...}`` when the
    planner cannot say (unknown GPU, a model shape it cannot read)."""

    profile = planner_device(device)
    if profile is None:
        return {"error": "this GPU is not in the planner's table: no roofline"}
    engine = dict(engine_kwargs, max_model_len=max(16, int(context)))
    engine.pop("kv_cache_memory_bytes", None)  # the ceiling does not depend on the cache size
    try:
        bounds: dict[str, float] = {}
        single = None
        for c in sorted(set(concurrencies)):
            p = plan(request_from_engine(model_path, profile, {**engine, "max_num_seqs": None}, concurrency=c))
            rl = p.roofline
            bounds[str(c)] = float(rl["batched_tok_s_bound"])
            single = rl["decode_tok_s_single_stream"]
    except Exception as exc:  # a shape the planner cannot read: the bench still stands
        return {"error": f"no roofline: {exc}"}
    is_cpu = bool(profile.is_cpu)
    note = (
        f"The planner's roofline is a GPU model; on the CPU engine it uses the nominal "
        f"{profile.bandwidth_gbs:g} GB/s memory bandwidth of its CPU profile, so the fraction is a rough guide"
        if is_cpu
        else f"{profile.label}: {profile.bandwidth_gbs:g} GB/s, {profile.bf16_tflops:g} TFLOP/s BF16"
    )
    return {
        "profile": profile.label,
        "is_cpu": is_cpu,
        "bandwidth_gbs": profile.bandwidth_gbs,
        "context": context,
        "bounds": bounds,
        "decode_tok_s_single_stream": single,
        "note": note,
    }
