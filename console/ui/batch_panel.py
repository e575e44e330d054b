"""Batch runs of prompt files. (minimal first version; fleshed out next)."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from console.ui.context import AppContext


class BatchPanel(QWidget):
    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(self.tr("Batch runs of prompt files."), self))
