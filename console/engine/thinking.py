"""Thinking apart from the answer: a reasoning model's output split into its thinking
(``reasoning_content``) and its answer by the family's own vLLM reasoning parser, the one
``vllm serve --reasoning-parser`` runs and batch uses (:func:`split_reasoning`).

:class:`ReasoningSplitter` holds one parser for a model and a thinking switch (making one reads the
tokenizer's whole vocabulary: ~0.4 s for Qwen's 151k tokens, so it is made once and cached).
:class:`ThinkingStream` follows an answer as it streams: the accumulated text is re-split after each
delta (vLLM's non-streaming ``extract_reasoning`` on the text so far, so the split shown while
streaming is the final split of what has arrived), and it counts the thinking tokens and the time
until the answer began. A server running a reasoning parser sends the thinking apart already; the
stream then takes it as sent. The chat window, the terminal chat and bench all use these. No Qt here.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from console import vllm_compat
from console.models.family_table import Family


@dataclass(frozen=True)
class Thought:
    """An answer's thinking: its text, how many output tokens it took, and the seconds from the
    request until the answer began (the whole answer's time when it never did)."""

    text: str
    tokens: int | None = None
    seconds: float | None = None


class ReasoningSplitter:
    """Splits a model's output as vLLM's reasoning parser ``family.reasoning_parser`` does."""

    def __init__(self, family: Family, tokenizer: Any, chat_template_kwargs: dict[str, Any] | None = None) -> None:
        if family.reasoning_parser is None:
            raise ValueError(f"{family.label} has no reasoning parser")
        self.family = family
        self.kwargs = dict(chat_template_kwargs or {})
        self.parser = vllm_compat.reasoning_parser(family.reasoning_parser)(tokenizer, chat_template_kwargs=self.kwargs)
        self._request = vllm_compat.chat_completion_request_class().model_validate(
            {"messages": [{"role": "user", "content": ""}], "chat_template_kwargs": self.kwargs or None}
        )
        self._tokenizer = tokenizer
        end = getattr(self.parser, "reasoning_end_str", None)
        end_id = tokenizer.convert_tokens_to_ids(end) if end else None
        self._end_id: int | None = end_id if isinstance(end_id, int) and end_id != tokenizer.unk_token_id else None

    def split(self, text: str) -> tuple[str | None, str]:
        """(thinking or None, answer) of ``text``, as vLLM's server returns them."""
        reasoning, content = self.parser.extract_reasoning(text, self._request)
        return reasoning, content or ""

    def thinking_part(self, num_tokens: int, token_ids: Sequence[int], answer: str) -> int:
        """How many of the last delta's ``num_tokens`` were thinking, the delta that began the
        ``answer``: up to the end-of-thinking marker when the ids so far (``token_ids``) have it,
        else the delta less the answer's text re-tokenized (a server's stream has no ids)."""
        if num_tokens <= 1:
            return 0
        ids = list(token_ids)
        if self._end_id is not None and self._end_id in ids[len(ids) - num_tokens :]:
            return ids.index(self._end_id) + 1 - (len(ids) - num_tokens)
        return max(0, num_tokens - len(self._tokenizer.encode(answer, add_special_tokens=False)))

    def count(self, token_ids: Sequence[int], text: str) -> int:
        """Output tokens spent thinking: those up to and including the end-of-thinking marker; all
        of them while the answer has not begun; without the marker's id (a server's answer), the
        thinking text re-tokenized."""
        return self.count_split(token_ids, *self.split(text))

    def count_split(self, token_ids: Sequence[int], reasoning: str | None, content: str) -> int:
        """:meth:`count` of an answer already split into ``reasoning`` and ``content`` (the
        engine's ``RequestFinished.reasoning`` and ``text``)."""
        if reasoning is None:
            return 0
        ids = list(token_ids)
        if self._end_id is not None and self._end_id in ids:
            return ids.index(self._end_id) + 1
        if not content and ids:
            return len(ids)
        return len(self._tokenizer.encode(reasoning, add_special_tokens=False))


_cache: dict[tuple[str, int, tuple[tuple[str, Any], ...]], ReasoningSplitter] = {}
_lock = threading.Lock()


def splitter_for(
    tokenizer: Any, chat_template_kwargs: dict[str, Any] | None, family: Family | None
) -> ReasoningSplitter | None:
    """The splitter for a model's tokenizer, its ``family`` (``EngineInfo.family``) and thinking
    switch; None when the family has no reasoning parser (or there is no tokenizer). Cached per
    switch for the latest tokenizer (the loaded model's)."""
    if tokenizer is None:
        return None
    if family is None or family.reasoning_parser is None:
        return None
    key = (family.name, id(tokenizer), tuple(sorted((chat_template_kwargs or {}).items())))
    with _lock:
        hit = _cache.get(key)
        if hit is not None and hit._tokenizer is tokenizer:
            return hit
        splitter = ReasoningSplitter(family, tokenizer, chat_template_kwargs)
        if any(other._tokenizer is not tokenizer for other in _cache.values()):
            _cache.clear()  # another model now: its parsers (and tokenizer) are not kept
        _cache[key] = splitter
        return splitter


def split_reasoning(
    family: Family | None, tokenizer: Any, text: str, chat_template_kwargs: dict[str, Any] | None = None
) -> tuple[str | None, str]:
    """(reasoning_content, content) of an answer, split by the family's vLLM reasoning parser as
    ``vllm serve --reasoning-parser`` does; (None, text) for a family without one."""
    if family is None or family.reasoning_parser is None:
        return None, text
    splitter = splitter_for(tokenizer, chat_template_kwargs, family)
    assert splitter is not None
    return splitter.split(text)


def think_kwargs(family: Family | None, think: bool | None) -> dict[str, Any] | None:
    """``chat_template_kwargs`` for the Think switch of a family whose template has one (Qwen3's
    ``enable_thinking``); None when there is no switch or it is left as the template's default."""
    if family is None or not family.think_switch or think is None:
        return None
    return {"enable_thinking": bool(think)}


class ThinkingStream:
    """One streaming answer, split as it grows. ``add`` each delta; :meth:`split` gives (thinking,
    answer) so far; :meth:`thought` the thinking with its tokens and seconds.

    Two sources of the split, one stream: the in-process engine's text holds the thinking and the
    ``splitter`` splits it; a server that runs a reasoning parser sends the thinking apart
    (``reasoning`` of :meth:`add` and :meth:`thought`), and from its first such delta the stream
    is :attr:`served`: the text is the answer alone and nothing is split again here."""

    def __init__(self, splitter: ReasoningSplitter | None, clock: Callable[[], float] = time.monotonic) -> None:
        self.splitter = splitter
        self._clock = clock
        self.started = clock()
        self.text = ""
        self.tokens = 0
        self.thinking_tokens = 0
        self.thinking_s: float | None = None  # set when the answer begins
        self._split: tuple[str | None, str] = (None, "")
        self._ids: list[int] = []
        self.served = False  # the thinking comes apart from the text (a server's reasoning parser)
        self._reasoning = ""

    def add(self, text: str, num_tokens: int, token_ids: Sequence[int] = (), reasoning: str = "") -> None:
        self.text += text
        self.tokens += num_tokens
        self._ids.extend(token_ids)
        if reasoning or self.served:
            self._add_served(text, num_tokens, reasoning)
            return
        if self.splitter is None:
            self._split = (None, self.text)
            return
        self._split = self.splitter.split(self.text)
        if self.thinking_s is None:  # until the answer begins, every token is thinking (its markers too)
            if self._split[1]:
                self.thinking_s = self._clock() - self.started
                # a delta of several tokens may end the thinking and begin the answer (a busy
                # engine sends what it has): its thinking part counted, not dropped
                self.thinking_tokens += self.splitter.thinking_part(num_tokens, self._ids, self._split[1])
            else:
                self.thinking_tokens += num_tokens

    def _add_served(self, text: str, num_tokens: int, reasoning: str) -> None:
        self.served = True
        self._reasoning += reasoning
        self._split = (self._reasoning or None, self.text)
        if self.thinking_s is None:
            if self.text:  # the answer began; a delta carrying both is counted as thinking
                self.thinking_s = self._clock() - self.started
            if reasoning:
                self.thinking_tokens += num_tokens
        elif reasoning:
            self.thinking_tokens += num_tokens

    def split(self) -> tuple[str | None, str]:
        return self._split

    @property
    def thinking(self) -> bool:
        """Still thinking: the text so far is all thinking."""
        return self._split[0] is not None and not self._split[1]

    def elapsed(self) -> float:
        return self._clock() - self.started

    def thought(
        self, text: str | None = None, token_ids: Sequence[int] = (), reasoning: str | None = None
    ) -> tuple[Thought | None, str]:
        """(the thinking, the answer) of the finished answer ``text`` (the streamed text when None);
        the thinking tokens counted on ``token_ids`` when given (the in-process engine's).
        ``reasoning``: the thinking a server split off ``text`` (the finished event's), which
        makes the stream :attr:`served`, unless this stream split the text as it came (the
        in-process engine, which splits the finished answer itself): then ``text`` is the answer
        and its thinking tokens are counted on ``token_ids``."""
        if reasoning is not None and not self.served and self.splitter is not None:
            self.text = self.text if text is None else text
            self._split = (reasoning or None, self.text)
            if not reasoning:
                return None, self.text
            tokens = self.splitter.count_split(token_ids, reasoning, self.text) if token_ids else self.thinking_tokens
            seconds = self.thinking_s if self.thinking_s is not None else self.elapsed()
            return Thought(reasoning, tokens, round(seconds, 3)), self.text
        if reasoning is not None or self.served:
            self.served = True
            self.text = self.text if text is None else text
            thinking = self._reasoning if reasoning is None else reasoning
            self._split = (thinking or None, self.text)
            if not thinking:
                return None, self.text
            seconds = self.thinking_s if self.thinking_s is not None else self.elapsed()
            return Thought(thinking, self.thinking_tokens or None, round(seconds, 3)), self.text
        if text is not None and text != self.text:
            self.text = text
            self._split = self.splitter.split(text) if self.splitter is not None else (None, text)
        reasoning, content = self._split
        if self.splitter is None or reasoning is None:
            return None, content
        tokens = self.splitter.count(token_ids, self.text) if token_ids else self.thinking_tokens
        seconds = self.thinking_s if self.thinking_s is not None else self.elapsed()
        return Thought(reasoning, tokens, round(seconds, 3)), content


__all__ = ["ReasoningSplitter", "ThinkingStream", "Thought", "split_reasoning", "splitter_for", "think_kwargs"]
