"""Pictures in the chat history (no engine): attached to a user message, kept as files beside the
database and rows in it, sent back as OpenAI content parts, gone with their message or
conversation, refused before anything is saved for a model that does not take images, and an
older history gains the table when it is opened. The window writes a message's pictures ahead in a
worker (``ImageShelf.stage``): moved into place with the message, nothing left behind when either
step fails."""

from __future__ import annotations

import base64
import errno
import io
import os
import sqlite3
from pathlib import Path

import pytest
from PIL import Image

from console.chat.attachments import (
    MAX_IMAGE_BYTES,
    ImageError,
    image_count,
    image_from_bytes,
    load_image,
    refusal,
    user_content,
)
from console.chat.session import ChatSession
from console.sampling import SamplingSettings
from console.chat import conversation_pictures
from console.chat.conversation_pictures import IMAGES_DIR, STAGING_DIR, ImageShelf
from console.chat.conversations import SCHEMA_VERSION, ConversationError, ConversationStore


def picture(path: Path, color: str = "red", fmt: str = "PNG", size: tuple[int, int] = (24, 16)) -> Path:
    Image.new("RGB", size, color).save(path, fmt)
    return path


def decoded(url: str) -> bytes:
    head, _, data = url.partition(",")
    assert head.startswith("data:image/") and head.endswith(";base64")
    return base64.b64decode(data)


def test_load_image_reads_a_picture_and_refuses_what_is_not_one(tmp_path: Path) -> None:
    png = load_image(picture(tmp_path / "red.png"))
    assert (png.mime, png.name, png.width, png.height, png.suffix) == ("image/png", "red.png", 24, 16, ".png")
    jpeg = load_image(picture(tmp_path / "photo.jpeg", "blue", "JPEG"))
    assert jpeg.mime == "image/jpeg" and jpeg.suffix == ".jpg"
    assert decoded(png.url) == (tmp_path / "red.png").read_bytes()

    (tmp_path / "notes.png").write_text("not a picture")
    with pytest.raises(ImageError, match="not a picture"):
        load_image(tmp_path / "notes.png")
    with pytest.raises(ImageError, match="Could not read"):
        load_image(tmp_path / "missing.png")
    tiff = io.BytesIO()
    Image.new("RGB", (4, 4)).save(tiff, "TIFF")
    with pytest.raises(ImageError, match="TIFF picture"):
        image_from_bytes(tiff.getvalue(), "scan.tiff")
    with pytest.raises(ImageError, match="too large"):
        image_from_bytes(b"\0" * (MAX_IMAGE_BYTES + 1), "huge.png")


def test_content_parts_and_the_refusal_line() -> None:
    assert user_content("Hi", []) == "Hi"
    parts = user_content("What is this?", ["data:image/png;base64,AAAA"])
    assert parts == [
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
        {"type": "text", "text": "What is this?"},
    ]
    assert user_content("", ["u"]) == [{"type": "image_url", "image_url": {"url": "u"}}]
    assert image_count([{"role": "user", "content": parts}, {"role": "assistant", "content": "A dot."}]) == 1
    assert refusal("smollm2", True) is None and refusal("server-model", None) is None
    refused = refusal("smollm2", False)
    assert refused is not None and "\n" not in str(refused)
    assert str(refused).startswith("smollm2 does not take images")


def test_pictures_are_kept_sent_back_and_reopened(tmp_path: Path) -> None:
    db = tmp_path / "home" / "conversations.sqlite3"
    store = ConversationStore(db)
    session = ChatSession(store)
    red, blue = load_image(picture(tmp_path / "red.png")), load_image(picture(tmp_path / "blue.png", "blue"))
    request = session.send("Which colours?", SamplingSettings(), images=[red, blue])
    assert request.messages is not None
    content = request.messages[-1]["content"]
    assert [p["type"] for p in content] == ["image_url", "image_url", "text"]  # the pictures, then the question
    assert [decoded(p["image_url"]["url"]) for p in content[:2]] == [red.data, blue.data]
    session.record_answer("Red and blue.")
    session.send("And now?", SamplingSettings(), images=[red])  # the same picture again: one file
    cid = session.conversation_id
    assert cid is not None
    files = sorted((db.parent / IMAGES_DIR / str(cid)).iterdir())
    assert sorted(f.name for f in files) == sorted([f"{red.digest}.png", f"{blue.digest}.png"])
    assert {f.read_bytes() for f in files} == {red.data, blue.data}
    store.close()

    again = ChatSession(ConversationStore(db))  # a restart: the conversation reopens with them
    again.open(cid)
    first, _, last = again.messages
    assert [i.name for i in first.images] == ["red.png", "blue.png"] and [i.name for i in last.images] == ["red.png"]
    assert Path(first.images[1].path).read_bytes() == blue.data
    sent = again.chat_messages()
    assert image_count(sent) == 3 and sent[1] == {"role": "assistant", "content": "Red and blue."}
    assert decoded(sent[2]["content"][0]["image_url"]["url"]) == red.data
    assert '"name": "blue.png"' in again.store.export_json(cid)
    assert "![red.png](file://" in again.store.export_markdown(cid)


def test_pictures_go_with_their_message_and_their_conversation(tmp_path: Path) -> None:
    db = tmp_path / "conversations.sqlite3"
    store = ConversationStore(db)
    session = ChatSession(store)
    red, blue = load_image(picture(tmp_path / "red.png")), load_image(picture(tmp_path / "blue.png", "blue"))
    session.send("one", SamplingSettings(), images=[red])
    session.record_answer("A.")
    session.send("two", SamplingSettings(), images=[blue])
    cid = session.conversation_id
    folder = db.parent / IMAGES_DIR / str(cid)
    assert len(list(folder.iterdir())) == 2

    assert session.start_edit() is not None  # editing the last message replaces it and its picture
    session.send("two, in words", SamplingSettings())
    assert [f.name for f in folder.iterdir()] == [f"{red.digest}.png"]
    assert store.messages(cid)[-1].images == ()
    assert sqlite3.connect(db).execute("SELECT COUNT(*) FROM message_images").fetchone()[0] == 1

    other = ChatSession(store)
    other.send("keep me", SamplingSettings(), images=[red])
    session.delete()
    assert not folder.exists()
    assert sqlite3.connect(db).execute("SELECT COUNT(*) FROM message_images").fetchone()[0] == 1
    assert (db.parent / IMAGES_DIR / str(other.conversation_id) / f"{red.digest}.png").is_file()


def test_a_model_without_vision_refuses_before_anything_is_saved(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "c.sqlite3")
    session = ChatSession(store)
    session.image_check = lambda: refusal("smollm2", False)
    red = load_image(picture(tmp_path / "red.png"))
    with pytest.raises(ImageError, match="smollm2 does not take images"):
        session.send("What is this?", SamplingSettings(), images=[red])
    assert store.list() == [] and not (tmp_path / IMAGES_DIR).exists()
    session.send("Hello", SamplingSettings())  # text alone still goes

    session.image_check = None  # a vision model answered a picture; then a text-only one is loaded
    session.send("And this?", SamplingSettings(), images=[red])
    session.record_answer("A red square.")
    session.image_check = lambda: refusal("smollm2", False)
    with pytest.raises(ImageError):
        session.regenerate(SamplingSettings())
    assert session.messages[-1].content == "A red square."  # the answer was not dropped


def test_an_older_history_gains_the_pictures_table(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(
        "CREATE TABLE conversations (id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL, system_prompt TEXT "
        "NOT NULL DEFAULT '', created_at TEXT NOT NULL, updated_at TEXT NOT NULL);"
        "CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, conversation_id INTEGER NOT NULL REFERENCES "
        "conversations(id) ON DELETE CASCADE, position INTEGER NOT NULL, role TEXT NOT NULL, content TEXT NOT NULL, "
        "created_at TEXT NOT NULL, model TEXT, ttft_s REAL, tokens_per_s REAL, prompt_tokens INTEGER, output_tokens "
        "INTEGER, finish_reason TEXT, reasoning TEXT, reasoning_tokens INTEGER, reasoning_s REAL, "
        "UNIQUE (conversation_id, position));"
        "CREATE TABLE tool_turns (id INTEGER PRIMARY KEY AUTOINCREMENT, conversation_id INTEGER NOT NULL, "
        "after_position INTEGER NOT NULL, content TEXT NOT NULL, calls TEXT NOT NULL, results TEXT NOT NULL "
        "DEFAULT '{}', approvals TEXT NOT NULL DEFAULT '{}', created_at TEXT NOT NULL);"
        "INSERT INTO conversations VALUES (1, 'old', '', 't', 't');"
        "INSERT INTO messages (conversation_id, position, role, content, created_at) VALUES (1, 0, 'user', 'Hi', 't');"
        "PRAGMA user_version=3;"
    )
    db.close()
    for _ in range(2):  # opening it twice changes nothing the second time
        store = ConversationStore(path)
        assert [(m.content, m.images) for m in store.messages(1)] == [("Hi", ())]
        store.close()
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    session = ChatSession(ConversationStore(path))
    session.open(1)
    session.send("Look", SamplingSettings(), images=[load_image(picture(tmp_path / "red.png"))])
    assert [len(m.images) for m in session.store.messages(1)] == [0, 1]


def test_a_history_in_memory_keeps_its_pictures_in_a_folder_removed_with_it(tmp_path: Path) -> None:
    store = ConversationStore(Path(":memory:"))
    session = ChatSession(store)
    session.send("What is this?", SamplingSettings(), images=[load_image(picture(tmp_path / "red.png"))])
    folder = store.images.root
    assert folder.is_dir() and not Path(IMAGES_DIR).exists()  # nothing in the working directory
    store.close()
    assert not folder.exists()


def test_pictures_written_ahead_are_moved_in_and_nothing_is_left_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "home" / "conversations.sqlite3"
    store = ConversationStore(db)
    session = ChatSession(store)
    staging = db.parent / IMAGES_DIR / STAGING_DIR
    red, blue = load_image(picture(tmp_path / "red.png")), load_image(picture(tmp_path / "blue.png", "blue"))
    staged = store.images.stage([red, blue, red])  # the same picture twice: one file
    assert staged.folder.parent == staging and sorted(p.name for p in staged.folder.iterdir()) == sorted(
        [f"{red.digest}.png", f"{blue.digest}.png"]
    )
    session.send("Which colours?", SamplingSettings(), images=[red, blue, red], staged=staged)
    cid = session.conversation_id
    assert [i.name for i in session.messages[0].images] == ["red.png", "blue.png", "red.png"]
    assert {f.read_bytes() for f in (db.parent / IMAGES_DIR / str(cid)).iterdir()} == {red.data, blue.data}
    assert list(staging.iterdir()) == []  # moved in, not copied
    session.record_answer("Red and blue.")
    store.close()

    # a restart: the saved pictures' data URLs are read ahead with the new one, not at the request
    store = ConversationStore(db)
    session = ChatSession(store)
    session.open(cid)
    saved = store.images.not_cached([i for m in session.messages for i in m.images])
    assert len(saved) == 3
    staged = store.images.stage([], saved)
    assert {decoded(u) for u in staged.urls.values()} == {red.data, blue.data}
    for f in (db.parent / IMAGES_DIR / str(cid)).iterdir():
        f.unlink()  # read ahead: the request does not read them again
    with pytest.raises(ImageError, match="cannot be read"):
        session.chat_messages()
    request = session.send("And now?", SamplingSettings(), staged=staged)
    assert request.messages is not None and image_count(request.messages) == 3
    assert list(staging.iterdir()) == []

    # a write that fails half-way leaves no file; so does a message whose row cannot be saved
    real = conversation_pictures.atomic_write_bytes
    written: list[Path] = []

    def full(path: Path, data: bytes) -> None:
        if written:
            raise OSError(errno.ENOSPC, "No space left on device")
        written.append(path)
        real(path, data)

    monkeypatch.setattr(conversation_pictures, "atomic_write_bytes", full)
    green = load_image(picture(tmp_path / "green.png", "green"))
    with pytest.raises(OSError, match="No space left"):
        store.images.stage([green, red])
    assert written and not written[0].exists() and list(staging.iterdir()) == []
    monkeypatch.setattr(conversation_pictures, "atomic_write_bytes", real)
    staged = store.images.stage([green])

    def broken(*_a: object) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(ImageShelf, "insert", broken)
    with pytest.raises(ConversationError, match="no space left"):
        session.send("Green?", SamplingSettings(), images=[green], staged=staged)
    assert [m.content for m in store.messages(cid)][-1] == "And now?"  # no "Green?" row
    assert list((db.parent / IMAGES_DIR).rglob(f"{green.digest}.png")) == []  # moved in, then pruned
    assert list(staging.iterdir()) == []
    store.close()

    # a console killed while writing ahead left its folder: removed when the history is opened
    dead, live = staging / "999999999.abc", staging / f"{os.getpid()}.def"  # no such pid; this one
    for folder in (dead, live):
        folder.mkdir()
        (folder / "x.png").write_bytes(red.data)
    ConversationStore(db).close()
    assert not dead.exists() and (live / "x.png").is_file()
