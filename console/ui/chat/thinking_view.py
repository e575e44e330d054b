"""The chat's thinking: which model family is loaded (its vLLM reasoning parser, its
Think switch), the streaming answer split into thinking and answer (``console/engine/thinking.py``), and
the thinking block the transcript shows for it. The chat panel forwards its events here.

The parser is made off the GUI thread when a model is loaded (reading Qwen's 151k-token vocabulary
takes ~0.4 s) and cached; a send before it is ready waits for it.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any, Callable

from PySide6.QtWidgets import QCheckBox

from console.chat.conversations import Message
from console.engine.types import RequestFinished
from console.models.family_table import Family
from console.engine.thinking import ReasoningSplitter, ThinkingStream, Thought, splitter_for, think_kwargs
from console.ui.chat.transcript import STREAM_KEY, TranscriptView, thinking_markdown


class ChatThinking:
    """The thinking of the panel's answers; ``tokenizer`` gives the loaded model's (None when none),
    ``family`` its family (``EngineInfo.family``)."""

    def __init__(
        self,
        tokenizer: Callable[[], Any],
        family: Callable[[], Family | None],
        think_box: QCheckBox,
        transcript: TranscriptView,
    ) -> None:
        self._tokenizer = tokenizer
        self._family = family
        self.think_box = think_box
        self.transcript = transcript
        self.family: Family | None = None
        self.stream: ThinkingStream | None = None  # the answer streaming now

    def follow(self) -> None:
        """Read the loaded model's family: the Think switch shows where its template has one."""
        tokenizer = self._tokenizer()
        family = self._family() if tokenizer is not None else None
        self.think_box.setVisible(family is not None and family.think_switch)
        if family is self.family:
            return
        self.family = family
        if family is not None and family.reasoning_parser is not None:
            kwargs = [think_kwargs(family, on) for on in ((True, False) if family.think_switch else (None,))]

            def warm() -> None:
                for k in kwargs:
                    splitter_for(tokenizer, k, family)

            threading.Thread(target=warm, name="reasoning-parser", daemon=True).start()

    def fields(self) -> dict[str, Any]:
        """The Think switch's request fields: ``chat_template_kwargs`` for a template with a
        thinking switch (Qwen3's ``enable_thinking``), nothing otherwise."""
        kwargs = think_kwargs(self.family, self.think_box.isChecked())
        return {"chat_template_kwargs": kwargs} if kwargs else {}

    def splitter(self) -> ReasoningSplitter | None:
        """vLLM's reasoning parser for the loaded model and the Think switch; None without one."""
        if self.family is None or self.family.reasoning_parser is None:
            return None
        return splitter_for(self._tokenizer(), think_kwargs(self.family, self.think_box.isChecked()), self.family)

    def start(self, split: bool) -> None:
        """An answer starts streaming (``split``: False for a continued answer: it is all answer)."""
        self.stream = ThinkingStream(self.splitter() if split else None)

    def add(self, text: str, num_tokens: int, token_ids: Sequence[int] = (), reasoning: str = "") -> None:
        """One delta: its text, tokens and ids, and the thinking a server sent apart."""
        if self.stream is not None:
            self.stream.add(text, num_tokens, token_ids, reasoning)

    def markdown(self, text: str) -> str:
        """The streaming answer (``text`` so far) as the transcript shows it: its thinking block,
        then the answer."""
        t = self.stream
        if t is None or (t.splitter is None and not t.served):
            return text
        reasoning, content = t.split()
        if reasoning is None:
            return content
        live = t.thinking
        seconds = t.elapsed() if live else t.thinking_s
        block = thinking_markdown(
            STREAM_KEY, reasoning, t.thinking_tokens, seconds, STREAM_KEY in self.transcript.expanded, live
        )
        return f"{block}\n\n{content}" if content else block

    def finish(self, text: str, ev: RequestFinished | None) -> tuple[Thought | None, str]:
        """(the thinking, the answer) of the answer that ended with ``text``."""
        t, self.stream = self.stream, None
        if t is None:
            return None, text
        ids = ev.choices[0].token_ids if ev is not None and ev.choices else ()
        return t.thought(text, ids, ev.reasoning if ev is not None else None)

    def saved(self, message: Message | None) -> None:
        """The answer was saved as ``message``: an open thinking block stays open."""
        if STREAM_KEY in self.transcript.expanded:
            self.transcript.expanded.discard(STREAM_KEY)
            if message is not None:
                self.transcript.expanded.add(str(message.id))
