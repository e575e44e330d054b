"""The phases of an engine load (start-up, weights, compile, KV cache, CUDA graphs, warm-up, front
end), read from vLLM's own log lines as they pass.

vLLM logs the end of each phase from its engine-core and worker processes (0.26 .. 0.32 wordings)::

    Starting to load model /models/tiny...                 (start-up ends: processes, imports)
    Loading weights took 0.00 seconds                      (the loader)
    Model loading took 15.0 GiB and 1.84 seconds           (the GPU runner; 0.32+: "GiB memory and")
    Warming up model for the compilation... / Warming up done.          (the CPU runner compiling)
    Starting torch.compile / torch.compile took 12.31 s in total        (the GPU, VLLM_COMPILE)
    CPU KV cache size: 65,536 tokens, Maximum concurrency ...           (0.26: "GPU KV cache size: N tokens")
    Graph capturing finished in 6 secs, took 0.59 GiB
    init engine (profile, create kv cache, warmup model) took 0.04 s

A phase lasts from the end of the one before it to the line that ends it, by the time each line was
logged (:class:`PhaseClock` is fed ``(time, message)``), so the phases of a load never overlap and
add up to no more than its wall time; vLLM's own figure, where its line has one, is kept beside
(``reported_seconds``; vLLM's "Loading weights took 0.00 seconds" leaves out building the model,
for one). A phase that ends twice (a second worker's weights, an encoder's compile) adds up.
Phases that do not happen on a load (no CUDA graphs on the CPU, no compile when eager) are absent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Literal

from console.messages import Message

PhaseName = Literal["start", "weights", "compile", "kv_cache", "cuda_graphs", "warmup", "front_end"]

#: Each phase's name as shown (the window translates them).
PHASE_LABELS: dict[PhaseName, Message] = {
    "start": Message("Start-up"),
    "weights": Message("Weights"),
    "compile": Message("Compile"),
    "kv_cache": Message("KV cache"),
    "cuda_graphs": Message("CUDA graphs"),
    "warmup": Message("Warm-up"),
    "front_end": Message("Front end"),
}

#: What each phase covers (a tooltip).
PHASE_HELP: dict[PhaseName, Message] = {
    "start": Message("vLLM's engine processes starting: imports, configuration, the worker"),
    "weights": Message("building the model and reading its weights"),
    "compile": Message("torch.compile of the model (absent when eager)"),
    "kv_cache": Message("measuring memory and sizing the KV cache"),
    "cuda_graphs": Message("capturing CUDA graphs (GPU, not eager)"),
    "warmup": Message("allocating the KV cache and warming the model up"),
    "front_end": Message("after the engine core: vLLM's front end, the tokenizer, a server's API"),
}

_NUM = r"([\d.]+)"

#: (pattern, the phase its line ends, the group holding vLLM's seconds, the group of a detail)
_END_LINES: tuple[tuple[str, PhaseName, int, int], ...] = (
    (r"Starting to load model ", "start", 0, 0),
    (rf"Loading weights took {_NUM} seconds", "weights", 1, 0),
    (rf"Model loading took {_NUM} GiB(?: memory)? and {_NUM} seconds", "weights", 2, 1),
    (rf"torch\.compile (?:took|takes) {_NUM} s in total", "compile", 1, 0),
    (rf"torch\.compile and initial profiling/warmup run together took {_NUM} s", "compile", 1, 0),
    (r"Warming up done\.", "compile", 0, 0),
    (r"(?:GPU|CPU|XPU|TPU)[^\]\n]*?KV cache size: ([\d,]+) tokens", "kv_cache", 0, 1),
    (rf"Graph capturing finished in {_NUM} secs?, took {_NUM} GiB", "cuda_graphs", 1, 2),
    (rf"init engine \(profile, create kv cache, warmup model\) took {_NUM} s", "warmup", 1, 0),
)
_ENDS = tuple((re.compile(p), phase, seconds, detail) for p, phase, seconds, detail in _END_LINES)

#: Lines that say a phase has begun (it ends with one of the lines above).
_BEGIN_LINES: tuple[tuple[str, PhaseName], ...] = (
    (r"Starting torch\.compile", "compile"),
    (r"Warming up model for the compilation", "compile"),
    (r"Dynamo bytecode transform time", "compile"),
    (r"Compiling a graph for compile range", "compile"),
    (r"Directly load (?:the compiled graph|AOT compilation)", "compile"),
)
_BEGINS = tuple((re.compile(p), phase) for p, phase in _BEGIN_LINES)

_UNITS = {"weights": "GiB", "kv_cache": "tokens", "cuda_graphs": "GiB"}


@dataclass(frozen=True)
class Phase:
    name: PhaseName
    seconds: float  # from the end of the phase before to the line that ended this one
    reported_seconds: float | None = None  # vLLM's own figure in that line, where it gives one
    detail: str = ""  # "65,536 tokens", "0.59 GiB"

    @property
    def label(self) -> Message:
        return PHASE_LABELS[self.name]

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"name": self.name, "seconds": round(self.seconds, 3)}
        if self.reported_seconds is not None:
            out["reported_seconds"] = self.reported_seconds
        if self.detail:
            out["detail"] = self.detail
        return out


@dataclass(frozen=True)
class LoadPhases:
    """A load's phases so far: those passed, in order, and the one under way with its seconds."""

    done: tuple[Phase, ...] = ()
    current: PhaseName | None = None
    current_seconds: float = 0.0  # of ``current``, when this was taken

    @property
    def total_seconds(self) -> float:
        return sum(p.seconds for p in self.done)

    def get(self, name: PhaseName) -> Phase | None:
        return next((p for p in self.done if p.name == name), None)


def parse_line(message: str) -> tuple[PhaseName, float | None, str] | None:
    """``(phase, vLLM's seconds or None, detail)`` when ``message`` (one log record's text) ends a
    phase, else None."""
    for pattern, phase, seconds_group, detail_group in _ENDS:
        match = pattern.search(message)
        if match is None:
            continue
        seconds = float(match.group(seconds_group)) if seconds_group else None
        detail = f"{match.group(detail_group)} {_UNITS[phase]}" if detail_group else ""
        return phase, seconds, detail
    return None


def begun(message: str) -> PhaseName | None:
    """The phase ``message`` says has begun, if any."""
    return next((phase for pattern, phase in _BEGINS if pattern.search(message)), None)


class PhaseClock:
    """Accumulates one load's phases from vLLM's log lines and their times (seconds, any one clock,
    e.g. ``time.time()``). ``graphs``: the load captures CUDA graphs (a GPU, not eager), so the
    phase expected after the KV cache is that one. Not thread-safe: one feeder."""

    def __init__(self, started: float, graphs: bool = False) -> None:
        self._mark = started  # where the phase under way began
        self._graphs = graphs
        self._done: list[Phase] = []
        self._current: PhaseName | None = "start"  # None: finished

    def feed(self, at: float, message: str) -> bool:
        """One log line logged at ``at``; True when it changed the phases."""
        ended = parse_line(message)
        if ended is None:
            name = begun(message)
            if name is None or name == self._current:
                return False
            self._current = name
            return True
        self._end(*ended, at=at)
        return True

    def finish(self, at: float) -> LoadPhases:
        """The load is done at ``at``: what follows vLLM's last line is the front end's."""
        self._end("front_end", None, "", at=at)
        return self.snapshot(at)

    def snapshot(self, now: float) -> LoadPhases:
        current = self._current
        return LoadPhases(tuple(self._done), current, max(0.0, now - self._mark) if current else 0.0)

    def _end(self, name: PhaseName, reported: float | None, detail: str, at: float) -> None:
        seconds = max(0.0, at - self._mark)
        self._mark = max(self._mark, at)
        for i, phase in enumerate(self._done):
            if phase.name == name:  # it ends again: a second worker, an encoder's compile
                both = None if reported is None else (phase.reported_seconds or 0.0) + reported
                self._done[i] = replace(phase, seconds=phase.seconds + seconds, reported_seconds=both)
                break
        else:
            self._done.append(Phase(name, seconds, reported, detail))
        self._current = self._next()

    def _next(self) -> PhaseName | None:
        """The phase expected next (a line that says one has begun corrects it); None: finished."""
        order: list[PhaseName] = ["start", "weights", "kv_cache", "cuda_graphs", "warmup", "front_end"]
        if not self._graphs:
            order.remove("cuda_graphs")
        seen = {p.name for p in self._done}
        if "front_end" in seen:
            return None
        last = max((order.index(name) for name in seen if name in order), default=-1)
        return next((name for name in order[last + 1 :] if name not in seen), "front_end")


__all__ = ["LoadPhases", "PHASE_HELP", "PHASE_LABELS", "Phase", "PhaseClock", "PhaseName", "begun", "parse_line"]
