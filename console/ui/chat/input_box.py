"""The chat's message box: Enter sends and Shift+Enter breaks the line (as in most chat apps), or,
with the setting off (Chat menu, saved in the settings), Enter breaks the line and Ctrl+Enter
sends (the window's Send action holds Ctrl+Enter in both ways). A pasted or dropped picture (or
picture file) is offered to the owner (``picturesOffered``) instead of being inserted as text."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QMimeData, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QPlainTextEdit, QWidget

from console.chat.attachments import FILE_PATTERN

_ENTER_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter)
_SUFFIXES = {s.lstrip("*") for s in FILE_PATTERN.split()}


def picture_paths(mime: QMimeData) -> list[str]:
    """The local picture files a drop or a paste carries (by their suffix)."""
    if not mime.hasUrls():
        return []
    paths = [u.toLocalFile() for u in mime.urls() if u.isLocalFile()]
    return [p for p in paths if Path(p).suffix.lower() in _SUFFIXES]


def offers_pictures(mime: QMimeData) -> bool:
    """A paste or a drop that carries a picture, or picture files."""
    return mime.hasImage() or bool(picture_paths(mime))


class ChatInput(QPlainTextEdit):
    """The message box.

    Signals:
        sendRequested(): Enter was pressed (with :attr:`enter_sends` on).
        picturesOffered(QMimeData): a paste or a drop that carries pictures (the owner attaches them).
    """

    sendRequested = Signal()
    picturesOffered = Signal(QMimeData)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.enter_sends = True
        self.setMaximumHeight(120)
        self.set_enter_sends(True)

    def set_enter_sends(self, on: bool) -> None:
        self.enter_sends = on
        self.setPlaceholderText(
            self.tr("Message (Enter sends, Shift+Enter breaks the line, Esc stops)")
            if on
            else self.tr("Message (Ctrl+Enter sends, Esc stops)")
        )

    def send_keys(self) -> str:
        """The keys that send, for tooltips and hints."""
        return self.tr("Enter") if self.enter_sends else self.tr("Ctrl+Enter")

    def canInsertFromMimeData(self, source: QMimeData) -> bool:
        return offers_pictures(source) or super().canInsertFromMimeData(source)

    def insertFromMimeData(self, source: QMimeData) -> None:
        if offers_pictures(source):
            self.picturesOffered.emit(source)  # handled now, while the paste's or drop's data lives
            return
        super().insertFromMimeData(source)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in _ENTER_KEYS:
            mods = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
            shift = bool(mods & Qt.KeyboardModifier.ShiftModifier)  # before the comparisons narrow mods
            if (
                self.enter_sends and mods == Qt.KeyboardModifier.NoModifier
            ) or mods == Qt.KeyboardModifier.ControlModifier:  # Ctrl+Enter: when no window action took it
                event.accept()
                self.sendRequested.emit()
                return
            if shift or (not self.enter_sends and not mods):
                event.accept()
                self.insertPlainText("\n")  # a plain newline (Qt's Shift+Enter would insert U+2028)
                return
        super().keyPressEvent(event)


__all__ = ["ChatInput", "offers_pictures", "picture_paths"]
