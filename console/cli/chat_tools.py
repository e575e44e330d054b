"""``chat``'s tool flags: ``--tools FILE.json`` (function tools, OpenAI's shape),
``--builtin-tool calculator|clock`` (local tools that answer by themselves) and ``--tool-choice``.

The model's calls are printed on stderr; a built-in tool answers its calls, the terminal session
asks for the others' results (``result of NAME(ARGS)>``), then the model goes on with the results
in its prompt. A one-shot ``chat "question" --tools f.json`` prints calls nobody can answer as one
JSON line on stdout (``{"tool_calls": [...]}``) and ends, for scripts.

``--mcp FILE`` (an ``mcpServers`` JSON, as Claude Desktop and LM Studio write it) offers the
tools of its servers, started as children of the console and stopped with it. Each call to one is
shown and asked on the terminal first (``run server · tool(args)? [y]es / [a]lways / [n]o``);
``--approve-tools`` runs them all without asking, for scripts. A server that cannot start is one
line on stderr and the chat goes on without it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Callable

from console.chat.session import ChatSession
from console.chat.tools import BUILTIN_TOOLS, check_definitions
from console.cli.common import CliError
from console.chat.mcp_config import McpConfigError, load_servers
from console.chat.tool_approval import Decision, PendingCall
from console.chat.mcp_client import McpHub

#: Rounds of calls one question may take before the console stops asking the model again.
MAX_ROUNDS = 4
Ask = Callable[[dict[str, Any]], "str | None"]


def add_tool_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("tools (function calling, as vLLM's OpenAI API; the model's family picks the parser)")
    g.add_argument("--tools", metavar="FILE", help="function tools as JSON: one definition or a list (OpenAI's shape)")
    g.add_argument(
        "--builtin-tool",
        action="append",
        choices=sorted(BUILTIN_TOOLS),
        help="offer a built-in local tool that answers its calls itself (repeatable)",
    )
    g.add_argument(
        "--tool-choice",
        choices=["auto", "required"],
        default="auto",
        help='"auto": the model decides whether to call; "required": it must call one (its first turn)',
    )
    g.add_argument(
        "--mcp",
        metavar="FILE",
        help="offer the tools of the MCP servers in FILE (an mcpServers JSON, e.g. LM Studio's mcp.json); "
        "each call is asked on the terminal first",
    )
    g.add_argument("--approve-tools", action="store_true", help="run every MCP tool call without asking (scripts)")


def wants_tools(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "tools", None) or getattr(args, "builtin_tool", None) or getattr(args, "mcp", None))


def read_tools(args: argparse.Namespace) -> list[dict[str, Any]]:
    """The ``--tools`` file's definitions, checked; raises :class:`CliError` with the reason."""
    if not getattr(args, "tools", None):
        return []
    try:
        text = Path(args.tools).read_text(encoding="utf-8")
    except OSError as exc:
        raise CliError(f"cannot read the tools file {args.tools}: {exc.strerror or exc}") from None
    try:
        return check_definitions(text)
    except ValueError as exc:
        raise CliError(f"{args.tools}: {exc}") from None


def configure(session: ChatSession, args: argparse.Namespace) -> None:
    """Switch the session's tools on for its conversation, as the flags say."""
    s = session.tools.settings(session.conversation_id)
    s.enabled = True
    s.definitions = read_tools(args)
    s.builtins = set(args.builtin_tool or ())
    s.choice = args.tool_choice
    if getattr(args, "mcp", None):
        start_mcp(session, args.mcp, bool(getattr(args, "approve_tools", False)))


def start_mcp(session: ChatSession, path: str, approve_all: bool) -> None:
    """Start the servers of ``path`` for the session's conversation (each failure one line on
    stderr); raises :class:`CliError` for a file that cannot be used."""

    try:
        servers = [s for s in load_servers(path) if not s.disabled]
    except McpConfigError as exc:
        raise CliError(str(exc)) from None
    hub = McpHub(servers)
    session.tools.hub = hub
    session.tools.approvals.allow_all = approve_all
    tools, errors = hub.tools([s.name for s in servers])
    for error in errors.values():
        print(f"[mcp] {error}", file=sys.stderr)
    up = [s.name for s in servers if s.name not in errors]
    session.tools.settings(session.conversation_id).servers = set(up)
    if up:
        print(f"[mcp] {len(tools)} tools from {', '.join(up)}", file=sys.stderr)


def approve_on_terminal(call: PendingCall) -> Decision:
    """The user's answer to one MCP call, asked on the terminal (end of input: refused)."""
    while True:
        try:
            answer = input(f"run {call.shown()}? [y]es / [a]lways for this tool / [n]o> ").strip().lower()
        except EOFError:
            return Decision.REFUSE
        if answer in ("y", "yes"):
            return Decision.ONCE
        if answer in ("a", "always"):
            return Decision.ALWAYS
        if answer in ("n", "no"):
            return Decision.REFUSE


def ask_on_terminal(call: dict[str, Any]) -> str | None:
    """The terminal session's answer for a call (None: end of input)."""
    function = call["function"]
    try:
        return input(f"result of {function['name']}({function['arguments']})> ")
    except EOFError:
        return None


def answer_calls(
    session: ChatSession, ask: Ask | None, approve: Callable[[PendingCall], Decision] = approve_on_terminal
) -> bool:
    """Answer the model's pending calls: built-in tools first, then MCP tools (each ``approve``d
    first), then ``ask`` for the rest; True when all have results (the model is then asked
    again). Without ``ask`` the unanswered calls are printed as JSON on stdout."""
    pending = session.pending_tool_calls()
    if not pending:
        return False
    for call in pending:
        print(f"[tool call] {call['function']['name']}({call['function']['arguments']})", file=sys.stderr)
    session.tools.answer_builtins(session.conversation_id)
    session.tools.answer_mcp(session.conversation_id, approve)
    for call in session.pending_tool_calls():
        result = ask(call) if ask is not None else None
        if result is None:
            print(json.dumps({"tool_calls": session.pending_tool_calls()}))
            return False
        session.answer_tool_call(call["id"], result)
    for turn in session.tools.turns(session.conversation_id)[-1:]:
        for call in turn.calls:
            print(f"[tool result] {call['function']['name']}: {turn.results[call['id']]}", file=sys.stderr)
    return True


__all__ = [
    "MAX_ROUNDS",
    "add_tool_args",
    "answer_calls",
    "approve_on_terminal",
    "ask_on_terminal",
    "configure",
    "read_tools",
    "start_mcp",
    "wants_tools",
]
