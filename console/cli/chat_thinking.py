"""The terminal chat's thinking: a reasoning model's answer is split as it streams by
the family's vLLM reasoning parser (``console/engine/thinking.py``, as the window does); the thinking goes
to stderr, dim on a terminal and headed ``[thinking]``, then ``[thought N tokens, S s]``; the
answer alone goes to stdout (so ``chat "..." > answer.txt`` keeps the answer). ``--hide-thinking``
prints only the header and the summary line.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from console.engine.types import RequestFinished
from console.engine.thinking import ReasoningSplitter, ThinkingStream, Thought, splitter_for

DIM, PLAIN = "\x1b[2m", "\x1b[0m"


def add_thinking_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--hide-thinking",
        action="store_true",
        help="a reasoning model's thinking is not printed (only how long it took); it is still saved apart",
    )


def chat_splitter(engine: Any, fields: dict[str, Any]) -> ReasoningSplitter | None:
    """The loaded model's reasoning parser, with the request's thinking switch; None without one."""
    try:
        tokenizer = engine.tokenizer
    except Exception:  # a server engine that knows no tokenizer
        return None
    info = engine.status.info
    return splitter_for(tokenizer, fields.get("chat_template_kwargs"), info.family if info is not None else None)


class ThinkingPrinter:
    """Prints one streaming answer: its thinking to ``err`` (unless hidden), its answer to ``out``."""

    def __init__(
        self,
        splitter: ReasoningSplitter | None,
        hide: bool = False,
        out: TextIO | None = None,
        err: TextIO | None = None,
    ) -> None:
        self.stream = ThinkingStream(splitter)
        self.hide = hide
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self._dim = self.err.isatty()
        end = getattr(getattr(splitter, "parser", None), "reasoning_end_str", None) or ""
        start = getattr(getattr(splitter, "parser", None), "reasoning_start_str", None) or ""
        self._hold = max(len(end), len(start), 1) - 1  # a marker may arrive in pieces: not printed as thinking
        self._shown_thinking = 0
        self._shown_answer = 0
        self._opened = self._closed = False

    def _write_err(self, text: str) -> None:
        self.err.write(f"{DIM}{text}{PLAIN}" if self._dim and text else text)
        self.err.flush()

    def add(self, text: str, num_tokens: int, token_ids: Sequence[int] = (), served: str = "") -> None:
        """One delta (``served``: the thinking a server sent apart from ``text``)."""
        self.stream.add(text, num_tokens, token_ids, served)
        reasoning, content = self.stream.split()
        if reasoning is not None:
            if not self._opened:
                self._opened = True
                self._write_err("[thinking]\n" if not self.hide else "[thinking…]")
            if not self.hide and not self._closed:
                limit = len(reasoning) if content else max(self._shown_thinking, len(reasoning) - self._hold)
                self._write_err(reasoning[self._shown_thinking : limit])
                self._shown_thinking = limit
        if content:
            if self._opened and not self._closed:
                self._close(self.stream.thinking_tokens, self.stream.thinking_s)
            self.out.write(content[self._shown_answer :])
            self.out.flush()
            self._shown_answer = len(content)

    def _close(self, tokens: int | None, seconds: float | None) -> None:
        self._closed = True
        figures = ", ".join(
            x for x in (f"{tokens} tokens" if tokens is not None else "", f"{seconds:.1f} s" if seconds else "") if x
        )
        self._write_err(f"\n[thought{' ' + figures if figures else ''}]\n")

    def finish(self, text: str, ev: RequestFinished | None) -> tuple[Thought | None, str]:
        """The finished answer (``text``): prints what was held back; (its thinking, its answer)."""
        ids = ev.choices[0].token_ids if ev is not None and ev.choices else ()
        thought, content = self.stream.thought(text, ids, ev.reasoning if ev is not None else None)
        if thought is not None and not self._closed:
            if not self.hide:
                self._write_err(thought.text[self._shown_thinking :])
            self._close(thought.tokens, thought.seconds)
        if content[self._shown_answer :]:
            self.out.write(content[self._shown_answer :])
        self._shown_answer = len(content)
        return thought, content
