"""``inference-console bench --engine URL --compare-local``: the same prompts against the server at
URL (vLLM's or TensorRT-LLM's ``trtllm-serve``) and against the console's own in-process vLLM
engine, one after the other, in one report.

Both runs stream (time to first token and inter-token latency as a client sees them) with the
same workload object, so the prompts, lengths, arrival pattern and seed are identical; only the
engine differs. The in-process engine loads ``--model`` with ``--preset`` (the tuned preset the
server was exported from, when it was), after the server run, so the two never share the machine's
accelerator at once when both run on it.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from console.config import EngineConfig
from console.jobs import TaskState
from console.bench.runner import run_console
from console.cli.progress import ProgressPrinter
from console.engine.in_process import InProcessEngine

#: The report's key for the in-process run (the server's run stays "console").
LOCAL = "in-process vLLM"


def run_streamed(engine: Any, workload: Any, rate: float | None, args: argparse.Namespace) -> dict[str, Any]:
    """The console path's figures on ``workload`` through ``engine``, streamed (TTFT and ITL as a
    client sees them, as `vllm bench serve` measures a server): the server run and the in-process
    run of the comparison measure alike."""

    task = TaskState(ProgressPrinter())
    return run_console(
        engine,
        workload,
        request_rate=rate,
        max_concurrency=args.max_concurrency,
        seed=args.seed,
        task=task,
        stream=True,
    )


def run_local(
    config: EngineConfig, name: str, workload: Any, rate: float | None, args: argparse.Namespace
) -> dict[str, Any]:
    """The in-process engine's figures on ``workload`` (loaded, measured, closed)."""

    print(f"[bench] same prompts on the in-process vLLM engine: {name}", file=sys.stderr)
    engine = InProcessEngine()
    try:
        info = engine.load(config, name).result()
        result = run_streamed(engine, workload, rate, args)
        result["load_s"] = info.load_seconds
        result["model"] = name
        return result
    finally:
        engine.close()


def side_by_side(report: dict[str, Any]) -> dict[str, Any]:
    """Server over in-process, per figure (output tok/s, TTFT p50, ITL p50, e2e p50): > 1 means the
    server's figure is larger (faster for tok/s, slower for the latencies)."""
    server, local = report["results"].get("console", {}), report["results"].get(LOCAL, {})
    if "error" in server or "error" in local or not server or not local:
        return {"note": "one of the runs failed: no comparison"}

    def ratio(a: Any, b: Any) -> float | None:
        return float(a) / float(b) if isinstance(a, (int, float)) and isinstance(b, (int, float)) and b else None

    out: dict[str, Any] = {"server": report.get("engine"), "in_process": local.get("model")}
    out["output_tokens_per_s"] = ratio(server.get("output_tokens_per_s"), local.get("output_tokens_per_s"))
    for key in ("ttft_s", "itl_s", "e2e_s"):
        out[f"{key}_p50"] = ratio((server.get(key) or {}).get("p50"), (local.get(key) or {}).get("p50"))
    return out
