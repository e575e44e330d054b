"""The one owner of NVML (``nvidia-ml-py``) in this process.

NVML is initialised at most once per process, the first time anything asks, and shut down at
interpreter exit. Everything that wants a GPU fact goes through this module: the engine host
(is there a GPU?), ``--version``, the device sampler, the bench report and its roofline. Nothing
else calls ``nvmlInit``/``nvmlShutdown`` (``tests/test_nvml.py`` scans the package for it).

Why process-lifetime and not open/close per use: NVML's init costs milliseconds to a second
(it enumerates the devices), and two owners that each init and shut down would shut NVML down
under the device sampler's feet. Without an NVIDIA GPU (no library, no driver, no device) every
function answers "none" and :func:`unavailable_reason` says why; the answer is cached, since a
GPU does not appear while the program runs.
"""

from __future__ import annotations

import atexit
import threading
from typing import Any

from console.messages import Message, MessageError, message_of

_lock = threading.Lock()
_module: Any = None  # pynvml, initialised
_reason: str | None = None  # why NVML is unusable; None until the first attempt or when usable
_tried = False


class NoNvidiaGpu(MessageError, RuntimeError):
    """NVML cannot be used here: no NVIDIA library, driver or device."""


def text(value: Any) -> str:
    """NVML strings are ``bytes`` in old bindings and ``str`` in new ones."""
    return value.decode() if isinstance(value, bytes) else str(value)


def _open() -> None:
    global _module, _reason, _tried
    _tried = True
    try:
        import pynvml
    except ImportError:
        _reason = Message("no NVIDIA GPU: the NVML bindings (nvidia-ml-py) are not installed")
        return
    try:
        pynvml.nvmlInit()
    except Exception as exc:
        _reason = Message("no NVIDIA GPU visible to NVML ({0})", f"{type(exc).__name__}: {exc}")
        return
    try:
        count = int(pynvml.nvmlDeviceGetCount())
    except Exception as exc:
        count, _reason = 0, Message("NVML could not count the GPUs ({0})", f"{type(exc).__name__}: {exc}")
    if count <= 0:
        _reason = _reason or Message("no NVIDIA GPU: NVML sees no device")
        try:
            pynvml.nvmlShutdown()
        except Exception:
            pass
        return
    _module = pynvml


def nvml() -> Any:
    """The initialised ``pynvml`` module. Raises :class:`NoNvidiaGpu` (with the reason) when
    there is no usable NVIDIA GPU."""
    with _lock:
        if not _tried:
            _open()
        if _module is None:
            raise NoNvidiaGpu(_reason or Message("no NVIDIA GPU"))
        return _module


def available() -> bool:
    try:
        nvml()
        return True
    except NoNvidiaGpu:
        return False


def unavailable_reason() -> str:
    """Why NVML is not usable ('' when it is)."""
    try:
        nvml()
        return ""
    except NoNvidiaGpu as exc:
        return message_of(exc)


def device_count() -> int:
    try:
        return int(nvml().nvmlDeviceGetCount())
    except Exception:
        return 0


def handle(index: int = 0) -> Any:
    return nvml().nvmlDeviceGetHandleByIndex(index)


def gpu_names() -> list[str]:
    """The names of the NVIDIA GPUs NVML sees; [] without one."""
    try:
        nv = nvml()
        return [text(nv.nvmlDeviceGetName(nv.nvmlDeviceGetHandleByIndex(i))) for i in range(device_count())]
    except Exception:
        return []


def gpu_name(index: int = 0) -> str | None:
    names = gpu_names()
    return names[index] if index < len(names) else None


def driver_version() -> str | None:
    try:
        return text(nvml().nvmlSystemGetDriverVersion())
    except Exception:
        return None


def cuda_driver_version() -> str | None:
    """The CUDA version the driver supports, e.g. ``12.4``; None without a GPU."""
    try:
        v = int(nvml().nvmlSystemGetCudaDriverVersion())
    except Exception:
        return None
    return f"{v // 1000}.{v % 1000 // 10}"


def memory_total_bytes(index: int = 0) -> int | None:
    return _memory(index, "total")


def memory_used_bytes(index: int = 0) -> int | None:
    return _memory(index, "used")


def _memory(index: int, field: str) -> int | None:
    try:
        return int(getattr(nvml().nvmlDeviceGetMemoryInfo(handle(index)), field))
    except Exception:
        return None


@atexit.register
def shutdown() -> None:
    """Release NVML (at exit; tests call it to start over)."""
    global _module, _reason, _tried
    with _lock:
        if _module is not None:
            try:
                _module.nvmlShutdown()
            except Exception:
                pass
        _module, _reason, _tried = None, None, False


__all__ = [
    "NoNvidiaGpu",
    "available",
    "unavailable_reason",
    "device_count",
    "handle",
    "gpu_names",
    "gpu_name",
    "driver_version",
    "cuda_driver_version",
    "memory_total_bytes",
    "memory_used_bytes",
    "nvml",
    "text",
    "shutdown",
]
