"""One bench as the CLI and the GUI run it: the console path at the chosen rate/concurrency, then
optionally at each concurrency of a sweep ("1,4,16,64"), then the roofline for those points.
Baselines are separate (:func:`console.bench.baselines.run_baseline`): the CLI frees the engine
before them, the GUI keeps the user's engine loaded.
"""

from __future__ import annotations

from typing import Any

from console.bench.figures import effective_concurrency, roofline
from console.bench.runner import run_console
from console.bench.workload import Workload
from console.jobs import TaskState
from console.bench.report import environment
from console.engine.in_process import resolve_device


def parse_concurrencies(text: str) -> list[int]:
    """``"1,4,16,64"`` -> ``[1, 4, 16, 64]``; empty -> ``[]``; anything else raises ValueError."""
    out = []
    for part in text.replace(" ", "").split(","):
        if not part:
            continue
        if not part.isdigit() or int(part) < 1:
            raise ValueError(f"concurrency '{part}' is not a whole number of at least 1")
        out.append(int(part))
    return sorted(set(out))


class _Stage(TaskState):
    """Prefixes the runner's progress with the run's place in the bench (``run 2/5``); cancelling is
    the bench's own task's."""

    def __init__(self, task: TaskState, label: str, index: int, count: int) -> None:
        super().__init__()
        self.task, self.label, self.index, self.count = task, label, index, count

    def report(self, stage: str, fraction: float | None = None, message: str = "") -> None:
        overall = (self.index + (fraction or 0.0)) / self.count
        self.task.report(f"{self.label} ({self.index + 1}/{self.count}): {message}", overall, message)

    def cancel(self) -> None:
        self.task.cancel()

    @property
    def cancelled(self) -> bool:
        return self.task.cancelled

    def check(self) -> None:
        self.task.check()


def run_console_suite(
    engine: Any,
    workload: Workload,
    *,
    request_rate: float | None = None,
    max_concurrency: int | None = None,
    concurrency_sweep: list[int] | None = None,
    seed: int = 0,
    task: TaskState | None = None,
) -> dict[str, Any]:
    """``{"console": figures, "concurrency_sweep": [figures...], "roofline": {...}}``; raises
    :class:`console.jobs.Cancelled` when cancelled."""
    task = task or TaskState()
    sweep = list(concurrency_sweep or [])
    count = 1 + len(sweep)
    out: dict[str, Any] = {}
    out["console"] = run_console(
        engine,
        workload,
        request_rate=request_rate,
        max_concurrency=max_concurrency,
        seed=seed,
        task=_Stage(task, "console", 0, count),
    )
    runs = []
    for i, c in enumerate(sweep, start=1):
        runs.append(
            run_console(
                engine,
                workload,
                request_rate=request_rate,
                max_concurrency=c,
                seed=seed,
                task=_Stage(task, f"concurrency {c}", i, count),
            )
        )
    out["concurrency_sweep"] = runs
    config = engine.config
    if config is not None:
        kwargs = config.engine_kwargs()
        context = max((len(p) for p in workload.prompt_token_ids), default=256) + workload.output_len
        points = runs or [out["console"]]
        concs = [effective_concurrency(r, workload.num_prompts, kwargs.get("max_num_seqs")) for r in points]

        out["roofline"] = roofline(config.model, kwargs, resolve_device(config), context, concs)
    return out


def vocab_size(model_path: str) -> int:
    """The model's vocabulary size from its config.json (synthetic prompts draw ids below it)."""
    import json
    from pathlib import Path

    cfg = json.loads((Path(model_path) / "config.json").read_text())
    return int(cfg.get("vocab_size") or (cfg.get("text_config") or {}).get("vocab_size") or 32000)


def base_report(
    model: str, engine_kwargs: dict[str, Any], device: str, workload: Workload, **workload_fields: Any
) -> dict[str, Any]:
    """The report's frame: environment, model, engine arguments, workload; ``results`` to fill."""

    return {
        "environment": environment(),
        "model": model,
        "device": device,
        "engine_kwargs": engine_kwargs,
        "workload": {
            "name": workload.name,
            "num_prompts": workload.num_prompts,
            **workload_fields,
            "sampling": "greedy, ignore_eos",
        },
        "results": {},
    }
