"""The model picker at the top of the chat (issue 31): the store's models in a combo; choosing one
loads it through the Models panel's own path (the one a double-click takes: the preset and
knobs shown there, the fit confirmation, the busy check), and the combo shows the model loaded.

:func:`connect_models` is the window's one call that ties the chat's picker and load banner to
the Models panel: the picker's list follows the panel's table, a choice selects and loads there,
and the banner's fix is the planner's first suggestion for the model whose load failed.

Signals:
    chosen(str): the user chose a model (not emitted when the list or the loaded model is shown).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSizePolicy, QWidget

from console.engine.types import EngineState, EngineStatus
from console.ui.core_text import translate_core_text

if TYPE_CHECKING:
    from console.ui.chat_panel import ChatPanel
    from console.ui.models_panel import ModelsPanel


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

    def set_models(self, names: list[str]) -> None:
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


def planner_fix(models: ModelsPanel, name: str) -> tuple[str, dict[str, Any]] | None:
    """The planner's first settings suggestion for ``name`` as the Models panel plans it now (its
    text as the Planner box shows it, and its changes), or None."""
    plan = models.plan_view.plan
    if plan is None or models.selected_name() != name:
        return None
    for s in plan.suggestions:
        if s.kind == "settings" and s.changes:
            return translate_core_text(s.summary), dict(s.changes)
    return None


def connect_models(chat: ChatPanel, models: ModelsPanel) -> None:
    """Tie the chat's picker and load banner to the Models panel (the window calls this once)."""
    picker, banner, bridge = chat.model_picker, chat.load_banner, models.ctx.bridge

    def refresh() -> None:
        picker.set_models([e.name for e in models.table_model.entries])

    def pick(name: str) -> None:
        if not (models.select_model(name) and models.load_selected()):
            picker.revert()  # refused or not confirmed: the combo says what is loaded

    models.table_model.modelReset.connect(refresh)
    picker.chosen.connect(pick)
    bridge.statusChanged.connect(picker.follow_status)  # the bridge outlives a closed window
    banner.set_fix_source(lambda failed: planner_fix(models, failed))
    banner.applyRequested.connect(models.apply_change)
    banner.retryRequested.connect(models.load_selected)
    refresh()
    picker.follow_status(models.ctx.host.status)
