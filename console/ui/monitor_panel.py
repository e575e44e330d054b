"""Live engine and device metrics. (minimal first version; fleshed out next)."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from console.ui.context import AppContext


class MonitorPanel(QWidget):
    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(self.tr("Live engine and device metrics."), self))
