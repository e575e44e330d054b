"""The Models panel's line about models kept warm: which ones, how long the last switch
took against its cold load, and a button that unloads them (the engine thread does it)."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QPushButton, QWidget

from console.engine.interface import KeepWarm
from console.engine.types import EngineInfo, EngineState, EngineStatus, WarmModel
from console.ui.context import AppContext


class WarmLine(QWidget):
    """Hidden while no model is warm and no switch happened; its "Keep warm" box lives beside Load.
    It follows the engine through ``ctx.bridge``; an engine that is not :class:`KeepWarm` (a
    server) never has any.

    Signals:
        switched(str): a load came back warm -- the message saying how long it took.
    """

    switched = Signal(str)
    _dropped = Signal()  # emitted on the engine thread when a warm model is unloaded (queued here)

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.engine = ctx.engine
        ctx.bridge.statusChanged.connect(self._on_bridge_status_changed)
        ctx.bridge.loadFinished.connect(self._on_bridge_load_finished)
        #: Load keeps the model in use warm when this is checked (the panel puts it beside Load)
        self.keep_check = QCheckBox(self.tr("Keep warm"), parent)
        self.keep_check.setToolTip(
            self.tr(
                "Keep the loaded model warm: when you load another model, the one loaded now stays ready and "
                "switching back takes seconds instead of a full load. On the GPU it sleeps (load it with Sleep mode "
                "on: its weights wait in RAM and its GPU memory is freed); on the CPU it keeps its memory."
            )
        )
        self.label = QLabel(self)
        self.label.setWordWrap(True)
        self.drop_button = QPushButton(self.tr("Unload warm models"), self)
        self.drop_button.setToolTip(self.tr("Free what the warm models hold; the model in use stays loaded"))
        self.drop_button.clicked.connect(self.drop_all)
        self._dropped.connect(self.refresh)
        self._last_switch = ""
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.label, 1)
        row.addWidget(self.drop_button)
        self.hide()
        self.drop_button.hide()

    def warm_models(self) -> list[WarmModel]:
        return list(self.engine.warm_models()) if isinstance(self.engine, KeepWarm) else []

    def _on_bridge_status_changed(self, status: EngineStatus) -> None:
        if status.state in (EngineState.READY, EngineState.STOPPED, EngineState.FAILED):
            self.refresh()

    def _on_bridge_load_finished(self, outcome: object) -> None:
        if not isinstance(outcome, EngineInfo):
            return
        self._last_switch = (
            ""
            if outcome.switch_seconds is None
            else self.tr("Switched to {0} in {1:.2f} s (its cold load took {2:.1f} s).").format(
                outcome.model, outcome.switch_seconds, outcome.load_seconds
            )
        )
        self.refresh()
        if self._last_switch:
            self.switched.emit(self._last_switch)

    def drop_all(self) -> None:
        """Unload every warm model (off the GUI thread: the engine thread does it)."""
        if not isinstance(self.engine, KeepWarm):
            return
        for w in self.warm_models():
            self.engine.drop_warm(w.name).add_done_callback(lambda _f: self._dropped.emit())
        self.label.setText(self.tr("Unloading the warm models…"))
        self.drop_button.setEnabled(False)

    def refresh(self) -> None:
        warm = self.warm_models()
        parts = [
            self.tr("{0} (asleep)").format(w.name) if w.asleep else self.tr("{0} (keeps its memory)").format(w.name)
            for w in warm
        ]
        text = self.tr("Kept warm: {0}.").format(", ".join(parts)) if parts else ""
        text = " ".join(t for t in (text, self._last_switch) if t)
        self.label.setText(text)
        self.setVisible(bool(text))
        self.drop_button.setVisible(bool(warm))
        self.drop_button.setEnabled(bool(warm))


__all__ = ["WarmLine"]
