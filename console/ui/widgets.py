"""Small widgets shared by several panels."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize, Qt
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QAbstractSlider,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QFrame,
    QLabel,
    QScrollArea,
    QScrollBar,
    QWidget,
)

from console.ui.theme import text_colour


class ErrorLabel(QLabel):
    """A red, selectable, word-wrapped message line that hides itself when empty."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        text_colour(self, lambda c: c.error)
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


class WheelGuard(QObject):
    """The mouse wheel changes a value only in the field that has the focus.

    Installed once on the application (:func:`install_wheel_guard`), it gives every spin box,
    combo box and slider click-and-tab focus instead of wheel focus, and hands a wheel event over
    one that is not focused to the scroll area around it, which scrolls: scrolling a side bar of
    fields no longer changes the values the pointer passes over. A focused field takes the wheel
    as Qt's own widgets do. Scroll bars are not fields and always take it."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind == QEvent.Type.Polish and _guarded(watched):
            assert isinstance(watched, QWidget)
            if watched.focusPolicy() == Qt.FocusPolicy.WheelFocus:
                watched.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        elif kind == QEvent.Type.Wheel and isinstance(watched, QWidget):
            field = _guarded_owner(watched)
            if field is not None and not _focused(field):
                area = _scroll_area(field)
                if area is not None:
                    QApplication.sendEvent(area.verticalScrollBar(), event)
                return True  # not the field's: the value stays
        return False


def _guarded(obj: QObject) -> bool:
    return isinstance(obj, (QAbstractSpinBox, QComboBox, QAbstractSlider)) and not isinstance(obj, QScrollBar)


def _guarded_owner(widget: QWidget) -> QWidget | None:
    """The field ``widget`` is (or is part of: a spin box's line edit), if any."""
    for w in (widget, widget.parentWidget()):
        if w is not None and _guarded(w):
            return w
    return None


def _focused(field: QWidget) -> bool:
    focus = QApplication.focusWidget()
    return focus is not None and (focus is field or field.isAncestorOf(focus))


def _scroll_area(widget: QWidget) -> QAbstractScrollArea | None:
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QAbstractScrollArea) and parent.verticalScrollBar().isVisible():
            return parent
        parent = parent.parentWidget()
    return None


def install_wheel_guard() -> None:
    """Install :class:`WheelGuard` on the application once (later calls do nothing)."""
    app = QApplication.instance()
    if app is None or app.findChild(WheelGuard) is not None:
        return
    app.installEventFilter(WheelGuard(app))
    assert isinstance(app, QApplication)
    for w in app.allWidgets():  # those already polished
        if _guarded(w) and w.focusPolicy() == Qt.FocusPolicy.WheelFocus:
            w.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
