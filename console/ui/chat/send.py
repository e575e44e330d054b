"""Saving the message at Send, its slow part off the GUI thread: the message's pictures written
(up to 20 MB each, fsync'ed) and the chat's saved pictures read as data URLs in a worker
(``ImageShelf.stage``, the core's); the message is then saved (``ChatSession.send``) and sent on
the GUI thread. A message without pictures, in a chat whose pictures are in memory, is saved at
once.

Meanwhile Send is off (the panel asks :attr:`MessageSave.busy`: a second press cannot save twice),
the message box is read-only and the pictures and conversations cannot change, so what is saved
is what was in the box when Send was pressed; a failure leaves the box as it was. Closing the
window meanwhile waits for the save (:meth:`MessageSave.when_idle`): the message is kept, not
sent.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, Signal
from PySide6.QtWidgets import QPlainTextEdit, QWidget

from console.chat.attachments import Attachment, ImageError
from console.chat.session import ChatSession
from console.chat.conversation_pictures import StagedImages
from console.chat.conversations import ConversationError
from console.engine.types import GenerationRequest
from console.ui.core_text import translate_core_text, translate_error
from console.ui.tasks import BackgroundCall

#: What the session's ``send`` takes besides the text and pictures: sampling and the request's fields.
Fields = Callable[[], dict[str, Any]]


def _tr(text: str) -> str:
    return QCoreApplication.translate("ChatPanel", text)


class MessageSave(QObject):
    """Saving the message being sent over ``session``, one at a time; ``sent`` gets its request
    (and says whether it went), ``show_error`` a failure's one line (nothing saved: the box keeps
    the text and pictures). While pictures are written ``box`` is read-only and ``locked``
    disabled.

    Signals:
        savingChanged(bool): a save in a worker started (True) or ended (False).
    """

    savingChanged = Signal(bool)

    def __init__(
        self,
        session: ChatSession,
        box: QPlainTextEdit,
        locked: Sequence[QWidget],
        sent: Callable[[GenerationRequest], bool],
        show_error: Callable[[str], None],
        parent: QWidget,
    ) -> None:
        super().__init__(parent)
        self._session = session
        self._sent = sent
        self._show_error = show_error
        self._box = box
        self._locked = list(locked)
        self.busy = False
        #: the window is closing: the message being saved is kept, not sent
        self.keep_only = False
        self._after: list[Callable[[], object]] = []

    def send(self, text: str, images: list[Attachment], fields: Fields) -> bool:
        """Save ``text`` and ``images`` as the next message and send it. With pictures to write
        or read, in a worker first: True then says the save has started (a model that refuses
        pictures says so at once, with nothing written)."""
        session = self._session
        saved = session.store.images.not_cached([i for m in session.messages for i in m.images])
        if not (images or saved):
            return self._save(text, images, None, fields)
        try:
            session.check_images(images)
        except ImageError as exc:
            self._error(translate_error(exc))
            return False
        self._set(True)
        call = BackgroundCall(session.store.images.stage, images, saved)
        call.succeeded.connect(lambda staged: self._finish(lambda: self._save(text, images, staged, fields), staged))
        call.failed.connect(lambda message: self._finish(lambda: self._failed(message), None))
        call.start()
        return True

    def _save(self, text: str, images: list[Attachment], staged: StagedImages | None, fields: Fields) -> bool:
        try:
            request = self._session.send(text, images=images, staged=staged, **fields())
        except (ConversationError, OSError) as exc:
            self._failed(translate_error(exc))
            return False
        except (ValueError, ImageError) as exc:  # nothing was saved: the text and pictures stay
            self._error(translate_error(exc))
            return False
        return self._sent(request)

    def _failed(self, message: str) -> None:
        self._error(_tr("Could not save the message: {0}").format(translate_core_text(message)))

    def _error(self, line: str) -> None:
        """Nothing was saved: the box keeps the message, so a close waiting for it waits no more
        (the window stays, with the line)."""
        self._after, self.keep_only = [], False
        self._show_error(line)

    def when_idle(self, then: Callable[[], object]) -> bool:
        """Run ``then`` once the save in progress has kept the message (saved, not sent; not
        when it fails); False when there is none (nothing to wait for: ``then`` is not called)."""
        if not self.busy:
            return False
        self.keep_only = True
        self._after.append(then)
        return True

    def _finish(self, then: Callable[[], Any], staged: StagedImages | None) -> None:
        if not shiboken6.isValid(self):  # the panel is gone: there is no message to save any more
            if staged is not None:
                staged.discard()
            return
        self._set(False)
        then()
        after, self._after, self.keep_only = self._after, [], False
        for callback in after:
            callback()

    def _set(self, busy: bool) -> None:
        self.busy = busy
        self._box.setReadOnly(busy)
        for widget in self._locked:
            widget.setEnabled(not busy)
        self.savingChanged.emit(busy)


__all__ = ["MessageSave"]
