"""The application state (:mod:`console.app_state`, Qt-free) as Qt signals, for one view.

A view makes a :class:`StateSignals` child and connects its slots; the state's observers are
removed when that child is destroyed with its view, so the state never calls a widget that is
gone. The signals are emitted on the thread that changed the state: a slot of a widget (the GUI
thread) connected to them runs on the GUI thread, queued when the change came from another thread,
as the engine bridge's signals do.

Signals:
    selectionChanged(Selection): the model and preset chosen.
    modelsChanged(tuple): the store's models, by name, as the Models panel lists them.
    configChanged(object): the engine configuration Load would use for the selection (None: none).
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QObject, Signal

from console.app_state import AppState, Selection


class StateSignals(QObject):
    selectionChanged = Signal(object)
    modelsChanged = Signal(object)
    configChanged = Signal(object)

    def __init__(self, state: AppState, parent: QObject) -> None:
        super().__init__(parent)
        stops = [
            state.observe(self.selectionChanged.emit),
            state.observe_models(self.modelsChanged.emit),
            state.observe_config(self.configChanged.emit),
        ]
        self.destroyed.connect(lambda *_: [stop() for stop in stops])  # holds no reference to self


def follow_selection(state: AppState, view: QObject, slot: Callable[[Selection], None]) -> StateSignals:
    """Call ``slot`` (a method of ``view``) with each new selection while ``view`` exists."""
    signals = StateSignals(state, view)
    signals.selectionChanged.connect(slot)
    return signals


__all__ = ["StateSignals", "follow_selection"]
