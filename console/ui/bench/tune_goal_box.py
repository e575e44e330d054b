"""The Auto-tune page's goal and prompts: what to optimise (throughput, one user, many users with
p95 TTFT / TPOT limits) and which prompts to run (the Bench workload above, a batch file of the
user's own prompts, or their saved conversations replayed turn by turn). It only reads the
controls; the tune itself runs on the page's worker thread.

Signals:
    goalChanged(str): the goal's kind ("throughput", "one-user", "many") when the user picks another.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QWidget,
)

from console.bench.tune_goal import Goal
from console.bench.user_workloads import from_conversations, from_prompts_file
from console.bench.workload import Workload
from console.chat.conversations import ConversationStore

#: Prompt sources, by the data of the source combo's items.
SOURCES = ("bench", "file", "conversations")
#: Most saved answers replayed (the most recent ones): one at a time, a long history would run for hours.
MAX_REPLAYED = 64


class TuneGoalBox(QWidget):
    goalChanged = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        self.goal_combo = QComboBox(self)
        for kind, text in (
            ("throughput", self.tr("Throughput: the most output tok/s")),
            ("one-user", self.tr("One user: the lowest time per output token, one request in flight")),
            ("many", self.tr("Many users: the most tok/s within latency limits")),
        ):
            self.goal_combo.addItem(text, kind)
        self.goal_combo.setToolTip(
            self.tr(
                "One user tries n-gram speculation at a few draft lengths, an EAGLE-3 draft head when the "
                "store has one for this model, an FP8 KV cache where the device takes one and the chunked-"
                "prefill size, and reports the time to the first token on the longest prompt."
            )
        )
        self.goal_combo.currentIndexChanged.connect(self._on_goal_combo_changed)
        form.addRow(self.tr("Goal:"), self.goal_combo)
        self.max_ttft = self._limit_spin()
        self.max_tpot = self._limit_spin()
        row = QHBoxLayout()
        row.addWidget(QLabel(self.tr("p95 TTFT at most"), self))
        row.addWidget(self.max_ttft)
        row.addWidget(QLabel(self.tr("p95 TPOT at most"), self))
        row.addWidget(self.max_tpot)
        row.addStretch(1)
        form.addRow(self.tr("Limits:"), row)
        self.source_combo = QComboBox(self)
        for source, text in zip(
            SOURCES,
            (
                self.tr("The Bench workload above"),
                self.tr("Your prompts: a batch file"),
                self.tr("Your saved conversations"),
            ),
        ):
            self.source_combo.addItem(text, source)
        self.source_combo.currentIndexChanged.connect(self._update)
        self.file_edit = QLineEdit(self)
        self.file_edit.setPlaceholderText(self.tr("a JSONL, CSV or OpenAI batch file; each answer its max_tokens long"))
        row = QHBoxLayout()
        row.addWidget(self.source_combo)
        row.addWidget(self.file_edit, 1)
        form.addRow(self.tr("Prompts:"), row)
        self._update()

    def _limit_spin(self) -> QDoubleSpinBox:
        spin = QDoubleSpinBox(self)
        spin.setRange(0, 600_000)
        spin.setDecimals(0)
        spin.setSuffix(self.tr(" ms"))
        spin.setSpecialValueText(self.tr("no limit"))  # 0
        return spin

    def _on_goal_combo_changed(self, _index: int) -> None:
        self._update()
        self.goalChanged.emit(self.kind())

    def _update(self) -> None:
        many = self.kind() == "many"
        self.max_ttft.setEnabled(many)
        self.max_tpot.setEnabled(many)
        self.file_edit.setEnabled(self.source() == "file")

    def kind(self) -> str:
        return str(self.goal_combo.currentData())

    def source(self) -> str:
        return str(self.source_combo.currentData())

    def set_goal(self, kind: str, max_ttft_ms: float = 0.0, max_tpot_ms: float = 0.0) -> None:
        self.goal_combo.setCurrentIndex(self.goal_combo.findData(kind))
        self.max_ttft.setValue(max_ttft_ms)
        self.max_tpot.setValue(max_tpot_ms)

    def set_source(self, source: str, path: str = "") -> None:
        self.source_combo.setCurrentIndex(self.source_combo.findData(source))
        self.file_edit.setText(path)

    def restore(self, goal: dict[str, object], workload: dict[str, object]) -> None:
        """The controls as a saved tune had them: its goal and where its prompts came from (a batch
        file's path is not saved: the one typed stays)."""
        g = Goal.from_dict(goal)
        self.set_goal(g.kind, g.max_ttft_ms or 0.0, g.max_tpot_ms or 0.0)
        source = {"your prompts": "file", "your conversations": "conversations"}.get(
            str(workload.get("source")), "bench"
        )
        self.set_source(source, self.file_edit.text())

    def goal(self) -> Goal:
        """The goal the controls say; ValueError (a message for the user) for a "many" without a limit."""
        kind = self.kind()
        if kind != "many":
            return Goal(kind)
        ttft, tpot = self.max_ttft.value() or None, self.max_tpot.value() or None
        if ttft is None and tpot is None:
            raise ValueError(self.tr("Many users: set a p95 TTFT or TPOT limit."))
        return Goal(kind, ttft, tpot)

    def workload(self, bench: Workload) -> Workload:
        """The prompts to tune on: ``bench`` (the Bench workload), the batch file's or the saved
        conversations'. ValueError/OSError with a message for the user."""
        if self.source() == "file":
            path = self.file_edit.text().strip()
            if not path:
                raise ValueError(self.tr("Choose the batch file of your prompts."))
            return from_prompts_file(path, bench.output_len)
        if self.source() == "conversations":
            store = ConversationStore()
            try:
                return from_conversations(store, max_requests=MAX_REPLAYED)
            finally:
                store.close()
        return bench
