"""The pictures of the chat history: files in the data home, rows in the conversation database.

A picture attached to a user message is copied to ``chat-images/<conversation id>/<sha256><suffix>``
beside the database (the same picture twice in a conversation is one file) and referenced by a row
of ``message_images`` (its message, its place among the message's pictures, its file, MIME type and
the name it came with). A row goes with its message (``ON DELETE CASCADE``: a truncate, a deleted
conversation); :meth:`ImageShelf.prune` then removes the files no row names any more, and a
deleted conversation's folder goes with it. A history in memory (``:memory:``) keeps its pictures
in a temporary folder removed with it. No Qt here.

The window writes a message's pictures ahead, in a worker (:meth:`ImageShelf.stage`: files of up
to 20 MB, fsync'ed, in a folder of their own under ``chat-images/.staging``), and the store then
only moves them into place with the message's row (:meth:`ImageShelf.write`); a staging folder a
killed console left behind is removed when the history is next opened.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Mapping, Sequence

from console.atomic import atomic_write_bytes, pid_alive
from console.chat.attachments import Attachment, data_url

IMAGES_DIR = "chat-images"
#: Pictures written ahead of their message: ``<root>/.staging/<pid>.<random>/`` (not a conversation id).
STAGING_DIR = ".staging"

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


@dataclass
class StagedImages:
    """A message's pictures written ahead (:meth:`ImageShelf.stage`): ``names[i]`` is the file of
    the i-th picture in ``folder`` (its content's name, as in the conversation's folder); ``urls``:
    the data URLs of saved pictures read with them (file -> URL). :meth:`ImageShelf.write` moves
    the files into place; :meth:`discard` removes what is left."""

    folder: Path
    names: list[str] = field(default_factory=list)
    urls: dict[str, str] = field(default_factory=dict)

    def discard(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


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
        self._ahead: Mapping[str, str] = {}  # URLs read ahead for the request being made
        self._sweep_staging()

    def close(self) -> None:
        if self._temporary is not None:
            self._temporary.cleanup()

    def stage(self, images: Sequence[Attachment], saved: Sequence[SavedImage] = ()) -> StagedImages:
        """Write ``images`` (fsync'ed) into a new staging folder and read ``saved`` pictures' data
        URLs (a file that is gone is left for the request to report). Safe in a worker thread: it
        touches no row and no cache, only its own folder. OSError when a file cannot be written;
        then nothing is left behind."""
        staging = self.root / STAGING_DIR
        staging.mkdir(parents=True, exist_ok=True)
        staged = StagedImages(Path(tempfile.mkdtemp(prefix=f"{os.getpid()}.", dir=staging)))
        try:
            for image in images:
                name = f"{image.digest}{image.suffix}"
                if name not in staged.names:
                    atomic_write_bytes(staged.folder / name, image.data)
                staged.names.append(name)
            for saved_image in saved:
                try:
                    staged.urls[saved_image.path] = data_url(Path(saved_image.path).read_bytes(), saved_image.mime)
                except OSError:
                    pass
        except BaseException:
            staged.discard()
            raise
        return staged

    def not_cached(self, images: Sequence[SavedImage]) -> list[SavedImage]:
        """The saved pictures whose data URLs are not in memory (:meth:`stage` reads them ahead)."""
        return [image for image in images if image.path not in self._urls]

    def write(
        self, conversation_id: int, images: Sequence[Attachment], staged: StagedImages | None = None
    ) -> list[str]:
        """Put the pictures in the conversation's folder (before their rows are inserted): moved
        from ``staged`` (written ahead), else written here; returns their names relative to
        :attr:`root`. OSError when a file cannot be written."""
        names = []
        for i, image in enumerate(images):
            file = staged.names[i] if staged is not None else f"{image.digest}{image.suffix}"
            name = f"{conversation_id}/{file}"
            if not (self.root / name).is_file():
                if staged is not None and (staged.folder / file).is_file():
                    (self.root / name).parent.mkdir(parents=True, exist_ok=True)
                    os.replace(staged.folder / file, self.root / name)
                else:
                    atomic_write_bytes(self.root / name, image.data)
            self._remember(str(self.root / name), image.url)
            if staged is not None:  # the request made next takes it from here, however many there are
                staged.urls[str(self.root / name)] = image.url
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
        url = self._urls.get(image.path) or self._ahead.get(image.path)
        url = url or data_url(Path(image.path).read_bytes(), image.mime)
        self._remember(image.path, url)
        return url

    @contextmanager
    def reading_ahead(self, urls: Mapping[str, str]) -> Iterator[None]:
        """:meth:`data_url` takes ``urls`` (read ahead by :meth:`stage`) while one request is made:
        a chat with more pictures than the cache holds reads none of their files again."""
        self._ahead = urls
        try:
            yield
        finally:
            self._ahead = {}

    def _sweep_staging(self) -> None:
        """Remove the staging folders of consoles that are gone (killed while saving)."""
        try:
            folders = list((self.root / STAGING_DIR).iterdir())
        except OSError:
            return
        for folder in folders:
            pid = folder.name.split(".", 1)[0]
            if not (pid.isdigit() and (int(pid) == os.getpid() or pid_alive(int(pid)))):
                shutil.rmtree(folder, ignore_errors=True)

    def _remember(self, path: str, url: str) -> None:
        self._urls[path] = url
        self._urls.move_to_end(path)
        while len(self._urls) > _URL_CACHE:
            self._urls.popitem(last=False)


__all__ = ["IMAGES_DIR", "IMAGES_TABLE", "STAGING_DIR", "ImageShelf", "SavedImage", "StagedImages"]
