"""Small widgets shared by several panels."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QWidget


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

    return QCoreApplication.translate(
        "EngineCapability",
        "This needs an engine the console can load: the "
        "in-process engine or a console-launched server. A remote server keeps "
        "its own configuration (Engine > Engine location…).",
    )


class VerticalScroll(QScrollArea):
    """A tall column (a side bar of boxes) that scrolls rather than making the window taller than
    a laptop's screen; it keeps its content's minimum width, so nothing is cut sideways."""

    MIN_HEIGHT = 160

    def __init__(self, content: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidget(content)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

    def minimumSizeHint(self) -> QSize:
        content = self.widget()
        inner = content.minimumSizeHint() if content is not None else QSize(0, 0)
        bar = self.verticalScrollBar().sizeHint().width()
        return QSize(inner.width() + bar + 2 * self.frameWidth(), self.MIN_HEIGHT)

    def sizeHint(self) -> QSize:
        content = self.widget()
        inner = content.sizeHint() if content is not None else QSize(0, 0)
        return QSize(self.minimumSizeHint().width(), max(inner.height(), self.MIN_HEIGHT))
