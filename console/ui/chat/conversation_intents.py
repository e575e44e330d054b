"""The Chat tab's conversations: the list's intents (new, open, rename, delete, export) on the chat
session, and the panel's one-line errors. :class:`ChatConversations` is a base of
:class:`console.ui.chat.panel.ChatPanel`, which gives it the session, the message being saved and
the rendering (declared here; the panel defines them)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, Signal
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMessageBox

from console.chat.conversations import ConversationError, ConversationStore, Message
from console.chat.session import ChatSession
from console.ui.chat.panel_ui import ChatWidgets

if TYPE_CHECKING:
    from console.ui.chat.send import MessageSave


def _tr(text: str) -> str:
    return QCoreApplication.translate("ChatPanel", text)  # the panel's strings, in its context


class ChatConversations(ChatWidgets):
    """The conversations' intents of the Chat panel.

    Signals:
        message(str): a one-line outcome for the status bar.
    """

    message = Signal(str)
    session: ChatSession
    saving: MessageSave

    # what the panel does (it overrides these)
    def _detach_active(self) -> None:
        raise NotImplementedError

    def _render(self) -> None:
        raise NotImplementedError

    def _schedule_count(self) -> None:
        raise NotImplementedError

    def _update_buttons(self) -> None:
        raise NotImplementedError

    # -- the session's state --------------------------------------------------------------------------
    @property
    def store(self) -> ConversationStore:
        return self.session.store

    @property
    def conversation_id(self) -> int | None:
        return self.session.conversation_id

    @property
    def messages(self) -> list[Message]:
        return self.session.messages

    # -- conversations ------------------------------------------------------------------------------
    def refresh_conversations(self) -> None:
        self.conversations.show_conversations(self.store.list(), self.conversation_id)

    def new_conversation(self) -> None:
        """Start an empty chat; the conversation is created on the first message."""
        if self.saving.busy:  # the message being saved goes to the open conversation
            return
        self._detach_active()
        self.session.new()
        self.tools_box.sync()
        self._cancel_edit()
        self.clear_error()  # a line about the last chat is not about this one
        self.conversations.clear_choice()
        self.input.setFocus()
        self._render()
        self._schedule_count()
        self._update_buttons()

    def open_conversation(self, conversation_id: int) -> bool:
        try:
            self.store.get(conversation_id)
        except ConversationError:
            return False
        self._detach_active()
        self.adapter_box.recall(conversation_id)
        conv = self.session.open(conversation_id)
        self.tools_box.sync()
        self.system_prompt.blockSignals(True)
        self.system_prompt.setPlainText(conv.system_prompt)
        self.system_prompt.blockSignals(False)
        self._cancel_edit()
        self.refresh_conversations()
        self._render()
        self._schedule_count()
        self._update_buttons()
        return True

    def rename_conversation(self, title: str | None = None) -> None:
        if self.conversation_id is None:
            return
        if title is None:
            current = self.store.get(self.conversation_id).title
            title, ok = QInputDialog.getText(self, _tr("Rename conversation"), _tr("Title:"), text=current)
            if not ok:
                return
        try:
            self.store.rename(self.conversation_id, title)
        except ConversationError as exc:
            self.show_error(str(exc))
            return
        self.refresh_conversations()

    def delete_conversation(self, confirm: bool = True) -> None:
        if self.conversation_id is None:
            return
        if confirm:
            answer = QMessageBox.question(
                self, _tr("Delete conversation"), _tr("Delete this conversation and all its messages?")
            )
            if answer != QMessageBox.StandardButton.Yes:
                return
        self._detach_active()
        self.session.delete()
        self.new_conversation()
        self.refresh_conversations()

    def export_conversation(self, path: str | None = None) -> str | None:
        if self.conversation_id is None:
            self.show_error(_tr("Nothing to export: start or open a conversation first"))
            return None
        if path is None:
            path, _ = QFileDialog.getSaveFileName(
                self,
                _tr("Export conversation"),
                f"{self.session.file_stem()}.md",
                _tr("Markdown (*.md);;JSON (*.json)"),
            )
            if not path:
                return None
        try:
            self.session.export(path)
        except OSError as exc:
            self.show_error(_tr("Export failed: {0}").format(exc))
            return None
        self.message.emit(_tr("Exported to {0}").format(path))
        return path

    def _cancel_edit(self) -> None:
        self.session.cancel_edit()
        self.edit_label.hide()

    def show_error(self, text: str) -> None:
        self.error_label.show_text(text)
        self.message.emit(text)

    def clear_error(self) -> None:
        self.error_label.clear_text()

    def _on_conversations_conversation_chosen(self, cid: int) -> None:
        if cid != self.conversation_id and not self.saving.busy:  # the list is off while saving, too
            self.open_conversation(cid)
