"""The Chat tab's left column: the saved conversations, most recent first, and the New / Export /
Rename / Delete buttons. It only shows and reports; the Chat panel acts on the choices.

Signals:
    conversationChosen(int): the user picked a conversation in the list (its id).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QListWidget, QListWidgetItem, QPushButton, QVBoxLayout, QWidget

from console.chat.conversations import Conversation
from console.ui.formatting import format_datetime


class ConversationList(QWidget):
    """The list and its buttons (``new_button``, ``export_button``, ``rename_button``,
    ``delete_button``: the panel connects them)."""

    conversationChosen = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.list = QListWidget(self)
        self.list.currentItemChanged.connect(self._on_list_current_item_changed)
        self.new_button = QPushButton(self.tr("New chat"), self)
        self.new_button.setToolTip(self.tr("Start a new conversation (Ctrl+N)"))
        self.rename_button = QPushButton(self.tr("Rename"), self)
        self.delete_button = QPushButton(self.tr("Delete"), self)
        self.export_button = QPushButton(self.tr("Export…"), self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel(self.tr("Conversations"), self))
        layout.addWidget(self.list)
        for pair in ((self.new_button, self.export_button), (self.rename_button, self.delete_button)):
            row = QHBoxLayout()
            for b in pair:
                row.addWidget(b)
            layout.addLayout(row)

    def show_conversations(self, conversations: list[Conversation], current: int | None) -> None:
        """Fill the list (without reporting a choice) and highlight ``current``."""
        self.list.blockSignals(True)
        self.list.clear()
        for conv in conversations:
            item = QListWidgetItem(conv.title)
            item.setData(Qt.ItemDataRole.UserRole, conv.id)
            item.setToolTip(self.tr("Last message: {0}").format(format_datetime(conv.updated_at)))
            self.list.addItem(item)
            if conv.id == current:
                self.list.setCurrentItem(item)
        self.list.blockSignals(False)

    def clear_choice(self) -> None:
        self.list.clearSelection()
        self.list.setCurrentItem(None)  # type: ignore[call-overload]  # Qt takes nullptr; the stubs lack None

    def _on_list_current_item_changed(self, current: QListWidgetItem | None, _previous: Any) -> None:
        if current is not None:
            self.conversationChosen.emit(int(current.data(Qt.ItemDataRole.UserRole)))
