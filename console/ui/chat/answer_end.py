"""How the chat's answer ends, beyond the engine's own finish: the loop guard that stops an answer
repeating one paragraph (``console/chat/repetition.py``) and the one line the chat says when an
answer was cut (at max tokens, with the way to go on, or for repeating itself)."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from console.chat.repetition import REPEATING, RepetitionGuard
from console.ui.formatting import format_count


class AnswerGuard:
    """The answer in flight, watched for a loop: :meth:`start` with each request, :meth:`feed`
    each delta (True once: the caller stops the request), :meth:`reason` the finish reason to
    save (:data:`REPEATING` when the guard stopped it, else the engine's)."""

    def __init__(self) -> None:
        self._guard = RepetitionGuard()
        self.tripped = False
        self.max_tokens = 0  # the request's (0: up to the context)

    def start(self, max_tokens: int, before: str = "") -> None:
        """A new answer of at most ``max_tokens``; ``before``: the saved part a continued answer
        goes on from."""
        self._guard = RepetitionGuard()
        self._guard.feed(before + "\n" if before else "")
        self.tripped = False
        self.max_tokens = max_tokens

    def feed(self, text: str) -> bool:
        """True the first time the answer is found looping (stop it then)."""
        if self.tripped or not self._guard.feed(text):
            return False
        self.tripped = True
        return True

    def reason(self) -> str | None:
        return REPEATING if self.tripped else None


def answer_end_line(reason: str | None, max_tokens: int, context_full: bool = False) -> str | None:
    """The chat's line about an answer that did not end by itself, or None. ``context_full``:
    the prompt and the answer filled the model's context."""
    tr = QCoreApplication.translate
    if reason == "length" and (max_tokens <= 0 or context_full):  # no room to go on
        return tr("ChatPanel", "The answer filled the model's context.")
    if reason == "length":
        return tr("ChatPanel", "The answer stopped at max tokens ({0}): Continue goes on, or raise Max tokens.").format(
            format_count(max_tokens)
        )
    if reason == REPEATING:
        return tr(
            "ChatPanel",
            "Stopped: the answer started repeating itself. Regenerate, or raise the temperature or the "
            "repetition penalty.",
        )
    return None
