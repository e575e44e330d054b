"""MCP over streamable HTTP, and a tool result's images, without an engine: the SDK-written test
server (``tests/fixtures/mcp_server.py``) served over streamable HTTP in a child process and used
from a chat's tools through the hub; an image in a result goes back to a model that takes images
as an OpenAI ``image_url`` part, and to any other model as a one-line note."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

from console.chat.session import ChatSession
from console.sampling import SamplingSettings
from console.chat.tools import ChatTools, ToolTurn, tool_content
from console.chat.conversations import ConversationStore
from console.chat.mcp_client import McpHub
from console.chat.mcp_config import McpServer
from console.chat.tool_approval import Decision

FIXTURE = str(Path(__file__).parent / "fixtures" / "mcp_server.py")
DOT = "data:image/png;base64,iVBORw0KGgo"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture()
def http_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The fixture server over streamable HTTP on 127.0.0.1 (its URL, its call log)."""
    port, log = _free_port(), tmp_path / "calls.log"
    env = {"FIXTURE_TOOLS": "lookup,picture", "FIXTURE_LOG": str(log), "PATH": "/usr/bin:/bin"}
    child = subprocess.Popen([sys.executable, FIXTURE, "http", str(port)], env=env, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert child.poll() is None, "the HTTP MCP server exited"
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp", log
    finally:
        child.terminate()
        child.wait(10)


def test_a_streamable_http_server_lists_and_runs_its_tools_in_a_chat(
    http_server: tuple[str, Path], tmp_path: Path
) -> None:
    url, log = http_server
    hub = McpHub([McpServer("web", url=url, headers={"Authorization": "Bearer tok-http-secret-1"})])
    session = ChatSession(ConversationStore(tmp_path / "c.sqlite3"))
    session.tools.hub = hub
    try:
        tools, errors = hub.tools(["web"])
        assert errors == {} and sorted(t["function"]["name"] for t in tools) == ["web__lookup", "web__picture"]
        s = session.tools.settings(None)
        s.enabled, s.servers = True, {"web"}
        session.send("Code of Rome, and a picture?", SamplingSettings())
        conv = session.conversation_id
        calls = [
            {"id": "c1", "type": "function", "function": {"name": "web__lookup", "arguments": '{"city": "Rome"}'}},
            {"id": "c2", "type": "function", "function": {"name": "web__picture", "arguments": "{}"}},
        ]
        session.tools.add_turn(conv, 0, "", calls)
        assert session.tools.answer_mcp(conv, lambda call: Decision.ONCE)
        turn = session.tools.turns(conv)[0]
        assert turn.results == {"c1": "ROM-00", "c2": "A red dot:\n[image: image/png]"}
        assert log.read_text().split() == ["lookup", "picture"]  # the server ran both, over HTTP
        (image,) = turn.images["c2"]
        assert image.startswith(DOT)

        session.tools.takes_images = False  # a text model reads the note
        tool_msgs = [m for m in session.chat_messages() if m["role"] == "tool"]
        assert [m["content"] for m in tool_msgs] == ["ROM-00", "A red dot:\n[image: image/png]"]
        session.tools.takes_images = True  # a model that takes images gets the picture itself
        tool_msgs = [m for m in session.chat_messages() if m["role"] == "tool"]
        assert tool_msgs[0]["content"] == "ROM-00"
        assert tool_msgs[1]["content"] == [
            {"type": "text", "text": "A red dot:\n[image: image/png]"},
            {"type": "image_url", "image_url": {"url": image}},
        ]
        saved = (tmp_path / "c.sqlite3").read_bytes()
        assert b"tok-http-secret-1" not in saved
    finally:
        session.tools.close()


def test_tool_content_is_text_or_openai_parts() -> None:
    assert tool_content("42") == "42"
    assert tool_content("see", ("data:image/png;base64,AA==",)) == [
        {"type": "text", "text": "see"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA=="}},
    ]
    call = {"id": "x", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    turn = ToolTurn(0, "", [call], {"x": "see"}, images={"x": ("data:image/png;base64,AA==",)})
    assert turn.messages()[1]["content"] == "see"
    assert turn.messages(images=True)[1]["content"][1]["type"] == "image_url"
    tools = ChatTools()
    assert tools.takes_images is False


def test_a_conversations_tools_are_remembered_when_it_is_opened_again(tmp_path: Path) -> None:
    """Which tools a conversation offered (switched on, its definitions, built-ins, MCP servers)
    is saved with it and read back when it is opened again; a new chat starts with them off."""
    path = tmp_path / "c.sqlite3"
    session = ChatSession(ConversationStore(path))
    s = session.tools.settings(None)
    mine = {"type": "function", "function": {"name": "weather", "parameters": {"type": "object", "properties": {}}}}
    s.enabled, s.servers, s.builtins, s.definitions, s.choice = True, {"web", "time"}, {"clock"}, [mine], "required"
    session.send("What time is it?", SamplingSettings())
    conv = session.conversation_id
    assert conv is not None
    session.store.close()

    reopened = ChatSession(ConversationStore(path))
    assert reopened.tools.settings(None).enabled is False  # the new chat: tools off
    reopened.open(conv)
    back = reopened.tools.settings(conv)
    assert (back.enabled, back.servers, back.builtins, back.choice) == (True, {"web", "time"}, {"clock"}, "required")
    assert back.definitions == [mine]
    reopened.store.delete(conv)
    assert reopened.store.tool_settings(conv) is None
    reopened.store.close()
