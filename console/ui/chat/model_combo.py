"""The model picker at the top of the chat: the store's models in a combo; choosing one
loads it through the Models panel's own path (the one a double-click takes: the preset and
knobs shown there, the fit confirmation, the busy check), and the combo shows the model loaded.
The window ties it to the application state and the Models panel with ``connect_models``
(``models_link.py``).

Signals:
    chosen(str): the user chose a model (not emitted when the list or the loaded model is shown).
"""

from __future__ import annotations

from typing import Sequence

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSizePolicy, QWidget

from console.engine.types import EngineState, EngineStatus


class ChatModelPicker(QWidget):
    chosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QLabel(self.tr("Model:"), self)
        self.combo = QComboBox(self)
        self.combo.setToolTip(self.tr("Choose a model to load it with the preset and knobs of the Models panel"))
        self.combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.combo.setMinimumContentsLength(16)
        self.combo.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.combo.activated.connect(self._on_combo_activated)  # the user's choice only
        self._loaded = ""
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.label)
        row.addWidget(self.combo, 1)
        self.set_models([])

    def names(self) -> list[str]:
        return [str(self.combo.itemData(i)) for i in range(self.combo.count()) if self.combo.itemData(i)]

    def set_models(self, names: Sequence[str]) -> None:
        """Offer ``names`` (the store's models), still showing the loaded one."""
        self.combo.blockSignals(True)
        self.combo.clear()
        self.combo.addItem(self.tr("Choose a model to load…") if names else self.tr("No models yet: get one"), "")
        for name in names:
            self.combo.addItem(name, name)
        self.combo.blockSignals(False)
        self.show_loaded(self._loaded)

    def show_loaded(self, name: str) -> None:
        """Show ``name`` as the model in use ("" for none)."""
        self._loaded = name
        i = self.combo.findData(name) if name else 0
        self.combo.blockSignals(True)
        self.combo.setCurrentIndex(max(0, i))
        self.combo.blockSignals(False)

    def follow_status(self, status: EngineStatus) -> None:
        """The engine's status (a bound method: Qt drops the connection when the picker is deleted)."""
        loaded = status.state in (EngineState.READY, EngineState.LOADING) and status.model
        self.show_loaded(str(status.model) if loaded else "")

    def revert(self) -> None:
        """Show the loaded model again (a choice that did not load)."""
        self.show_loaded(self._loaded)

    def choose(self, name: str) -> None:
        """Choose ``name`` as the user would (tests, the keyboard)."""
        i = self.combo.findData(name)
        if i > 0:
            self.combo.setCurrentIndex(i)
            self._on_combo_activated(i)

    def _on_combo_activated(self, index: int) -> None:
        name = str(self.combo.itemData(index) or "")
        if name and name != self._loaded:
            self.chosen.emit(name)
        elif not name:
            self.revert()
