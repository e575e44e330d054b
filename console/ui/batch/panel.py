"""The Batch tab: open a file of prompts, choose sampling, run it with progress, ETA, live
throughput and cancel, see the results, export them (OpenAI batch output JSONL, CSV).

The batch itself is :func:`console.batch.runner.run_batch` (Qt-free): it runs here on a plain
worker thread, writes every finished request to the output file before it counts (so a cancel or
a crash loses nothing finished, and a re-run with "resume" skips what is done), and calls back on
that thread. The callbacks only append to deques; a 100 ms GUI timer drains them into the table
and the progress bar, so the GUI thread never waits on the batch or the engine.

Signals:
    batchFinished(object): the :class:`~console.batch.runner.BatchSummary` of a run that ended
        (completed, cancelled or stopped by an engine error), or an error message (str) when
        the run could not start or crashed.
"""

from __future__ import annotations

import collections
import shutil
import threading
from pathlib import Path
from typing import Any

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from console.batch.formats import BATCH_MAX_TOKENS, BatchFormatError, ParsedBatch, read_batch_file
from console.batch.provenance import ResumeMismatch, check_resume
from console.batch.results import BatchResult, iter_output, results_to_csv_text
from console.batch.runner import DEFAULT_CONCURRENCY, BatchProgress, BatchSummary, run_batch
from console.sampling import SamplingSettings
from console.engine.types import EngineState, EngineStatus
from console.jobs import TaskState
from console.ui.batch.results_model import BatchResultsModel
from console.ui.context import AppContext
from console.ui.core_text import translate_error
from console.ui.formatting import format_count, format_duration, format_number


class _BatchJob:
    """One run of :func:`run_batch` on a worker thread; everything it reports lands in deques."""

    def __init__(self, engine: Any, parsed: ParsedBatch, output: Path, concurrency: int | None, resume: bool) -> None:
        self.task = TaskState()
        self.results: collections.deque[BatchResult] = collections.deque()
        self.progress: BatchProgress | None = None
        self.outcome: BatchSummary | str | None = None  # set last, when the thread ends
        self._args = (engine, parsed.requests, output)
        self._concurrency, self._resume = concurrency, resume
        self.thread = threading.Thread(target=self._run, name="batch-run", daemon=True)

    def _run(self) -> None:
        engine, requests, output = self._args
        try:
            summary = run_batch(
                engine,
                requests,
                output,
                self.task,
                on_result=self.results.append,
                on_progress=self._on_runner_progress,
                concurrency=self._concurrency,
                resume=self._resume,
            )
            self.outcome = summary
        except Exception as exc:  # disk full, unreadable output file...: shown to the user
            self.outcome = f"{type(exc).__name__}: {exc}"

    def _on_runner_progress(self, progress: BatchProgress) -> None:
        self.progress = progress  # a single reference swap: the GUI reads the latest


class BatchPanel(QWidget):
    batchFinished = Signal(object)

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.parsed: ParsedBatch | None = None
        self.input_path: Path | None = None
        self.job: _BatchJob | None = None
        self.last_summary: BatchSummary | None = None
        self._prompts: dict[str, str] = {}
        self.output_path: Path | None = None
        #: The input the output field was filled or typed for (None: typed before any input):
        #: opening another input sets the output from it, so results never land in another file's
        self._output_for: Path | None = None
        self._build()
        self._poll = QTimer(self)
        self._poll.setInterval(100)
        self._poll.timeout.connect(self._on_poll_timer_timeout)
        if ctx.bridge is not None:
            ctx.bridge.statusChanged.connect(self._on_bridge_status_changed)
        self._update_buttons()

    # -- layout --------------------------------------------------------------------------------
    def _build(self) -> None:
        layout = QVBoxLayout(self)
        files = QFormLayout()
        row = QHBoxLayout()
        self.input_edit = QLineEdit(self)
        self.input_edit.setPlaceholderText(self.tr("JSONL, CSV or OpenAI batch request file"))
        self.input_edit.editingFinished.connect(self._on_input_edit_finished)
        self.open_button = QPushButton(self.tr("Open…"), self)
        self.open_button.clicked.connect(self._on_open_clicked)
        row.addWidget(self.input_edit, 1)
        row.addWidget(self.open_button)
        files.addRow(self.tr("Input:"), row)
        row = QHBoxLayout()
        self.output_edit = QLineEdit(self)
        self.output_edit.setPlaceholderText(self.tr("results are written here as they complete"))
        self.output_edit.textEdited.connect(self._on_output_edit_edited)
        self.output_button = QPushButton(self.tr("Choose…"), self)
        self.output_button.clicked.connect(self._on_output_clicked)
        self.resume_check = QCheckBox(self.tr("Resume (skip requests already in the output)"), self)
        self.resume_check.setChecked(True)
        row.addWidget(self.output_edit, 1)
        row.addWidget(self.output_button)
        row.addWidget(self.resume_check)
        files.addRow(self.tr("Output:"), row)
        layout.addLayout(files)
        self.file_label = QLabel(self.tr("No file opened."), self)
        self.file_label.setWordWrap(True)
        layout.addWidget(self.file_label)

        box = QGroupBox(self.tr("Sampling (defaults; values given in the file win)"), self)
        grid = QHBoxLayout(box)
        self.temperature = QDoubleSpinBox(box)
        self.temperature.setRange(0.0, 5.0)
        self.temperature.setSingleStep(0.1)
        self.temperature.setValue(0.7)
        self.top_p = QDoubleSpinBox(box)
        self.top_p.setRange(0.01, 1.0)
        self.top_p.setSingleStep(0.05)
        self.top_p.setValue(1.0)
        self.max_tokens = QSpinBox(box)
        self.max_tokens.setRange(1, 131072)
        self.max_tokens.setValue(BATCH_MAX_TOKENS)
        self.seed = QSpinBox(box)
        self.seed.setRange(-1, 2**31 - 1)
        self.seed.setValue(-1)
        self.seed.setSpecialValueText(self.tr("random"))
        self.concurrency = QSpinBox(box)
        self.concurrency.setRange(0, 65536)
        self.concurrency.setSpecialValueText(self.tr("all"))  # 0: every line at once (vLLM's offline batch)
        self.concurrency.setValue(DEFAULT_CONCURRENCY or 0)
        self.concurrency.setToolTip(
            self.tr(
                "Requests in flight at once. 'all' gives the engine every line "
                "together, as vLLM's offline batch does: fastest, and identical "
                "greedy lines answer alike."
            )
        )
        for label, widget in (
            (self.tr("Temperature"), self.temperature),
            (self.tr("Top-p"), self.top_p),
            (self.tr("Max tokens"), self.max_tokens),
            (self.tr("Seed"), self.seed),
            (self.tr("Concurrency"), self.concurrency),
        ):
            grid.addWidget(QLabel(label, box))
            grid.addWidget(widget)
        grid.addStretch(1)
        layout.addWidget(box)

        row = QHBoxLayout()
        self.run_button = QPushButton(self.tr("Run batch"), self)
        self.run_button.clicked.connect(self._on_run_clicked)
        self.cancel_button = QPushButton(self.tr("Cancel"), self)
        self.cancel_button.clicked.connect(self._on_cancel_clicked)
        self.progress = QProgressBar(self)
        self.progress.setRange(0, 100)
        self.progress.setValue(0)
        row.addWidget(self.run_button)
        row.addWidget(self.cancel_button)
        row.addWidget(self.progress, 1)
        layout.addLayout(row)
        self.status_label = QLabel(self)
        layout.addWidget(self.status_label)

        self.model = BatchResultsModel(self)
        self.table = QTableView(self)
        self.table.setModel(self.model)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        for col, width in enumerate((70, 260, 360, 90, 75, 75, 90)):
            self.table.setColumnWidth(col, width)
        header.setStretchLastSection(True)
        layout.addWidget(self.table, 1)

        row = QHBoxLayout()
        self.export_jsonl_button = QPushButton(self.tr("Export JSONL (OpenAI batch output)…"), self)
        self.export_jsonl_button.clicked.connect(self._on_export_jsonl_clicked)
        self.export_csv_button = QPushButton(self.tr("Export CSV…"), self)
        self.export_csv_button.clicked.connect(self._on_export_csv_clicked)
        row.addStretch(1)
        row.addWidget(self.export_jsonl_button)
        row.addWidget(self.export_csv_button)
        layout.addLayout(row)

    # -- intents -------------------------------------------------------------------------------
    def sampling_defaults(self) -> SamplingSettings:
        seed = self.seed.value()
        return SamplingSettings(
            temperature=self.temperature.value(),
            top_p=self.top_p.value(),
            max_tokens=self.max_tokens.value(),
            seed=None if seed < 0 else seed,
        )

    def open_file(self, path: Path | str) -> bool:
        """Read ``path`` (the Open button lands here); True when it has runnable requests."""
        path = Path(path)
        self.input_edit.setText(str(path))
        try:
            parsed = read_batch_file(path, self.sampling_defaults())
        except BatchFormatError as exc:
            self.parsed, self.input_path = None, None
            self.file_label.setText(self.tr("Cannot read the file: {e}").format(e=exc))
            self._update_buttons()
            return False
        previous, self.parsed, self.input_path = self.input_path, parsed, path
        typed = self.output_edit.text().strip() and (
            self._same(self._output_for, path) or (self._output_for is None and previous is None)
        )
        if not typed:  # the output follows the input (one the user chose for this input stays)
            self.output_edit.setText(str(path.with_name(path.stem + ".results.jsonl")))
        self._output_for = path
        text = self.tr("{n} requests ({fmt} format).").format(n=len(parsed.requests), fmt=parsed.format)
        if parsed.errors:
            shown = "; ".join(str(e) for e in parsed.errors[:3])
            more = len(parsed.errors) - 3
            text += " " + self.tr("{n} lines skipped: {shown}").format(n=len(parsed.errors), shown=shown)
            if more > 0:
                text += " " + self.tr("(and {m} more)").format(m=more)
        for w in parsed.warnings[:2]:
            text += " " + w
        self.file_label.setText(text)
        self._update_buttons()
        return bool(parsed.requests)

    def start(self) -> bool:
        """Run the opened file (the Run button lands here); False (with the reason shown) if not."""
        if self.job is not None or self.input_path is None:
            return False
        engine = self.ctx.engine
        if engine is None or engine.status.state != EngineState.READY:
            self.status_label.setText(self.tr("Load a model first: the engine is not ready."))
            return False
        # Re-read with the current sampling controls as defaults (the file's own values win).
        if not self.open_file(self.input_path) or self.parsed is None:
            return False
        output = Path(self.output_edit.text().strip() or self.input_path.with_suffix(".results.jsonl"))
        resume = self.resume_check.isChecked()
        if resume:  # refused here, in one line, before anything runs (run_batch checks it too)
            try:
                check_resume(output, self.parsed.requests)
            except ResumeMismatch as exc:
                self.status_label.setText(translate_error(exc))
                return False
        self._prompts = {r.custom_id: r.display_prompt for r in self.parsed.requests}
        self.model.clear()
        if resume:  # show what an earlier run already wrote: those rows are skipped now
            wanted = set(self._prompts)
            self.model.append(
                [
                    BatchResult.from_openai(o, self._prompts.get(o["custom_id"], ""))
                    for o in iter_output(output)
                    if o["custom_id"] in wanted
                ]
            )
        self.job = _BatchJob(engine, self.parsed, output, self.concurrency.value() or None, resume)
        self.output_path = output
        self.progress.setValue(0)
        self.status_label.setText(self.tr("Starting…"))
        self.job.thread.start()
        self._poll.start()
        self._update_buttons()
        return True

    def cancel(self) -> None:
        if self.job is not None:
            self.job.task.cancel()
            self.status_label.setText(self.tr("Cancelling: stopping the requests in flight…"))

    def export_jsonl(self, path: Path | str) -> int:
        """Write the run's output lines (OpenAI batch output format) to ``path``; returns lines."""
        src = self.output_path
        if src is None or not Path(src).exists():
            raise FileNotFoundError(self.tr("Run a batch first: there is no output to export."))
        path = Path(path)
        if path.resolve() == Path(src).resolve():
            return sum(1 for _ in iter_output(path))
        tmp = path.with_name(path.name + ".part")
        shutil.copyfile(src, tmp)  # the output is append-only and fsynced: a copy is consistent
        tmp.replace(path)
        return sum(1 for _ in iter_output(path))

    def export_csv(self, path: Path | str) -> int:
        path = Path(path)
        tmp = path.with_name(path.name + ".part")
        tmp.write_text(results_to_csv_text(self.model.results), encoding="utf-8")
        tmp.replace(path)
        return len(self.model.results)

    # -- slots ---------------------------------------------------------------------------------
    def _on_open_clicked(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self,
            self.tr("Open a batch file"),
            self.input_edit.text(),
            self.tr("Batch files (*.jsonl *.json *.csv);;All files (*)"),
        )
        if path:
            self.open_file(path)

    def _on_input_edit_finished(self) -> None:
        text = self.input_edit.text().strip()
        if text and (self.input_path is None or Path(text) != self.input_path):
            self.open_file(text)

    def _on_output_clicked(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, self.tr("Write results to"), self.output_edit.text(), self.tr("JSONL (*.jsonl)")
        )
        if path:
            self.output_edit.setText(path)
            self._output_for = self.input_path

    def _on_output_edit_edited(self, text: str) -> None:
        self._output_for = self.input_path  # typed for this input: re-reading it keeps the choice

    @staticmethod
    def _same(a: Path | None, b: Path) -> bool:
        return a is not None and a.resolve() == b.resolve()

    def _on_run_clicked(self) -> None:
        self.start()

    def _on_cancel_clicked(self) -> None:
        self.cancel()

    def _on_export_jsonl_clicked(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Export JSONL"), "", self.tr("JSONL (*.jsonl)"))
        if path:
            self._export(self.export_jsonl, path)

    def _on_export_csv_clicked(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Export CSV"), "", self.tr("CSV (*.csv)"))
        if path:
            self._export(self.export_csv, path)

    def _export(self, fn: Any, path: str) -> None:
        try:
            n = fn(path)
        except OSError as exc:
            self.status_label.setText(self.tr("Export failed: {e}").format(e=exc))
            return
        self.status_label.setText(self.tr("Exported {n} results to {p}").format(n=n, p=path))

    def _on_bridge_status_changed(self, status: EngineStatus) -> None:
        self._update_buttons()

    def _on_poll_timer_timeout(self) -> None:
        job = self.job
        if job is None:
            self._poll.stop()
            return
        outcome = job.outcome  # read before draining: results appended before it are all there
        batch = []
        while job.results:
            batch.append(job.results.popleft())
        self.model.append(batch)
        p = job.progress
        if p is not None:
            self.progress.setValue(int(100 * p.done / p.total) if p.total else 100)
            eta = self.tr("ETA {s}").format(s=format_duration(p.eta_s)) if p.eta_s is not None else self.tr("ETA –")
            self.status_label.setText(
                self.tr(
                    "{done}/{total} done ({failed} failed, {skipped} already done) · {eta} · "
                    "{tps} tok/s this batch · {live} tok/s engine now"
                ).format(
                    done=format_count(p.done),
                    total=format_count(p.total),
                    failed=format_count(p.failed),
                    skipped=format_count(p.skipped),
                    eta=eta,
                    tps=format_count(p.tokens_per_s),
                    live=format_count(p.live_tokens_per_s),
                )
            )
        if outcome is not None:
            self._finish(outcome)

    def _finish(self, outcome: BatchSummary | str) -> None:
        self._poll.stop()
        self.job = None
        if isinstance(outcome, str):
            self.status_label.setText(self.tr("The batch failed: {e}").format(e=outcome))
        else:
            self.last_summary = outcome
            figures = self.tr(
                "{ok} succeeded, {failed} failed, {skipped} skipped, {tok} tokens in {s} s ({tps} tok/s)"
            ).format(
                ok=format_count(outcome.succeeded),
                failed=format_count(outcome.failed),
                skipped=format_count(outcome.skipped),
                tok=format_count(outcome.output_tokens),
                s=format_number(outcome.elapsed_s, 1),
                tps=format_count(outcome.output_tokens_per_s),
            )
            if outcome.cancelled:
                head = self.tr("Cancelled ({n} not run; run again with Resume to finish):").format(n=outcome.not_run)
            elif outcome.engine_error:
                head = self.tr("Stopped: {e}.").format(e=outcome.engine_error)
            else:
                head = self.tr("Done:")
                self.progress.setValue(100)
            self.status_label.setText(f"{head} {figures}")
        self._update_buttons()
        self.batchFinished.emit(outcome)

    def _update_buttons(self) -> None:
        running = self.job is not None
        engine = self.ctx.engine
        ready = engine is not None and engine.status.state == EngineState.READY
        self.run_button.setEnabled(not running and ready and self.parsed is not None)
        self.run_button.setToolTip("" if ready else self.tr("Load a model first"))
        self.cancel_button.setEnabled(running)
        for w in (self.open_button, self.input_edit, self.output_edit, self.output_button, self.resume_check):
            w.setEnabled(not running)
        has_results = not running and bool(self.model.results)
        self.export_jsonl_button.setEnabled(has_results)
        self.export_csv_button.setEnabled(has_results)

    def shutdown(self) -> None:
        """Cancel a running batch and wait briefly for its thread (the window calls this on close)."""
        if self.job is not None:
            self.job.task.cancel()
            self.job.thread.join(timeout=10)
