"""Chat history: conversations and their messages in SQLite, in the data home.

Every change is one SQLite transaction in WAL mode with ``synchronous=FULL``, so a ``kill -9`` (or
a power cut) mid-write leaves the database as it was before or after that change, never torn.
Each assistant message keeps its figures (time to first token, tokens/s, token counts, finish
reason, model) so the chat panel can show them after a restart, and a reasoning model's thinking
apart from its answer (``reasoning``, with its tokens and seconds): the answer is
``content``, which alone goes back to the model in the next turn, as on vLLM's server. A turn of
tool calls (the model's calls, the user's approvals and the tools' results) is a row of
``tool_turns`` placed after the message it answers (``after_position``); it goes with that message
when the history is cut there. Which tools a conversation offers (switched on, its definitions,
built-ins and MCP servers) is one JSON row of ``tool_settings``. A user message's pictures are
files beside the database, one row each in ``message_images`` (``conversation_pictures.py``): they go
with their message, and the files with the conversation. Export gives JSON (the whole record,
figures and tool turns included) or Markdown (for people). No Qt here.

Older histories are brought up to :data:`SCHEMA_VERSION` when opened: missing tables are created
and missing columns added (``_ADDED_COLUMNS``); a newer history is refused.
"""

from __future__ import annotations

import builtins
import datetime as _dt
import json
import sqlite3
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Iterator, Sequence

from console.chat.attachments import Attachment
from console.chat.conversation_pictures import IMAGES_TABLE, ImageShelf, SavedImage, StagedImages
from console.paths import data_home

DB_FILE = "conversations.sqlite3"
SCHEMA_VERSION = 4
ROLES = ("system", "user", "assistant")

_SCHEMA = (
    """
CREATE TABLE IF NOT EXISTS conversations (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    title TEXT NOT NULL,
    system_prompt TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant')),
    content TEXT NOT NULL,
    created_at TEXT NOT NULL,
    model TEXT,
    ttft_s REAL,
    tokens_per_s REAL,
    prompt_tokens INTEGER,
    output_tokens INTEGER,
    finish_reason TEXT,
    reasoning TEXT,
    reasoning_tokens INTEGER,
    reasoning_s REAL,
    UNIQUE (conversation_id, position)
);
CREATE TABLE IF NOT EXISTS tool_turns (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    after_position INTEGER NOT NULL,
    content TEXT NOT NULL,
    calls TEXT NOT NULL,
    results TEXT NOT NULL DEFAULT '{}',
    approvals TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS tool_settings (
    conversation_id INTEGER PRIMARY KEY REFERENCES conversations(id) ON DELETE CASCADE,
    settings TEXT NOT NULL
);
"""
    + IMAGES_TABLE
)
#: Columns added after schema 1, added to an older history when it is opened.
_ADDED_COLUMNS = {"reasoning": "TEXT", "reasoning_tokens": "INTEGER", "reasoning_s": "REAL"}


#: sqlite3's words for a write that ran out of space (ENOSPC, quota or file-size limit).
_DISK_FULL = ("disk i/o error", "database or disk is full", "file too large")


class ConversationError(Exception):
    """A conversation operation that cannot be done; the message is meant for the user."""


@dataclass(frozen=True)
class Conversation:
    id: int
    title: str
    system_prompt: str
    created_at: str
    updated_at: str


@dataclass(frozen=True)
class Message:
    id: int
    conversation_id: int
    position: int
    role: str
    content: str
    created_at: str
    model: str | None = None
    ttft_s: float | None = None
    tokens_per_s: float | None = None
    prompt_tokens: int | None = None
    output_tokens: int | None = None
    finish_reason: str | None = None
    #: the thinking of a reasoning model's answer (vLLM's ``reasoning_content``), apart from it
    reasoning: str | None = None
    reasoning_tokens: int | None = None
    reasoning_s: float | None = None
    #: the pictures attached to a user message, in order
    images: tuple[SavedImage, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class SavedToolTurn:
    """A saved turn of tool calls: OpenAI ``tool_calls``, results and approvals by call id."""

    id: int
    conversation_id: int
    after_position: int
    content: str
    calls: list[dict[str, Any]]
    results: dict[str, str]
    approvals: dict[str, str]
    created_at: str

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> SavedToolTurn:
        data = dict(row)
        for key in ("calls", "results", "approvals"):
            data[key] = json.loads(data[key])
        return cls(**data)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


class ConversationStore:
    """Conversations of one data home. One connection, used from the thread that made it."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = Path(path) if path is not None else data_home() / DB_FILE
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.images = ImageShelf(self.path)
        try:
            self._db = sqlite3.connect(str(self.path), isolation_level=None, timeout=10.0)
            self._db.row_factory = sqlite3.Row
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            with self._tx():
                for stmt in _SCHEMA.strip().split(";"):
                    if stmt.strip():
                        self._db.execute(stmt)
                version = self._db.execute("PRAGMA user_version").fetchone()[0]
                if version > SCHEMA_VERSION:
                    raise ConversationError(
                        f"{self.path} was written by a newer console (schema {version}); update the console"
                    )
                have = {r[1] for r in self._db.execute("PRAGMA table_info(messages)")}
                for column, kind in _ADDED_COLUMNS.items():
                    if column not in have:
                        self._db.execute(f"ALTER TABLE messages ADD COLUMN {column} {kind}")
                self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except sqlite3.DatabaseError as exc:
            raise ConversationError(
                f"The chat history {self.path} is unreadable ({exc}); move it aside to start a new one"
            ) from exc

    def close(self) -> None:
        self._db.close()
        self.images.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        """One all-or-nothing transaction (BEGIN IMMEDIATE takes the write lock up front)."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
            self._db.execute("COMMIT")
        except BaseException as exc:
            try:
                self._db.execute("ROLLBACK")
            except sqlite3.Error:
                pass  # the failed COMMIT may have rolled back already
            if isinstance(exc, sqlite3.OperationalError) and any(m in str(exc).lower() for m in _DISK_FULL):
                raise ConversationError(
                    f"Could not save the chat history: no space left on the disk holding {self.path.parent} "
                    f"({exc}). Free some space; what was saved before is intact."
                ) from exc
            raise

    # -- conversations -----------------------------------------------------------------------
    def create(self, title: str = "New chat", system_prompt: str = "") -> Conversation:
        now = _now()
        with self._tx() as db:
            cur = db.execute(
                "INSERT INTO conversations (title, system_prompt, created_at, updated_at) VALUES (?, ?, ?, ?)",
                (title, system_prompt, now, now),
            )
            cid = int(cur.lastrowid or 0)
        return self.get(cid)

    def get(self, conversation_id: int) -> Conversation:
        row = self._db.execute("SELECT * FROM conversations WHERE id = ?", (conversation_id,)).fetchone()
        if row is None:
            raise ConversationError(f"No conversation with id {conversation_id}")
        return Conversation(**dict(row))

    def list(self) -> list[Conversation]:
        """Most recently updated first."""
        rows = self._db.execute("SELECT * FROM conversations ORDER BY updated_at DESC, id DESC").fetchall()
        return [Conversation(**dict(r)) for r in rows]

    def rename(self, conversation_id: int, title: str) -> Conversation:
        title = title.strip()
        if not title:
            raise ConversationError("A conversation needs a non-empty title")
        self._update(conversation_id, "title", title)
        return self.get(conversation_id)

    def set_system_prompt(self, conversation_id: int, system_prompt: str) -> None:
        self._update(conversation_id, "system_prompt", system_prompt)

    def _update(self, conversation_id: int, column: str, value: str) -> None:
        with self._tx() as db:
            cur = db.execute(
                f"UPDATE conversations SET {column} = ?, updated_at = ? WHERE id = ?", (value, _now(), conversation_id)
            )
            if cur.rowcount == 0:
                raise ConversationError(f"No conversation with id {conversation_id}")

    def delete(self, conversation_id: int) -> None:
        with self._tx() as db:
            db.execute("DELETE FROM messages WHERE conversation_id = ?", (conversation_id,))
            db.execute("DELETE FROM tool_turns WHERE conversation_id = ?", (conversation_id,))
            db.execute("DELETE FROM tool_settings WHERE conversation_id = ?", (conversation_id,))
            db.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,))
        self.images.prune(self._db, conversation_id)  # its pictures' rows went with its messages

    # -- messages ---------------------------------------------------------------------------
    def messages(self, conversation_id: int) -> builtins.list[Message]:  # `list` is a method here
        rows = self._db.execute(
            "SELECT * FROM messages WHERE conversation_id = ? ORDER BY position", (conversation_id,)
        ).fetchall()
        images = self.images.of_conversation(self._db, conversation_id)
        return [Message(**dict(r), images=images.get(r["id"], ())) for r in rows]

    def append(
        self,
        conversation_id: int,
        role: str,
        content: str,
        *,
        model: str | None = None,
        ttft_s: float | None = None,
        tokens_per_s: float | None = None,
        prompt_tokens: int | None = None,
        output_tokens: int | None = None,
        finish_reason: str | None = None,
        reasoning: str | None = None,
        reasoning_tokens: int | None = None,
        reasoning_s: float | None = None,
        images: Sequence[Attachment] = (),
        staged: StagedImages | None = None,
    ) -> Message:
        """Save the next message; ``images``: the pictures attached to it, copied into the data
        home first, or moved there from ``staged`` (written ahead: ``ImageShelf.stage``); OSError
        when they cannot be written, then nothing is saved."""
        if role not in ROLES:
            raise ConversationError(f"Unknown role '{role}' (one of {', '.join(ROLES)})")
        now = _now()
        files = self.images.write(conversation_id, images, staged) if images else []
        try:
            with self._tx() as db:
                if db.execute("SELECT 1 FROM conversations WHERE id = ?", (conversation_id,)).fetchone() is None:
                    raise ConversationError(f"No conversation with id {conversation_id}")
                pos = db.execute(
                    "SELECT COALESCE(MAX(position) + 1, 0) FROM messages WHERE conversation_id = ?", (conversation_id,)
                ).fetchone()[0]
                cur = db.execute(
                    "INSERT INTO messages (conversation_id, position, role, content, created_at, model, ttft_s, "
                    "tokens_per_s, prompt_tokens, output_tokens, finish_reason, reasoning, reasoning_tokens, "
                    "reasoning_s) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (
                        conversation_id,
                        pos,
                        role,
                        content,
                        now,
                        model,
                        ttft_s,
                        tokens_per_s,
                        prompt_tokens,
                        output_tokens,
                        finish_reason,
                        reasoning,
                        reasoning_tokens,
                        reasoning_s,
                    ),
                )
                mid = int(cur.lastrowid or 0)
                self.images.insert(db, conversation_id, mid, images, files)
                db.execute("UPDATE conversations SET updated_at = ? WHERE id = ?", (now, conversation_id))
        except BaseException:
            if files:  # the pictures written for a message that was not saved
                self.images.prune(self._db, conversation_id)
            raise
        row = self._db.execute("SELECT * FROM messages WHERE id = ?", (mid,)).fetchone()
        return Message(**dict(row), images=self.images.of_message(self._db, mid))

    def extend(
        self,
        message_id: int,
        text: str,
        *,
        tokens_per_s: float | None = None,
        prompt_tokens: int | None = None,
        output_tokens: int | None = None,
        finish_reason: str | None = None,
    ) -> Message:
        """Append ``text`` to a saved message (an answer continued after it hit max tokens): its
        output tokens add up, its speed, prompt and finish reason are the continuation's."""
        with self._tx() as db:
            row = db.execute("SELECT * FROM messages WHERE id = ?", (message_id,)).fetchone()
            if row is None:
                raise ConversationError(f"No message with id {message_id}")
            old = Message(**dict(row))
            tokens = (
                None
                if old.output_tokens is None and output_tokens is None
                else (old.output_tokens or 0) + (output_tokens or 0)
            )
            db.execute(
                "UPDATE messages SET content = ?, tokens_per_s = ?, prompt_tokens = ?, output_tokens = ?, "
                "finish_reason = ? WHERE id = ?",
                (
                    old.content + text,
                    tokens_per_s,
                    prompt_tokens if prompt_tokens is not None else old.prompt_tokens,
                    tokens,
                    finish_reason,
                    message_id,
                ),
            )
            db.execute("UPDATE conversations SET updated_at = ? WHERE id = ?", (_now(), old.conversation_id))
        return Message(**dict(self._db.execute("SELECT * FROM messages WHERE id = ?", (message_id,)).fetchone()))

    def truncate(self, conversation_id: int, position: int) -> int:
        """Delete the messages at ``position`` and after (regenerate, edit-and-resend); returns
        how many went."""
        with self._tx() as db:
            cur = db.execute(
                "DELETE FROM messages WHERE conversation_id = ? AND position >= ?", (conversation_id, position)
            )
            db.execute(
                "DELETE FROM tool_turns WHERE conversation_id = ? AND after_position >= ?", (conversation_id, position)
            )
            db.execute("UPDATE conversations SET updated_at = ? WHERE id = ?", (_now(), conversation_id))
            cut = int(cur.rowcount)
        self.images.prune(self._db, conversation_id)  # the pictures of the messages cut
        return cut

    # -- tool turns ---------------------------------------------------------------------------
    def tool_turns(self, conversation_id: int) -> builtins.list[SavedToolTurn]:
        rows = self._db.execute(
            "SELECT * FROM tool_turns WHERE conversation_id = ? ORDER BY after_position, id", (conversation_id,)
        ).fetchall()
        return [SavedToolTurn.from_row(r) for r in rows]

    def add_tool_turn(
        self, conversation_id: int, after_position: int, content: str, calls: builtins.list[dict[str, Any]]
    ) -> int:
        """Save the model's calls after the message at ``after_position``; returns the turn's id."""
        now = _now()
        with self._tx() as db:
            cur = db.execute(
                "INSERT INTO tool_turns (conversation_id, after_position, content, calls, created_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (conversation_id, after_position, content, json.dumps(calls, ensure_ascii=False), now),
            )
            db.execute("UPDATE conversations SET updated_at = ? WHERE id = ?", (now, conversation_id))
            return int(cur.lastrowid or 0)

    def set_tool_results(self, turn_id: int, results: dict[str, str], approvals: dict[str, str]) -> None:
        """Replace a turn's results and approvals (both by call id)."""
        with self._tx() as db:
            db.execute(
                "UPDATE tool_turns SET results = ?, approvals = ? WHERE id = ?",
                (json.dumps(results, ensure_ascii=False), json.dumps(approvals), turn_id),
            )

    def delete_tool_turn(self, turn_id: int) -> None:
        with self._tx() as db:
            db.execute("DELETE FROM tool_turns WHERE id = ?", (turn_id,))

    def tool_settings(self, conversation_id: int) -> dict[str, Any] | None:
        """The conversation's saved tool settings (a JSON object), None when never saved."""
        row = self._db.execute(
            "SELECT settings FROM tool_settings WHERE conversation_id = ?", (conversation_id,)
        ).fetchone()
        value = json.loads(row[0]) if row is not None else None
        return value if isinstance(value, dict) else None

    def set_tool_settings(self, conversation_id: int, settings: dict[str, Any]) -> None:
        """Save the conversation's tool settings (replacing what was saved)."""
        with self._tx() as db:
            db.execute(
                "INSERT INTO tool_settings (conversation_id, settings) VALUES (?, ?) "
                "ON CONFLICT(conversation_id) DO UPDATE SET settings = excluded.settings",
                (conversation_id, json.dumps(settings, ensure_ascii=False, sort_keys=True)),
            )

    # -- export -----------------------------------------------------------------------------
    def export_dict(self, conversation_id: int) -> dict[str, Any]:
        conv = self.get(conversation_id)
        return {
            "format": "inference-console-conversation",
            "version": SCHEMA_VERSION,
            **asdict(conv),
            "messages": [m.to_dict() for m in self.messages(conversation_id)],
            "tool_turns": [t.to_dict() for t in self.tool_turns(conversation_id)],
        }

    def export_json(self, conversation_id: int) -> str:
        return json.dumps(self.export_dict(conversation_id), indent=2, ensure_ascii=False) + "\n"

    def export_markdown(self, conversation_id: int) -> str:
        conv = self.get(conversation_id)
        lines = [f"# {conv.title}", "", f"_Created {conv.created_at}_", ""]
        if conv.system_prompt:
            lines += ["## System", "", conv.system_prompt, ""]
        turns = self.tool_turns(conversation_id)
        for m in self.messages(conversation_id):
            lines += [f"## {m.role.capitalize()}", ""]
            if m.reasoning:
                lines += ["<details><summary>Thinking</summary>", "", m.reasoning.strip(), "", "</details>", ""]
            lines += [m.content, ""]
            lines += [f"![{image.name}]({Path(image.path).as_uri()})" for image in m.images]
            lines += [""] if m.images else []
            figures = message_figures(m)
            if figures:
                lines += [f"_{figures}_", ""]
            for turn in (t for t in turns if t.after_position == m.position):
                for call in turn.calls:
                    fn = call["function"]
                    lines += ["## Tool call", "", f"`{fn['name']}({fn['arguments']})`", ""]
                    if call["id"] in turn.results:
                        lines += ["```", turn.results[call["id"]], "```", ""]
        return "\n".join(lines)


def message_figures(m: Message) -> str:
    """``TTFT 0.12 s · 45.3 tok/s · 128 tokens`` (English; the GUI formats its own)."""
    parts = []
    if m.ttft_s is not None:
        parts.append(f"TTFT {m.ttft_s:.2f} s")
    if m.tokens_per_s is not None:
        parts.append(f"{m.tokens_per_s:.1f} tok/s")
    if m.output_tokens is not None:
        parts.append(f"{m.output_tokens} tokens")
    if m.reasoning_tokens is not None:
        parts.append(f"{m.reasoning_tokens} thinking")
    if m.finish_reason and m.finish_reason not in ("stop",):
        parts.append(f"finish: {m.finish_reason}")
    return " · ".join(parts)


__all__ = ["Conversation", "ConversationError", "ConversationStore", "Message", "SavedToolTurn", "message_figures"]
