"""A chat over the conversation store: send, regenerate, edit-and-resend, and the answers saved
with their figures. No Qt and no engine here: the session turns intents into a
:class:`GenerationRequest` and records the outcome; the caller submits the request to whichever
engine it has (the window through its bridge, the terminal chat through ``Engine.stream``), so
both get the same history rules and the same persistence.

One answer at a time: between :meth:`send` / :meth:`regenerate` and :meth:`record_answer` the
session is *answering* and remembers which conversation the answer belongs to, so opening another
conversation meanwhile still files the answer in the right place.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from console.atomic import atomic_write_text
from console.config import SamplingSettings
from console.conversations import Conversation, ConversationError, ConversationStore, Message
from console.engine.types import GenerationRequest, RequestFinished
from console.thinking import Thought

TITLE_CHARS = 48


class ChatSession:
    """The open conversation (or a new, not yet saved one) of a :class:`ConversationStore`."""

    def __init__(self, store: ConversationStore) -> None:
        self.store = store
        self.conversation_id: int | None = None  # None: a new chat, saved on its first message
        self.messages: list[Message] = []
        self.system_prompt = ""
        self.edit_position: int | None = None  # editing: sending replaces the messages from here
        self.answering: int | None = None  # the conversation an answer in flight goes to
        self.continuing: Message | None = None  # the answer in flight continues this one (Continue)

    # -- which conversation ------------------------------------------------------------------
    def new(self) -> None:
        """Start an empty chat (keeps the system prompt); it is saved on its first message."""
        self.conversation_id = None
        self.messages = []
        self.edit_position = None

    def open(self, conversation_id: int) -> Conversation:
        """Open a saved conversation (raises :class:`ConversationError` if there is none)."""
        conv = self.store.get(conversation_id)
        self.conversation_id = conv.id
        self.messages = self.store.messages(conv.id)
        self.system_prompt = conv.system_prompt
        self.edit_position = None
        return conv

    def file_stem(self) -> str:
        """A file name (without suffix) for exporting the open conversation: its title, cleaned."""
        title = self.store.get(self.conversation_id).title if self.conversation_id is not None else ""
        return "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in title)[:40] or "chat"

    def export(self, path: str | Path) -> None:
        """Write the open conversation to ``path``: JSON (the whole record) for ``.json``,
        Markdown otherwise. Raises :class:`ConversationError` when none is open, OSError."""
        if self.conversation_id is None:
            raise ConversationError("Nothing to export: start or open a conversation first")
        text = (
            self.store.export_json(self.conversation_id)
            if str(path).lower().endswith(".json")
            else self.store.export_markdown(self.conversation_id)
        )
        atomic_write_text(Path(path), text)

    def delete(self) -> None:
        if self.conversation_id is not None:
            self.store.delete(self.conversation_id)
        self.new()

    # -- what the model sees -----------------------------------------------------------------
    def chat_messages(self, draft: str = "") -> list[dict[str, str]]:
        """The chat so far as the engine's messages (system prompt first), plus ``draft`` as the
        next user message when given (the context meter counts it before it is sent)."""
        out = []
        if self.system_prompt.strip():
            out.append({"role": "system", "content": self.system_prompt.strip()})
        out += [{"role": m.role, "content": m.content} for m in self.messages if m.role != "system"]
        if draft:
            out.append({"role": "user", "content": draft})
        return out

    def _request(self, sampling: SamplingSettings, **fields: Any) -> GenerationRequest:
        request = GenerationRequest(messages=self.chat_messages(), sampling=sampling, **fields)
        self.answering = self.conversation_id
        self.continuing = None
        return request

    def can_continue(self) -> bool:
        """The last message is an answer cut at max tokens (finish reason "length")."""
        return (
            bool(self.messages)
            and self.messages[-1].role == "assistant"
            and self.messages[-1].finish_reason == "length"
        )

    def continue_answer(self, sampling: SamplingSettings, **fields: Any) -> GenerationRequest | None:
        """The request that goes on with the last answer where max tokens cut it (the model
        continues that same message, no new turn); :meth:`record_answer` then appends what comes
        to it. None when the last message is not a cut answer."""
        if self.conversation_id is None or not self.can_continue():
            return None
        request = self._request(sampling, continue_final=True, **fields)
        self.continuing = self.messages[-1]
        return request

    def shown(self, streaming: str) -> tuple[list[Message], str]:
        """The history and the streaming answer's text as a view shows them while an answer
        arrives: a continued answer leaves the history and streams with its saved part first."""
        head = self.continuing
        if head is None:
            return self.messages, streaming
        history = self.messages[:-1] if self.messages and self.messages[-1].id == head.id else self.messages
        return history, head.content + streaming

    # -- intents -----------------------------------------------------------------------------
    def send(self, text: str, sampling: SamplingSettings, **fields: Any) -> GenerationRequest:
        """Save ``text`` as the next user message (replacing the edited one and all after it when
        editing) and return the request that answers it. Raises :class:`ConversationError` or
        OSError when the message cannot be saved, ValueError for an empty one."""
        text = text.strip()
        if not text:
            raise ValueError("Nothing to send: the message is empty")
        if self.conversation_id is None:
            conv = self.store.create(" ".join(text.split())[:TITLE_CHARS], system_prompt=self.system_prompt)
            self.conversation_id = conv.id
        else:
            self.store.set_system_prompt(self.conversation_id, self.system_prompt)
        if self.edit_position is not None:
            self.store.truncate(self.conversation_id, self.edit_position)
            self.edit_position = None
        self.store.append(self.conversation_id, "user", text)
        self.messages = self.store.messages(self.conversation_id)
        return self._request(sampling, **fields)

    def regenerate(self, sampling: SamplingSettings, **fields: Any) -> GenerationRequest | None:
        """Drop the last answer and return the request that asks again; None when there is no
        user message to answer."""
        if self.conversation_id is None or not self.messages:
            return None
        if self.messages[-1].role == "assistant":
            self.store.truncate(self.conversation_id, self.messages[-1].position)
            self.messages = self.store.messages(self.conversation_id)
        if not self.messages or self.messages[-1].role != "user":
            return None
        return self._request(sampling, **fields)

    def start_edit(self) -> Message | None:
        """Edit the last user message: returns it (its text goes back in the input); the next
        :meth:`send` replaces it and everything after it. None when there is none."""
        users = [m for m in self.messages if m.role == "user"]
        if not users:
            return None
        self.edit_position = users[-1].position
        return users[-1]

    def cancel_edit(self) -> None:
        self.edit_position = None

    def record_answer(
        self,
        text: str,
        finished: RequestFinished | None = None,
        *,
        model: str | None = None,
        reason: str | None = None,
        thought: Thought | None = None,
    ) -> Message | None:
        """Save the answer in flight (``text``, and its figures when it finished) to the
        conversation it belongs to; ``reason`` overrides the finish reason ("abort", "error").
        ``thought``: its thinking, split off ``text`` (kept apart; only ``text`` is sent back to
        the model in the next turn). Nothing is saved for an answer that produced nothing and did
        not finish."""
        conv, self.answering = self.answering, None
        continuing, self.continuing = self.continuing, None
        if conv is None or not (text or thought is not None or finished is not None):
            return None
        f = finished
        if continuing is not None:
            saved = self.store.extend(
                continuing.id,
                text,
                tokens_per_s=f.tokens_per_s if f else None,
                prompt_tokens=f.prompt_tokens if f else None,
                output_tokens=f.output_tokens if f else None,
                finish_reason=reason or (f.finish_reason if f else None),
            )
            if conv == self.conversation_id:
                self.messages = self.store.messages(conv)
            return saved
        saved = self.store.append(
            conv,
            "assistant",
            text,
            model=model,
            ttft_s=f.ttft_s if f else None,
            tokens_per_s=f.tokens_per_s if f else None,
            prompt_tokens=f.prompt_tokens if f else None,
            output_tokens=f.output_tokens if f else None,
            finish_reason=reason or (f.finish_reason if f else None),
            reasoning=thought.text if thought else None,
            reasoning_tokens=thought.tokens if thought else None,
            reasoning_s=thought.seconds if thought else None,
        )
        if conv == self.conversation_id:
            self.messages = self.store.messages(conv)
        return saved


__all__ = ["ChatSession", "ConversationError"]
