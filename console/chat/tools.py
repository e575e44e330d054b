"""Function tools in a chat: per-conversation tool definitions, the calls the model
makes, and their answers -- by the user, by the built-in local tools (a calculator and a clock) or
by the tools of MCP servers (``mcp_client.McpHub``), each of those run only once the user approved
it (``tool_approval``). No Qt here: :class:`~console.chat.session.ChatSession` holds a
:class:`ChatTools` and the window's tools editor (``console/ui/chat/tools_editor.py``) edits it.

Off by default; switched on per conversation, and MCP servers one by one; the settings a
conversation's requests were made with are saved with it and read back when it is opened again. A turn with calls is
kept after the user message it answers: the assistant message with ``tool_calls`` and one ``tool``
message per call, in the order vLLM's chat template reads them. When every call of the turn is
answered, the model is asked again with them in its prompt. With a conversation store, each turn,
its results and the approvals are saved in it (``ConversationStore.add_tool_turn``) and read back
when the conversation is opened again (:meth:`ChatTools.load`). An MCP result's images go back to
a model that takes images as OpenAI ``image_url`` parts (:func:`tool_content`); any other model
reads a one-line note for each.
"""

from __future__ import annotations

import ast
import datetime as _dt
import json
import operator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from console.chat.tool_approval import REFUSED, ApprovalPolicy, Ask, Decision, PendingCall

if TYPE_CHECKING:
    from console.chat.conversations import ConversationStore
    from console.chat.mcp_client import McpHub

#: The built-in local tools, as OpenAI function definitions (``strict``: vLLM pins the arguments
#: to the schema, so even a weak model's call is one the tool can run).
BUILTIN_TOOLS: dict[str, dict[str, Any]] = {
    "calculator": {
        "type": "function",
        "function": {
            "name": "calculator",
            "description": "Evaluate an arithmetic expression (numbers, + - * / // % **, parentheses).",
            "strict": True,
            "parameters": {
                "type": "object",
                "properties": {"expression": {"type": "string", "pattern": "[0-9]{1,4}( [-+*/] [0-9]{1,4}){1,3}"}},
                "required": ["expression"],
                "additionalProperties": False,
            },
        },
    },
    "clock": {
        "type": "function",
        "function": {
            "name": "clock",
            "description": "The current date and time (UTC or this computer's local time).",
            "strict": True,
            "parameters": {
                "type": "object",
                "properties": {"zone": {"type": "string", "enum": ["utc", "local"]}},
                "required": ["zone"],
                "additionalProperties": False,
            },
        },
    },
}

_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY: dict[type, Callable[[Any], Any]] = {ast.UAdd: operator.pos, ast.USub: operator.neg}
MAX_EXPRESSION = 200
MAX_POWER = 1000


class ToolError(ValueError):
    """A tool could not answer; the message is what the model (and the user) is told."""


def calculate(expression: str) -> str:
    """Arithmetic evaluated from its syntax tree (no ``eval``: names, calls and attributes are
    refused); raises :class:`ToolError`."""
    if len(expression) > MAX_EXPRESSION:
        raise ToolError(f"the expression is longer than {MAX_EXPRESSION} characters")
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError:
        raise ToolError(f"not an arithmetic expression: {expression!r}") from None

    def value(node: ast.AST) -> Any:
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            left, right = value(node.left), value(node.right)
            if isinstance(node.op, ast.Pow) and abs(right) > MAX_POWER:
                raise ToolError(f"exponents above {MAX_POWER} are refused")
            return _BINARY[type(node.op)](left, right)
        if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
            return _UNARY[type(node.op)](value(node.operand))
        raise ToolError(f"only numbers and + - * / // % ** ( ) are allowed: {expression!r}")

    try:
        result = value(tree.body)
    except ZeroDivisionError:
        raise ToolError("division by zero") from None
    except (OverflowError, ValueError) as exc:
        raise ToolError(str(exc)) from None
    return str(int(result)) if isinstance(result, float) and result.is_integer() else str(result)


def clock(zone: str = "utc") -> str:
    now = _dt.datetime.now(_dt.timezone.utc)
    return (now.astimezone() if zone == "local" else now).isoformat(timespec="seconds")


def run_builtin(name: str, arguments: str) -> str:
    """The built-in tool ``name``'s answer to a call with JSON ``arguments`` (an error becomes
    ``error: ...``, which the model is told as the result)."""
    try:
        args = json.loads(arguments or "{}")
        if not isinstance(args, dict):
            raise ToolError("the arguments are not a JSON object")
        if name == "calculator":
            return calculate(str(args.get("expression", "")))
        if name == "clock":
            return clock(str(args.get("zone", "utc")))
        raise ToolError(f"no built-in tool {name!r}")
    except (ToolError, json.JSONDecodeError) as exc:
        return f"error: {exc}"


def check_definitions(text: str) -> list[dict[str, Any]]:
    """Function tools written as JSON (one definition or a list of them, OpenAI's shape; a bare
    ``{"name", "parameters"}`` is wrapped); raises ValueError with a one-line reason."""
    if not text.strip():
        return []
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    items = data if isinstance(data, list) else [data]
    out: list[dict[str, Any]] = []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise ValueError(f"tool {i + 1}: a definition is a JSON object")
        if "function" not in item and "name" in item:
            item = {"type": "function", "function": item}
        function = item.get("function")
        if item.get("type", "function") != "function" or not isinstance(function, dict):
            raise ValueError(f'tool {i + 1}: needs "type": "function" and a "function" object')
        name = function.get("name")
        if not isinstance(name, str) or not name.replace("_", "").replace("-", "").isalnum():
            raise ValueError(f"tool {i + 1}: the name must be letters, digits, _ or -")
        params = function.get("parameters", {"type": "object", "properties": {}})
        if not isinstance(params, dict) or params.get("type", "object") != "object":
            raise ValueError(f'tool {i + 1} ({name}): "parameters" must be a JSON schema of type object')
        out.append({"type": "function", "function": {**function, "parameters": params}})
    names = [t["function"]["name"] for t in out]
    if len(set(names)) != len(names):
        raise ValueError("two tools have the same name")
    return out


def tool_content(text: str, images: tuple[str, ...] = ()) -> str | list[dict[str, Any]]:
    """A tool message's content: its text, or with images (``data:`` URLs, for a model that takes
    them) OpenAI content parts, the text first and an ``image_url`` part per image."""
    if not images:
        return text
    return [{"type": "text", "text": text}] + [{"type": "image_url", "image_url": {"url": url}} for url in images]


@dataclass
class ToolSettings:
    """One conversation's tools: off by default."""

    enabled: bool = False
    definitions: list[dict[str, Any]] = field(default_factory=list)  # the user's (checked) functions
    builtins: set[str] = field(default_factory=set)  # which built-in tools are offered and answer
    #: ``tool_choice`` after a user message: "auto" (the model decides) or "required" (it must
    #: call one); the turn after the results is always "auto", so the model can answer
    choice: str = "auto"
    servers: set[str] = field(default_factory=set)  # MCP servers whose tools are offered

    def to_dict(self) -> dict[str, Any]:
        """As saved with the conversation (``ConversationStore.set_tool_settings``)."""
        return {
            "enabled": self.enabled,
            "definitions": self.definitions,
            "builtins": sorted(self.builtins),
            "choice": self.choice,
            "servers": sorted(self.servers),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ToolSettings:
        """Saved settings read back; what is missing or malformed keeps its default."""
        definitions = data.get("definitions")
        return cls(
            enabled=bool(data.get("enabled", False)),
            definitions=[d for d in definitions if isinstance(d, dict)] if isinstance(definitions, list) else [],
            builtins={str(b) for b in data.get("builtins") or () if str(b) in BUILTIN_TOOLS},
            choice=str(data.get("choice") or "auto"),
            servers={str(x) for x in data.get("servers") or ()},
        )

    def tools(self) -> list[dict[str, Any]]:
        mine = [d for d in self.definitions if d["function"]["name"] not in self.builtins]
        return [BUILTIN_TOOLS[n] for n in sorted(self.builtins)] + mine


@dataclass
class ToolTurn:
    """The model's calls after one user message (``after``: its position), with their answers."""

    after: int
    content: str
    calls: list[dict[str, Any]]
    results: dict[str, str] = field(default_factory=dict)  # call id -> the answer
    #: call id -> who answered: "builtin", "user", or the MCP approval ("once", "always", "refuse")
    approvals: dict[str, str] = field(default_factory=dict)
    id: int | None = None  # the saved turn's row in the conversation store
    #: call id -> the images of its result (``data:`` URLs), kept while the chat is open; the
    #: saved result has a one-line note for each
    images: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def messages(self, images: bool = False) -> list[dict[str, Any]]:
        """The turn as OpenAI messages; ``images``: the model takes images, so a result's images
        go with its text (:func:`tool_content`)."""
        out: list[dict[str, Any]] = [{"role": "assistant", "content": self.content, "tool_calls": self.calls}]
        out += [
            {
                "role": "tool",
                "tool_call_id": c["id"],
                "name": c["function"]["name"],
                "content": tool_content(self.results[c["id"]], self.images.get(c["id"], ()) if images else ()),
            }
            for c in self.calls
            if c["id"] in self.results
        ]
        return out

    def pending(self) -> list[dict[str, Any]]:
        return [c for c in self.calls if c["id"] not in self.results]


class ChatTools:
    """Tools and tool turns per conversation (``None``: the new, not yet saved chat). ``store``:
    where turns are saved; ``hub``: the MCP servers; ``approvals``: the "always" answers."""

    def __init__(self, store: ConversationStore | None = None, hub: McpHub | None = None) -> None:
        self._settings: dict[int | None, ToolSettings] = {}
        self._turns: dict[int | None, list[ToolTurn]] = {}
        self.store = store
        self.hub = hub
        self.approvals = ApprovalPolicy()
        #: the loaded model takes images (``image_parts.takes_images``): MCP results' images reach it
        self.takes_images = False

    def close(self) -> None:
        """Stop the MCP servers (the hub's children)."""
        if self.hub is not None:
            self.hub.close()

    def load(self, conversation: int) -> None:
        """Read the saved tool turns and tool settings of ``conversation`` (opened again)."""
        if self.store is None:
            return
        saved = self.store.tool_settings(conversation)
        if saved is not None:
            self._settings[conversation] = ToolSettings.from_dict(saved)
        self._turns[conversation] = [
            ToolTurn(t.after_position, t.content, list(t.calls), dict(t.results), dict(t.approvals), t.id)
            for t in self.store.tool_turns(conversation)
        ]

    def settings(self, conversation: int | None) -> ToolSettings:
        return self._settings.setdefault(conversation, ToolSettings())

    def saved_as(self, conversation: int) -> None:
        """The new chat got its id: its tools go with it (and the next new chat starts without)."""
        if None in self._settings:
            self._settings[conversation] = self._settings.pop(None)
        if None in self._turns:
            self._turns[conversation] = self._turns.pop(None)

    def fields(self, conversation: int | None, after_results: bool = False) -> dict[str, Any]:
        """OpenAI fields for the next request: the tools and ``tool_choice`` (the setting's, or
        "auto" for the turn that reads tool results); {} when off."""
        s = self.settings(conversation)
        tools = s.tools() if s.enabled else []
        if s.enabled and s.servers and self.hub is not None:
            tools += self.hub.tools(sorted(s.servers), start=False)[0]
        choice = "auto" if after_results else s.choice
        if self.store is not None and conversation is not None:  # the tools this request offers: kept
            self.store.set_tool_settings(conversation, s.to_dict())
        if not tools:
            return {}
        # a forced turn asks for one call (answered before the next): without the limit vLLM's
        # constraint lets a weak model chain calls until its tokens run out
        return {"tools": tools, "tool_choice": choice, **({"parallel_tool_calls": False} if choice != "auto" else {})}

    def has_results_after(self, conversation: int | None, position: int) -> bool:
        """The last tool turn answers the message at ``position`` and has all its results."""
        turns = self.turns(conversation)
        return bool(turns) and turns[-1].after == position and not turns[-1].pending()

    def turns(self, conversation: int | None) -> list[ToolTurn]:
        return self._turns.get(conversation, [])

    def add_turn(self, conversation: int | None, after: int, content: str, calls: list[dict[str, Any]]) -> ToolTurn:
        turn = ToolTurn(after, content, list(calls))
        if self.store is not None and conversation is not None:
            turn.id = self.store.add_tool_turn(conversation, after, content, turn.calls)
        self._turns.setdefault(conversation, []).append(turn)
        return turn

    def drop_from(self, conversation: int | None, position: int) -> None:
        """Messages from ``position`` on were removed: so are the tool turns after them."""
        self._turns[conversation] = [t for t in self.turns(conversation) if t.after < position]

    def drop_unanswered(self, conversation: int | None) -> None:
        """A new message was sent while calls waited for answers: that turn is dropped."""
        turns = self.turns(conversation)
        if turns and turns[-1].pending():
            dropped = turns.pop()
            if self.store is not None and dropped.id is not None:
                self.store.delete_tool_turn(dropped.id)

    def pending(self, conversation: int | None) -> list[dict[str, Any]]:
        """Calls of the last turn still waiting for an answer."""
        turns = self.turns(conversation)
        return turns[-1].pending() if turns else []

    def answer(
        self, conversation: int | None, call_id: str, result: str, by: str = "user", images: tuple[str, ...] = ()
    ) -> bool:
        """Record ``result`` (and its ``images``, ``data:`` URLs) for the call ``call_id``
        (answered ``by``: "user", "builtin" or an MCP approval); True when the turn has every answer."""
        turns = self.turns(conversation)
        if not turns or call_id not in {c["id"] for c in turns[-1].calls}:
            raise KeyError(f"no pending tool call {call_id!r}")
        turn = turns[-1]
        turn.results[call_id] = result
        if images:
            turn.images[call_id] = images
        turn.approvals[call_id] = by
        if self.store is not None and turn.id is not None:
            self.store.set_tool_results(turn.id, turn.results, turn.approvals)
        return not turn.pending()

    def answer_builtins(self, conversation: int | None) -> bool:
        """Let the built-in tools answer the pending calls made to them; True when nothing is left."""
        builtins = self.settings(conversation).builtins
        for call in self.pending(conversation):
            name = call["function"]["name"]
            if name in builtins:
                self.answer(conversation, call["id"], run_builtin(name, call["function"]["arguments"]), "builtin")
        return not self.pending(conversation)

    def mcp_pending(self, conversation: int | None) -> list[PendingCall]:
        """Pending calls to tools of this conversation's MCP servers, as the user is asked them."""
        if self.hub is None:
            return []
        servers = self.settings(conversation).servers
        out = []
        for call in self.pending(conversation):
            owner = self.hub.owner(call["function"]["name"])
            if owner is not None and owner[0] in servers:
                fn = call["function"]
                out.append(PendingCall(call["id"], fn["name"], owner[0], owner[1], fn["arguments"]))
        return out

    def run_mcp(self, call: PendingCall, decision: Decision) -> str:
        """The result of an MCP call under ``decision`` (refused: the refusal the model reads);
        blocks up to the hub's call timeout, so the window runs it off the GUI thread."""
        return self.run_mcp_parts(call, decision)[0]

    def run_mcp_parts(self, call: PendingCall, decision: Decision) -> tuple[str, tuple[str, ...]]:
        """:meth:`run_mcp`'s text and the result's images (``data:`` URLs)."""
        if decision is Decision.REFUSE or self.hub is None:
            return REFUSED, ()
        arguments = call.parsed_arguments()
        if arguments is None:
            return f"error: the arguments are not a JSON object: {call.arguments[:200]}", ()
        return self.hub.call_parts(call.function, arguments)

    def answer_mcp(self, conversation: int | None, ask: Ask | None) -> bool:
        """Ask about each pending MCP call (``approvals`` first, then ``ask``), run the approved
        ones and record every result; True when nothing is left pending."""
        for call in self.mcp_pending(conversation):
            decision = self.approvals.decide(call, ask)
            text, images = self.run_mcp_parts(call, decision)
            self.answer(conversation, call.call_id, text, decision.value, images)
        return not self.pending(conversation)

    def interleave(self, conversation: int | None, messages: list[tuple[int, dict[str, Any]]]) -> list[dict[str, Any]]:
        """``(position, message)`` pairs of the saved chat with the tool turns in their places."""
        by_position: dict[int, list[ToolTurn]] = {}
        for turn in self.turns(conversation):
            by_position.setdefault(turn.after, []).append(turn)
        out: list[dict[str, Any]] = []
        for position, message in messages:
            out.append(message)
            for turn in by_position.get(position, []):
                out += turn.messages(self.takes_images)
        return out


__all__ = [
    "BUILTIN_TOOLS",
    "ChatTools",
    "ToolError",
    "ToolSettings",
    "ToolTurn",
    "calculate",
    "check_definitions",
    "clock",
    "run_builtin",
    "tool_content",
]
