"""Auto-tune: measure a grid of engine knobs on the user's workload within a time budget.

``sweep(host, base_config, grid, workload, budget_s=..., task=...)`` loads the engine once per
trial (``base_config`` with the trial's knobs), runs the workload through the console path and
records every trial — a refused configuration or out-of-memory is recorded as failed with the
engine's explanation, and the sweep goes on (the host goes back to a clean state on the next
load). Trials not started before the budget ran out are recorded as skipped. The result carries
the Pareto front of output tok/s against p99 end-to-end latency and a suggested point (highest
throughput on the front); :func:`save_as_preset` stores a trial's knobs as a user preset.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

from console.metrics.timings import pareto_front
from console.bench.workload import Workload
from console.config import EngineConfig
from console.engine.interface import Loader, require_loader
from console.jobs import Cancelled, TaskState

Measure = Callable[[Any, Workload], dict[str, Any]]


@dataclass
class Trial:
    knobs: dict[str, Any]
    status: str  # "ok", "failed", "skipped"
    error: str | None = None
    figures: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def throughput(self) -> float:
        return float(self.figures.get("output_tokens_per_s") or 0.0)

    @property
    def p99_latency(self) -> float:
        return float((self.figures.get("e2e_s") or {}).get("p99") or float("inf"))


@dataclass
class SweepResult:
    trials: list[Trial]
    pareto: list[int]  # indices into trials
    best: int | None
    cancelled: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"trials": [asdict(t) for t in self.trials], "pareto": self.pareto, "best": self.best,
                "cancelled": self.cancelled}


def default_grid(device: str) -> dict[str, list[Any]]:
    """The knobs that matter. On a GPU: batch size, chunk size, FP8 KV, CUDA graphs, memory
    fraction, prefix caching; on CPU only those the CPU engine honours."""
    if device == "cuda":
        return {"max_num_seqs": [64, 256], "max_num_batched_tokens": [2048, 8192],
                "kv_cache_dtype": ["auto", "fp8"], "enforce_eager": [False, True],
                "gpu_memory_utilization": [0.85, 0.92], "enable_prefix_caching": [True, False]}
    return {"max_num_seqs": [8, 32, 64], "max_num_batched_tokens": [1024, 4096]}


def trials_of(grid: dict[str, list[Any]]) -> list[dict[str, Any]]:
    keys = list(grid)
    return [dict(zip(keys, combo)) for combo in itertools.product(*(grid[k] for k in keys))]


def default_measure(host: Any, workload: Workload) -> dict[str, Any]:
    from console.bench.runner import run_console

    return run_console(host, workload)


def sweep(host: Loader, base: EngineConfig, grid: dict[str, list[Any]] | list[dict[str, Any]], workload: Workload,
          *, budget_s: float = 600.0, task: TaskState | None = None, measure: Measure = default_measure,
          load_timeout_s: float = 900.0) -> SweepResult:
    host = require_loader(host, "Auto-tune")  # before any trial: a remote server would ignore the knobs
    task = task or TaskState()
    plans = grid if isinstance(grid, list) else trials_of(grid)
    trials: list[Trial] = []
    t_start = time.monotonic()
    cancelled = False
    for i, knobs in enumerate(plans):
        if task.cancelled:
            cancelled = True
        if cancelled or time.monotonic() - t_start > budget_s:
            trials.append(Trial(knobs, "skipped", "cancelled" if cancelled else "time budget used up"))
            continue
        task.report("tune", i / len(plans), f"trial {i + 1}/{len(plans)}: {knobs}")
        t0 = time.monotonic()
        try:
            host.load(base.replace(**knobs), f"tune-{i + 1}").result(load_timeout_s)
            figures = measure(host, workload)
            trials.append(Trial(knobs, "ok", None, figures, time.monotonic() - t0))
        except Cancelled:
            cancelled = True
            trials.append(Trial(knobs, "skipped", "cancelled", {}, time.monotonic() - t0))
        except Exception as exc:  # refused config, OOM, engine died: record and go on
            trials.append(Trial(knobs, "failed", str(exc) or type(exc).__name__, {}, time.monotonic() - t0))
    task.report("tune", 1.0, f"{sum(t.status == 'ok' for t in trials)} of {len(trials)} trials measured")
    ok = [i for i, t in enumerate(trials) if t.status == "ok"]
    front = [ok[j] for j in pareto_front([(trials[i].throughput, trials[i].p99_latency) for i in ok])]
    best = max(front, key=lambda i: trials[i].throughput) if front else None
    return SweepResult(trials, front, best, cancelled)


def save_as_preset(trial: Trial, name: str, base_engine: dict[str, Any], *, description: str = "",
                   gpu: str = "any") -> Path:
    """Save ``base_engine`` + the trial's knobs as a user preset; returns the file."""
    from console.atomic import atomic_write_text
    from console.presets import Preset, parse_preset, user_presets_dir, validate_engine_values
    from console.schema import NOT_IN_PRESET

    engine = {k: v for k, v in {**base_engine, **trial.knobs}.items()
              if v is not None and k not in NOT_IN_PRESET}
    validate_engine_values(engine, f"preset {name}")
    preset = Preset(name=name, description=description or f"auto-tuned: {trial.knobs}",
                    goal="max-throughput", gpu=gpu, engine=engine)
    parse_preset({"name": name, "description": preset.description, "goal": preset.goal, "gpu": gpu,
                  "engine": engine}, name)
    path = user_presets_dir() / f"{name}.toml"
    atomic_write_text(path, preset.to_toml())
    return path
