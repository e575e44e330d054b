"""Function tools in a chat: per-conversation tool definitions, the calls the model
makes, and their answers -- by the user or by the built-in local tools (a calculator and a clock).
No Qt here: :class:`~console.chat_session.ChatSession` holds a :class:`ChatTools` and the window's
tools editor (``console/ui/tools_editor.py``) edits it.

Off by default; switched on per conversation. A turn with calls is kept beside the saved
conversation, after the user message it answers: the assistant message with ``tool_calls`` and
one ``tool`` message per call, in the order vLLM's chat template reads them. When every call of
the turn is answered, the model is asked again with them in its prompt. The tool turns live as
long as the window (the conversation store keeps the user messages and the final answers).
"""

from __future__ import annotations

import ast
import datetime as _dt
import json
import operator
from dataclasses import dataclass, field
from typing import Any, Callable

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


@dataclass
class ToolSettings:
    """One conversation's tools: off by default."""

    enabled: bool = False
    definitions: list[dict[str, Any]] = field(default_factory=list)  # the user's (checked) functions
    builtins: set[str] = field(default_factory=set)  # which built-in tools are offered and answer
    #: ``tool_choice`` after a user message: "auto" (the model decides) or "required" (it must
    #: call one); the turn after the results is always "auto", so the model can answer
    choice: str = "auto"

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

    def messages(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = [{"role": "assistant", "content": self.content, "tool_calls": self.calls}]
        out += [
            {"role": "tool", "tool_call_id": c["id"], "name": c["function"]["name"], "content": self.results[c["id"]]}
            for c in self.calls
            if c["id"] in self.results
        ]
        return out

    def pending(self) -> list[dict[str, Any]]:
        return [c for c in self.calls if c["id"] not in self.results]


class ChatTools:
    """Tools and tool turns per conversation (``None``: the new, not yet saved chat)."""

    def __init__(self) -> None:
        self._settings: dict[int | None, ToolSettings] = {}
        self._turns: dict[int | None, list[ToolTurn]] = {}

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
        choice = "auto" if after_results else s.choice
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
        self._turns.setdefault(conversation, []).append(turn)
        return turn

    def drop_from(self, conversation: int | None, position: int) -> None:
        """Messages from ``position`` on were removed: so are the tool turns after them."""
        self._turns[conversation] = [t for t in self.turns(conversation) if t.after < position]

    def drop_unanswered(self, conversation: int | None) -> None:
        """A new message was sent while calls waited for answers: that turn is dropped."""
        turns = self.turns(conversation)
        if turns and turns[-1].pending():
            turns.pop()

    def pending(self, conversation: int | None) -> list[dict[str, Any]]:
        """Calls of the last turn still waiting for an answer."""
        turns = self.turns(conversation)
        return turns[-1].pending() if turns else []

    def answer(self, conversation: int | None, call_id: str, result: str) -> bool:
        """Record ``result`` for the call ``call_id``; True when the turn has every answer."""
        turns = self.turns(conversation)
        if not turns or call_id not in {c["id"] for c in turns[-1].calls}:
            raise KeyError(f"no pending tool call {call_id!r}")
        turns[-1].results[call_id] = result
        return not turns[-1].pending()

    def answer_builtins(self, conversation: int | None) -> bool:
        """Let the built-in tools answer the pending calls made to them; True when nothing is left."""
        builtins = self.settings(conversation).builtins
        for call in self.pending(conversation):
            name = call["function"]["name"]
            if name in builtins:
                self.answer(conversation, call["id"], run_builtin(name, call["function"]["arguments"]))
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
                out += turn.messages()
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
]
