"""The one owner of NVML (``nvidia-ml-py``) in this process.

NVML is initialised at most once per process, the first time anything asks, and shut down at
interpreter exit. Everything that wants a GPU fact goes through this module: the in-process engine
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
import os
import threading
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from pathlib import Path
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


# -- memory other programs hold on a card --------------------------------------------------------
@dataclass(frozen=True)
class GpuProcess:
    """A process NVML lists on a card: its pid, name ('' when unknown) and memory (None: NVML does not say)."""

    pid: int
    name: str
    used_bytes: int | None


@dataclass(frozen=True)
class InUse:
    """Memory other programs hold on a card, and those NVML names."""

    bytes: int
    processes: tuple[GpuProcess, ...]

    def triples(self) -> tuple[tuple[int, str, int | None], ...]:
        """(pid, name, bytes) of each program: what ``PlanRequest.in_use_by`` takes."""
        return tuple((p.pid, p.name, p.used_bytes) for p in self.processes)


def _used(entry: Any) -> int | None:
    value = getattr(entry, "usedGpuMemory", None)
    try:
        used = int(value) if value is not None else None
    except (TypeError, ValueError):
        return None
    # NVML_VALUE_NOT_AVAILABLE (-1 as unsigned long long) where the driver cannot say (WDDM, containers)
    return used if used is not None and 0 <= used < 2**63 else None


def parse_processes(
    lists: Iterable[Iterable[Any] | None], name_of: Callable[[int], str] = lambda pid: ""
) -> list[GpuProcess]:
    """The processes of NVML's running-process lists (compute, graphics; a list is None where its
    call failed), one per pid: a process in both lists is one, with the larger figure."""
    seen: dict[int, GpuProcess] = {}
    for entries in lists:
        for entry in entries or ():
            pid = int(getattr(entry, "pid", -1))
            if pid < 0:
                continue
            used, old = _used(entry), seen.get(pid)
            if old is not None and old.used_bytes is not None and (used is None or old.used_bytes >= used):
                continue
            seen[pid] = GpuProcess(pid, old.name if old is not None else name_of(pid), used)
    return sorted(seen.values(), key=lambda p: (-(p.used_bytes or 0), p.pid))


def in_use_of(processes: list[GpuProcess], device_used: int | None, own_pids: Collection[int]) -> InUse | None:
    """What the processes other than ``own_pids`` hold: their sum when NVML gives every one of
    them, else the card's used memory less what NVML gives for ours (None: neither is known)."""
    others = tuple(p for p in processes if p.pid not in own_pids)
    if others and all(p.used_bytes is not None for p in others):
        return InUse(sum(p.used_bytes or 0 for p in others), others)
    if device_used is None:
        return None
    own = sum(p.used_bytes or 0 for p in processes if p.pid in own_pids)
    if not others and own == 0 and any(p.pid in own_pids for p in processes):
        return None  # only our processes, without figures: what the card uses may all be ours
    return InUse(max(0, device_used - own), others)


def process_name(pid: int) -> str:
    """The name of ``pid`` (Linux's /proc/<pid>/comm, else NVML's), '' when neither says."""
    try:
        return Path(f"/proc/{pid}/comm").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        pass
    try:
        return text(nvml().nvmlSystemGetProcessName(pid)).rsplit("/", 1)[-1]
    except Exception:
        return ""


def own_pids() -> set[int]:
    """This process and its children (the engine and vLLM's workers run there)."""
    pids = {os.getpid()}
    try:
        import psutil

        pids |= {c.pid for c in psutil.Process().children(recursive=True)}
    except Exception:
        pass
    return pids


def _call(name: str, device: Any) -> Any:
    try:
        return getattr(nvml(), name)(device)
    except Exception:
        return None


def memory_in_use_by_others(index: int = 0) -> InUse | None:
    """Memory on card ``index`` held by processes other than this one and its children, with those
    processes (None: no NVIDIA GPU, or NVML cannot say). Blocks on NVML: not on the GUI thread."""
    try:
        device = handle(index)
    except Exception:
        return None
    lists = [
        _call("nvmlDeviceGetComputeRunningProcesses", device),
        _call("nvmlDeviceGetGraphicsRunningProcesses", device),
    ]
    return in_use_of(parse_processes(lists, process_name), memory_used_bytes(index), own_pids())


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
    "GpuProcess",
    "InUse",
    "in_use_of",
    "memory_in_use_by_others",
    "own_pids",
    "parse_processes",
    "process_name",
    "nvml",
    "text",
    "shutdown",
]
