"""The "fits?" of every model in the store under one preset and the user's knobs, on one device:
the Models panel's table column and its plan box. Pure work on inputs already in memory (store
entries, a loaded :class:`Preset`, a device description) plus each model's config.json, so the
window runs it off the GUI thread; nothing here reads preset files or the registry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Literal, Mapping, Sequence

from console.config import VLLM_GPU_MEMORY_UTILIZATION, EngineConfig
from console.metrics import nvml
from console.models.store import ModelEntry
from console.planner.core import Plan, PlanRequest
from console.planner.gpus import GpuProfile, get_gpu
from console.planner.selfcal import gpu_key
from console.planner.shape_lookup import shape_for
from console.planner import speed
from console.planner.verdict import plan
from console.presets import Preset

if TYPE_CHECKING:
    from console.metrics.device import DeviceSampler

FitVerdict = Literal["fits", "fits-with-changes", "does-not-fit", "files-missing", "error"]

#: What the planner is asked to size for: a GPU profile, or ``"cpu:<GiB of RAM>"``.
Device = GpuProfile | str
#: What other programs hold on the card: (bytes, (pid, name, bytes) of each program where known).
InUse = tuple[int, tuple[tuple[int, str, int | None], ...]]


@dataclass(frozen=True)
class Fit:
    """One model's row: the verdict, and why when it is an error."""

    model: str
    verdict: FitVerdict
    detail: str = ""


def card_profile(name: str, total_bytes: Callable[[], float]) -> GpuProfile:
    """The planner's profile of the card NVML names ``name``: "NVIDIA H100 80GB HBM3" -> h100-80gb;
    an unknown card is named as its recorded loads are, with its memory (``total_bytes()``, read
    only then) and generic speeds."""
    try:
        return get_gpu(gpu_key(name))
    except ValueError:
        return GpuProfile(gpu_key(name), name, int(total_bytes()), 1000.0, 100.0)


def cpu_device() -> str:
    """The CPU engine with this machine's RAM: ``cpu:<GiB>``."""
    import psutil

    return f"cpu:{psutil.virtual_memory().total / 1024**3:.0f}"


def planner_device(sampler: "DeviceSampler") -> Device:
    """The planner's device for this machine from the device sampler (``console.metrics.device``):
    the NVML card's profile (or one built from its memory), else the CPU engine with this
    machine's RAM. May read NVML once: call it off the GUI thread and keep the answer."""
    if sampler.kind == "nvml":
        return card_profile(str(sampler.source.name), lambda: sampler.source.sample().get("mem_total_bytes", 0.0))
    return cpu_device()


def this_machine() -> Device:
    """The planner's device for this machine without a device sampler (the CLI): NVML's first
    card, else the CPU engine with this machine's RAM. Blocks on NVML."""
    name = nvml.gpu_name(0)
    if name is None:
        return cpu_device()
    return card_profile(name, lambda: float(nvml.memory_total_bytes(0) or 0))


def is_local_card(device: Device) -> bool:
    """Whether ``device`` is this machine's NVIDIA card (NVML's first). Blocks on NVML."""
    if isinstance(device, str) or device.is_cpu:
        return False
    name = nvml.gpu_name(0)
    return name is not None and gpu_key(name) == device.name


def local_in_use(device: Device) -> InUse | None:
    """What other programs hold on ``device`` when it is this machine's card (NVML; None: the CPU,
    another card, or NVML cannot say). Blocks on NVML: call it off the GUI thread."""
    if not is_local_card(device):
        return None  # no NVIDIA GPU here, or the plan is for another card
    found = nvml.memory_in_use_by_others(0)
    return None if found is None else (found.bytes, found.triples())


def with_local_in_use(req: PlanRequest) -> PlanRequest:
    """``req`` with what other programs hold on this machine's card, when it plans for that card."""
    found = local_in_use(req.profile)
    return req if found is None else req.with_changes(in_use_bytes=found[0], in_use_by=found[1])


def plan_for(entry: ModelEntry, config: EngineConfig, device: Device, in_use: InUse | None = None) -> Plan:
    """The planner's plan for ``entry`` under ``config`` on ``device``, one request at a time
    (``in_use``: what other programs hold on the card, see :func:`local_in_use`)."""
    request = PlanRequest(
        shape=shape_for(entry),
        gpu=device,
        quantization=entry.quantization or config.quantization,
        kv_cache_dtype=config.kv_cache_dtype,
        max_model_len=config.max_model_len,
        concurrency=1,
        gpu_memory_utilization=config.gpu_memory_utilization or VLLM_GPU_MEMORY_UTILIZATION,
        enforce_eager=bool(config.enforce_eager),
        kv_cache_memory_bytes=config.kv_cache_memory_bytes,
        max_num_seqs=config.max_num_seqs,
        max_num_batched_tokens=config.max_num_batched_tokens,
        limit_mm_per_prompt=config.limit_mm_per_prompt,
        mm_processor_kwargs=config.mm_processor_kwargs,
        **speed.request_fields(config, _host_memory() if config.kv_offloading_size else None),
        in_use_bytes=in_use[0] if in_use is not None else None,
        in_use_by=in_use[1] if in_use is not None else (),
    )
    return plan(request)


def _host_memory() -> int:
    import psutil

    return int(psutil.virtual_memory().total)


def fit_of(
    entry: ModelEntry, preset: Preset, overrides: Mapping[str, Any], device: Device, in_use: InUse | None = None
) -> Fit:
    """One row: the same configuration Load would use for it (``preset.config_for``), planned."""
    if not entry.available:
        return Fit(entry.name, "files-missing", entry.path)
    try:
        verdict = plan_for(entry, preset.config_for(entry, **overrides), device, in_use).verdict
    except Exception as exc:  # one unreadable model must not hide the others' verdicts
        return Fit(entry.name, "error", str(exc))
    return Fit(entry.name, verdict)


def fit_table(
    entries: Sequence[ModelEntry],
    preset: Preset,
    overrides: Mapping[str, Any],
    device: Device,
    in_use: InUse | None = None,
) -> dict[str, Fit]:
    """Every model's :class:`Fit` (by name) under ``preset`` (a loaded
    :class:`console.presets.Preset`) with the knob ``overrides``."""
    return {e.name: fit_of(e, preset, overrides, device, in_use) for e in entries}


#: One planning round of the Models panel: the device, every model's fit, and for the selected model
#: either (plan, config) or the reason it cannot be planned (None: no model selected).
Planned = tuple[Device, dict[str, Fit], tuple[Plan, EngineConfig] | str | None]


def plan_models(
    entries: Sequence[ModelEntry],
    preset: Preset,
    overrides: Mapping[str, Any],
    device: Device,
    selected: ModelEntry | None,
    in_use: InUse | None = None,
) -> Planned:
    """Every model's fit and the selected one's plan under ``preset`` and ``overrides`` (``in_use``:
    what other programs hold on the card)."""
    fits = fit_table(entries, preset, overrides, device, in_use)
    if selected is None:
        return device, fits, None
    try:
        selected.check_available()
        config = preset.config_for(selected, **overrides)
    except Exception as exc:  # the reason, shown where the plan would be
        return device, fits, str(exc)
    return device, fits, (plan_for(selected, config, device, in_use), config)


__all__ = [
    "Device",
    "Fit",
    "FitVerdict",
    "InUse",
    "card_profile",
    "cpu_device",
    "is_local_card",
    "this_machine",
    "local_in_use",
    "with_local_in_use",
    "Planned",
    "fit_of",
    "fit_table",
    "plan_for",
    "plan_models",
    "planner_device",
]
