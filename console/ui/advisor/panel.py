"""The Advisor dock: live findings of the advisor's rules over the metrics store, each with what
happened, why it matters and the knob change it suggests; "Apply" puts the change into the Models
panel's knobs (the user then reloads), "Open recording…" replays a saved session instead.

Evaluation reads only the last ``LOOKBACK_S`` seconds of the store (a few hundred bins), on a
2 s timer: cheap enough for the GUI thread. Loading a recording reads one JSON file.

"Save recording…" writes the store's whole history (and the engine's settings) to a JSON file on
a worker thread; ``inference-console advise --recording FILE`` replays it headless.

Signals:
    applyRequested(dict): knob changes (vLLM names) the user chose to apply.
    recordingSaved(str, str): path and error ("" when saved), from the saving thread (queued).
"Serve /metrics" starts the Prometheus endpoint (off by default, 127.0.0.1 only) over the same
store; ``resources/grafana/console-dashboard.json`` reads it.

Slots: ``_on_timer_tick``, ``_on_apply_clicked``, ``_on_open_clicked``, ``_on_live_clicked``,
``_on_save_clicked``, ``_on_recording_saved``, ``_on_metrics_toggled``.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDockWidget,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from console.advisor import AdvisorContext, Finding, Report, RuleError, RuleSet, evaluate, load_rules
from console.metrics.store import MetricsStore
from console.metrics.recording import RecordingError, load_recording, save_recording
from console.ui.context import AppContext
from console.ui.core_text import translate_core_text
from console.ui.models.knobs_box import KNOB_KEYS, knobs_with_change  # noqa: F401  (re-exported: Apply's rule)
from console.ui.i18n import RULES_CONTEXT


def translate_rule_text(text: str) -> str:
    """A rule's text (data in rules.toml) in the UI's language: the i18n generator puts the shipped
    rules' texts in the catalogue under "AdvisorRules"; a user's own text is shown as written."""
    return QCoreApplication.translate(RULES_CONTEXT, text)


class AdvisorPanel(QWidget):
    applyRequested = Signal(dict)
    recordingSaved = Signal(str, str)
    LOOKBACK_S = 120.0
    METRICS_HOST = "127.0.0.1"
    METRICS_PORT = 9464
    REFRESH_MS = 2000

    def __init__(self, ctx: AppContext, parent: QWidget | None = None, rules: RuleSet | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.dock: QDockWidget | None = None  # set when the window docks it (add_advisor_dock)
        self.report: Report | None = None
        self.replay: MetricsStore | None = None
        self.replay_meta: dict[str, Any] = {}
        self.rules_error = ""
        self.rules: RuleSet | None
        try:
            self.rules = rules or load_rules()
        except RuleError as exc:
            self.rules = None
            self.rules_error = str(exc)

        self.header = QLabel(self)
        self.header.setWordWrap(True)
        self.list = QListWidget(self)
        self.detail = QLabel(self)
        self.detail.setWordWrap(True)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.apply_button = QPushButton(self.tr("Apply to the knobs"), self)
        self.open_button = QPushButton(self.tr("Open recording…"), self)
        self.save_button = QPushButton(self.tr("Save recording…"), self)
        self.live_button = QPushButton(self.tr("Back to live"), self)
        self.live_button.setVisible(False)
        self.metrics_check = QCheckBox(
            self.tr("Serve /metrics for Prometheus on {0}:{1}").format(self.METRICS_HOST, self.METRICS_PORT), self
        )
        self.metrics_server: Any = None
        buttons = QHBoxLayout()
        for b in (self.apply_button, self.open_button, self.save_button, self.live_button):
            buttons.addWidget(b)
        layout = QVBoxLayout(self)
        layout.addWidget(self.header)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.detail)
        layout.addLayout(buttons)
        layout.addWidget(self.metrics_check)

        self.list.currentRowChanged.connect(self._on_list_row_changed)
        self.apply_button.clicked.connect(self._on_apply_clicked)
        self.open_button.clicked.connect(self._on_open_clicked)
        self.live_button.clicked.connect(self._on_live_clicked)
        self.save_button.clicked.connect(self._on_save_clicked)
        self.recordingSaved.connect(self._on_recording_saved)
        self.metrics_check.toggled.connect(self._on_metrics_toggled)
        self._saver: threading.Thread | None = None
        self.timer = QTimer(self)
        self.timer.setInterval(self.REFRESH_MS)
        self.timer.timeout.connect(self._on_timer_tick)
        self.timer.start()
        self._on_timer_tick()

    # -- evaluation ----------------------------------------------------------------------------------
    def context(self) -> AdvisorContext:
        if self.replay is not None:  # a recording carries the engine settings of its run
            return AdvisorContext(engine=dict(self.replay_meta.get("engine") or {}))
        config = self.ctx.engine.config
        engine = {k: v for k, v in dataclasses.asdict(config).items() if v is not None} if config else {}
        return AdvisorContext(engine=engine)

    def refresh(self) -> Report | None:
        if self.rules is None:
            self.header.setText(self.tr("The advisor's rules cannot be read: {0}").format(self.rules_error))
            self.apply_button.setEnabled(False)
            return None
        if self.replay is not None:
            report = evaluate(self.replay, self.rules, self.context(), translate=translate_rule_text)
        else:
            report = evaluate(
                self.ctx.metrics,
                self.rules,
                self.context(),
                since=time.time() - self.LOOKBACK_S,
                translate=translate_rule_text,
            )
        self.show_report(report)
        return report

    def show_report(self, report: Report) -> None:
        keep = self.list.currentRow()
        self.report = report
        self.list.blockSignals(True)
        self.list.clear()
        severity = {"info": self.tr("info"), "warning": self.tr("warning"), "critical": self.tr("critical")}
        for f in report.findings:
            item = QListWidgetItem(f"[{severity.get(f.severity, f.severity)}] {f.title}")
            item.setToolTip(f.what)
            self.list.addItem(item)
        self.list.blockSignals(False)
        source = self.tr("recording") if self.replay is not None else self.tr("last {0:.0f} s").format(self.LOOKBACK_S)
        if report.findings:
            self.header.setText(self.tr("{0} finding(s) over the {1}.").format(len(report.findings), source))
        else:
            self.header.setText(self.tr("Nothing to change: no rule fired over the {0}.").format(source))
        if report.not_evaluated:
            self.header.setText(
                self.header.text()
                + "\n"
                + self.tr("Not checked: {0}").format(
                    "; ".join(f"{k} ({translate_core_text(v)})" for k, v in report.not_evaluated.items())
                )
            )
        self.list.setCurrentRow(min(max(keep, 0), self.list.count() - 1) if self.list.count() else -1)
        self._on_list_row_changed(self.list.currentRow())

    def current_finding(self) -> Finding | None:
        row = self.list.currentRow()
        if self.report is None or not 0 <= row < len(self.report.findings):
            return None
        return self.report.findings[row]

    # -- slots ---------------------------------------------------------------------------------------
    def _on_timer_tick(self) -> None:
        if self.replay is None and (self.isVisible() or self.report is None):
            self.refresh()

    def _on_list_row_changed(self, _row: int) -> None:
        f = self.current_finding()
        if f is None:
            self.detail.setText("")
            self.apply_button.setEnabled(False)
            return
        if f.change:
            change = self.tr("Change: {0} — {1}").format(
                ", ".join(f"{k} = {v}" for k, v in f.change.items()), f.change_says
            )
        else:
            change = self.tr("No engine setting to change: see why.")
        self.detail.setText(f"{f.what}\n\n{self.tr('Why:')} {f.why}\n\n{change}")
        self.apply_button.setEnabled(bool(f.change))

    def _on_apply_clicked(self) -> None:
        f = self.current_finding()
        if f is not None and f.change:
            self.applyRequested.emit(dict(f.change))

    def open_recording(self, path: str) -> bool:
        try:
            store, meta = load_recording(Path(path))
        except RecordingError as exc:
            self.header.setText(self.tr("Cannot open the recording: {0}").format(exc))
            return False
        self.replay, self.replay_meta = store, meta
        self.live_button.setVisible(True)
        self.refresh()
        if meta.get("label"):
            self.header.setText(str(meta["label"]) + "\n" + self.header.text())
        return True

    def _on_open_clicked(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, self.tr("Open a metrics recording"), "", self.tr("Recordings (*.json *.json.gz);;All files (*)")
        )
        if path:
            self.open_recording(path)

    def _on_live_clicked(self) -> None:
        self.show_live()

    def show_live(self) -> None:
        """Leave a replayed recording and evaluate the live store again."""
        self.replay = None
        self.replay_meta = {}
        self.live_button.setVisible(False)
        self.refresh()

    def save_recording(self, path: str) -> threading.Thread:
        """Write the live store to ``path`` off the GUI thread; ``recordingSaved`` reports."""
        meta = {"model": self.ctx.engine.status.model or "", "engine": self.context().engine, "saved_at": time.time()}
        self.save_button.setEnabled(False)
        self.header.setText(self.tr("Saving the recording…"))

        def work() -> None:
            try:
                save_recording(self.ctx.metrics, Path(path), meta)
                self.recordingSaved.emit(path, "")
            except Exception as exc:  # a full disk or a read-only folder: said in the header
                self.recordingSaved.emit(path, str(exc))

        self._saver = threading.Thread(target=work, name="advisor-save-recording", daemon=True)
        self._saver.start()
        return self._saver

    def _on_save_clicked(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, self.tr("Save the metrics recording"), "recording.json", self.tr("Recordings (*.json)")
        )
        if path:
            self.save_recording(path)

    def _on_recording_saved(self, path: str, error: str) -> None:
        self.save_button.setEnabled(True)
        if error:
            self.header.setText(self.tr("Cannot save the recording: {0}").format(error))
        else:
            self.header.setText(self.tr("Recording saved to {0}").format(path))

    def _on_metrics_toggled(self, on: bool) -> None:
        # deferred: imports prometheus_client
        from console.metrics.prometheus import MetricsServer, MetricsServerError  # prometheus_client: only when asked

        if not on:
            if self.metrics_server is not None:
                self.metrics_server.stop()
                self.metrics_server = None
            return
        server = MetricsServer(
            self.ctx.metrics,
            host=self.METRICS_HOST,
            port=self.METRICS_PORT,
            model_name=lambda: self.ctx.engine.status.model,
        )
        try:
            server.start()
        except MetricsServerError as exc:
            self.header.setText(str(exc))
            self.metrics_check.blockSignals(True)
            self.metrics_check.setChecked(False)
            self.metrics_check.blockSignals(False)
            return
        self.metrics_server = server
        self.header.setText(self.tr("Prometheus can scrape {0}").format(server.url))

    def stop(self) -> None:
        """Stop evaluating and close the /metrics server, freeing its port (the window calls this
        when it closes; idempotent)."""
        self.timer.stop()
        if self.metrics_server is not None:
            self.metrics_server.stop()
            self.metrics_server = None
            self.metrics_check.blockSignals(True)
            self.metrics_check.setChecked(False)
            self.metrics_check.blockSignals(False)


def add_advisor_dock(window: QMainWindow, ctx: AppContext, models: Any) -> AdvisorPanel:
    """Add the Advisor as a dock of ``window``, hidden until asked (View menu: its toggle action is
    ``panel.dock.toggleViewAction()``); Apply moves ``models``' knobs (the user reloads)."""
    panel = AdvisorPanel(ctx, window)
    dock = QDockWidget(QCoreApplication.translate("AdvisorPanel", "Advisor"), window)
    dock.setObjectName("AdvisorDock")
    dock.setWidget(panel)
    window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
    dock.hide()  # a laptop's width goes to the chat; a saved layout may show it again
    panel.dock = dock

    panel.applyRequested.connect(models.apply_change)  # as the planner's suggestions do
    return panel
