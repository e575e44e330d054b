"""Where the planner's figures came from, for the models panel: its plan summary and Details.

The core's :func:`console.planner.selfcal.provenance` says it (status, a source per figure, the
error against the last load); this module only words it for the window.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QCoreApplication

_FIGURES = ("weights", "cuda_context", "activation_peak", "cuda_graphs", "kv_budget", "kv_tokens")


def _tr(text: str) -> str:
    return QCoreApplication.translate("PlanProvenance", text)


def source_of(plan: Any, figure: str) -> str:
    """"estimate", "calibrated on this GPU", "measured on this GPU (...)" ... ('' when unknown)."""
    return str((getattr(plan, "calibration", None) or {}).get("sources", {}).get(figure, ""))


def status_line(plan: Any) -> str | None:
    info = getattr(plan, "calibration", None) or {}
    return _tr("Planner: {0}").format(info["status"]) if info.get("status") else None


def details_markdown(plan: Any) -> str:
    """A "Planner" section for the Details dialog: status, last-load error, each figure's source."""
    from console.planner.selfcal import last_load_text

    info = getattr(plan, "calibration", None) or {}
    if not info:
        return ""
    lines = [f"## {_tr('Planner')}", "", str(info.get("status", ""))]
    last = last_load_text(info)
    if last:
        lines += ["", last]
    lines += ["", f"| {_tr('figure')} | {_tr('source')} |", "|---|---|"]
    sources = info.get("sources", {})
    lines += [f"| {name} | {sources[name]} |" for name in _FIGURES if name in sources]
    return "\n".join(lines) + "\n"
