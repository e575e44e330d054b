"""Asking before a tool runs: every call to an MCP server's tool is shown (server, tool and
arguments) and approved once, always for that tool, or refused.

:class:`ApprovalPolicy` remembers the "always" answers of one chat session; the question itself is
the caller's (the terminal chat asks on stdin, the window shows a prompt in the transcript and
records the answer when the user clicks). No Qt here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Callable


class Decision(str, Enum):
    ONCE = "once"
    ALWAYS = "always"
    REFUSE = "refuse"


#: The result the model reads for a call the user refused.
REFUSED = "error: the user refused this tool call"


@dataclass(frozen=True)
class PendingCall:
    """A call waiting for approval, as it is shown to the user."""

    call_id: str
    function: str  # the name the model used (``server__tool``)
    server: str
    tool: str
    arguments: str  # the JSON text the model wrote

    def shown(self) -> str:
        """One line: ``server · tool(arguments)`` with the arguments' JSON compacted."""
        try:
            args = json.dumps(json.loads(self.arguments or "{}"), ensure_ascii=False, separators=(", ", ": "))
        except json.JSONDecodeError:
            args = self.arguments
        return f"{self.server} · {self.tool}({args})"

    def parsed_arguments(self) -> dict[str, Any] | None:
        """The arguments as an object; None when the model wrote something else."""
        try:
            value = json.loads(self.arguments or "{}")
        except json.JSONDecodeError:
            return None
        return value if isinstance(value, dict) else None


Ask = Callable[[PendingCall], Decision]


@dataclass
class ApprovalPolicy:
    """Which tools run without asking: all of them (``allow_all``, for scripts) or those the user
    approved "always" (by function name)."""

    allow_all: bool = False
    always: set[str] = field(default_factory=set)

    def known(self, call: PendingCall) -> Decision | None:
        """The decision without asking, or None when the user must be asked."""
        return Decision.ALWAYS if self.allow_all or call.function in self.always else None

    def record(self, call: PendingCall, decision: Decision) -> Decision:
        if decision is Decision.ALWAYS:
            self.always.add(call.function)
        return decision

    def decide(self, call: PendingCall, ask: Ask | None) -> Decision:
        """:meth:`known`, else ``ask``'s answer (recorded); refused when there is no one to ask."""
        known = self.known(call)
        if known is not None:
            return known
        return self.record(call, ask(call) if ask is not None else Decision.REFUSE)


__all__ = ["ApprovalPolicy", "Ask", "Decision", "PendingCall", "REFUSED"]
