"""MCP servers' tools in a chat, on the real CPU engine with a family fixture whose template
renders tools (Qwen3, vLLM's ``hermes`` parser; the session's shared ``family`` engine), and real
stdio MCP servers: the SDK-written ``tests/fixtures/mcp_server.py`` and the ``mcp-server-time``
package.

How the random-weight model calls a tool: the chat asks with ``tool_choice`` "required" (one call,
``parallel_tool_calls`` false), so vLLM's own constraint on a forced call makes the model's output
a well-formed call to one of the offered tools; nothing stands in for the model. Whether a call
is approved is the test's answer to the approval question. The checks read what the model's next
turn was given: its prompt token ids, decoded.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from console.chat.session import ChatSession
from console.sampling import SamplingSettings
from console.chat.conversations import ConversationStore
from console.engine.types import GenerationRequest, RequestFinished
from console.chat.mcp_client import McpHub
from console.chat.mcp_config import McpServer
from console.chat.tool_approval import REFUSED, Decision, PendingCall

pytestmark = pytest.mark.engine

FIXTURE = str(Path(__file__).parent / "fixtures" / "mcp_server.py")
SAMPLING = SamplingSettings(temperature=0.0, max_tokens=120)


def _fixture(tools: str, log: Path, token: str = "tok-fixture-secret") -> McpServer:
    env = {"FIXTURE_TOOLS": tools, "FIXTURE_LOG": str(log), "FIXTURE_TOKEN": token}
    return McpServer("fx", command=sys.executable, args=(FIXTURE,), env=env)


def _answer(engine: Any, session: ChatSession, request: GenerationRequest | None) -> RequestFinished:
    assert request is not None
    final = engine.generate(request, timeout=180)
    assert isinstance(final, RequestFinished), final
    session.record_answer(final.text, final, model="fixture")
    return final


def _session(engine: Any, path: Path, hub: McpHub, servers: set[str]) -> ChatSession:
    session = ChatSession(ConversationStore(path))
    session.tools.hub = hub
    s = session.tools.settings(None)
    s.enabled, s.servers, s.choice = True, servers, "required"
    return session


@pytest.mark.parametrize("family", ["qwen3"], indirect=True)
def test_an_approved_call_runs_and_its_result_reaches_the_next_prompt_and_survives_reopening(
    family: tuple[str, Any], tmp_path: Path
) -> None:
    _, engine = family
    log = tmp_path / "calls.log"
    hub = McpHub([_fixture("lookup", log)])
    try:
        assert hub.tools(["fx"])[1] == {}
        session = _session(engine, tmp_path / "c.sqlite3", hub, {"fx"})
        first = _answer(engine, session, session.send("Code of Rome?", SAMPLING))
        assert '"name": "fx__lookup"' in engine.tokenizer.decode(first.prompt_token_ids)  # the tool was offered
        conv = session.conversation_id
        assert session.pending_tool_calls(), first.text  # the forced call was read
        shown: list[PendingCall] = []

        def approve(call: PendingCall) -> Decision:
            shown.append(call)
            return Decision.ONCE

        assert session.tools.answer_mcp(conv, approve)
        assert [(c.server, c.tool) for c in shown] == [("fx", "lookup")]
        city = json.loads(shown[0].arguments)["city"]  # vLLM held the call to the tool's schema (an enum)
        assert shown[0].shown() == f'fx · lookup({{"city": "{city}"}})'
        result = {"Paris": "PAR-75", "Rome": "ROM-00"}[city]
        assert session.tools.turns(conv)[0].results == {shown[0].call_id: result}
        assert log.read_text().split() == ["lookup"]  # the server ran it, once
        second = _answer(engine, session, session.regenerate(SAMPLING))
        prompt = engine.tokenizer.decode(second.prompt_token_ids)
        assert "<tool_response>" in prompt and f"\n{result}\n" in prompt
        assert [m.role for m in session.messages] == ["user", "assistant"]
        session.store.close()

        reopened = _session(engine, tmp_path / "c.sqlite3", hub, {"fx"})
        assert conv is not None
        reopened.open(conv)
        reopened.tools.settings(conv).choice = "auto"
        assert reopened.tools.turns(conv)[0].approvals == {shown[0].call_id: "once"}
        third = _answer(engine, reopened, reopened.send("And Paris?", SAMPLING))
        prompt = engine.tokenizer.decode(third.prompt_token_ids)
        assert prompt.count("<tool_response>") == 1 and f"\n{result}\n" in prompt  # the saved turn, continued
        assert "tok-fixture-secret" not in (tmp_path / "c.sqlite3").read_bytes().decode("latin-1")
    finally:
        hub.close()


@pytest.mark.parametrize("family", ["qwen3"], indirect=True)
def test_a_refused_call_never_runs_and_a_crashed_server_is_one_line_the_chat_goes_on(
    family: tuple[str, Any], tmp_path: Path
) -> None:
    _, engine = family
    log = tmp_path / "calls.log"
    hub = McpHub([_fixture("lookup", log), McpServer("boom", command=sys.executable, args=(FIXTURE,), env={
        "FIXTURE_TOOLS": "crash", "FIXTURE_LOG": str(log)})])  # fmt: skip
    try:
        assert hub.tools(["fx", "boom"])[1] == {}
        session = _session(engine, tmp_path / "c.sqlite3", hub, {"fx"})
        _answer(engine, session, session.send("Code of Rome?", SAMPLING))
        conv = session.conversation_id
        assert session.pending_tool_calls()
        assert session.tools.answer_mcp(conv, lambda call: Decision.REFUSE)
        assert list(session.tools.turns(conv)[0].results.values()) == [REFUSED]
        assert not log.exists()  # refused: the server was never called
        refused = _answer(engine, session, session.regenerate(SAMPLING))
        assert REFUSED.split(": ", 1)[1] in engine.tokenizer.decode(refused.prompt_token_ids)

        session.tools.settings(conv).servers = {"boom"}
        _answer(engine, session, session.send("Crash, please.", SAMPLING))
        assert session.tools.answer_mcp(conv, lambda call: Decision.ALWAYS)
        crashed = session.tools.turns(conv)[-1]
        (line,) = crashed.results.values()
        assert line.startswith("error: MCP server 'boom' failed during crash") and "\n" not in line
        assert log.read_text().split() == ["crash"]
        after = _answer(engine, session, session.regenerate(SAMPLING))  # the conversation goes on
        assert "failed during crash" in engine.tokenizer.decode(after.prompt_token_ids)
        assert session.messages[-1].role == "assistant"
    finally:
        hub.close()


@pytest.mark.parametrize("family", ["qwen3"], indirect=True)
def test_cli_chat_with_mcp_server_time_asks_on_the_terminal_runs_and_the_result_reaches_the_prompt(
    family: tuple[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``inference-console chat --mcp mcp.json`` with the real ``mcp-server-time`` server from an
    LM Studio-style file: the call shown and asked on the terminal, run on "y", its result in the
    model's next prompt. The server's tools take free-form strings (a timezone), which a
    random-weight model held to the schema fills until its tokens run out, so here the call is
    written into the turn as ``record_answer`` keeps one; the tests above have the model make it."""
    import argparse

    from console.cli.chat_tools import answer_calls, configure

    _, engine = family
    config = tmp_path / "mcp.json"
    time_server = {"command": sys.executable, "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"]}
    config.write_text(json.dumps({"mcpServers": {"time": time_server}}))
    session = ChatSession(ConversationStore(tmp_path / "c.sqlite3"))
    args = argparse.Namespace(tools=None, builtin_tool=None, tool_choice="auto", mcp=str(config), approve_tools=False)
    configure(session, args)
    asked: list[str] = []
    monkeypatch.setattr("builtins.input", lambda prompt: asked.append(prompt) or "y")
    try:
        session.send("What time is it in Rome?", SAMPLING)
        conv = session.conversation_id
        arguments = json.dumps({"timezone": "Europe/Rome"})
        call = {
            "id": "call-1",
            "type": "function",
            "function": {"name": "time__get_current_time", "arguments": arguments},
        }
        session.tools.add_turn(conv, 0, "", [call])
        assert answer_calls(session, None)
        assert asked == [
            'run time · get_current_time({"timezone": "Europe/Rome"})? [y]es / [a]lways for this tool / [n]o> '
        ]
        err = capsys.readouterr().err
        assert "[mcp] 2 tools from time" in err and "[tool result] time__get_current_time: {" in err
        result = json.loads(session.tools.turns(conv)[0].results["call-1"])
        assert result["timezone"] == "Europe/Rome" and session.tools.turns(conv)[0].approvals == {"call-1": "once"}
        request = session.regenerate(SAMPLING)
        assert request is not None  # the fixture's 512-token context is too short for this server's two
        # tools' descriptions: the model's next prompt is rendered by its chat template, not run
        tools = request.openai_fields["tools"]
        prompt = engine.tokenizer.apply_chat_template(
            request.messages, tools=tools, tokenize=False, add_generation_prompt=True
        )
        assert "<tool_response>" in prompt and result["datetime"] in prompt
        assert '"name": "time__convert_time"' in prompt  # both of the server's tools offered
    finally:
        session.tools.close()


def test_the_hub_masks_secrets_times_out_a_hung_call_and_reports_servers_that_cannot_start(tmp_path: Path) -> None:
    """No engine: the SDK-written server's tools by name, its secret masked in a result, a hung
    call cut at the timeout (the server restarted for the next call), and servers that cannot
    start (no such command; one that exits) as one line each, with their stderr's last words."""
    log = tmp_path / "calls.log"
    dies = McpServer("dies", command=sys.executable, args=("-c", "import sys; sys.exit('no config ghp_topsecret1')"),
                     env={"TOKEN": "ghp_topsecret1"})  # fmt: skip
    hub = McpHub([_fixture("lookup,secret,hang", log), McpServer("none", command="/nonexistent/server"), dies],
                 call_timeout_s=3)  # fmt: skip
    try:
        tools, errors = hub.tools(["fx", "none", "dies"])
        assert sorted(t["function"]["name"] for t in tools) == ["fx__hang", "fx__lookup", "fx__secret"]
        assert errors["none"].startswith("MCP server 'none' could not start") and "No such file" in errors["none"]
        assert "could not start" in errors["dies"] and "no config ***" in errors["dies"]
        assert all("\n" not in e and "ghp_topsecret1" not in e for e in errors.values())
        assert hub.call("fx__secret", {}) == "token is ***"
        assert hub.call("fx__hang", {}) == "error: MCP server 'fx' did not answer hang within 3 s"
        assert hub.call("fx__lookup", {"city": "Paris"}) == "PAR-75"  # started again
        assert hub.call("fx__lookup", {"city": "Oslo"}).startswith("error: ")  # the tool's own error
    finally:
        hub.close()
    assert hub.running() == []


def test_the_tools_box_imports_servers_and_asks_before_a_call_runs_off_the_gui_thread(
    qtbot: Any, home: Path, tmp_path: Path
) -> None:
    """The window: an imported mcp.json (kept in the data home, readable by the user only), a
    server switched on for the conversation, a call shown in the approval row (not the reply box),
    run on "Run once" off the GUI thread, and the model asked again. The call is written into the
    turn as ``record_answer`` keeps one (the engine tests above have the model make it)."""
    from console.ui.chat.tools_editor import ToolsEditor

    log = tmp_path / "calls.log"
    config = tmp_path / "mcp.json"
    env = {"FIXTURE_TOOLS": "lookup", "FIXTURE_LOG": str(log), "FIXTURE_TOKEN": "tok-fixture-secret"}
    config.write_text(json.dumps({"mcpServers": {"fx": {"command": sys.executable, "args": [FIXTURE], "env": env}}}))
    session = ChatSession(ConversationStore(tmp_path / "c.sqlite3"))
    editor = ToolsEditor(session)
    qtbot.addWidget(editor)
    editor.show()
    try:
        editor.enabled.setChecked(True)
        assert editor.mcp.import_file(str(config))
        assert (home / "mcp.json").stat().st_mode & 0o077 == 0
        assert "tok-fixture-secret" not in editor.mcp.boxes["fx"].toolTip()
        editor.mcp.boxes["fx"].setChecked(True)
        qtbot.waitUntil(lambda: editor.mcp.status.text() == "fx: 1 tools", timeout=60_000)
        assert [t["function"]["name"] for t in session.tools.fields(None)["tools"]] == ["fx__lookup"]
        session.send("Code of Rome?", SAMPLING)
        conv = session.conversation_id
        call = {"id": "call-1", "type": "function", "function": {"name": "fx__lookup", "arguments": '{"city":"Rome"}'}}
        session.tools.add_turn(conv, 0, "", [call])
        editor.after_answer()
        assert editor.mcp.approval.isVisible() and not editor.reply.isVisible()
        assert editor.mcp.approval.text() == 'The model calls fx · lookup({"city": "Rome"}). Run it?'
        editor.grab().save(str(tmp_path / "chat-mcp-approval.png"))
        assert not log.exists()  # nothing runs before the answer
        with qtbot.waitSignal(editor.resumeRequested, timeout=60_000):
            editor.mcp.run_once.click()
        assert session.tools.turns(conv)[0].results == {"call-1": "ROM-00"}
        assert log.read_text().split() == ["lookup"] and editor.mcp.approval.isHidden()
    finally:
        session.tools.close()


def test_a_stdio_server_ends_with_a_console_killed_by_sigkill(tmp_path: Path) -> None:
    """The server runs in its own process group (the SDK's) under a parent-death watcher: when
    the process that started it dies without cleaning up, the watcher ends the server."""
    import os
    import signal
    import subprocess
    import time

    from console.children import group_alive

    code = (
        "import sys, time\n"
        "from console.chat.mcp_config import McpServer\n"
        "from console.chat.mcp_client import McpHub, _children\n"
        f"hub = McpHub([McpServer('fx', command=sys.executable, args=({FIXTURE!r},))])\n"
        "assert hub.start('fx') is None\n"
        "print(*[p for p, argv in _children().items() if argv and argv[-1].endswith('mcp_server.py')], flush=True)\n"
        "time.sleep(600)\n"
    )
    console = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert console.stdout is not None
        server = int(console.stdout.readline())
        assert group_alive(server)
    finally:
        os.kill(console.pid, signal.SIGKILL)
        console.wait()
    deadline = time.monotonic() + 30
    while group_alive(server) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not group_alive(server)
