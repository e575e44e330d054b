"""A load's phases as text: one line while loading (the load banner), and the finished load's
summary, a phase a line with what it covers (the status bar's tooltip)."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QCoreApplication

from console.engine.load_phases import PHASE_HELP, PHASE_LABELS, Phase, PhaseName
from console.ui.core_text import translate_core_text


def _tr(text: str) -> str:
    return QCoreApplication.translate("LoadPhases", text)


def phase_text(phase: Phase) -> str:
    """ "Weights 3.1 s"."""
    return _tr("{0} {1} s").format(translate_core_text(phase.label), f"{phase.seconds:.1f}")


def phases_line(done: Sequence[Phase], current: PhaseName | None = None, current_seconds: float = 0.0) -> str:
    """ "Weights 3.1 s · Compile 12.4 s · now: CUDA graphs 5 s…" ("" with nothing to say)."""
    parts = [phase_text(p) for p in done]
    if current is not None:
        label = translate_core_text(PHASE_LABELS[current])
        parts.append(_tr("now: {0} {1} s…").format(label, f"{current_seconds:.0f}"))
    return " · ".join(parts)


def phases_summary(done: Sequence[Phase], load_seconds: float) -> str:
    """The finished load, a phase a line: its seconds, what it covers, vLLM's own figure."""
    if not done:
        return ""
    lines = [_tr("Loaded in {0} s:").format(f"{load_seconds:.1f}")]
    for p in done:
        line = _tr("{0} — {1}").format(phase_text(p), translate_core_text(PHASE_HELP[p.name]))
        if p.detail:
            line += f" ({p.detail})"
        if p.reported_seconds is not None:
            line += " " + _tr("[vLLM: {0} s]").format(f"{p.reported_seconds:.2f}")
        lines.append(line)
    return "\n".join(lines)


__all__ = ["phase_text", "phases_line", "phases_summary"]
