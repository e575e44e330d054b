"""The Bench tab's Auto-tune page: sweep engine knobs over the Bench workload within a time budget
(:func:`console.bench.tune.sweep` on a worker thread), every trial in a table — failed ones with
the engine's reason — a Pareto scatter of throughput vs p99 latency, and "Save as preset…" for the
chosen trial (:func:`console.bench.tune.save_as_preset`, the CLI's ``--save-preset``).

Each trial reloads the engine with its knobs; when the sweep ends (done, cancelled or failed) the
model the user had loaded is loaded again with its own configuration.

Signals:
    tuneFinished(object): the :class:`~console.bench.tune.SweepResult`, or a message (str).
"""

from __future__ import annotations

import json
from typing import Any, Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView, QDoubleSpinBox, QFormLayout, QHBoxLayout, QHeaderView, QInputDialog, QLabel, QLineEdit,
    QProgressBar, QPushButton, QSplitter, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget,
)

from console.bench.tune import Measure, SweepResult, default_measure
from console.bench.workload import Workload
from console.engine.interface import as_loader
from console.engine.types import EngineState, EngineStatus
from console.jobs import Progress, TaskState
from console.ui.bench_plots import ParetoPlot
from console.ui.context import AppContext
from console.ui.tasks import BackgroundCall
from console.ui.widgets import ErrorLabel, needs_loader_tip


def grid_text(grid: dict[str, list[Any]]) -> str:
    """``{"max_num_seqs": [8, 32]}`` -> ``"max_num_seqs=8,32"`` (entries joined by "; ")."""
    return "; ".join(f"{k}={','.join(json.dumps(v) for v in vs)}" for k, vs in grid.items())


def parse_grid(text: str) -> dict[str, list[Any]]:
    """The inverse of :func:`grid_text`; values are JSON (numbers, true/false, "strings") or bare
    words. Raises ValueError with the offending entry."""
    grid: dict[str, list[Any]] = {}
    for entry in filter(None, (e.strip() for e in text.split(";"))):
        key, sep, values = entry.partition("=")
        if not sep or not key.strip() or not values.strip():
            raise ValueError(f"'{entry}': write knob=value1,value2")
        out = []
        for v in values.split(","):
            try:
                out.append(json.loads(v.strip()))
            except json.JSONDecodeError:
                out.append(v.strip())
        grid[key.strip()] = out
    if not grid:
        raise ValueError("no knobs to sweep")
    return grid


class _CancelOnly:
    """A trial's view of the sweep's task: it sees Cancel, its per-request progress stays out of
    the sweep's progress bar."""

    def __init__(self, task: TaskState) -> None:
        self._task = task

    def report(self, stage: str, fraction: float | None = None, message: str = "") -> None:
        pass

    @property
    def cancelled(self) -> bool:
        return self._task.cancelled


class TunePage(QWidget):
    tuneFinished = Signal(object)

    def __init__(self, ctx: AppContext, workload: Callable[[], Workload], parent: QWidget | None = None,
                 other_busy: Callable[[], bool] = lambda: False) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self._other_busy = other_busy  # the Bench panel's own run excludes a sweep (and back)
        self._workload = workload
        self.measure: Measure = default_measure  # tests may measure with a stand-in
        self.call: BackgroundCall | None = None
        self.result: SweepResult | None = None
        self._outcome: object = None
        self.base_engine: dict[str, Any] = {}
        self.device = "cpu"
        self._status = ctx.host.status if ctx.host is not None else EngineStatus(EngineState.STOPPED)
        self._build()
        self._update_buttons()

    def _build(self) -> None:
        from console.bench.tune import default_grid
        from console.engine.host import cuda_available

        layout = QVBoxLayout(self)
        form = QFormLayout()
        self.grid_edit = QLineEdit(grid_text(default_grid("cuda" if cuda_available() else "cpu")), self)
        self.grid_edit.setToolTip(self.tr("Engine knobs and the values to try: knob=v1,v2; knob2=v1,v2. "
                                          "Every combination is one trial (one engine load)."))
        form.addRow(self.tr("Knobs:"), self.grid_edit)
        self.budget = QDoubleSpinBox(self)
        self.budget.setRange(0.5, 24 * 60)
        self.budget.setValue(10)
        self.budget.setSuffix(self.tr(" min"))
        row = QHBoxLayout()
        row.addWidget(self.budget)
        budget_note = QLabel(self.tr("Trials not started within the budget are recorded as skipped; the loaded "
                                     "model is loaded again when the sweep ends."), self)
        budget_note.setWordWrap(True)  # a long line would widen the window past a laptop's screen
        row.addWidget(budget_note, 1)
        form.addRow(self.tr("Time budget:"), row)
        layout.addLayout(form)
        row = QHBoxLayout()
        self.run_button = QPushButton(self.tr("Run sweep"), self)
        self.run_button.clicked.connect(self._on_run_button_clicked)
        self.cancel_button = QPushButton(self.tr("Cancel"), self)
        self.cancel_button.clicked.connect(self.cancel)
        self.preset_button = QPushButton(self.tr("Save as preset…"), self)
        self.preset_button.clicked.connect(self._on_preset_button_clicked)
        self.progress = QProgressBar(self)
        self.progress.setRange(0, 1000)
        self.progress.setTextVisible(False)
        for w in (self.run_button, self.cancel_button, self.preset_button):
            row.addWidget(w)
        row.addWidget(self.progress, 1)
        layout.addLayout(row)
        self.status_label = QLabel(self.tr("The sweep uses the workload above."), self)
        self.status_label.setWordWrap(True)
        layout.addWidget(self.status_label)
        self.error = ErrorLabel(self)
        layout.addWidget(self.error)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        self.table = QTableWidget(0, 7, split)
        self.table.setHorizontalHeaderLabels([self.tr("#"), self.tr("front"), self.tr("knobs"), self.tr("status"),
                                              self.tr("out tok/s"), self.tr("e2e p99 s"), self.tr("reason")])
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.itemSelectionChanged.connect(self._update_buttons)
        self.pareto = ParetoPlot(split)
        self.pareto.trialClicked.connect(self._on_pareto_trial_clicked)
        split.addWidget(self.table)
        split.addWidget(self.pareto)
        split.setSizes([560, 440])
        layout.addWidget(split, 1)

    # -- running ----------------------------------------------------------------------------------
    def _on_run_button_clicked(self) -> None:
        self.run()

    def run(self) -> bool:
        """Start the sweep on the loaded engine's configuration; False when it cannot start."""
        from console.bench.tune import sweep
        from console.engine.host import resolve_device

        self.error.clear_text()
        host = as_loader(self.ctx.host)  # the trials reload the engine: a remote server cannot
        if self.ctx.host is not None and host is None:
            self.error.show_text(needs_loader_tip())
            return False
        if self.busy() or self._other_busy() or host is None or host.config is None:
            return False
        try:
            grid = parse_grid(self.grid_edit.text())
            workload = self._workload()
        except (ValueError, OSError) as exc:
            self.error.show_text(str(exc))
            return False
        base, name, budget_s, measure = host.config, host.status.model, 60 * self.budget.value(), self.measure
        self.base_engine = dict(base.engine_kwargs())
        self.device = resolve_device(base)

        def job(state: TaskState) -> SweepResult:
            if measure is default_measure:  # Cancel also stops the trial being measured
                from console.bench.runner import run_console

                def measure_cancellable(h: Any, w: Workload) -> dict[str, Any]:
                    return run_console(h, w, task=_CancelOnly(state))  # type: ignore[arg-type]

                run_measure: Measure = measure_cancellable
            else:
                run_measure = measure
            try:
                return sweep(host, base, grid, workload, budget_s=budget_s, task=state, measure=run_measure)
            finally:  # whatever happened, give the user their engine back
                state.report(f"loading {name} again", None)
                host.load(base, name).result(900)

        call = BackgroundCall(lambda: job(call.state), parent=self)
        call.progressed.connect(self._on_call_progressed)
        call.succeeded.connect(self._on_call_succeeded)
        call.failed.connect(self._on_call_failed)
        call.finished.connect(self._on_call_finished)
        self.call = call
        self._outcome = "cancelled"  # until the call says otherwise
        self.progress.setValue(0)
        self.status_label.setText(self.tr("Sweeping…"))
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
        if p.fraction is None:
            self.progress.setRange(0, 0)
        else:
            self.progress.setRange(0, 1000)
            self.progress.setValue(int(1000 * p.fraction))
        self.status_label.setText(p.message or p.stage)

    def _on_call_succeeded(self, result: SweepResult) -> None:
        self.show_result(result)
        ok = sum(t.status == "ok" for t in result.trials)
        text = self.tr("{0} of {1} trials measured.").format(ok, len(result.trials))
        if result.cancelled:
            text += " " + self.tr("Cancelled.")
        self.status_label.setText(text)
        self._outcome = result

    def _on_call_failed(self, message: str) -> None:
        self.error.show_text(self.tr("The sweep failed: {0}").format(message))
        self._outcome = message

    def _on_call_finished(self) -> None:
        self.call = None
        self.progress.setRange(0, 1000)
        self._update_buttons()
        self.tuneFinished.emit(self._outcome)  # last: listeners (the Bench panel) see the page ready again

    # -- results --------------------------------------------------------------------------------------
    def show_result(self, result: SweepResult) -> None:
        self.result = result
        self.table.setRowCount(len(result.trials))
        colours = {"failed": "#b00020", "skipped": "#777777"}
        for r, t in enumerate(result.trials):
            front = ("★" if r == result.best else "●") if r in result.pareto else ""
            p99 = (t.figures.get("e2e_s") or {}).get("p99")
            cells = [str(r + 1), front, json.dumps(t.knobs), self._status_word(t.status),
                     f"{t.throughput:.1f}" if t.status == "ok" else "—",
                     f"{p99:.2f}" if p99 is not None else "—", t.error or ""]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if t.status in colours:
                    item.setForeground(QBrush(QColor(colours[t.status])))
                if c == 6:
                    item.setToolTip(text)
                self.table.setItem(r, c, item)
        self.pareto.show_trials([{"status": t.status, "figures": t.figures} for t in result.trials], result.pareto)
        if result.best is not None:
            self.table.selectRow(result.best)
        self._update_buttons()

    def _status_word(self, status: str) -> str:
        words = {"ok": self.tr("measured"), "failed": self.tr("failed"), "skipped": self.tr("skipped")}
        return words.get(status, status)

    def _on_pareto_trial_clicked(self, index: int) -> None:
        self.table.selectRow(index)

    def selected_trial(self) -> int | None:
        rows = self.table.selectionModel().selectedRows()
        if not rows or self.result is None:
            return None
        i = rows[0].row()
        return i if self.result.trials[i].status == "ok" else None

    def _on_preset_button_clicked(self) -> None:
        i = self.selected_trial()
        if i is None:
            return
        name, ok = QInputDialog.getText(self, self.tr("Save as preset"), self.tr("Preset name:"),
                                        text=f"tuned-{i + 1}")
        if ok and name.strip():
            self.save_preset(i, name.strip())

    def save_preset(self, index: int, name: str) -> str | None:
        """Save trial ``index`` as user preset ``name``; the file's path, or None (message shown)."""
        from console.bench.tune import save_as_preset

        assert self.result is not None
        try:
            path = save_as_preset(self.result.trials[index], name, self.base_engine,
                                  gpu="cpu" if self.device == "cpu" else "any")
        except (ValueError, OSError) as exc:
            self.error.show_text(self.tr("Could not save the preset: {0}").format(exc))
            return None
        self.error.clear_text()
        self.status_label.setText(self.tr("Saved preset '{0}' ({1}): pick it in the Models panel.").format(name, path))
        return str(path)

    # -- engine state -----------------------------------------------------------------------------------
    def set_engine_status(self, status: EngineStatus) -> None:
        self._status = status
        self._update_buttons()

    def _update_buttons(self) -> None:
        other_busy = self._other_busy()
        can_load = as_loader(self.ctx.host) is not None
        self.run_button.setEnabled(can_load and self._status.state == EngineState.READY and not self.busy()
                                   and not other_busy)
        self.run_button.setToolTip("" if can_load else needs_loader_tip())
        self.cancel_button.setEnabled(self.busy())
        self.preset_button.setEnabled(not self.busy() and self.selected_trial() is not None)
