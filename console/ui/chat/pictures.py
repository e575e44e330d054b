"""Pictures in the Chat tab: attached from a file (the Attach button's dialog), pasted, or dropped
on the message box or the transcript; shown as removable thumbnails above the box until sent;
shown small in the transcript under the message that carried them.

Reading a picture (the file, its header, a data URL, the thumbnail) runs off the GUI thread
(``ui/tasks.py``); a pasted picture is encoded as PNG there too. What the picture is and how it is
sent and kept is the core's (``console/chat/attachments.py``, ``console/chat/session.py``).
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QBuffer, QCoreApplication, QEvent, QIODevice, QMimeData, QObject, QSize, Qt, Signal
from PySide6.QtGui import QDropEvent, QIcon, QImage, QImageReader, QPixmap
from PySide6.QtWidgets import QAbstractScrollArea, QFileDialog, QHBoxLayout, QPushButton, QToolButton, QWidget

from console.chat.attachments import FILE_PATTERN, Attachment, ImageError, image_from_bytes, load_image
from console.chat.attachments import refusal
from console.chat.conversation_pictures import SavedImage
from console.engine.types import EngineStatus
from console.ui.chat.input_box import ChatInput, offers_pictures, picture_paths
from console.ui.core_text import translate_core_text, translate_error
from console.ui.tasks import call_in_background

#: Thumbnails: at most this size, the aspect kept (the box's, the transcript's).
THUMB = QSize(72, 72)
TRANSCRIPT_THUMB = QSize(160, 120)


def _tr(text: str) -> str:
    return QCoreApplication.translate("ChatPanel", text)


def thumbnail(data: bytes | str, size: QSize) -> QImage:
    """A picture (its bytes, or its file) scaled to fit ``size``; a null image when it cannot be
    read. Safe off the GUI thread (QImage, not QPixmap)."""
    if isinstance(data, str):
        reader = QImageReader(data)
        image = reader.read()
    else:
        image = QImage.fromData(data)
    if image.isNull():
        return image
    return image.scaled(size, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation)


def _read_file(path: str, name: str | None) -> tuple[Attachment, QImage]:
    image = load_image(path)
    if name:  # a saved picture put back in the box keeps the name it was attached as
        image = Attachment(image.data, image.mime, name, image.width, image.height)
    image.url  # noqa: B018  # its data URL made here, not on the GUI thread when it is sent
    return image, thumbnail(image.data, THUMB)


def _read_pasted(picture: QImage) -> tuple[Attachment, QImage]:
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    picture.save(buffer, "PNG")  # type: ignore[call-overload]  # PySide6 takes a str here; its stub says bytes
    image = image_from_bytes(bytes(buffer.data().data()), _tr("pasted.png"))
    image.url  # noqa: B018  # made off the GUI thread
    return image, picture.scaled(THUMB, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation)


class ImageStrip(QWidget):
    """The pictures attached to the message being written: a thumbnail each; clicking one removes
    it. Hidden when there is none; adding and removing happen on the GUI thread. Each picture
    takes the place of its ``order`` (the order it was attached in, whichever read ends first).

    Signals:
        changed(): a picture was added or removed.
    """

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._row = QHBoxLayout(self)
        self._row.setContentsMargins(0, 0, 0, 0)
        self._row.addStretch(1)
        self._items: list[tuple[Attachment, QToolButton]] = []
        self._order: dict[QToolButton, int] = {}
        self.hide()

    def add(self, image: Attachment, thumb: QImage, order: int = 0) -> None:
        button = QToolButton(self)
        button.setIcon(QIcon(QPixmap.fromImage(thumb)))
        button.setIconSize(THUMB)
        button.setText("✕")
        button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextUnderIcon)
        button.setToolTip(_tr("{0} ({1} × {2}): click to remove").format(image.name, image.width, image.height))
        button.clicked.connect(lambda: self.remove(button))
        at = sum(1 for _, b in self._items if self._order[b] <= order)
        self._order[button] = order
        self._row.insertWidget(at, button)
        button.show()  # now: a layout shows a child added to a visible row only at the next event-loop pass
        self._items.insert(at, (image, button))
        self.show()
        self.changed.emit()

    def remove(self, button: QToolButton) -> None:
        self._items = [(i, b) for i, b in self._items if b is not button]
        self._order.pop(button, None)
        self._drop(button)
        self.setVisible(bool(self._items))
        self.changed.emit()

    def clear(self) -> None:
        for _image, button in self._items:
            self._drop(button)
        self._items, self._order = [], {}
        self.hide()
        self.changed.emit()

    def _drop(self, button: QToolButton) -> None:
        """Out of the row at once (its deletion waits for the event loop)."""
        self._row.removeWidget(button)
        button.hide()
        button.deleteLater()

    def attachments(self) -> list[Attachment]:
        return [image for image, _ in self._items]

    def buttons(self) -> list[QToolButton]:
        return [button for _, button in self._items]


class ChatImages(QObject):
    """Attaching pictures to the message being written: the Attach button's dialog, a paste or a
    drop on the message box (its ``picturesOffered``) or on the transcript, each read in a worker,
    then added to ``strip``; a picture that cannot be read is refused through ``show_error`` (one
    line).

    Signals:
        loadingChanged(int): how many pictures are still being read.
    """

    loadingChanged = Signal(int)

    def __init__(
        self,
        strip: ImageStrip,
        attach_button: QPushButton,
        box: ChatInput,
        transcript: QAbstractScrollArea,
        show_error: Callable[[str], None],
        parent: QWidget,
    ) -> None:
        super().__init__(parent)
        self.strip = strip
        self._show_error = show_error
        self._parent = parent
        self.loading = 0
        self._attached = 0  # pictures asked for so far: each one's place in the strip
        #: the loaded model's refusal of pictures (one line, translated), None when it takes them
        #: or that is not known: refused, the Attach button is greyed out with it as its tooltip
        self.refused: str | None = None
        self._button = attach_button
        self._tip = attach_button.toolTip()
        attach_button.clicked.connect(self.choose_files)
        box.picturesOffered.connect(self.attach_mime)
        self.accept_drops(transcript.viewport())

    @staticmethod
    def refusal(status: EngineStatus) -> ImageError | None:
        """The loaded model's refusal of pictures (one line), None when it takes them or when
        that is not known (a server's model)."""
        if status.info is None:
            return None
        return refusal(status.model or "", status.info.takes_images)

    def follow_model(self, status: EngineStatus) -> None:
        """Grey out the Attach button (the reason its tooltip) when the model in ``status`` does
        not take pictures; a paste or a drop is then refused in that line."""
        refused = self.refusal(status)
        self.refused = translate_error(refused) if refused is not None else None
        self._button.setToolTip(self.refused or self._tip)
        self._button.setEnabled(self.refused is None)

    def put_back(self, images: tuple[SavedImage, ...]) -> None:
        """A saved message's pictures back in the box (editing it), under their names."""
        self.strip.clear()
        self.attach_files([i.path for i in images], [i.name for i in images])

    # -- intents -------------------------------------------------------------------------------
    def choose_files(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(
            self._parent, _tr("Attach pictures"), "", _tr("Pictures ({0})").format(FILE_PATTERN)
        )
        self.attach_files(paths)

    def attach_files(self, paths: list[str], names: list[str] | None = None) -> None:
        """Read each file in a worker and attach it; ``names``: the names to show instead of the
        files' own (a saved picture put back in the box)."""
        for i, path in enumerate(paths):
            self._start(_read_file, path, names[i] if names else None)

    def attach_picture(self, picture: QImage) -> None:
        """A pasted picture (encoded as PNG in a worker)."""
        if not picture.isNull():
            self._start(_read_pasted, picture)

    def attach_mime(self, mime: QMimeData) -> bool:
        """A paste's or a drop's pictures (data, or picture files); False when it carries none."""
        if self.refused is not None and offers_pictures(mime):
            self._show_error(self.refused)
            return True
        if mime.hasImage():
            self.attach_picture(QImage(mime.imageData()))
            return True
        paths = picture_paths(mime)
        self.attach_files(paths)
        return bool(paths)

    def accept_drops(self, widget: QWidget) -> None:
        """Take pictures dropped on ``widget`` (a scroll area's viewport: the transcript)."""
        widget.setAcceptDrops(True)
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove) and isinstance(event, QDropEvent):
            if offers_pictures(event.mimeData()):
                event.acceptProposedAction()
                return True
        elif kind == QEvent.Type.Drop and isinstance(event, QDropEvent) and self.attach_mime(event.mimeData()):
            event.acceptProposedAction()
            return True
        return super().eventFilter(watched, event)

    # -- reading -------------------------------------------------------------------------------
    def _start(self, fn: Callable[..., tuple[Attachment, QImage]], *args: object) -> None:
        self._count(+1)
        self._attached += 1
        order = self._attached
        call_in_background(
            fn, *args, on_success=lambda r: self._on_read(r, order), on_failure=self._on_failed, context=self.strip
        )

    def _on_read(self, result: tuple[Attachment, QImage], order: int) -> None:
        self._count(-1)
        self.strip.add(*result, order)

    def _on_failed(self, message: str) -> None:
        self._count(-1)
        self._show_error(translate_core_text(message))

    def _count(self, step: int) -> None:
        self.loading += step
        self.loadingChanged.emit(self.loading)


class Thumbnails(QObject):
    """The transcript's thumbnails of saved pictures, by file: made in a worker the first time
    one is asked for (a blank one stands in meanwhile), then ``ready`` asks for a new render.

    Signals:
        ready(): a thumbnail that was missing is now here.
    """

    ready = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._done: dict[str, QImage] = {}
        self._pending: set[str] = set()

    def get(self, path: str) -> QImage:
        image = self._done.get(path)
        if image is not None:
            return image
        if path not in self._pending:
            self._pending.add(path)
            call_in_background(
                thumbnail, path, TRANSCRIPT_THUMB, on_success=lambda i: self._on_made(path, i), context=self
            )
        blank = QImage(TRANSCRIPT_THUMB.width() // 2, TRANSCRIPT_THUMB.height() // 2, QImage.Format.Format_RGB32)
        blank.fill(Qt.GlobalColor.lightGray)
        return blank

    def _on_made(self, path: str, image: QImage) -> None:
        self._pending.discard(path)
        if image.isNull():  # a file gone or unreadable: a grey box stands for it
            image = QImage(TRANSCRIPT_THUMB.width() // 2, TRANSCRIPT_THUMB.height() // 2, QImage.Format.Format_RGB32)
            image.fill(Qt.GlobalColor.gray)
        self._done[path] = image
        self.ready.emit()

    def pending(self) -> int:
        return len(self._pending)


__all__ = ["ChatImages", "ImageStrip", "Thumbnails", "thumbnail"]
