"""Pictures in the Chat tab: attached from files, pasted, dropped on the box or the transcript,
shown as removable thumbnails until sent; a saved conversation's pictures show as thumbnails in
the transcript; a text-only model refuses a picture in one line with nothing saved or sent.

The first tests use no engine (a fresh, unloaded engine: nothing is started); the refusal runs on
the session's tiny text-only engine (marked engine). At Send the pictures are written in a worker
while the window goes on (Send off), the message sent once they are; a failure leaves it in the box
and closing the window meanwhile keeps it: on the session's tiny vision engine (marked engine)."""

from __future__ import annotations

import errno
import threading
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from PySide6.QtCore import QMimeData, QPointF, Qt, QTimer, QUrl
from PySide6.QtGui import QDropEvent, QImage, QTextDocument
from PySide6.QtWidgets import QApplication, QToolButton

from console.chat import conversation_pictures
from console.chat.attachments import load_image
from console.sampling import SamplingSettings
from console.chat.conversation_pictures import STAGING_DIR, ImageShelf
from console.chat.conversations import ConversationStore
from console.engine.types import EngineState
from console.ui.context import AppContext


def picture(path: Path, color: str = "red", size: tuple[int, int] = (40, 20)) -> Path:
    Image.new("RGB", size, color).save(path)
    return path


@pytest.fixture()
def panel(home: Path, qtbot: Any) -> Any:
    from console.ui.chat.panel import ChatPanel

    chat = ChatPanel(AppContext.create())
    qtbot.addWidget(chat)
    chat.resize(1000, 700)
    chat.show()
    return chat


def _shown(chat: Any) -> int:
    """Thumbnails shown in the box's row."""
    return sum(1 for b in chat.image_strip.findChildren(QToolButton) if b.isVisibleTo(chat.image_strip))


def _read(chat: Any, qtbot: Any) -> None:
    qtbot.waitUntil(lambda: chat.images.loading == 0, timeout=10_000)


def _answered(chat: Any, qtbot: Any, messages: int = 2) -> None:
    """The pictures written, the message sent and answered."""
    qtbot.waitUntil(
        lambda: not chat.saving.busy and chat.active_id is None and len(chat.messages) == messages, timeout=120_000
    )


def _hold_writes(monkeypatch: pytest.MonkeyPatch) -> tuple[threading.Event, list[threading.Thread]]:
    """The pictures' writing waits for the returned event; the threads it ran in are recorded."""
    release, threads = threading.Event(), []
    stage = ImageShelf.stage

    def held(shelf: ImageShelf, *args: Any) -> Any:
        threads.append(threading.current_thread())
        assert release.wait(60)
        return stage(shelf, *args)

    monkeypatch.setattr(ImageShelf, "stage", held)
    return release, threads


def _vision_chat(ctx: Any, qtbot: Any) -> Any:
    from console.ui.chat.panel import ChatPanel

    chat = ChatPanel(ctx)
    qtbot.addWidget(chat)
    chat.show()
    chat.temperature.setValue(0.0)
    chat.max_tokens.setValue(4)
    return chat


def test_attached_pictures_show_as_thumbnails_and_a_click_removes_one(panel: Any, qtbot: Any, tmp_path: Path) -> None:
    assert panel.image_strip.isHidden() and panel.attach_button.isEnabled()
    panel.images.attach_files([str(picture(tmp_path / "red.png")), str(picture(tmp_path / "blue.png", "blue"))])
    _read(panel, qtbot)
    assert [a.name for a in panel.image_strip.attachments()] == ["red.png", "blue.png"]
    assert panel.image_strip.isVisible()
    first = panel.image_strip.buttons()[0]
    assert "red.png (40 × 20)" in first.toolTip() and not first.icon().isNull()
    qtbot.mouseClick(first, Qt.MouseButton.LeftButton)
    assert [a.name for a in panel.image_strip.attachments()] == ["blue.png"]
    assert _shown(panel) == 1  # gone from the row at once, not when the event loop deletes it

    panel.image_strip.clear()  # as after a send: the next picture starts a new row
    assert _shown(panel) == 0 and panel.image_strip.layout().count() == 1  # only the stretch is left
    panel.images.attach_files([str(picture(tmp_path / "green.png", "green"))])
    _read(panel, qtbot)
    assert [a.name for a in panel.image_strip.attachments()] == ["green.png"] and _shown(panel) == 1

    (tmp_path / "notes.png").write_text("not a picture")
    panel.images.attach_files([str(tmp_path / "notes.png")])
    _read(panel, qtbot)
    assert "notes.png is not a picture the chat can read" == panel.error_label.text()
    assert len(panel.image_strip.attachments()) == 1


def test_paste_and_drop_attach_pictures_instead_of_text(panel: Any, qtbot: Any, tmp_path: Path) -> None:
    pasted = QMimeData()
    shot = QImage(64, 32, QImage.Format.Format_RGB32)
    shot.fill(Qt.GlobalColor.green)
    pasted.setImageData(shot)
    pasted.setText("should not be inserted")
    assert panel.input.canInsertFromMimeData(pasted)
    panel.input.insertFromMimeData(pasted)
    _read(panel, qtbot)
    assert panel.input.toPlainText() == ""
    (image,) = panel.image_strip.attachments()
    assert (image.mime, image.width, image.height) == ("image/png", 64, 32)

    dropped = QMimeData()
    dropped.setUrls([QUrl.fromLocalFile(str(picture(tmp_path / "drop.png")))])
    viewport = panel.transcript.viewport()
    for kind in (QDropEvent.Type.DragEnter, QDropEvent.Type.Drop):
        event = QDropEvent(
            QPointF(20, 20),
            Qt.DropAction.CopyAction,
            dropped,
            Qt.MouseButton.LeftButton,
            Qt.KeyboardModifier.NoModifier,
            kind,
        )
        QApplication.sendEvent(viewport, event)
        assert event.isAccepted()
    _read(panel, qtbot)
    assert [a.name for a in panel.image_strip.attachments()][1:] == ["drop.png"]

    text = QMimeData()
    text.setText("plain words")
    panel.input.insertFromMimeData(text)  # text is still text
    assert panel.input.toPlainText() == "plain words"


def test_a_saved_conversation_shows_its_pictures_in_the_transcript(home: Path, qtbot: Any, tmp_path: Path) -> None:
    from console.chat.session import ChatSession
    from console.ui.chat.panel import ChatPanel

    store = ConversationStore()
    session = ChatSession(store)
    session.send(
        "What colour?", SamplingSettings(), images=[load_image(picture(tmp_path / "red.png", size=(320, 240)))]
    )
    session.record_answer("Red.")
    chat = ChatPanel(AppContext.create(), conversations=store)
    qtbot.addWidget(chat)
    chat.show()
    assert chat.open_conversation(session.conversation_id)
    (saved,) = chat.messages[0].images
    assert f"chatimage:{saved.id}" in chat.transcript.toHtml()
    qtbot.waitUntil(lambda: chat.transcript.thumbnails.pending() == 0, timeout=10_000)
    thumb = chat.transcript.thumbnails.get(saved.path)
    assert (thumb.width(), thumb.height()) == (160, 120)  # scaled to fit, the aspect kept
    assert QImage(thumb).pixelColor(80, 60).red() > 200
    shown = chat.transcript.document().resource(QTextDocument.ResourceType.ImageResource, QUrl(f"chatimage:{saved.id}"))
    assert (shown.width(), shown.height()) == (160, 120)  # rendered again with it, not the stand-in

    assert chat.edit_last()  # editing puts the message's pictures back in the box
    _read(chat, qtbot)
    assert [a.name for a in chat.image_strip.attachments()] == ["red.png"]


@pytest.mark.engine
def test_a_text_only_model_refuses_a_picture_in_one_line(
    tiny_engine: Any, home: Path, qtbot: Any, connections: Any, tmp_path: Path
) -> None:
    from console.ui.chat.panel import ChatPanel

    assert tiny_engine.status.state == EngineState.READY
    chat = ChatPanel(connections.context(engine=tiny_engine))
    qtbot.addWidget(chat)
    chat.images.attach_files([str(picture(tmp_path / "red.png"))])
    _read(chat, qtbot)
    chat.input.setPlainText("What is this?")
    assert not chat.send()
    line = chat.error_label.text()
    assert "does not take images" in line and "\n" not in line
    assert chat.active_id is None and chat.store.list() == []  # nothing saved, nothing sent
    assert chat.input.toPlainText() == "What is this?" and len(chat.image_strip.attachments()) == 1
    qtbot.mouseClick(chat.image_strip.buttons()[0], Qt.MouseButton.LeftButton)
    assert chat.send()  # the text alone goes
    qtbot.waitUntil(lambda: chat.active_id is None, timeout=60_000)


@pytest.mark.engine
def test_a_picture_attached_in_the_chat_reaches_the_model_and_reopens(
    vision_engine: Any, vision_model: Path, home: Path, qtbot: Any, connections: Any, tmp_path: Path
) -> None:
    """End to end on the tiny vision fixture (``vision_engine``): the picture attached in the window
    is counted by the context meter before it is sent, reaches the model (its prompt carries the
    picture's tokens, as many as transformers' own processor gives it), and the conversation
    reopens with it and sends it again."""
    from console.engine.types import GenerationRequest
    from console.ui.chat.panel import ChatPanel
    from tests.fixtures.vision import IMAGE_TOKEN, png_bytes, processor_image_tokens

    (tmp_path / "red.png").write_bytes(png_bytes(100, 80))
    question = "What is in this picture?"
    ctx = connections.context(engine=vision_engine)
    chat = ChatPanel(ctx)
    qtbot.addWidget(chat)
    chat.temperature.setValue(0.0)
    chat.max_tokens.setValue(4)
    chat.images.attach_files([str(tmp_path / "red.png")])
    _read(chat, qtbot)
    chat.input.setPlainText(question)
    chat.context_bar.count_now()  # the draft with its picture
    qtbot.waitUntil(lambda: chat.used_tokens is not None, timeout=60_000)
    counted = chat.used_tokens
    assert chat.send(), chat.error_label.text()
    _answered(chat, qtbot)
    sent, answer = chat.messages
    assert [i.name for i in sent.images] == ["red.png"] and answer.role == "assistant", chat.error_label.text()
    assert chat.image_strip.attachments() == [] and chat.input.toPlainText() == ""

    image_tokens = processor_image_tokens(vision_model, png_bytes(100, 80))
    text_only = vision_engine.count_prompt_tokens(GenerationRequest(messages=[{"role": "user", "content": question}]))
    prompt = vision_engine.format_prompt(GenerationRequest(messages=chat.session.chat_messages()[:1]))[
        "prompt_token_ids"
    ]
    image_id = vision_engine.tokenizer.convert_tokens_to_ids(IMAGE_TOKEN)
    assert image_tokens == 20 and prompt.count(image_id) == image_tokens  # what the saved message sends
    # the text, the picture's tokens and their frame, as the meter counted it before sending
    assert answer.prompt_tokens == len(prompt) == counted and answer.prompt_tokens > text_only + image_tokens

    again = ChatPanel(ctx, conversations=ConversationStore())  # a restart: the conversation reopens
    qtbot.addWidget(again)
    assert again.open_conversation(chat.conversation_id)
    assert [i.name for i in again.messages[0].images] == ["red.png"]
    assert f"chatimage:{again.messages[0].images[0].id}" in again.transcript.toHtml()
    again.temperature.setValue(0.0)
    again.max_tokens.setValue(4)
    assert again.regenerate()  # the picture is sent again from the saved file
    qtbot.waitUntil(lambda: again.active_id is None, timeout=120_000)
    assert again.messages[-1].prompt_tokens == answer.prompt_tokens
    assert again.messages[-1].content == answer.content  # greedy: the same prompt, the same answer


@pytest.mark.engine
def test_send_writes_the_pictures_in_a_worker_then_sends_the_message(
    vision_engine: Any, home: Path, qtbot: Any, connections: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chat = _vision_chat(connections.context(engine=vision_engine), qtbot)
    release, threads = _hold_writes(monkeypatch)
    chat.images.attach_files([str(picture(tmp_path / "red.png"))])
    _read(chat, qtbot)
    chat.input.setPlainText("What colour?")
    assert chat.send()
    assert chat.saving.busy and not chat.send_button.isEnabled() and chat.input.isReadOnly()
    assert not chat.attach_button.isEnabled() and not chat.conversations.isEnabled()
    qtbot.mouseClick(chat.send_button, Qt.MouseButton.LeftButton)  # a second press saves nothing twice
    assert not chat.send()  # nor does Enter
    ticks: list[int] = []
    timer = QTimer(chat)
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start(10)
    qtbot.waitUntil(lambda: len(ticks) >= 5, timeout=10_000)  # the window goes on while the worker writes
    timer.stop()
    assert threads and threads[0] is not threading.main_thread()
    assert chat.store.list() == [] and chat.active_id is None  # nothing saved or sent before the pictures are
    assert chat.input.toPlainText() == "What colour?" and len(chat.image_strip.attachments()) == 1

    release.set()
    _answered(chat, qtbot)
    assert len(threads) == 1
    sent, answer = chat.messages
    assert sent.content == "What colour?" and [i.name for i in sent.images] == ["red.png"], chat.error_label.text()
    assert answer.role == "assistant" and answer.prompt_tokens is not None and answer.prompt_tokens > 20
    assert Path(sent.images[0].path).read_bytes() == (tmp_path / "red.png").read_bytes()
    assert list((chat.store.images.root / STAGING_DIR).iterdir()) == []  # moved into place
    assert chat.input.toPlainText() == "" and chat.image_strip.attachments() == []
    assert chat.send_button.isEnabled() and not chat.input.isReadOnly() and chat.attach_button.isEnabled()


@pytest.mark.engine
def test_a_picture_that_cannot_be_written_leaves_the_message_in_the_box(
    vision_engine: Any, home: Path, qtbot: Any, connections: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chat = _vision_chat(connections.context(engine=vision_engine), qtbot)
    real = conversation_pictures.atomic_write_bytes
    written: list[Path] = []

    def full(path: Path, data: bytes) -> None:  # the disk fills up at the second picture
        if written:
            raise OSError(errno.ENOSPC, "No space left on device")
        written.append(path)
        real(path, data)

    monkeypatch.setattr(conversation_pictures, "atomic_write_bytes", full)
    chat.images.attach_files([str(picture(tmp_path / "red.png")), str(picture(tmp_path / "blue.png", "blue"))])
    _read(chat, qtbot)
    chat.input.setPlainText("Two colours?")
    assert chat.send()
    qtbot.waitUntil(lambda: not chat.saving.busy, timeout=30_000)
    line = chat.error_label.text()
    assert line.startswith("Could not save the message: ") and "No space left" in line and "\n" not in line
    assert chat.store.list() == [] and chat.active_id is None
    assert written and [p for p in chat.store.images.root.rglob("*") if p.is_file()] == []  # no file left
    assert chat.input.toPlainText() == "Two colours?" and len(chat.image_strip.attachments()) == 2
    assert chat.send_button.isEnabled() and not chat.input.isReadOnly()

    monkeypatch.setattr(conversation_pictures, "atomic_write_bytes", real)  # space freed: Send again
    assert chat.send()
    _answered(chat, qtbot)
    assert [i.name for i in chat.messages[0].images] == ["red.png", "blue.png"] and chat.error_label.text() == ""


@pytest.mark.engine
def test_closing_the_window_while_pictures_are_written_keeps_the_message(
    vision_engine: Any, home: Path, qtbot: Any, connections: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The window does not own the engine here (``owns_engine=False``): it closes at once once the
    message is kept."""
    from console.settings import load_settings
    from console.ui.main_window import MainWindow

    window = MainWindow(connections.context(engine=vision_engine), load_settings(), owns_engine=False)
    qtbot.addWidget(window)
    window.show()
    chat = window.chat
    release, _threads = _hold_writes(monkeypatch)
    chat.images.attach_files([str(picture(tmp_path / "red.png"))])
    _read(chat, qtbot)
    chat.input.setPlainText("Keep me")
    assert chat.send()
    assert not window.close() and window.isVisible()  # it waits for the pictures
    release.set()
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=30_000)
    (kept,) = chat.store.messages(chat.conversation_id)  # kept, not sent: the engine is not asked
    assert kept.content == "Keep me" and [i.name for i in kept.images] == ["red.png"]
    assert Path(kept.images[0].path).is_file() and chat.active_id is None and chat.session.answering is None
    assert load_settings().last_conversation == chat.conversation_id  # the window reopens on it
