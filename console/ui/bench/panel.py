"""The Bench tab: measure the loaded engine on a workload (synthetic or a prompt file) at a request
rate or concurrency, optionally against plain vLLM and Hugging Face in fresh processes, and
auto-tune its knobs (the Auto-tune page, :mod:`console.ui.bench.tune_page`).

The work is the core's (:func:`console.bench.suite.run_console_suite`,
:func:`console.bench.baselines.run_baseline`) on a :class:`~console.ui.tasks.BackgroundCall`
worker; progress comes back through its queued ``progressed`` signal, Cancel sets its task's flag
(in-flight requests are aborted and the engine stays loaded). The GUI thread never waits.

Signals:
    benchFinished(object): the report dict of a finished run, or a message (str) when it failed
        or was cancelled.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QRadioButton,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from console.bench.workload import Workload
from console.engine.interface import as_loader
from console.engine.types import EngineState, EngineStatus
from console.jobs import Progress, TaskState
from console.ui.bench.charts import BenchPlots
from console.ui.core_text import translate_core_text
from console.ui.context import AppContext
from console.ui.tasks import BackgroundCall
from console.ui.widgets import ErrorLabel, VerticalScroll, needs_loader_tip
from console.atomic import atomic_write_json
from console.bench import workload as wl
from console.bench.baselines import run_baseline
from console.bench.report import add_comparison
from console.bench.suite import base_report, parse_concurrencies, run_console_suite, vocab_size
from console.engine.in_process import dtype_note, prepare_config
from console.ui.bench.tune_page import TunePage
from console.ui.theme import text_colour

#: Results table columns after the path: (figure key, percentile, scale, format).
COLUMNS = (
    ("output_tokens_per_s", None, 1, "{:.1f}"),
    ("total_tokens_per_s", None, 1, "{:.1f}"),
    ("requests_per_s", None, 1, "{:.2f}"),
    ("ttft_s", "p50", 1000, "{:.0f}"),
    ("ttft_s", "p99", 1000, "{:.0f}"),
    ("itl_s", "p99", 1000, "{:.1f}"),
    ("e2e_s", "p99", 1, "{:.2f}"),
)


def _spin(parent: QWidget, lo: int, hi: int, value: int, special: str = "") -> QSpinBox:
    s = QSpinBox(parent)
    s.setRange(lo, hi)
    s.setValue(value)
    if special:
        s.setSpecialValueText(special)
    return s


class BenchPanel(QWidget):
    benchFinished = Signal(object)

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.call: BackgroundCall | None = None
        self.report: dict[str, Any] | None = None
        self._outcome: object = None
        self._status = ctx.engine.status if ctx.engine is not None else EngineStatus(EngineState.STOPPED)
        self._build()
        if ctx.bridge is not None:
            ctx.bridge.statusChanged.connect(self._on_bridge_status_changed)
        self._update_buttons()

    # -- layout --------------------------------------------------------------------------------
    def _build(self) -> None:
        layout = QVBoxLayout(self)
        top = QHBoxLayout()
        top.addWidget(self._workload_box(), 3)
        top.addWidget(self._load_box(), 2)
        layout.addLayout(top)  # the baselines sit on the Benchmark page (auto-tune has none): narrower
        self.pages = QTabWidget(self)
        self.pages.addTab(self._bench_page(), self.tr("Benchmark"))

        self.tune = TunePage(self.ctx, self.workload, self, other_busy=self.busy)
        self.tune.tuneFinished.connect(self._on_tune_finished)
        # its goals, its table and its charts scroll as one page rather than making the window
        # taller than a laptop's screen
        self.pages.addTab(VerticalScroll(self.tune, self), self.tr("Auto-tune"))
        layout.addWidget(self.pages, 1)

    def _workload_box(self) -> QGroupBox:
        box = QGroupBox(self.tr("Workload"), self)
        form = QFormLayout(box)
        self.synthetic_radio = QRadioButton(self.tr("Synthetic"), box)
        self.file_radio = QRadioButton(self.tr("Prompt file"), box)
        self.synthetic_radio.setChecked(True)
        group = QButtonGroup(box)
        group.addButton(self.synthetic_radio)
        group.addButton(self.file_radio)
        row = QHBoxLayout()
        row.addWidget(self.synthetic_radio)
        row.addWidget(self.file_radio)
        row.addStretch(1)
        form.addRow(self.tr("Prompts:"), row)
        self.num_prompts = _spin(box, 1, 100000, 32)
        self.input_len = _spin(box, 1, 131072, 128)
        self.output_len = _spin(box, 1, 131072, 64)
        size = QGridLayout()  # two rows: one would widen the window past a laptop's screen
        for i, (label, w) in enumerate(
            (
                (self.tr("count"), self.num_prompts),
                (self.tr("input tokens"), self.input_len),
                (self.tr("output tokens"), self.output_len),
            )
        ):
            size.addWidget(QLabel(label, box), min(i, 1), 2 * max(i - 1, 0))
            size.addWidget(w, min(i, 1), 2 * max(i - 1, 0) + 1)
        size.setColumnStretch(4, 1)
        form.addRow(self.tr("Size:"), size)
        row = QHBoxLayout()
        self.file_edit = QLineEdit(box)
        self.file_edit.setPlaceholderText(self.tr("JSONL, CSV or OpenAI batch file (prompts cycled to the count)"))
        self.file_button = QPushButton(self.tr("Open…"), box)
        self.file_button.clicked.connect(self._on_file_button_clicked)
        row.addWidget(self.file_edit, 1)
        row.addWidget(self.file_button)
        form.addRow(self.tr("File:"), row)
        return box

    def _load_box(self) -> QGroupBox:
        box = QGroupBox(self.tr("Load"), self)
        form = QFormLayout(box)
        self.request_rate = QDoubleSpinBox(box)
        self.request_rate.setRange(0.0, 100000.0)
        self.request_rate.setDecimals(1)
        self.request_rate.setSpecialValueText(self.tr("all at once"))
        self.request_rate.setSuffix(self.tr(" req/s"))
        form.addRow(self.tr("Request rate (Poisson):"), self.request_rate)
        self.max_concurrency = _spin(box, 0, 100000, 0, self.tr("no limit"))
        form.addRow(self.tr("Max concurrency:"), self.max_concurrency)
        self.sweep_edit = QLineEdit(box)
        self.sweep_edit.setPlaceholderText(self.tr("e.g. 1,4,16,64 (optional)"))
        self.sweep_edit.setToolTip(
            self.tr(
                "Also run the console path at each of these concurrencies: "
                "throughput vs concurrency and the fraction of the roofline"
            )
        )
        form.addRow(self.tr("Concurrency sweep:"), self.sweep_edit)
        return box

    def _baselines_box(self) -> QGroupBox:
        box = QGroupBox(self.tr("Baselines (same prompts, fresh process)"), self)
        col = QVBoxLayout(box)
        self.vllm_check = QCheckBox(self.tr("Plain vLLM LLM.generate"), box)
        self.hf_check = QCheckBox(self.tr("Hugging Face generate (static batches)"), box)
        self.hf_batch = _spin(box, 1, 4096, 16)
        row = QHBoxLayout()
        row.addWidget(QLabel(self.tr("HF batch size:"), box))
        row.addWidget(self.hf_batch)
        row.addStretch(1)
        note = QLabel(
            self.tr("They load their own copy of the model next to the console's: on a GPU they need free memory."), box
        )
        note.setWordWrap(True)
        text_colour(note, lambda c: c.muted)
        for w in (self.vllm_check, self.hf_check):
            col.addWidget(w)
        col.addLayout(row)
        col.addWidget(note)
        col.addStretch(1)
        return box

    def _bench_page(self) -> QWidget:
        page = QWidget(self)
        layout = QVBoxLayout(page)
        row = QHBoxLayout()
        self.run_button = QPushButton(self.tr("Run bench"), page)
        self.run_button.clicked.connect(self._on_run_button_clicked)
        self.cancel_button = QPushButton(self.tr("Cancel"), page)
        self.cancel_button.clicked.connect(self.cancel)
        self.save_button = QPushButton(self.tr("Save report…"), page)
        self.save_button.clicked.connect(self._on_save_button_clicked)
        self.progress = QProgressBar(page)
        self.progress.setRange(0, 1000)
        self.progress.setTextVisible(False)
        for w in (self.run_button, self.cancel_button, self.save_button):
            row.addWidget(w)
        row.addWidget(self.progress, 1)
        layout.addLayout(row)
        self.status_label = QLabel(self.tr("Load a model, choose a workload and run."), page)
        self.status_label.setWordWrap(True)
        layout.addWidget(self.status_label)
        self.error = ErrorLabel(page)
        layout.addWidget(self.error)
        split = QSplitter(Qt.Orientation.Vertical, page)
        self.table = QTableWidget(0, len(COLUMNS) + 2, split)
        self.table.setHorizontalHeaderLabels(
            [
                self.tr("path"),
                self.tr("out tok/s"),
                self.tr("total tok/s"),
                self.tr("req/s"),
                self.tr("TTFT p50 ms"),
                self.tr("TTFT p99 ms"),
                self.tr("ITL p99 ms"),
                self.tr("e2e p99 s"),
                self.tr("console ÷ this path"),
            ]
        )
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.plots = BenchPlots(split)
        split.addWidget(self.table)
        split.addWidget(self.plots)
        split.setSizes([140, 490])  # room for console + two baselines
        below = QHBoxLayout()
        below.addWidget(self._baselines_box(), 0)
        below.addWidget(split, 1)
        layout.addLayout(below, 1)
        return page

    # -- the workload --------------------------------------------------------------------------------
    def workload(self) -> Workload:
        """The workload the form describes (raises ValueError with a message for the user)."""

        if self.file_radio.isChecked():
            path = self.file_edit.text().strip()
            if not path:
                raise ValueError(self.tr("Choose a prompt file, or pick synthetic prompts."))
            return wl.from_file(path, self.output_len.value(), self.num_prompts.value())
        config = self.ctx.engine.config if self.ctx.engine is not None else None
        if config is None:
            raise ValueError(self.tr("Load a model first."))
        return wl.synthetic(
            self.num_prompts.value(), self.input_len.value(), self.output_len.value(), vocab_size(config.model)
        )

    def _on_file_button_clicked(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, self.tr("Prompt file"), "", self.tr("Prompt files (*.jsonl *.json *.csv);;All files (*)")
        )
        if path:
            self.file_edit.setText(path)
            self.file_radio.setChecked(True)

    # -- running ---------------------------------------------------------------------------------------
    def _on_run_button_clicked(self) -> None:
        self.run()

    def run(self) -> bool:
        """Start a bench on the loaded engine; False (and a message) when it cannot start."""

        self.error.clear_text()
        if self.busy() or self.tune.busy():
            return False
        try:
            workload = self.workload()
            sweep = parse_concurrencies(self.sweep_edit.text())
        except (ValueError, OSError) as exc:
            self.error.show_text(str(exc))
            return False
        rate = self.request_rate.value() or None
        conc = self.max_concurrency.value() or None
        # Baselines rebuild the loaded configuration in a fresh process: a remote server's is unknown.
        can_load = as_loader(self.ctx.engine) is not None
        baselines = [k for k, c in (("vllm", self.vllm_check), ("hf", self.hf_check)) if c.isChecked() and can_load]
        engine, hf_batch, file_path = self.ctx.engine, self.hf_batch.value(), self.file_edit.text().strip()
        input_len = None if self.file_radio.isChecked() else self.input_len.value()

        def job(state: TaskState) -> dict[str, Any]:
            if engine.config is not None:
                prepared, device = prepare_config(engine.config)
                kwargs = prepared.engine_kwargs()
            else:  # a remote server: its configuration is its own
                info = engine.status.info
                kwargs, device = {}, info.device if info is not None else "server"
            report = base_report(
                engine.status.model or str(kwargs.get("model", "")),
                kwargs,
                device,
                workload,
                input_len=input_len,
                output_len=workload.output_len,
                dataset_path=file_path if input_len is None else None,
                request_rate=rate,
                max_concurrency=conc,
                concurrency_sweep=sweep,
            )
            info = engine.status.info  # engine.config is already prepared: the note made at load says why
            report["dtype_choice"] = (
                info.dtype_note
                if info is not None and info.dtype_note
                else dtype_note(engine.config, device)
                if engine.config is not None
                else ""
            )
            suite = run_console_suite(
                engine, workload, request_rate=rate, max_concurrency=conc, concurrency_sweep=sweep, task=state
            )
            report["results"]["console"] = suite["console"]
            report["concurrency_sweep"] = suite["concurrency_sweep"]
            report["roofline"] = suite.get("roofline")
            for kind in baselines:
                state.report(f"baseline {kind} (fresh process)", None)
                report["results"][kind] = run_baseline(
                    kind, kwargs, workload, request_rate=rate, max_concurrency=conc, hf_batch_size=hf_batch, task=state
                )
            add_comparison(report)  # a ratio only between runs under the same concurrency and arrivals
            return report

        call = BackgroundCall(lambda: job(call.state), parent=self)
        call.progressed.connect(self._on_call_progressed)
        call.succeeded.connect(self._on_call_succeeded)
        call.failed.connect(self._on_call_failed)
        call.cancelled.connect(self._on_call_cancelled)
        call.finished.connect(self._on_call_finished)
        self.call = call
        self._outcome = "cancelled"  # until the call says otherwise
        self.progress.setValue(0)
        self.status_label.setText(self.tr("Running {0}…").format(workload.name))
        call.start()
        self._update_buttons()
        return True

    def busy(self) -> bool:
        return self.call is not None

    def cancel(self) -> None:
        if self.call is not None:
            self.call.state.cancel()
            self.status_label.setText(self.tr("Cancelling…"))
            self.cancel_button.setEnabled(False)

    def _on_call_progressed(self, p: Progress) -> None:
        # Requests report progress from the engine's thread too, so a report can arrive after the
        # outcome (or the cancel) it precedes; it must not overwrite that text.
        if self.call is None or self.call.state.cancelled:
            return
        if p.fraction is None:
            self.progress.setRange(0, 0)
        else:
            self.progress.setRange(0, 1000)
            self.progress.setValue(int(1000 * p.fraction))
        self.status_label.setText(p.stage)

    def _on_call_succeeded(self, report: dict[str, Any]) -> None:
        self.show_report(report)
        done = self.tr("Done: {0}").format(report["workload"]["name"])
        t = ((report.get("results") or {}).get("console") or {}).get("thinking")
        if t:  # a reasoning model: how much of its output was thinking
            done += " " + self.tr("Thinking: {0} of {1} output tokens ({2} answer).").format(
                t["reasoning_tokens"], t["output_tokens"], t["answer_tokens"]
            )
        self.status_label.setText(done)
        self._outcome = report

    def _on_call_failed(self, message: str) -> None:
        self.error.show_text(self.tr("The bench failed: {0}").format(message))
        self.status_label.setText(self.tr("Failed."))
        self._outcome = message

    def _on_call_cancelled(self) -> None:
        self.status_label.setText(self.tr("Cancelled; the engine stays loaded."))
        self._outcome = "cancelled"

    def _on_call_finished(self) -> None:
        self.call = None
        self.progress.setRange(0, 1000)
        self._update_buttons()
        self.benchFinished.emit(self._outcome)  # last: listeners see the panel ready again

    # -- results ------------------------------------------------------------------------------------
    def show_report(self, report: dict[str, Any]) -> None:
        self.report = report
        results = report.get("results") or {}
        names = {"console": self.tr("console"), "vllm": self.tr("plain vLLM"), "hf": self.tr("Hugging Face")}
        self.table.setRowCount(len(results))
        if "ratio_notes" not in report:  # a report made elsewhere (or before ratios had conditions)
            report = dict(report)
            add_comparison(report)
        ratios, notes = report.get("ratios") or {}, report.get("ratio_notes") or {}
        for r, (kind, fig) in enumerate(results.items()):
            self.table.setItem(r, 0, QTableWidgetItem(names.get(kind, kind)))
            if "error" in fig:
                item = QTableWidgetItem(self.tr("failed: {0}").format(fig["error"]))
                item.setToolTip(fig["error"])
                self.table.setItem(r, 1, item)
                self.table.setSpan(r, 1, 1, len(COLUMNS) + 1)
                continue
            for c, (key, pct, scale, fmt) in enumerate(COLUMNS, start=1):
                v = fig.get(key) if pct is None else (fig.get(key) or {}).get(pct)
                item = QTableWidgetItem("—" if v is None else fmt.format(v * scale))
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(r, c, item)
            # console ÷ vLLM: the console's overhead (budget 3%), only between runs of the same
            # concurrency and arrivals; otherwise "—" and the reason as its tooltip
            v = 1.0 if kind == "console" else ratios.get(f"console/{kind}")
            item = QTableWidgetItem("—" if v is None else f"{v:.3f}")
            if f"console/{kind}" in notes:
                item.setToolTip(translate_core_text(notes[f"console/{kind}"]))
            self.table.setItem(r, len(COLUMNS) + 1, item)
        self.table.resizeRowsToContents()
        self.plots.show_report(report)
        self._update_buttons()

    def _on_save_button_clicked(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, self.tr("Save bench report"), "bench-report.json", self.tr("JSON (*.json)")
        )
        if path:
            self.save_report(Path(path))

    def save_report(self, path: Path) -> None:
        """The last run's report (with the auto-tune trials, when there are any) as JSON."""

        report = dict(self.report or {})
        if self.tune.result is not None:
            report["tune"] = self.tune.result.to_dict()
        try:
            atomic_write_json(path, report)
        except OSError as exc:
            self.error.show_text(self.tr("Could not save the report: {0}").format(exc))
            return
        self.status_label.setText(self.tr("Report saved to {0}").format(path))

    # -- engine state ---------------------------------------------------------------------------------
    def _on_bridge_status_changed(self, status: EngineStatus) -> None:
        self._status = status
        self._update_buttons()
        self.tune.set_engine_status(status)

    def _update_buttons(self) -> None:
        ready = self._status.state == EngineState.READY
        busy = self.busy() or self.tune.busy()
        self.run_button.setEnabled(ready and not busy)
        self.cancel_button.setEnabled(self.busy())
        self.save_button.setEnabled(not busy and (self.report is not None or self.tune.result is not None))
        can_load = as_loader(self.ctx.engine) is not None
        for check in (self.vllm_check, self.hf_check):
            check.setEnabled(can_load and not busy)
            check.setToolTip("" if can_load else needs_loader_tip())
        hints = (self.tr("Load a model to run a bench on it."), self.tr("Load a model, choose a workload and run."))
        if not ready and not busy:
            self.status_label.setText(hints[0])
        elif ready and self.status_label.text() in hints:  # that was true before this load
            self.status_label.setText(self.tr("Choose a workload and press Run."))
        self.tune._update_buttons()

    def _on_tune_finished(self, _outcome: object) -> None:
        self._update_buttons()

    def shutdown(self) -> None:
        """Ask running work to stop (the window is closing)."""
        self.cancel()
        self.tune.cancel()
