"""The Models panel's "Planner" box: the verdict for the selected model under the chosen preset
and knobs, what the plan found (weights, KV cache, concurrency, problems, suggestions), and the
configuration it planned."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGroupBox, QLabel, QVBoxLayout, QWidget

from console.config import EngineConfig
from console.planner.core import Plan
from console.ui.formatting import format_bytes
from console.ui.model_table import verdict_text

_COLOURS = {"fits": "#1b7f2a", "fits-with-changes": "#b26a00"}


class PlanView(QGroupBox):
    """``verdict_label`` (rich text) over ``plan_label`` (plain, selectable)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTitle(self.tr("Planner"))
        self.verdict_label = QLabel(self)
        self.verdict_label.setWordWrap(True)
        self.verdict_label.setTextFormat(Qt.TextFormat.RichText)
        self.plan_label = QLabel(self)
        self.plan_label.setWordWrap(True)
        self.plan_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout = QVBoxLayout(self)
        layout.addWidget(self.verdict_label)
        layout.addWidget(self.plan_label)

    def show_no_selection(self) -> None:
        self.verdict_label.setText(self.tr("Select a model to see whether it fits."))
        self.plan_label.clear()

    def show_cannot_plan(self, why: str) -> None:
        self.verdict_label.setText(f"<b>{self.tr('Cannot plan')}</b>")
        self.plan_label.setText(why)

    def show_planner_failed(self, why: str) -> None:
        self.verdict_label.setText(f"<b>{self.tr('The planner failed')}</b>")
        self.plan_label.setText(why)

    def show_plan(self, p: Plan, config: EngineConfig) -> None:
        colour = _COLOURS.get(str(p.verdict), "#b00020")
        self.verdict_label.setText(f"<b style='color:{colour}'>{verdict_text(str(p.verdict))}</b>")
        self.plan_label.setText(self._plan_summary(p) + "\n" + self._config_summary(config))

    def _plan_summary(self, p: Plan) -> str:
        lines = [self.tr("Weights: {0}").format(format_bytes(p.weights_bytes)),
                 self.tr("KV cache: {0:,} tokens").format(int(p.kv_tokens)),
                 self.tr("Max concurrency at full context: {0:.1f}×").format(p.max_concurrency)]
        lines += ["⚠ " + str(problem) for problem in list(p.problems)[:2]]
        lines += ["→ " + str(getattr(s, "summary", s)) for s in list(p.suggestions)[:3]]
        lines += ["ℹ " + str(note) for note in list(p.notes)[:2]]
        return "\n".join(lines)

    def _config_summary(self, c: EngineConfig) -> str:
        parts = [self.tr("context {0}").format(c.max_model_len or self.tr("model default")),
                 self.tr("max seqs {0}").format(c.max_num_seqs or self.tr("default")),
                 self.tr("KV dtype {0}").format(c.kv_cache_dtype)]
        if c.gpu_memory_utilization:
            parts.append(self.tr("utilisation {0:.2f}").format(c.gpu_memory_utilization))
        if c.kv_cache_memory_bytes:
            parts.append(self.tr("KV cache {0}").format(format_bytes(c.kv_cache_memory_bytes)))
        return " · ".join(parts)
