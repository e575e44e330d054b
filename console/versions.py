"""The versions a bug report needs first (``inference-console --version``, the About dialog)."""

from __future__ import annotations

import sys

from console import __version__


def version_report() -> dict[str, str]:
    """What a bug report needs first: console, Python, engine build, torch, CUDA, GPU and driver.
    Reads package metadata and NVML only (no torch or vLLM import: it stays fast)."""
    from importlib.metadata import PackageNotFoundError, version

    from console.engine.vllm_compat import vllm_distribution

    out = {"inference-console": __version__, "python": sys.version.split()[0]}
    dist = vllm_distribution()
    out["engine"] = f"{dist[0]} {dist[1]}" if dist else "not installed"
    try:
        torch_version = version("torch")
        out["torch"] = torch_version
        out["cuda"] = "none (CPU build)" if "+cpu" in torch_version else "see torch build"
    except PackageNotFoundError:
        out["torch"] = "not installed"
    try:
        import pynvml

        pynvml.nvmlInit()
        try:
            drv = pynvml.nvmlSystemGetDriverVersion()
            out["driver"] = drv.decode() if isinstance(drv, bytes) else str(drv)
            cuda = pynvml.nvmlSystemGetCudaDriverVersion()
            out["cuda"] = f"{cuda // 1000}.{cuda % 1000 // 10} (driver)"
            names = []
            for i in range(pynvml.nvmlDeviceGetCount()):
                n = pynvml.nvmlDeviceGetName(pynvml.nvmlDeviceGetHandleByIndex(i))
                names.append(n.decode() if isinstance(n, bytes) else str(n))
            out["gpus"] = ", ".join(names) or "none"
        finally:
            pynvml.nvmlShutdown()
    except Exception:
        out["gpus"] = "none visible to NVML"
    return out
