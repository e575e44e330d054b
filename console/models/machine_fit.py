"""Which machine the model picker's fit badges are for, and each model's verdicts there.

The picker (and ``inference-console models curated``) speaks of the machine it runs on, as LM Studio
and Jan do:

* with an NVIDIA card (NVML), the verdict is for that card, named with its memory, counting the
  memory other programs hold on it (``console.metrics.nvml.memory_in_use_by_others``);
* without one, the verdict that counts is the CPU engine's: the weights, the CPU preset's KV
  cache and the engine's overheads in this machine's RAM (the planner's CPU arithmetic), with the
  decode speed its memory bandwidth allows; beside it, labelled and less prominent, the verdict
  on :data:`~console.models.curated.DEFAULT_CARD`, the card the curated list is made for;
* a card named by the caller that is not this machine's (``--gpu``) is that card's alone.

Pure arithmetic on inputs in memory, except :func:`picker_machines`, which asks NVML once (off the
GUI thread). The window renders :class:`MachineVerdict` values; every word is a ``Message``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from console.messages import Message
from console.models.curated import BADGE_CONTEXT, DEFAULT_CARD, CuratedModel, FitBadges, badges_on
from console.models.fit_table import Device, InUse, is_local_card, local_in_use
from console.planner.gpus import GiB, GpuProfile, get_gpu
from console.planner.request import CPU_REFUSED
from console.planner.shapes import ModelShape
from console.presets import load_presets

#: The preset the CPU engine loads with (``console.launch.default_preset_name`` without a GPU).
CPU_PRESET = "cpu-default"
#: The knobs of a preset that the badges plan with (the scheduler and the KV cache).
PLANNED_KNOBS = ("kv_cache_dtype", "kv_cache_memory_bytes", "max_num_seqs", "max_num_batched_tokens", "enforce_eager")

#: A verdict's words (the picker's cell, the CLI's column).
VERDICT_WORDS = {
    "fits": Message("fits"),
    "fits-with-changes": Message("fits with changes"),
    "does-not-fit": Message("does not fit"),
    "unknown": Message("unknown"),
}


@dataclass(frozen=True)
class Machine:
    """A machine the badges are for: its planner profile and how the picker names it."""

    profile: GpuProfile
    label: str  # "This PC (CPU engine, 24 GiB RAM)", "This PC (RTX 3060, 12 GiB)", "RTX 4090"
    this_pc: bool  # the machine the console runs on (its card, or its CPU engine)
    in_use: InUse | None = None  # what other programs hold on this machine's card
    knobs: tuple[tuple[str, Any], ...] | None = None  # the CPU preset's; None: each model's own preset's


@dataclass(frozen=True)
class MachineVerdict:
    """One model's verdict on one :class:`Machine`."""

    machine: Machine
    badges: FitBadges
    #: the CPU engine cannot run this format at all (FP8 weights): the cell says so, not "does not fit"
    needs_gpu: str = ""

    @property
    def tok_s(self) -> int:
        """The decode speed shown beside a CPU verdict (0: none shown: a GPU, or it does not fit)."""
        if not self.machine.profile.is_cpu or self.badges.verdict not in ("fits", "fits-with-changes"):
            return 0
        return max(1, round(self.badges.decode_tok_s))

    def text(self) -> Message:
        """The cell: "fits", on the CPU "fits, ~12 tok/s est.", or "needs a GPU (FP8 weights)"."""
        if self.needs_gpu:
            return Message("needs an NVIDIA GPU ({0} weights)", self.needs_gpu)
        word = VERDICT_WORDS.get(self.badges.verdict, Message("unknown"))
        return Message("{0}, ~{1} tok/s est.", word, self.tok_s) if self.tok_s else word

    def to_dict(self) -> dict[str, Any]:
        return {
            "machine": self.machine.label,
            "device": self.machine.profile.name,
            "this_pc": self.machine.this_pc,
            "verdict": self.badges.verdict,
            "tok_s_estimate": self.tok_s or None,
            "text": str(self.text()),
            "badges": self.badges.to_dict(),
        }


def short_name(profile: GpuProfile) -> str:
    """A card's name as people say it: "NVIDIA GeForce RTX 4090 (24 GB, Ada)" -> "RTX 4090"."""
    name = profile.label.split(" (")[0].removeprefix("NVIDIA ").removeprefix("GeForce ").strip()
    return name or profile.name


def _gib(n: int) -> str:
    return f"{n / GiB:.0f}"


def cpu_knobs() -> tuple[tuple[str, Any], ...]:
    """The CPU preset's planned knobs (its KV-cache size above all)."""
    preset = load_presets().get(CPU_PRESET)
    engine = dict(preset.engine) if preset is not None else {}
    return tuple((k, engine[k]) for k in PLANNED_KNOBS if engine.get(k) is not None)


def machines_for(device: Device | None, local: bool, in_use: InUse | None = None) -> list[Machine]:
    """The machines the badges are for, the prominent one first (a second: for comparison), given
    whether ``device`` is this machine's card (``local``) and what other programs hold on it.
    ``device``: a GPU profile or its name, ``cpu:<GiB>`` for this machine without a GPU, None for
    the list's own card."""
    reference = get_gpu(DEFAULT_CARD)
    if device is None:
        return [Machine(reference, short_name(reference), this_pc=False)]
    profile = get_gpu(device)
    if profile.is_cpu:
        label = Message("This PC (CPU engine, {0} GiB RAM)", _gib(profile.memory_bytes))
        return [
            Machine(profile, label, this_pc=True, knobs=cpu_knobs()),
            Machine(reference, short_name(reference), this_pc=False),
        ]
    if local:
        label = Message("This PC ({0}, {1} GiB)", short_name(profile), _gib(profile.memory_bytes))
        return [Machine(profile, label, this_pc=True, in_use=in_use)]
    return [Machine(profile, short_name(profile), this_pc=False)]


def picker_machines(device: Device | None) -> list[Machine]:
    """:func:`machines_for` with NVML's answer: whether ``device`` is this machine's card and
    what other programs hold on it. Blocks on NVML: call it off the GUI thread."""
    if device is None or (isinstance(device, str) and device.strip().lower().startswith("cpu")):
        return machines_for(device, local=False)
    profile = get_gpu(device)
    return machines_for(profile, is_local_card(profile), local_in_use(profile))


def caption(machines: Sequence[Machine]) -> Message:
    """The picker's legend: which machine the badges are for."""
    own = machines[0]
    if own.profile.is_cpu:
        ref = machines[1].profile if len(machines) > 1 else get_gpu(DEFAULT_CARD)
        return Message(
            "Fit for this PC without a GPU: the CPU engine in {0} GiB of RAM; beside it, for comparison, the {1} "
            "the list is made for",
            _gib(own.profile.memory_bytes),
            short_name(ref),
        )
    if own.this_pc and own.in_use is not None and own.in_use[0] > 0:
        return Message(
            "Fit for this PC's {0} ({1} GiB), {2} GiB of it held by other programs",
            short_name(own.profile),
            _gib(own.profile.memory_bytes),
            f"{own.in_use[0] / GiB:.1f}",
        )
    if own.this_pc:
        return Message("Fit for this PC's {0} ({1} GiB)", short_name(own.profile), _gib(own.profile.memory_bytes))
    return Message("Fit for the {0} ({1})", short_name(own.profile), own.profile.name)


def verdicts(
    shape: ModelShape | None,
    quantization: str | None,
    machines: Sequence[Machine],
    knobs: dict[str, Any] | None = None,
    unknown: str = "",
) -> tuple[MachineVerdict, ...]:
    """One model's verdict on each machine (``knobs``: its own preset's, used where the machine has
    none; ``shape`` None: unknown everywhere, ``unknown`` saying why)."""
    out = []
    for m in machines:
        if shape is None:
            badges = FitBadges(m.profile.name, BADGE_CONTEXT, "unknown", 0, 0, 0, unknown)
        else:
            planned = dict(m.knobs) if m.knobs is not None else knobs
            badges = badges_on(m.profile, shape, quantization, knobs=planned, in_use=m.in_use)
        cpu_format = (quantization or "").upper() if m.profile.is_cpu and quantization in CPU_REFUSED else ""
        out.append(MachineVerdict(m, badges, cpu_format if badges.verdict == "does-not-fit" else ""))
    return tuple(out)


def curated_verdicts(
    models: Sequence[CuratedModel], machines: Sequence[Machine]
) -> list[tuple[CuratedModel, tuple[MachineVerdict, ...]]]:
    """Each curated model with its verdict on each machine."""
    return [(m, verdicts(m.model_shape, m.quantization, machines, m.engine_knobs)) for m in models]


__all__ = [
    "CPU_PRESET",
    "Machine",
    "MachineVerdict",
    "VERDICT_WORDS",
    "caption",
    "cpu_knobs",
    "curated_verdicts",
    "machines_for",
    "picker_machines",
    "short_name",
    "verdicts",
]
