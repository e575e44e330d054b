"""The mouse wheel over the Chat tab's side bar scrolls it and leaves the values alone; it changes
a value only in the field that has the focus. The real window, no engine (none is needed: the
side bar's fields are there before a model loads)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QAbstractScrollArea, QApplication, QWidget

from console.settings import load_settings
from console.ui.context import AppContext


def _wheel(widget: QWidget, steps: int = -1) -> None:
    """One notch of the wheel (down for a negative ``steps``) with the pointer over ``widget``'s
    middle, sent to ``widget`` (a spin box's line edit passes the wheel on to the spin box)."""
    centre = QPointF(widget.rect().center())
    event = QWheelEvent(
        centre,
        QPointF(widget.mapToGlobal(centre.toPoint())),
        QPoint(0, 0),
        QPoint(0, 120 * steps),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(widget, event)


def _scroll_area(widget: QWidget) -> QAbstractScrollArea:
    parent = widget.parentWidget()
    while not isinstance(parent, QAbstractScrollArea):
        assert parent is not None, "the field is not in a scroll area"
        parent = parent.parentWidget()
    return parent


def test_wheel_scrolls_past_unfocused_fields_and_changes_a_focused_one(home: Path, qtbot: Any) -> None:
    from console.ui.main_window import MainWindow

    window = MainWindow(AppContext.create(), load_settings(), owns_engine=False)
    qtbot.addWidget(window)
    window.resize(1100, 480)  # short: the side bar scrolls
    window.show()
    qtbot.waitUntil(lambda: window._panels_built, timeout=10_000)
    window.chat.set_settings_shown(True)  # folded on a screen narrower than 1,200 px, as offscreen's is
    temperature, penalty = window.chat.temperature, window.chat.repetition_penalty
    qtbot.waitUntil(temperature.isVisible, timeout=5_000)
    bar = _scroll_area(temperature).verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0, timeout=5_000)
    bar.setValue(0)
    before = temperature.value(), penalty.value()

    for field in (temperature, penalty):
        _wheel(field)
    assert (temperature.value(), penalty.value()) == before  # passed over: unchanged
    assert bar.value() > 0  # the side bar scrolled instead
    assert not temperature.hasFocus() and not penalty.hasFocus()  # the wheel gives no focus

    temperature.setFocus()
    qtbot.waitUntil(temperature.hasFocus, timeout=2_000)
    _wheel(temperature, steps=1)
    assert temperature.value() > before[0]  # the focused field takes the wheel
