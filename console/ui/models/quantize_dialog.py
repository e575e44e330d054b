"""The "Quantize…" dialog of the Models panel: pick a method or FP8 preset, watch the AWQ job
(progress per layer, ETA, log), cancel it, and read the comparison with the original at the end.

AWQ runs :func:`console.quant.pipeline.quantize_and_gate` in a background call: the job itself is a
child process, the quality gate then loads the original and the result in turn in the console's
engine (the model loaded there is unloaded). FP8 needs no job: vLLM quantizes on load; the dialog
shows the memory the planner says the preset wins, and "Measure quality" gates the model under the
preset against itself in 16 bits (on a GPU; on the CPU it says FP8 cannot be measured there). The
comparison table lists every evaluation question that went from right to wrong (✗) or back (✓).

Signals:
    logLine(str): one line of the job's log (emitted from the worker thread, shown in order).
    modelAdded(str): a quantized model that passed the gate is now in the store.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from console.engine.interface import as_loader
from console.jobs import Progress
from console.ui.context import AppContext
from console.ui.core_text import translate_core_text
from console.ui.tasks import BackgroundCall
from console.ui.widgets import needs_loader_tip
from console.quant import gate
from console.quant.evalset import load_eval_set
from console.quant.fp8 import memory_won
from console.quant.gate import GateResult
from console.quant.pipeline import quantize_and_gate, run_gate
from console.presets import load_presets

Runner = Callable[..., Any]

#: (key, preset name or None for the AWQ job)
METHODS: list[tuple[str, str | None]] = [
    ("awq", None),
    ("fp8-w8kv8", "4090-fp8-kv8"),
    ("fp8-weights", "4090-fp8"),
    ("fp8-kv", "gpu-fp8-kv"),
]


def _default_runner(*args: Any, **kwargs: Any) -> Any:
    return quantize_and_gate(*args, **kwargs)


def _default_gate_runner(store: Any, source: str, preset: str, *, task: Any, engine: Any) -> Any:
    """FP8: gate ``source`` under ``preset`` against itself in 16 bits (no job, no new model)."""

    return run_gate(
        store,
        source,
        None,
        "fp8",
        preset=preset,
        engine=engine,
        on_stage=lambda s: task.report(f"quality gate: {s}", None),
    )


class QuantizeDialog(QDialog):
    logLine = Signal(str)
    modelAdded = Signal(str)

    def __init__(
        self,
        ctx: AppContext,
        source: str,
        parent: QWidget | None = None,
        runner: Runner | None = None,
        gate_runner: Runner | None = None,
    ) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.source = source
        self._runner = runner or _default_runner
        self._gate_runner = gate_runner or _default_gate_runner
        self._call: BackgroundCall | None = None
        self.setWindowTitle(self.tr("Quantize {0}").format(source))
        self.resize(720, 560)

        self.method_combo = QComboBox(self)
        labels = {
            "awq": self.tr("AWQ int4 (w4, group 128 or 64, zero point, GEMM) — a new model"),
            "fp8-w8kv8": self.tr("FP8 weights + FP8 KV cache (preset 4090-fp8-kv8)"),
            "fp8-weights": self.tr("FP8 weights (preset 4090-fp8)"),
            "fp8-kv": self.tr("FP8 KV cache (preset gpu-fp8-kv)"),
        }
        for key, _preset in METHODS:
            self.method_combo.addItem(labels[key], key)
        self.method_combo.currentIndexChanged.connect(self._on_method_combo_changed)
        self.calib_edit = QLineEdit(self)
        self.calib_edit.setPlaceholderText(self.tr("built-in corpus"))
        self.calib_button = QPushButton(self.tr("Browse…"), self)
        self.calib_button.clicked.connect(self._on_calib_button_clicked)
        self.name_edit = QLineEdit(f"{source}-awq-w4"[:64], self)
        self.note = QLabel(self)
        self.note.setWordWrap(True)
        self.stage_label = QLabel(self)
        self.stage_label.setWordWrap(True)  # a failure says what to do in a sentence or two
        self.progress = QProgressBar(self)
        self.progress.setRange(0, 1000)
        self.log_view = QPlainTextEdit(self)
        self.log_view.setReadOnly(True)
        self.log_view.setMaximumBlockCount(2000)
        self.table = QTableWidget(0, 3, self)
        self.table.setHorizontalHeaderLabels(["", self.tr("Original"), self.tr("Quantized")])
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(True)  # answers side by side, wrapped, not one endless line
        self.verdict_label = QLabel(self)
        self.verdict_label.setWordWrap(True)

        self.start_button = QPushButton(self.tr("Start"), self)
        self.cancel_button = QPushButton(self.tr("Cancel job"), self)
        self.cancel_button.setEnabled(False)
        self.start_button.clicked.connect(self.start)
        self.cancel_button.clicked.connect(self.cancel)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.buttons.rejected.connect(self.reject)
        self.logLine.connect(self._on_job_log_line)
        self._build_layout()
        self._on_method_combo_changed()

    def _build_layout(self) -> None:
        root = QVBoxLayout(self)
        form = QFormLayout()
        form.addRow(self.tr("Method:"), self.method_combo)
        calib_row = QHBoxLayout()
        calib_row.addWidget(self.calib_edit)
        calib_row.addWidget(self.calib_button)
        form.addRow(self.tr("Calibration text:"), calib_row)
        form.addRow(self.tr("New model name:"), self.name_edit)
        root.addLayout(form)
        root.addWidget(self.note)
        row = QHBoxLayout()
        row.addWidget(self.start_button)
        row.addWidget(self.cancel_button)
        row.addStretch(1)
        root.addLayout(row)
        root.addWidget(self.stage_label)
        root.addWidget(self.progress)
        root.addWidget(self.log_view, 2)
        root.addWidget(self.table, 3)
        root.addWidget(self.verdict_label)
        root.addWidget(self.buttons)

    # -- method ---------------------------------------------------------------------------------
    def method(self) -> str:
        return str(self.method_combo.currentData())

    def _on_method_combo_changed(self, _index: int = 0) -> None:
        awq = self.method() == "awq"
        for w in (self.calib_edit, self.calib_button, self.name_edit):
            w.setEnabled(awq and self._call is None)
        self.start_button.setEnabled(self._call is None and self.can_gate())
        self.start_button.setToolTip("" if self.can_gate() else needs_loader_tip())
        self.start_button.setText(self.tr("Start") if awq else self.tr("Measure quality"))
        if awq:
            self.note.setText(
                self.tr(
                    "Runs AutoAWQ in its own process (minutes per billion parameters "
                    "on a CPU), then compares perplexity, task accuracy on {0} questions "
                    "(English and Chinese), answers, size and speed with the original in the "
                    "engine. A result whose perplexity rises more than {1}%, whose accuracy "
                    "drops more than {2} points or that gets more than {3}% of the questions "
                    "wrong that the original got right is rejected and not kept."
                ).format(
                    self._eval_size(),
                    self._limit("MAX_PPL_RISE", "awq"),
                    self._limit("MAX_ACC_DROP", "awq"),
                    self._limit("MAX_REGRESSIONS", "awq"),
                )
            )
            return
        preset = dict(METHODS)[self.method()]
        self.note.setText(
            self.tr(
                "No job needed: vLLM quantizes on load (FP8 weights need an Ada or "
                "Hopper GPU). Select the preset {0} in the Models panel. Its quality is not "
                'assumed: "Measure quality" runs the quality gate on this machine\'s GPU '
                "(limits: perplexity +{1}%, accuracy -{2} points, at most {3}% of the questions "
                "from right to wrong). Memory won for an 8B model on an RTX 4090, by the planner:"
            ).format(
                preset,
                self._limit("MAX_PPL_RISE", "fp8"),
                self._limit("MAX_ACC_DROP", "fp8"),
                self._limit("MAX_REGRESSIONS", "fp8"),
            )
        )
        self._show_memory_won(preset or "")

    @staticmethod
    def _limit(table: str, method: str) -> str:
        return f"{100 * getattr(gate, table)[method]:.0f}"

    @staticmethod
    def _eval_size() -> str:
        try:
            return str(len(load_eval_set()))
        except Exception:  # a broken install: the gate itself will say what is wrong
            return "the shipped"

    def _show_memory_won(self, preset: str) -> None:
        try:
            rows = memory_won(load_presets()[preset].engine).rows()
        except Exception as exc:  # planner or preset missing: say so, keep the dialog usable
            self.verdict_label.setText(str(exc))
            return
        self._fill_table(rows, self.tr("16-bit"), preset)

    def _fill_table(self, rows: list[tuple[str, str, str]], left: str, right: str) -> None:
        self.table.setHorizontalHeaderLabels(["", left, right])
        self.table.setRowCount(len(rows))
        for r, (label, *figures) in enumerate(rows):  # the label is the core's English: translated
            for c, text in enumerate([translate_core_text(label), *figures]):
                self.table.setItem(r, c, QTableWidgetItem(text))
        self.table.resizeRowsToContents()

    def _on_calib_button_clicked(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, self.tr("Calibration text"), "", self.tr("Text files (*.txt);;All files (*)")
        )
        if path:
            self.calib_edit.setText(path)

    # -- the job --------------------------------------------------------------------------------
    def can_gate(self) -> bool:
        """Whether the quality gate can load models in the window's engine."""
        return as_loader(self.ctx.engine) is not None

    def start(self) -> BackgroundCall | None:
        if self._call is not None or not self.can_gate():
            return None
        calib = Path(self.calib_edit.text()) if self.calib_edit.text().strip() else None
        name = self.name_edit.text().strip() or None
        preset = dict(METHODS)[self.method()]
        self.log_view.clear()
        self.table.setRowCount(0)
        self.verdict_label.clear()
        if preset is None:
            call = BackgroundCall(
                lambda: self._runner(
                    self.ctx.store,
                    self.source,
                    name,
                    calib_file=calib,
                    task=call.state,
                    on_log=self.logLine.emit,
                    engine=self.ctx.engine,
                )
            )
        else:
            call = BackgroundCall(
                lambda: self._gate_runner(self.ctx.store, self.source, preset, task=call.state, engine=self.ctx.engine)
            )
        call.progressed.connect(self._on_job_progressed)
        call.succeeded.connect(self._on_job_succeeded)
        call.failed.connect(self._on_job_failed)
        call.cancelled.connect(self._on_job_cancelled)
        call.finished.connect(self._on_job_finished)
        self._call = call
        self.cancel_button.setEnabled(True)
        self._on_method_combo_changed()
        self.stage_label.setText(self.tr("Starting…"))
        return call.start()

    def cancel(self) -> None:
        if self._call is not None:
            self._call.state.cancel()
            self.stage_label.setText(self.tr("Cancelling…"))

    def _on_job_progressed(self, p: Progress) -> None:
        eta = p.message or ("" if p.eta_s is None else self.tr("ETA {0} s").format(f"{p.eta_s:.0f}"))
        self.stage_label.setText(f"{p.stage}  {eta}".strip())
        if p.fraction is None:
            self.progress.setRange(0, 0)  # busy: the gate's stages have no length
        else:
            self.progress.setRange(0, 1000)
            self.progress.setValue(int(1000 * p.fraction))

    def _on_job_log_line(self, line: str) -> None:
        self.log_view.appendPlainText(line)

    def _on_job_succeeded(self, outcome: Any) -> None:
        self.progress.setRange(0, 1000)
        self.progress.setValue(1000)

        if isinstance(outcome, GateResult):  # an FP8 preset's gate: no new model
            self._fill_table(outcome.table(), self.source, outcome.quantized.name)
            self.verdict_label.setText(translate_core_text(outcome.message))
            self.stage_label.setText(
                self.tr("Measured")
                if outcome.passed
                else self.tr("Rejected by the quality gate: do not serve this preset for this model")
            )
            return
        gate = outcome.gate
        if gate is not None:
            self._fill_table(gate.table(), self.source, outcome.entry.name)
            self.verdict_label.setText(translate_core_text(gate.message))
        if outcome.kept:
            self.stage_label.setText(self.tr("Done: {0} is in the store").format(outcome.entry.name))
            self.modelAdded.emit(outcome.entry.name)
        else:
            self.stage_label.setText(
                self.tr("Rejected by the quality gate; {0} was not kept").format(outcome.entry.name)
            )

    def _on_job_failed(self, message: str) -> None:
        self.progress.setRange(0, 1000)
        self.progress.setValue(0)
        self.stage_label.setText(self.tr("Failed: {0}").format(message))

    def _on_job_cancelled(self) -> None:
        self.progress.setValue(0)
        self.stage_label.setText(self.tr("Cancelled; nothing was added to the store"))

    def _on_job_finished(self) -> None:
        self._call = None
        self.cancel_button.setEnabled(False)
        self._on_method_combo_changed()

    def reject(self) -> None:
        self.cancel()  # closing the dialog stops the job; the store keeps nothing half-written
        super().reject()
