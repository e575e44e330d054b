"""The Bench tab's Auto-tune page: :func:`console.bench.tune.tune` on a worker thread
over the Bench workload within a time budget. vLLM's defaults are measured first; the planner
drops points that cannot fit or are dominated before anything loads; the status line says what
is being tried, the best so far with its figures and the time left, and the table fills in as each
trial ends (failed ones with the engine's reason, pruned-by-halving ones with theirs). A Pareto
scatter of throughput vs p99 latency, and "Save as preset…" for the chosen trial with a text that
says how it was measured (the CLI's ``--save-preset``). Cancel keeps what was measured.

The goal box (:mod:`console.ui.bench.tune_goal_box`) says what is optimised (throughput, one user,
many users within p95 TTFT / TPOT limits) and which prompts run (the Bench workload, a batch file of
the user's own, their saved conversations); with "one user" and no knobs typed, the trials are the
one-user grid (:mod:`console.bench.tune_one_user`). A second chart draws throughput against time per
output token, the front marked and vLLM's defaults and the chosen trial labelled.

Each trial reloads the engine with its knobs; when the tune ends (done, cancelled or failed) the
model the user had loaded is loaded again with its own configuration, if it is not still loaded.
The tune is saved after every trial: "Go on with the stopped tune" continues one cut short (Cancel,
the budget, a crash), keeping what it measured (:mod:`console.bench.tune_resume`).

Signals:
    tuneFinished(object): the :class:`~console.bench.tune_result.TuneResult`, or a message (str).
    trialMeasured(object): a snapshot of the result after each trial (from the worker thread).
"""

from __future__ import annotations

import json
from typing import Any, Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from console.bench.figures import planner_device
from console.bench.tune import default_measure, describe, Measure, save_as_preset, tune, TuneResult
from console.bench.tune_goal import Goal, tpot_ms
from console.bench.tune_one_user import goal_grid
from console.bench.tune_plan import Pruned, default_grid, grid_text, parse_grid
from console.bench.tune_resume import keep_state, last_tune_path, read_last, resumable
from console.bench.workload import Workload
from console.engine.interface import as_loader
from console.engine.types import EngineState, EngineStatus
from console.jobs import Progress, TaskState
from console.ui.bench.charts import ParetoPlot, TradeoffPlot
from console.ui.bench.tune_goal_box import TuneGoalBox
from console.ui.context import AppContext
from console.ui.tasks import BackgroundCall
from console.ui.theme import colours, follow_theme
from console.ui.widgets import ErrorLabel, needs_loader_tip
from console.bench.runner import run_console
from console.engine.in_process import cuda_available, resolve_device

#: a trial's statuses shown faint (the failed ones are in the error colour)
_FAINT = ("skipped", "stopped", "cancelled")


class TunePage(QWidget):
    tuneFinished = Signal(object)
    trialMeasured = Signal(object)

    def __init__(
        self,
        ctx: AppContext,
        workload: Callable[[], Workload],
        parent: QWidget | None = None,
        other_busy: Callable[[], bool] = lambda: False,
    ) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self._other_busy = other_busy  # the Bench panel's own run excludes a tune (and back)
        self._workload = workload
        self.measure: Measure = default_measure  # tests may measure with a stand-in
        self.call: BackgroundCall | None = None
        self.result: TuneResult | None = None
        self.saved = read_last()  # the last tune, saved after every trial: "Go on" continues it
        self._outcome: object = None
        self.base_engine: dict[str, Any] = {}
        self.device = "cpu"
        self._status = ctx.engine.status if ctx.engine is not None else EngineStatus(EngineState.STOPPED)
        self._build()
        self._update_buttons()

    def _build(self) -> None:
        layout = QVBoxLayout(self)
        self.goal_box = TuneGoalBox(self)
        self.goal_box.goalChanged.connect(self._on_goal_box_goal_changed)
        layout.addWidget(self.goal_box)
        form = QFormLayout()
        self._grid_default = grid_text(default_grid("cuda" if cuda_available() else "cpu"))
        self.grid_edit = QLineEdit(self._grid_default, self)
        self.grid_edit.setToolTip(
            self.tr(
                "Engine knobs and the values to try: knob=v1,v2; knob2=v1,v2. The planner "
                "drops combinations that cannot fit or cannot help before loading; each "
                "one left is at most one engine load, lower max_num_seqs values are "
                "measured on the same load."
            )
        )
        form.addRow(self.tr("Knobs:"), self.grid_edit)
        self.budget = QDoubleSpinBox(self)
        self.budget.setRange(0.5, 24 * 60)
        self.budget.setValue(10)
        self.budget.setSuffix(self.tr(" min"))
        row = QHBoxLayout()
        row.addWidget(self.budget)
        budget_note = QLabel(
            self.tr(
                "vLLM's defaults are measured first; no load starts that the budget cannot "
                "hold; the loaded model is loaded again when the tune ends."
            ),
            self,
        )
        budget_note.setWordWrap(True)  # a long line would widen the window past a laptop's screen
        row.addWidget(budget_note, 1)
        form.addRow(self.tr("Time budget:"), row)
        layout.addLayout(form)
        row = QHBoxLayout()
        self.run_button = QPushButton(self.tr("Run auto-tune"), self)
        self.run_button.clicked.connect(self._on_run_button_clicked)
        self.go_on_button = QPushButton(self.tr("Go on with the stopped tune"), self)
        self.go_on_button.clicked.connect(self._on_go_on_button_clicked)
        self.cancel_button = QPushButton(self.tr("Cancel"), self)
        self.cancel_button.clicked.connect(self.cancel)
        self.preset_button = QPushButton(self.tr("Save as preset…"), self)
        self.preset_button.clicked.connect(self._on_preset_button_clicked)
        self.progress = QProgressBar(self)
        self.progress.setRange(0, 1000)
        self.progress.setTextVisible(False)
        for w in (self.run_button, self.go_on_button, self.cancel_button, self.preset_button):
            row.addWidget(w)
        row.addWidget(self.progress, 1)
        layout.addLayout(row)
        self.status_label = QLabel(self.tr("The tune uses the workload above."), self)
        self.status_label.setWordWrap(True)
        layout.addWidget(self.status_label)
        self.best_label = QLabel("", self)  # the outcome: best vs vLLM's defaults, what was pruned
        self.best_label.setWordWrap(True)
        layout.addWidget(self.best_label)
        self.error = ErrorLabel(self)
        layout.addWidget(self.error)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        self.table = QTableWidget(0, 10, split)
        follow_theme(self.table, self._paint_statuses)
        self.table.setHorizontalHeaderLabels(
            [
                self.tr("#"),
                self.tr("front"),
                self.tr("knobs"),
                self.tr("status"),
                self.tr("out tok/s"),
                self.tr("e2e p99 s"),
                self.tr("TPOT ms"),
                self.tr("TTFT longest ms"),
                self.tr("load s"),
                self.tr("reason"),
            ]
        )
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.itemSelectionChanged.connect(self._update_buttons)
        charts = QSplitter(Qt.Orientation.Vertical, split)
        self.pareto = ParetoPlot(charts)
        self.pareto.trialClicked.connect(self._on_pareto_trial_clicked)
        self.tradeoff = TradeoffPlot(charts)
        charts.addWidget(self.pareto)
        charts.addWidget(self.tradeoff)
        split.addWidget(self.table)
        split.addWidget(charts)
        split.setSizes([560, 440])
        layout.addWidget(split, 1)
        self.trialMeasured.connect(self._on_trial_measured)  # queued: emitted on the worker thread

    # -- running ----------------------------------------------------------------------------------
    def _on_run_button_clicked(self) -> None:
        self.run()

    def _on_go_on_button_clicked(self) -> None:
        if self.saved is not None:  # the stopped tune's goal and prompts, whatever the box says since
            self.goal_box.restore(self.saved.goal, self.saved.workload)
        self.run(go_on=True)

    def run(self, go_on: bool = False) -> bool:
        """Start the tune on the engine's configuration (``go_on``: continue the saved one); False when it cannot."""
        self.error.clear_text()
        engine = as_loader(self.ctx.engine)  # the trials reload the engine: a remote server cannot
        if self.ctx.engine is not None and engine is None:
            self.error.show_text(needs_loader_tip())
            return False
        if self.busy() or self._other_busy() or engine is None or engine.config is None:
            return False
        base = engine.requested_config or engine.config
        try:
            goal = self.goal_box.goal()
            grid, pruned = self._grid(goal, base)
            workload = self.goal_box.workload(self._workload())
        except (ValueError, OSError) as exc:
            self.error.show_text(str(exc))
            return False
        name, budget_s, measure = engine.status.model, 60 * self.budget.value(), self.measure
        self.base_engine = dict(base.engine_kwargs())
        self.device = resolve_device(base)
        loaded = engine.config  # reloaded at the end only if a trial replaced it
        prior, state_path = (self.saved if go_on else None), last_tune_path()

        def keep(result: TuneResult) -> TuneResult:  # a crash or a closed window loses at most one trial
            keep_state(state_path, result)
            self.saved = result  # one reference, read by the GUI thread once the call has ended
            return result

        def job(state: TaskState) -> TuneResult:
            if measure is default_measure:  # Cancel also stops the trial being measured

                def measure_cancellable(h: Any, w: Workload, in_flight: int | None = None) -> dict[str, Any]:
                    return run_console(h, w, max_concurrency=in_flight, task=state.silenced())

                run_measure: Measure = measure_cancellable
            else:
                run_measure = measure
            try:
                return keep(
                    tune(
                        engine,
                        base,
                        grid,
                        workload,
                        budget_s=budget_s,
                        task=state,
                        measure=run_measure,
                        on_trial=lambda r: self.trialMeasured.emit(keep(r)),
                        goal=goal,
                        pruned=pruned,
                        resume=prior,
                    )
                )
            finally:  # whatever happened, give the user their engine back
                if engine.config != loaded:
                    state.report(f"loading {name} again", None)
                    engine.load(base, name).result(900)

        call = BackgroundCall(lambda: job(call.state), parent=self)
        call.progressed.connect(self._on_call_progressed)
        call.succeeded.connect(self._on_call_succeeded)
        call.failed.connect(self._on_call_failed)
        call.finished.connect(self._on_call_finished)
        self.call = call
        self._outcome = "cancelled"  # until the call says otherwise
        self.progress.setValue(0)
        self.best_label.setText("")
        self.status_label.setText(self.tr("Planning the tune…"))
        call.start()
        self._update_buttons()
        return True

    def _grid(self, goal: Goal, base: Any) -> tuple[Any, list[Pruned]]:
        """The knobs typed, else (one user, nothing typed) the one-user trials and what they leave out."""
        text = self.grid_edit.text().strip()
        if text or goal.kind != "one-user":
            return parse_grid(text), []
        device = resolve_device(base)
        return goal_grid(base, device, goal.kind, planner_device(device))

    def _on_goal_box_goal_changed(self, kind: str) -> None:
        """One user: its own trials (the knobs field empties); back to the device's grid otherwise."""
        text = self.grid_edit.text().strip()
        if kind == "one-user" and text == self._grid_default:
            self.grid_edit.clear()
        elif kind != "one-user" and not text:
            self.grid_edit.setText(self._grid_default)
        self.grid_edit.setPlaceholderText(
            self.tr("empty: n-gram speculation, EAGLE-3, FP8 KV cache, chunked-prefill size")
            if kind == "one-user"
            else ""
        )

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

    def _on_trial_measured(self, result: TuneResult) -> None:
        if self.call is not None:  # a late snapshot after the end would replace the final result
            self.show_result(result)

    def _on_call_succeeded(self, result: TuneResult) -> None:
        self.show_result(result)
        ok = sum(t.status == "ok" for t in result.trials)
        text = self.tr("{0} of {1} trials measured on the whole workload in {2:.0f} s.").format(
            ok, len(result.trials), result.tune_seconds
        )
        if result.cancelled:
            text += " " + self.tr("Cancelled: the trials measured so far are kept.")
        self.status_label.setText(text)
        self._outcome = result

    def _on_call_failed(self, message: str) -> None:
        self.error.show_text(self.tr("The tune failed: {0}").format(message))
        self._outcome = message

    def _on_call_finished(self) -> None:
        self.call = None
        # the engine's statuses since the bridge's last tick (the READY of the model loaded again)
        # reach every view before anyone hears that the tune ended
        if self.ctx.bridge is not None:
            self.ctx.bridge.flush()
        self.progress.setRange(0, 1000)
        self._update_buttons()
        self.tuneFinished.emit(self._outcome)  # last: listeners (the Bench panel) see the page ready again

    # -- results --------------------------------------------------------------------------------------
    def show_result(self, result: TuneResult) -> None:
        self.result = result
        self.table.setRowCount(len(result.trials))
        for r, t in enumerate(result.trials):
            front = "★" if r == result.best else ("●" if r in result.pareto else "")
            p99 = (t.figures.get("e2e_s") or {}).get("p99")
            tpot = tpot_ms(t.figures)
            longest = (t.figures.get("longest_prompt") or {}).get("ttft_s")
            knobs = (
                self.tr("vLLM's defaults") + (f" {json.dumps(t.preset_knobs())}" if t.preset_knobs() else "")
                if t.label == "default"
                else json.dumps(t.preset_knobs())
            )
            if t.label == "confirmation":
                knobs = self.tr("again: {0}").format(knobs)
            cells = [
                str(r + 1),
                front,
                knobs,
                self._status_word(t.status) + (self.tr(" (over the limits)") if t.over_limits else ""),
                f"{t.throughput:.1f}" if t.status == "ok" else "—",
                f"{p99:.2f}" if p99 is not None else "—",
                f"{tpot:.1f}" if tpot is not None else "—",
                f"{1000 * longest:.0f}" if longest is not None else "—",
                f"{t.load_seconds:.1f}" if t.load_seconds is not None else "—",
                t.over_limits or t.error or "",
            ]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c in (2, 9):
                    item.setToolTip(text)
                self.table.setItem(r, c, item)
        self._paint_statuses()
        self.pareto.show_trials([{"status": t.status, "figures": t.figures} for t in result.trials], result.pareto)
        self.tradeoff.show_tune(result.to_dict())
        self.best_label.setText(self._outcome_text(result))
        if result.best is not None:
            self.table.selectRow(result.best)
        self._update_buttons()

    def _paint_statuses(self) -> None:
        """A failed trial's row in the theme's error colour, a skipped or stopped one faint (again
        when the theme changes)."""
        c = colours()
        for r, t in enumerate(self.result.trials if self.result is not None else []):
            colour = c.error if t.status == "failed" else c.faint if t.status in _FAINT else None
            if colour is None:
                continue
            for col in range(self.table.columnCount()):
                item = self.table.item(r, col)
                if item is not None:
                    item.setForeground(QBrush(QColor(colour)))

    def _outcome_text(self, result: TuneResult) -> str:
        pruned = len(result.plan.get("pruned", []))
        text = self.tr("vLLM {0}, workload {1}; {2} point(s) dropped by the planner before loading.").format(
            result.vllm_version or "?", result.workload.get("name", ""), pruned
        )
        kind = result.goal.get("kind")
        if result.best is None and kind == "many" and any(t.status == "ok" for t in result.trials):
            return self.tr("No trial kept the limits ({0}): none chosen.").format(
                Goal.from_dict(result.goal).limits_text()
            ) + (" " + text)
        if result.best is not None and kind == "one-user":
            best = result.trials[result.best]
            longest = (best.figures.get("longest_prompt") or {}).get("ttft_s")
            one = self.tr(
                "Chosen: trial {0}, {1:.1f} ms per output token, {2} vLLM's defaults'; TTFT on the longest prompt {3}."
            )
            return (
                one.format(
                    result.best + 1,
                    best.tpot_ms or 0.0,
                    f"{result.tpot_ratio_vs_default:.2f}x" if result.tpot_ratio_vs_default else "—",
                    f"{1000 * longest:.0f} ms" if longest is not None else "—",
                )
                + " "
                + text
            )
        if result.best is not None and result.speedup_vs_default is not None:
            best = result.trials[result.best]
            best_text = self.tr(
                "Best: trial {0}, {1:.1f} out tok/s, {2:.2f}x vLLM's defaults measured in the same run."
            )
            text = best_text.format(result.best + 1, best.throughput, result.speedup_vs_default) + " " + text
        return text

    def _status_word(self, status: str) -> str:
        return {
            "ok": self.tr("measured"),
            "failed": self.tr("failed"),
            "skipped": self.tr("skipped"),
            "stopped": self.tr("stopped (short run)"),
            "cancelled": self.tr("cancelled"),
        }.get(status, status)

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
        name, ok = QInputDialog.getText(self, self.tr("Save as preset"), self.tr("Preset name:"), text=f"tuned-{i + 1}")
        if ok and name.strip():
            self.save_preset(i, name.strip())

    def save_preset(self, index: int, name: str) -> str | None:
        """Save trial ``index`` as user preset ``name``; the file's path, or None (message shown)."""

        assert self.result is not None
        try:
            path = save_as_preset(
                self.result.trials[index],
                name,
                self.base_engine,
                description=describe(self.result, index),
                gpu="cpu" if self.device == "cpu" else "any",
                goal=str(self.result.goal.get("kind", "throughput")),
            )
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
        can_load = as_loader(self.ctx.engine) is not None
        self.run_button.setEnabled(
            can_load and self._status.state == EngineState.READY and not self.busy() and not other_busy
        )
        self.run_button.setToolTip("" if can_load else needs_loader_tip())
        loader = as_loader(self.ctx.engine)
        base = (loader.requested_config or loader.config) if loader is not None else None
        go_on = base is not None and resumable(self.saved, dict(base.engine_kwargs()))
        self.go_on_button.setEnabled(self.run_button.isEnabled() and go_on)
        self.cancel_button.setEnabled(self.busy())
        self.preset_button.setEnabled(not self.busy() and self.selected_trial() is not None)
