"""The pictures of the chat history: files in the data home, rows in the conversation database.

A picture attached to a user message is copied to ``chat-images/<conversation id>/<sha256><suffix>``
beside the database (the same picture twice in a conversation is one file) and referenced by a row
of ``message_images`` (its message, its place among the message's pictures, its file, MIME type and
the name it came with). A row goes with its message (``ON DELETE CASCADE``: a truncate, a deleted
conversation); :meth:`ImageShelf.prune` then removes the files no row names any more, and a
deleted conversation's folder goes with it. A history in memory (``:memory:``) keeps its pictures
in a temporary folder removed with it. No Qt here.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from console.atomic import atomic_write_bytes
from console.chat_images import Attachment, data_url

IMAGES_DIR = "chat-images"

#: The table (created when missing: a history from before pictures gains it when opened).
IMAGES_TABLE = """
CREATE TABLE IF NOT EXISTS message_images (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
    conversation_id INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    file TEXT NOT NULL,
    mime TEXT NOT NULL,
    name TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS message_images_by_conversation ON message_images (conversation_id)
"""

#: Data URLs kept in memory (a long chat sends its pictures again at every turn).
_URL_CACHE = 16


@dataclass(frozen=True)
class SavedImage:
    """A saved picture: ``path`` is its file (absolute), ``name`` the file name it was attached as."""

    id: int
    message_id: int
    path: str
    mime: str
    name: str


class ImageShelf:
    """The picture files of one conversation database (``db_path``) and their rows; the store
    calls it inside its own transactions."""

    def __init__(self, db_path: Path) -> None:
        self._temporary: tempfile.TemporaryDirectory[str] | None = None
        if str(db_path) == ":memory:":
            self._temporary = tempfile.TemporaryDirectory(prefix="console-chat-images-")
            self.root = Path(self._temporary.name)
        else:
            self.root = db_path.parent / IMAGES_DIR
        self._urls: OrderedDict[str, str] = OrderedDict()

    def close(self) -> None:
        if self._temporary is not None:
            self._temporary.cleanup()

    def write(self, conversation_id: int, images: Sequence[Attachment]) -> list[str]:
        """Copy the pictures into the conversation's folder (before their rows are inserted);
        returns their names relative to :attr:`root`. OSError when a file cannot be written."""
        names = []
        for image in images:
            name = f"{conversation_id}/{image.digest}{image.suffix}"
            if not (self.root / name).is_file():
                atomic_write_bytes(self.root / name, image.data)
            self._remember(str(self.root / name), image.url)
            names.append(name)
        return names

    def insert(
        self,
        db: sqlite3.Connection,
        conversation_id: int,
        message_id: int,
        images: Sequence[Attachment],
        files: Sequence[str],
    ) -> None:
        """The rows of a message's pictures (``files`` from :meth:`write`), in the caller's transaction."""
        db.executemany(
            "INSERT INTO message_images (message_id, conversation_id, idx, file, mime, name) VALUES (?,?,?,?,?,?)",
            [
                (message_id, conversation_id, i, file, image.mime, image.name)
                for i, (image, file) in enumerate(zip(images, files))
            ],
        )

    def of_conversation(self, db: sqlite3.Connection, conversation_id: int) -> dict[int, tuple[SavedImage, ...]]:
        """Message id -> its pictures in the order they were attached."""
        out: dict[int, list[SavedImage]] = {}
        for image in self._select(db, "conversation_id", conversation_id):
            out.setdefault(image.message_id, []).append(image)
        return {mid: tuple(images) for mid, images in out.items()}

    def of_message(self, db: sqlite3.Connection, message_id: int) -> tuple[SavedImage, ...]:
        return tuple(self._select(db, "message_id", message_id))

    def _select(self, db: sqlite3.Connection, column: str, value: int) -> list[SavedImage]:
        rows = db.execute(
            f"SELECT id, message_id, file, mime, name FROM message_images WHERE {column} = ? ORDER BY message_id, idx",
            (value,),
        ).fetchall()
        return [SavedImage(r[0], r[1], str(self.root / r[2]), r[3], r[4]) for r in rows]

    def prune(self, db: sqlite3.Connection, conversation_id: int) -> None:
        """Remove the conversation's files that no row names (after its messages were cut, or a
        failed save); the whole folder when none is left. Best effort: a file that cannot be
        removed stays."""
        folder = self.root / str(conversation_id)
        if not folder.is_dir():
            return
        kept = {
            Path(r[0]).name
            for r in db.execute("SELECT file FROM message_images WHERE conversation_id = ?", (conversation_id,))
        }
        if not kept:
            shutil.rmtree(folder, ignore_errors=True)
            return
        for path in folder.iterdir():
            if path.name not in kept:
                path.unlink(missing_ok=True)

    def data_url(self, image: SavedImage) -> str:
        """The saved picture as a ``data:`` URL (OSError when its file is gone). Files are named
        by their content, so a URL made once stays right."""
        url = self._urls.get(image.path) or data_url(Path(image.path).read_bytes(), image.mime)
        self._remember(image.path, url)
        return url

    def _remember(self, path: str, url: str) -> None:
        self._urls[path] = url
        self._urls.move_to_end(path)
        while len(self._urls) > _URL_CACHE:
            self._urls.popitem(last=False)


__all__ = ["IMAGES_DIR", "IMAGES_TABLE", "ImageShelf", "SavedImage"]
