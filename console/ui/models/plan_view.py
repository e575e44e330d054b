"""The Models panel's "Planner" box: the verdict for the selected model under the chosen preset
and knobs, what the plan found (weights, KV cache, concurrency, problems, suggestions) and where
each figure came from, and the configuration it planned; also the "Planner" section of the
model's Details (the calibration's status, its error against the last load, each figure's source).

The core's :func:`console.planner.selfcal.provenance` says where the figures came from
(``Plan.calibration``); this module only words it for the window.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import QGroupBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from console.config import EngineConfig
from console.planner.core import Plan
from console.planner.selfcal import last_load_text
from console.planner.suggest import Suggestion
from console.ui.core_text import translate_core_text
from console.ui.formatting import format_bytes, format_count, format_number
from console.ui.models.table import verdict_text
from console.ui.theme import Colours, set_themed_style, text_colour

#: the verdict's colour in the theme: green fits, amber fits with changes, red otherwise
_COLOURS: dict[str, Callable[[Colours], str]] = {"fits": lambda c: c.ok, "fits-with-changes": lambda c: c.warning}
_FIGURES = ("weights", "cuda_context", "activation_peak", "cuda_graphs", "kv_budget", "kv_tokens")


def _tr(text: str) -> str:
    return QCoreApplication.translate("PlanView", text)


def _figure_name(name: str) -> str:
    """A planner figure's name in the UI's language (``cuda_context`` -> "CUDA context")."""
    names = {
        "weights": _tr("weights"),
        "cuda_context": _tr("CUDA context"),
        "activation_peak": _tr("activation peak"),
        "cuda_graphs": _tr("CUDA graphs"),
        "kv_budget": _tr("KV cache budget"),
        "kv_tokens": _tr("KV cache tokens"),
    }
    return names.get(name, name)


def source_of(plan: Plan, figure: str) -> str:
    """ "estimate", "calibrated on this GPU", "measured on this GPU (...)" ... ('' when unknown),
    in the UI's language."""
    return translate_core_text(plan.calibration.get("sources", {}).get(figure, ""))


def status_line(plan: Plan) -> str | None:
    """ "Planner: <the calibration's status>", or None when the plan does not say."""
    status = plan.calibration.get("status")
    return _tr("Planner: {0}").format(translate_core_text(status)) if status else None


def details_markdown(plan: Plan | None) -> str:
    """A "Planner" section for the Details dialog: status, last-load error, each figure's source."""
    info = plan.calibration if plan is not None else {}
    if not info:
        return ""
    lines = [f"## {_tr('Planner')}", "", translate_core_text(info.get("status", ""))]
    if plan is not None and plan.rules:  # which vLLM rule and layout the figures follow
        lines += ["", translate_core_text(plan.rules["vllm"]), "", translate_core_text(plan.rules["kv_cache"])]
    last = last_load_text(info)
    if last:
        lines += ["", translate_core_text(last)]
    lines += ["", f"| {_tr('figure')} | {_tr('source')} |", "|---|---|"]
    sources = info.get("sources", {})
    lines += [
        f"| {_figure_name(name)} | {translate_core_text(sources[name])} |" for name in _FIGURES if name in sources
    ]
    return "\n".join(lines) + "\n"


class PlanView(QGroupBox):
    """``verdict_label`` (rich text) over ``plan_label`` (plain, selectable), then the planner's
    suggestions, each with an Apply that sets its knobs; ``plan`` is the plan shown (None while
    there is none, or while the next one is being computed).

    Signals:
        applyRequested(dict): a suggestion's changes (engine-config keys), as the Advisor's Apply.
    """

    applyRequested = Signal(dict)
    MAX_SUGGESTIONS = 3

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTitle(self.tr("Planner"))
        self.plan: Plan | None = None
        self.verdict_label = QLabel(self)
        self.verdict_label.setWordWrap(True)
        self.verdict_label.setTextFormat(Qt.TextFormat.RichText)
        self.plan_label = QLabel(self)
        self.plan_label.setWordWrap(True)
        self.plan_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.suggestions = QWidget(self)  # one row per suggestion: its summary and Apply
        self.suggestion_rows: list[tuple[QLabel, QPushButton]] = []
        self._suggestions_layout = QVBoxLayout(self.suggestions)
        self._suggestions_layout.setContentsMargins(0, 0, 0, 0)
        layout = QVBoxLayout(self)
        layout.addWidget(self.verdict_label)
        layout.addWidget(self.plan_label)
        layout.addWidget(self.suggestions)

    def _show_suggestions(self, suggestions: list[Suggestion]) -> None:
        box = self._suggestions_layout
        while box.count():
            item = box.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        self.suggestion_rows = []
        for s in suggestions[: self.MAX_SUGGESTIONS]:
            row = QWidget(self.suggestions)
            label = QLabel("→ " + s.summary, row)
            label.setWordWrap(True)
            apply = QPushButton(self.tr("Apply"), row)
            changes = dict(s.changes)
            apply.setToolTip(
                self.tr("Set the knobs this suggestion changes: {0}").format(
                    ", ".join(f"{k}={v}" for k, v in changes.items())
                )
            )
            apply.setVisible(s.kind == "settings" and bool(changes))  # no knob buys hardware
            apply.clicked.connect(lambda _c=False, c=changes: self.applyRequested.emit(c))
            line = QHBoxLayout(row)
            line.setContentsMargins(0, 0, 0, 0)
            line.addWidget(label, 1)
            line.addWidget(apply, 0, Qt.AlignmentFlag.AlignTop)
            box.addWidget(row)
            self.suggestion_rows.append((label, apply))

    def show_no_selection(self) -> None:
        self.plan = None
        self._show_suggestions([])
        set_themed_style(self.verdict_label, lambda c: "")
        self.verdict_label.setText(self.tr("Select a model to see whether it fits."))
        self.plan_label.clear()

    def show_cannot_plan(self, why: str) -> None:
        self.plan = None
        self._show_suggestions([])
        set_themed_style(self.verdict_label, lambda c: "")
        self.verdict_label.setText(f"<b>{self.tr('Cannot plan')}</b>")
        self.plan_label.setText(why)

    def show_planner_failed(self, why: str) -> None:
        self.plan = None
        self._show_suggestions([])
        set_themed_style(self.verdict_label, lambda c: "")
        self.verdict_label.setText(f"<b>{self.tr('The planner failed')}</b>")
        self.plan_label.setText(why)

    def show_plan(self, p: Plan, config: EngineConfig) -> None:
        self.plan = p  # its provenance goes into Details
        text_colour(self.verdict_label, _COLOURS.get(str(p.verdict), lambda c: c.error))
        self.verdict_label.setText(f"<b>{verdict_text(str(p.verdict))}</b>")
        self.plan_label.setText(self._plan_summary(p) + "\n" + self._config_summary(config))
        self._show_suggestions(list(p.suggestions))

    def _plan_summary(self, p: Plan) -> str:
        def sourced(text: str, figure: str) -> str:
            source = source_of(p, figure)
            return f"{text} ({source})" if source else text

        lines = [
            sourced(self.tr("Weights: {0}").format(format_bytes(p.loaded_weights_bytes)), "weights"),
            sourced(self.tr("KV cache: {0} tokens").format(format_count(p.kv_tokens)), "kv_tokens"),
        ]
        status = status_line(p)
        if status:
            lines.append(status)
        lines.append(self.tr("Max concurrency at full context: {0}×").format(format_number(p.max_concurrency)))
        lines += ["⚠ " + translate_core_text(problem) for problem in list(p.problems)[:2]]
        lines += ["ℹ " + translate_core_text(note) for note in list(p.notes)[:2]]
        return "\n".join(lines)

    def _config_summary(self, c: EngineConfig) -> str:
        parts = [
            self.tr("context {0}").format(c.max_model_len or self.tr("model default")),
            self.tr("max seqs {0}").format(c.max_num_seqs or self.tr("default")),
            self.tr("KV dtype {0}").format(c.kv_cache_dtype),
        ]
        if c.gpu_memory_utilization:
            parts.append(self.tr("utilisation {0:.2f}").format(c.gpu_memory_utilization))
        if c.kv_cache_memory_bytes:
            parts.append(self.tr("KV cache {0}").format(format_bytes(c.kv_cache_memory_bytes)))
        return " · ".join(parts)
