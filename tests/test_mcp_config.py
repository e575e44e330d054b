"""MCP servers' configuration, secrets, approvals and saved tool turns, without a server or an
engine (the quick lane): the ``mcpServers`` file as Claude Desktop and LM Studio write it, the
secrets of a server's environment kept out of what the console writes, the approval policy, and
tool turns saved in the conversation database, read back, and migrated into an older one."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from console.chat.session import ChatSession
from console.chat.tools import ChatTools
from console.chat.conversations import SCHEMA_VERSION, ConversationStore
from console.chat.mcp_config import McpConfigError, McpServer, load_servers, parse_servers, redact, tool_name
from console.chat.tool_approval import REFUSED, ApprovalPolicy, Decision, PendingCall

LM_STUDIO = {
    "mcpServers": {
        "time": {"command": "uvx", "args": ["mcp-server-time", "--local-timezone", "UTC"]},
        "github": {
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-github"],
            "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_secretvalue123"},
        },
        "remote docs": {"url": "https://example.org/mcp", "headers": {"Authorization": "Bearer tok-abcdef"}},
        "off": {"command": "x", "disabled": True},
    }
}


def test_an_lm_studio_mcp_json_is_read_with_stdio_and_http_servers(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps(LM_STUDIO))
    servers = {s.name: s for s in load_servers(path)}
    assert list(servers) == ["time", "github", "remote-docs", "off"]  # names fit a function name
    assert servers["time"].transport == "stdio" and servers["time"].args == (
        "mcp-server-time",
        "--local-timezone",
        "UTC",
    )
    assert servers["github"].env == {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_secretvalue123"}
    assert servers["remote-docs"].transport == "http" and servers["remote-docs"].url == "https://example.org/mcp"
    assert servers["off"].disabled
    assert tool_name("github", "create issue") == "github__create-issue"


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("{", "line 1, column 2"),
        ("[]", 'JSON object with "mcpServers"'),
        ('{"mcpServers": {"a": {"args": []}}}', 'needs a "command"'),
        ('{"mcpServers": {"a": {"command": "x", "args": "y"}}}', "args: must be a list of strings"),
        ('{"mcpServers": {"a": {"url": "http://h/sse", "type": "sse"}}}', "SSE servers are not supported"),
        ('{"mcpServers": {"a b": {"command": "x"}, "a-b": {"command": "y"}}}', "two servers have the name"),
    ],
)
def test_a_bad_mcp_file_is_refused_in_one_line(text: str, says: str) -> None:
    with pytest.raises(McpConfigError) as err:
        parse_servers(text)
    assert says in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(McpConfigError, match="cannot read"):
        load_servers("/nonexistent/mcp.json")


def test_secrets_of_env_and_headers_are_masked_in_lines_and_descriptions() -> None:
    servers = parse_servers(json.dumps(LM_STUDIO))
    github = next(s for s in servers if s.name == "github")
    text = "failed: token ghp_secretvalue123 refused; header Bearer tok-abcdef; code 1"
    assert redact(text, servers) == "failed: token *** refused; header ***; code 1"
    assert "ghp_secretvalue123" not in github.describe() and "GITHUB_PERSONAL_ACCESS_TOKEN=***" in github.describe()
    remote = next(s for s in servers if s.name == "remote-docs")
    assert "tok-abcdef" not in remote.describe() and "Authorization" in remote.describe()
    assert redact("1 2 3", [McpServer("s", command="x", env={"API_KEY": "1"})]) == "1 2 3"  # too short to be a secret
    plain = McpServer("s", command="x", env={"MODE": "fast", "ROOT": "/home/me/notes", "X": "a8f9c7d6e5b4a3c2d1e0"})
    assert plain.secrets() == ["a8f9c7d6e5b4a3c2d1e0"]  # a name or a look that says secret
    assert redact("mode fast in /home/me/notes", [plain]) == "mode fast in /home/me/notes"


def test_approval_once_always_refused_and_allow_all() -> None:
    call = PendingCall("c1", "time__get_current_time", "time", "get_current_time", '{"timezone":"UTC"}')
    assert call.shown() == 'time · get_current_time({"timezone": "UTC"})'
    asked: list[str] = []

    def ask(c: PendingCall) -> Decision:
        asked.append(c.call_id)
        return answers.pop(0)

    policy = ApprovalPolicy()
    answers = [Decision.ONCE, Decision.ALWAYS]
    assert policy.decide(call, ask) is Decision.ONCE
    assert policy.decide(call, ask) is Decision.ALWAYS
    assert policy.decide(call, ask) is Decision.ALWAYS and len(asked) == 2  # not asked again
    other = PendingCall("c2", "fs__write", "fs", "write", "{}")
    assert policy.decide(other, None) is Decision.REFUSE  # nobody to ask: refused
    assert ApprovalPolicy(allow_all=True).decide(other, None) is Decision.ALWAYS
    assert ChatTools().run_mcp(other, Decision.REFUSE) == REFUSED


def test_tool_turns_are_saved_read_back_cut_and_exported(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "c.sqlite3")
    session = ChatSession(store)
    from console.sampling import SamplingSettings

    session.send("What time is it?", SamplingSettings())
    conv = session.conversation_id
    assert conv is not None
    call = {"id": "call-1", "type": "function", "function": {"name": "time__now", "arguments": "{}"}}
    session.tools.add_turn(conv, 0, "", [call])
    assert session.tools.answer(conv, "call-1", "12:00", "once")
    store.append(conv, "assistant", "It is noon.")

    reopened = ChatSession(ConversationStore(tmp_path / "c.sqlite3"))
    reopened.open(conv)
    turn = reopened.tools.turns(conv)[0]
    assert (turn.calls, turn.results, turn.approvals) == ([call], {"call-1": "12:00"}, {"call-1": "once"})
    assert [m["role"] for m in reopened.chat_messages()] == ["user", "assistant", "tool", "assistant"]
    exported = json.loads(store.export_json(conv))
    assert exported["tool_turns"][0]["results"] == {"call-1": "12:00"}
    assert "time__now({})" in store.export_markdown(conv)
    store.truncate(conv, 0)  # an edit of the first message cuts the turn with it
    assert store.tool_turns(conv) == []
    reopened.tools.add_turn(conv, 0, "", [call])
    store.delete(conv)
    assert store.tool_turns(conv) == []


def test_an_older_history_is_migrated_and_keeps_its_messages(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(
        """
        CREATE TABLE conversations (id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL,
            system_prompt TEXT NOT NULL DEFAULT '', created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
        CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, conversation_id INTEGER NOT NULL,
            position INTEGER NOT NULL, role TEXT NOT NULL, content TEXT NOT NULL, created_at TEXT NOT NULL,
            model TEXT, ttft_s REAL, tokens_per_s REAL, prompt_tokens INTEGER, output_tokens INTEGER,
            finish_reason TEXT, UNIQUE (conversation_id, position));
        INSERT INTO conversations VALUES (1, 'old', '', '2025-01-01', '2025-01-01');
        INSERT INTO messages (conversation_id, position, role, content, created_at) VALUES (1, 0, 'user', 'hi', 'x');
        PRAGMA user_version=1;
        """
    )
    db.close()
    store = ConversationStore(path)
    assert store._db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 4
    assert [m.content for m in store.messages(1)] == ["hi"] and store.tool_turns(1) == []
    assert store.tool_settings(1) is None  # the tool_settings table, created on open
    turn_id = store.add_tool_turn(
        1, 0, "", [{"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}}]
    )
    store.set_tool_results(turn_id, {"a": "ok"}, {"a": "always"})
    assert store.tool_turns(1)[0].approvals == {"a": "always"}
