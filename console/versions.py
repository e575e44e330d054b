"""The versions a bug report needs first (``inference-console --version``, the About dialog)."""

from __future__ import annotations

import sys

from console import __version__, privacy
from console.engine.cpu_dtype import resolve
from console.metrics import nvml
from console.vllm_compat import vllm_distribution


def version_report() -> dict[str, str]:
    """What a bug report needs first: console, Python, engine build, torch, CUDA, GPU and driver.
    Reads package metadata and NVML only (no torch or vLLM import: it stays fast)."""
    from importlib.metadata import PackageNotFoundError, version

    out = {"inference-console": __version__, "python": sys.version.split()[0]}
    dist = vllm_distribution()
    out["engine"] = f"{dist[0]} {dist[1]}" if dist else "not installed"
    out["usage statistics"] = privacy.status_line()
    try:
        torch_version = version("torch")
        out["torch"] = torch_version
        out["cuda"] = "none (CPU build)" if "+cpu" in torch_version else "see torch build"
    except PackageNotFoundError:
        out["torch"] = "not installed"

    if nvml.available():
        out["driver"] = nvml.driver_version() or "?"
        out["cuda"] = f"{nvml.cuda_driver_version()} (driver)"
        out["gpus"] = ", ".join(nvml.gpu_names()) or "none"
    else:
        out["gpus"] = "none visible to NVML"

    out["cpu dtype"] = resolve().note
    return out
