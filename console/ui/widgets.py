"""Small widgets shared by several panels."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget


class ErrorLabel(QLabel):
    """A red, selectable, word-wrapped message line that hides itself when empty."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setStyleSheet("color: #b00020;")
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.hide()

    def show_text(self, text: str) -> None:
        self.setText(text)
        self.show()

    def clear_text(self) -> None:
        self.clear()
        self.hide()


def needs_loader_tip() -> str:
    """The tooltip of work that reloads the engine (Auto-tune, the quantization gate, baselines)
    while the engine is a remote server (see :data:`console.engine.interface.NEEDS_LOADER`)."""
    from PySide6.QtCore import QCoreApplication

    return QCoreApplication.translate("EngineCapability", "This needs an engine the console can load: the "
                                      "in-process engine or a console-launched server. A remote server keeps "
                                      "its own configuration (Engine > Engine location…).")
