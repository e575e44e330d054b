"""Chat history in SQLite: create, append with figures, rename, delete, export, and a kill -9
in the middle of a stream of writes never corrupts the database."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from console.chat.conversations import SCHEMA_VERSION, ConversationError, ConversationStore, message_figures


def test_create_append_list_and_reopen(home: Path) -> None:
    store = ConversationStore()
    a = store.create("First", system_prompt="Be brief.")
    store.append(a.id, "user", "Hello")
    m = store.append(
        a.id,
        "assistant",
        "Hi **there**",
        model="tiny",
        ttft_s=0.25,
        tokens_per_s=42.0,
        prompt_tokens=10,
        output_tokens=7,
        finish_reason="stop",
    )
    b = store.create("Second")
    assert m.position == 1 and m.ttft_s == 0.25
    store.close()

    again = ConversationStore()  # a restart sees everything
    assert (home / "conversations.sqlite3").is_file()
    assert [c.title for c in again.list()] == ["Second", "First"]
    msgs = again.messages(a.id)
    assert [(x.role, x.content) for x in msgs] == [("user", "Hello"), ("assistant", "Hi **there**")]
    assert msgs[1].output_tokens == 7 and msgs[1].model == "tiny"
    assert again.get(a.id).system_prompt == "Be brief."
    assert again.messages(b.id) == []


def test_rename_truncate_delete(home: Path) -> None:
    store = ConversationStore()
    c = store.create()
    for i in range(4):
        store.append(c.id, "user" if i % 2 == 0 else "assistant", f"m{i}")
    assert store.rename(c.id, "  Renamed ").title == "Renamed"
    with pytest.raises(ConversationError):
        store.rename(c.id, "   ")
    assert store.truncate(c.id, 2) == 2
    assert [m.content for m in store.messages(c.id)] == ["m0", "m1"]
    assert store.append(c.id, "user", "again").position == 2  # positions continue after a truncate
    store.delete(c.id)
    assert store.list() == []
    with pytest.raises(ConversationError):
        store.append(c.id, "user", "orphan")
    with pytest.raises(ConversationError):
        store.append(store.create().id, "robot", "?")


def test_export_json_and_markdown(home: Path) -> None:
    store = ConversationStore()
    c = store.create("Capitals", system_prompt="Answer in one word.")
    store.append(c.id, "user", "Capital of France? 中文")
    store.append(c.id, "assistant", "Paris", ttft_s=0.1, tokens_per_s=12.5, output_tokens=3, finish_reason="length")
    data = json.loads(store.export_json(c.id))
    assert data["title"] == "Capitals" and data["system_prompt"] == "Answer in one word."
    assert [m["content"] for m in data["messages"]] == ["Capital of France? 中文", "Paris"]
    assert data["messages"][1]["tokens_per_s"] == 12.5
    md = store.export_markdown(c.id)
    assert md.startswith("# Capitals")
    assert "## System\n\nAnswer in one word." in md
    assert "## Assistant\n\nParis" in md
    assert "TTFT 0.10 s · 12.5 tok/s · 3 tokens · finish: length" in md
    assert message_figures(store.messages(c.id)[0]) == ""


_WRITER = r"""
import sys
from pathlib import Path
from console.chat.conversations import ConversationStore
store = ConversationStore(Path(sys.argv[1]))
c = store.create("crash test")
print("ready", flush=True)
i = 0
while True:
    store.append(c.id, "user" if i % 2 == 0 else "assistant", "x" * 2000 + str(i), output_tokens=i)
    if i % 7 == 0:
        store.rename(c.id, f"title {i}")
    if i % 11 == 10:
        store.truncate(c.id, i - 3)
    i += 1
"""


def test_kill_9_mid_write_leaves_a_consistent_database(tmp_path: Path) -> None:
    db = tmp_path / "conv.sqlite3"
    for attempt in range(3):
        proc = subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(db)],
            stdout=subprocess.PIPE,
            text=True,
            cwd=str(Path(__file__).resolve().parents[1]),
        )
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        time.sleep(0.3 + 0.2 * attempt)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        raw = sqlite3.connect(str(db))
        assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        raw.close()
        store = ConversationStore(db)  # opens and recovers the WAL
        for conv in store.list():
            msgs = store.messages(conv.id)
            # positions are dense (truncates are whole transactions), contents are whole
            assert [m.position for m in msgs] == list(range(len(msgs)))
            assert all(m.content.startswith("x" * 2000) for m in msgs)
        assert len(store.list()) == attempt + 1
        store.close()


def test_unreadable_database_gives_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "conv.sqlite3"
    bad.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(ConversationError, match="unreadable"):
        ConversationStore(bad)


def test_history_and_settings_modules_import_no_qt() -> None:
    code = (
        "import sys, console.chat.conversations, console.settings; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph', 'qasync')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=str(Path(__file__).resolve().parents[1]),
        timeout=60,
    )
    assert out.stdout.strip() == "[]", out.stderr


def test_an_answers_thinking_is_kept_apart_and_an_older_history_gains_the_columns(tmp_path: Path) -> None:
    """A reasoning model's thinking is saved beside its answer (not in it), exported in
    both formats, and only the answer goes back to the model; a schema-1 history (written before
    thinking was kept) opens, keeps its messages and can then save thinking too."""
    from console.chat.session import ChatSession
    from console.sampling import SamplingSettings
    from console.engine.thinking import Thought

    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(
        "CREATE TABLE conversations (id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL, system_prompt TEXT "
        "NOT NULL DEFAULT '', created_at TEXT NOT NULL, updated_at TEXT NOT NULL);"
        "CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, conversation_id INTEGER NOT NULL, position "
        "INTEGER NOT NULL, role TEXT NOT NULL, content TEXT NOT NULL, created_at TEXT NOT NULL, model TEXT, ttft_s "
        "REAL, tokens_per_s REAL, prompt_tokens INTEGER, output_tokens INTEGER, finish_reason TEXT);"
        "INSERT INTO conversations VALUES (1, 'old', '', 't', 't');"
        "INSERT INTO messages (conversation_id, position, role, content, created_at) VALUES (1, 0, 'user', 'Hi', 't');"
        "PRAGMA user_version=1;"
    )
    db.close()
    store = ConversationStore(path)
    assert [(m.content, m.reasoning) for m in store.messages(1)] == [("Hi", None)]
    session = ChatSession(store)
    session.open(1)
    session.send("Capital of France?", SamplingSettings())
    saved = session.record_answer("Paris.", thought=Thought("The user asks for a capital.", 7, 1.25))
    assert saved is not None and (saved.content, saved.reasoning) == ("Paris.", "The user asks for a capital.")
    assert (saved.reasoning_tokens, saved.reasoning_s) == (7, 1.25)
    store.close()

    reopened = ConversationStore(path)
    session = ChatSession(reopened)
    session.open(1)
    assert session.messages[-1].reasoning == "The user asks for a capital."
    assert session.chat_messages()[-1] == {"role": "assistant", "content": "Paris."}  # no thinking sent back
    assert json.loads(reopened.export_json(1))["messages"][-1]["reasoning"] == "The user asks for a capital."
    markdown = reopened.export_markdown(1)
    assert markdown.index("The user asks for a capital.") < markdown.index("Paris.")
    assert "7 thinking" in message_figures(session.messages[-1])
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
