"""The choices of a finished request: ``n`` answers, each with its text, finish reason and, when
asked for, per-token log-probabilities with the top alternatives.

Both engine kinds fill the same :class:`Choice`: the in-process engine from vLLM's
``CompletionOutput`` objects (:class:`OutputCollector`), server engines from the OpenAI JSON
they receive (:class:`OpenAIChoiceCollector`, full responses or streamed chunks). Batch writes
them back as OpenAI choices (``console/batch/results.py``); the chat panel shows them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

#: What vLLM writes for a log-probability of minus infinity (JSON has no infinity).
MIN_LOGPROB = -9999.0


@dataclass(frozen=True)
class TokenLogprob:
    """One generated token: its text, log-probability and the alternatives vLLM returned, in
    vLLM's order (the sampled token first, then the most likely ones)."""

    token: str
    logprob: float | None
    top: tuple[tuple[str, float], ...] = ()


@dataclass(frozen=True)
class Choice:
    index: int
    text: str
    finish_reason: str = "stop"
    output_tokens: int = 0
    logprobs: tuple[TokenLogprob, ...] | None = None
    stop_reason: int | str | None = None
    #: the generated token ids (the in-process engine; empty from a server): bench and the chat
    #: count the thinking tokens on them
    token_ids: tuple[int, ...] = ()
    #: OpenAI ``message.tool_calls`` read off the answer by the family's tool-call parser (a
    #: server's, or the in-process engine's ``tool_calls.read_answer``; choice 0 of a chat)
    tool_calls: tuple[dict[str, Any], ...] = ()
    #: the thinking the family's reasoning parser split off ``text`` (a server's, or the in-process
    #: engine's for choice 0 of a chat); None when it split none
    reasoning: str | None = None


def message_reasoning(message: dict[str, Any]) -> str | None:
    """The thinking of an OpenAI chat message or streamed delta: vLLM's ``reasoning`` field (its
    older name ``reasoning_content`` too); None when it has neither."""
    for key in ("reasoning", "reasoning_content"):
        value = message.get(key)
        if value is not None:
            return str(value)
    return None


@dataclass
class _Growing:
    parts: list[str] = field(default_factory=list)
    tokens: int = 0
    logprobs: list[TokenLogprob] | None = None
    finish_reason: str | None = None
    stop_reason: int | str | None = None
    token_ids: list[int] = field(default_factory=list)
    tool_calls: dict[int, dict[str, Any]] = field(default_factory=dict)
    reasoning: list[str] | None = None

    def add_reasoning(self, message: dict[str, Any]) -> None:
        text = message_reasoning(message)
        if text is not None:
            self.reasoning = (self.reasoning or []) + [text]

    def choice(self, index: int) -> Choice:
        return Choice(
            index,
            "".join(self.parts),
            self.finish_reason or "stop",
            self.tokens,
            None if self.logprobs is None else tuple(self.logprobs),
            self.stop_reason,
            tuple(self.token_ids),
            tuple(self.tool_calls[i] for i in sorted(self.tool_calls)),
            None if self.reasoning is None else "".join(self.reasoning),
        )

    def add_tool_calls(self, calls: Any, streamed: bool) -> None:
        """A message's ``tool_calls`` (whole) or a streamed delta's (pieces by ``index``: the id and
        name come first, the arguments in parts), as vLLM's server sends them."""
        for n, call in enumerate(calls or []):
            if not isinstance(call, dict):
                continue
            i = int(call.get("index", n)) if streamed else len(self.tool_calls)
            function = call.get("function") or {}
            empty = {"id": "", "type": "function", "function": {"name": "", "arguments": ""}}
            got = self.tool_calls.setdefault(i, empty)
            got["id"] = call.get("id") or got["id"]
            got["function"]["name"] = function.get("name") or got["function"]["name"]
            got["function"]["arguments"] += str(function.get("arguments") or "")


def _clamp(value: float) -> float:
    return max(float(value), MIN_LOGPROB)


class OutputCollector:
    """Gathers vLLM ``CompletionOutput`` objects (deltas or one final output) per choice index."""

    def __init__(self, tokenizer: Any = None) -> None:
        self._tokenizer = tokenizer
        self._by_index: dict[int, _Growing] = {}

    def _decode(self, logprob: Any, token_id: int) -> str:
        text = getattr(logprob, "decoded_token", None)
        if text is not None:
            return str(text)
        return str(self._tokenizer.decode([token_id])) if self._tokenizer is not None else f"token_id:{token_id}"

    def add(self, outputs: Iterable[Any]) -> None:
        for c in outputs:
            g = self._by_index.setdefault(int(getattr(c, "index", 0)), _Growing())
            g.parts.append(c.text)
            ids = list(c.token_ids)
            g.tokens += len(ids)
            g.token_ids += ids
            if c.logprobs is not None:
                if g.logprobs is None:
                    g.logprobs = []
                for token_id, step in zip(ids, c.logprobs):
                    g.logprobs.append(self._step(token_id, step))
            if c.finish_reason is not None:
                g.finish_reason = str(c.finish_reason)
                g.stop_reason = getattr(c, "stop_reason", None)

    def _step(self, token_id: int, step: dict[int, Any] | None) -> TokenLogprob:
        if not step or token_id not in step:
            return TokenLogprob(self._decode(None, token_id), None)
        top = tuple((self._decode(lp, tid), _clamp(lp.logprob)) for tid, lp in step.items())
        return TokenLogprob(self._decode(step[token_id], token_id), _clamp(step[token_id].logprob), top)

    def choices(self) -> tuple[Choice, ...]:
        return tuple(self._by_index[i].choice(i) for i in sorted(self._by_index))


class OpenAIChoiceCollector:
    """Gathers OpenAI choice objects (chat or completion, full or streamed) per index."""

    def __init__(self) -> None:
        self._by_index: dict[int, _Growing] = {}

    def add(self, choices: Iterable[dict[str, Any]]) -> None:
        for ch in choices:
            g = self._by_index.setdefault(int(ch.get("index") or 0), _Growing())
            if "delta" in ch:
                g.parts.append(str((ch.get("delta") or {}).get("content") or ""))
                g.add_tool_calls((ch.get("delta") or {}).get("tool_calls"), streamed=True)
                g.add_reasoning(ch.get("delta") or {})
            elif "message" in ch:
                g.parts.append(str((ch.get("message") or {}).get("content") or ""))
                g.add_tool_calls((ch.get("message") or {}).get("tool_calls"), streamed=False)
                g.add_reasoning(ch.get("message") or {})
            else:
                g.parts.append(str(ch.get("text") or ""))
            lp = ch.get("logprobs")
            if isinstance(lp, dict):
                steps = _openai_logprobs(lp)
                g.logprobs = (g.logprobs or []) + steps
                g.tokens += len(steps)
            if ch.get("finish_reason"):
                g.finish_reason = str(ch["finish_reason"])
                g.stop_reason = ch.get("stop_reason")

    def choices(self) -> tuple[Choice, ...]:
        return tuple(self._by_index[i].choice(i) for i in sorted(self._by_index))


def _openai_logprobs(lp: dict[str, Any]) -> list[TokenLogprob]:
    if "content" in lp:  # chat: [{token, logprob, top_logprobs: [{token, logprob}]}]
        return [
            TokenLogprob(
                str(e.get("token", "")),
                e.get("logprob"),
                tuple(
                    (str(t.get("token", "")), float(t.get("logprob", MIN_LOGPROB))) for t in e.get("top_logprobs") or []
                ),
            )
            for e in lp.get("content") or []
        ]
    tokens = lp.get("tokens") or []  # completion: parallel lists, top_logprobs as {token: logprob}
    values = lp.get("token_logprobs") or [None] * len(tokens)
    tops = lp.get("top_logprobs") or [None] * len(tokens)
    return [
        TokenLogprob(str(t), v, tuple((str(k), float(x)) for k, x in (top or {}).items()))
        for t, v, top in zip(tokens, values, tops)
    ]


def chat_logprobs(steps: Iterable[TokenLogprob], top_k: int | None) -> dict[str, Any]:
    """``choices[i].logprobs`` of a chat completion, as vLLM writes it (``top_k`` alternatives)."""

    def entry(token: str, logprob: float | None) -> dict[str, Any]:
        return {
            "token": token,
            "logprob": MIN_LOGPROB if logprob is None else logprob,
            "bytes": list(token.encode("utf-8", errors="replace")),
        }

    content = []
    for s in steps:
        top = [entry(t, v) for i, (t, v) in enumerate(s.top) if top_k == -1 or (top_k is not None and i < top_k)]
        content.append({**entry(s.token, s.logprob), "top_logprobs": top})
    return {"content": content}


def completion_logprobs(steps: Iterable[TokenLogprob], top_k: int | None, text_offset: int = 0) -> dict[str, Any]:
    """``choices[i].logprobs`` of a text completion, as vLLM writes it (``top_k`` + 1 entries)."""
    out: dict[str, Any] = {"text_offset": [], "token_logprobs": [], "tokens": [], "top_logprobs": []}
    offset = text_offset
    for s in steps:
        out["text_offset"].append(offset)
        offset += len(s.token)
        out["tokens"].append(s.token)
        out["token_logprobs"].append(s.logprob)
        k = top_k or 0
        out["top_logprobs"].append(
            None if s.logprob is None else {t: v for i, (t, v) in enumerate(s.top) if k == -1 or k >= i}
        )
    return out


def prompt_logprobs_json(entries: Iterable[Any] | None) -> list[dict[str, dict[str, Any]] | None] | None:
    """A request's ``prompt_logprobs`` as vLLM's OpenAI server writes them (the chat body's
    ``prompt_logprobs``, each completion choice's): one entry per prompt token, ``null`` for the
    first, else token id (a JSON key, so a string) -> ``{"logprob", "rank", "decoded_token"}``, with
    minus infinity as -9999. From vLLM's ``Logprob`` objects (the in-process engine) or from a
    server's JSON (already in this form)."""
    if entries is None:
        return None
    out: list[dict[str, dict[str, Any]] | None] = []
    for entry in entries:
        if not entry:  # the first token (None; an empty position of vLLM's FlatLogprobs)
            out.append(None)
            continue
        out.append({str(tid): _logprob_json(lp) for tid, lp in entry.items()})
    return out


def _logprob_json(lp: Any) -> dict[str, Any]:
    if isinstance(lp, dict):
        return {**lp, "logprob": _clamp(lp.get("logprob", MIN_LOGPROB))}
    return {"logprob": _clamp(lp.logprob), "rank": lp.rank, "decoded_token": lp.decoded_token}


__all__ = [
    "Choice",
    "MIN_LOGPROB",
    "OpenAIChoiceCollector",
    "OutputCollector",
    "TokenLogprob",
    "message_reasoning",
    "chat_logprobs",
    "completion_logprobs",
    "prompt_logprobs_json",
]
