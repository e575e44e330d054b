"""A chat over the conversation store: send, regenerate, edit-and-resend, and the answers saved
with their figures. No Qt and no engine here: the session turns intents into a
:class:`GenerationRequest` and records the outcome; the caller submits the request to whichever
engine it has (the window through its bridge, the terminal chat through ``Engine.stream``), so
both get the same history rules and the same persistence.

A user message may carry pictures (:class:`~console.chat.attachments.Attachment`): saved with it
(``conversation_pictures.py``) and sent as OpenAI content parts. Before a request with pictures is
made, :attr:`ChatSession.image_check` may refuse it (a model that does not take images): then
nothing is saved or sent.

One answer at a time: between :meth:`send` / :meth:`regenerate` and :meth:`record_answer` the
session is *answering* and remembers which conversation the answer belongs to, so opening another
conversation meanwhile still files the answer in the right place.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Sequence

from console.atomic import atomic_write_text
from console.chat.attachments import Attachment, ImageError, missing_picture, user_content
from console.sampling import SamplingSettings
from console.chat.tools import ChatTools
from console.chat.conversation_pictures import StagedImages
from console.chat.conversations import Conversation, ConversationError, ConversationStore, Message
from console.engine.types import GenerationRequest, RequestFinished
from console.engine.thinking import Thought
from console.engine.openai_body import request_fields

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
        self.tools = ChatTools(store)  # function tools per conversation, off by default (tools.py)
        self._tool_fields: dict[str, Any] = {}  # the tools the answer in flight was offered
        #: the loaded model's refusal of pictures (``attachments.refusal``), None when it takes
        #: them or it is not known (set by the caller; unset: pictures are not checked)
        self.image_check: Callable[[], ImageError | None] | None = None

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
        self.tools.load(conv.id)
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
    def chat_messages(self, draft: str = "", draft_images: Sequence[Attachment] = ()) -> list[dict[str, Any]]:
        """The chat so far as the engine's messages (system prompt first), plus ``draft`` (and its
        pictures) as the next user message when given (the context meter counts it before it is
        sent). A message with pictures is OpenAI content parts; :class:`ImageError` when a saved
        picture's file is gone."""
        out: list[dict[str, Any]] = []
        if self.system_prompt.strip():
            out.append({"role": "system", "content": self.system_prompt.strip()})
        saved = [
            (m.position, {"role": m.role, "content": self._content(m)}) for m in self.messages if m.role != "system"
        ]
        out += self.tools.interleave(self.conversation_id, saved)  # tool calls and results in their places
        if draft or draft_images:
            out.append({"role": "user", "content": user_content(draft, [a.url for a in draft_images])})
        return out

    def _content(self, m: Message) -> str | list[dict[str, Any]]:
        try:
            return user_content(m.content, [self.store.images.data_url(image) for image in m.images])
        except OSError as exc:
            raise missing_picture(exc) from None

    def has_images(self) -> bool:
        """A message of the open conversation carries pictures."""
        return any(m.images for m in self.messages)

    def check_images(self, new: Sequence[Attachment] = ()) -> None:
        """Raise the loaded model's refusal (:class:`ImageError`) when the request would carry
        pictures (``new`` ones or the conversation's) and the model does not take them."""
        refused = self.image_check() if self.image_check is not None and (new or self.has_images()) else None
        if refused is not None:
            raise refused

    def _request(self, sampling: SamplingSettings, **fields: Any) -> GenerationRequest:
        last = self.messages[-1] if self.messages else None
        after_results = last is not None and self.tools.has_results_after(self.conversation_id, last.position)
        self._tool_fields = self.tools.fields(self.conversation_id, after_results)
        if self._tool_fields:  # vLLM checks the tools with the other OpenAI fields of the turn
            fields.update(request_fields({**(fields.get("openai_fields") or {}), **self._tool_fields}, sampling))
        request = GenerationRequest(messages=self.chat_messages(), sampling=sampling, **fields)
        self.answering = self.conversation_id
        self.continuing = None
        return request

    def can_continue(self) -> bool:
        """The last message is an answer cut short: at max tokens (finish reason "length"), or
        stopped by the user ("abort") after some text."""
        last = self.messages[-1] if self.messages else None
        if last is None or last.role != "assistant":
            return False
        return last.finish_reason == "length" or (last.finish_reason == "abort" and bool(last.content))

    def continue_answer(self, sampling: SamplingSettings, **fields: Any) -> GenerationRequest | None:
        """The request that goes on with the last answer where max tokens cut it (the model
        continues that same message, no new turn); :meth:`record_answer` then appends what comes
        to it. None when the last message is not a cut answer."""
        if self.conversation_id is None or not self.can_continue():
            return None
        self.check_images()
        request = self._request(sampling, continue_final=True, **fields)
        self.continuing = self.messages[-1]
        return request

    def shown(self, streaming: str) -> tuple[list[Message], str]:
        """The history and the streaming answer's text as a view shows them while an answer
        arrives: a continued answer leaves the history and streams with its saved part first."""
        head = self.continuing
        if head is None:
            return self._with_tool_turns(self.messages), streaming
        history = self.messages[:-1] if self.messages and self.messages[-1].id == head.id else self.messages
        return self._with_tool_turns(history), head.content + streaming

    def _with_tool_turns(self, messages: list[Message]) -> list[Message]:
        """The saved messages with each tool turn shown after its user message: the call as the
        model's message, each result under the tool's name."""
        turns = self.tools.turns(self.conversation_id)
        if not turns:
            return messages
        out: list[Message] = []
        for m in messages:
            out.append(m)
            for turn in (t for t in turns if t.after == m.position):
                calls = "\n\n".join(f"`{c['function']['name']}({c['function']['arguments']})`" for c in turn.calls)
                text = f"{turn.content.strip()}\n\n{calls}" if turn.content.strip() else calls
                out.append(Message(-1, m.conversation_id, m.position, "assistant", text, m.created_at))
                for c in turn.calls:
                    if c["id"] in turn.results:
                        result = f"`{turn.results[c['id']]}`"
                        out.append(
                            Message(
                                -1, m.conversation_id, m.position, "tool", result, m.created_at, c["function"]["name"]
                            )
                        )
        return out

    def pending_tool_calls(self) -> list[dict[str, Any]]:
        """The model's calls in this conversation still waiting for an answer."""
        return self.tools.pending(self.conversation_id)

    def answer_tool_call(self, call_id: str, result: str) -> bool:
        """Answer a pending call (the user's reply); True when every call of the turn is answered:
        :meth:`regenerate` then asks the model again with the results in its prompt."""
        return self.tools.answer(self.conversation_id, call_id, result)

    # -- intents -----------------------------------------------------------------------------
    def send(
        self,
        text: str,
        sampling: SamplingSettings,
        images: Sequence[Attachment] = (),
        staged: StagedImages | None = None,
        **fields: Any,
    ) -> GenerationRequest:
        """Save ``text`` (and its pictures) as the next user message (replacing the edited one and
        all after it when editing) and return the request that answers it. Raises
        :class:`ConversationError` or OSError when the message cannot be saved, ValueError for an
        empty one, :class:`ImageError` when the loaded model refuses pictures (nothing saved).
        ``staged``: the pictures written ahead and the chat's data URLs read ahead, off the
        caller's thread (``ImageShelf.stage``); moved into place or removed here."""
        try:
            return self._send(text, sampling, images, staged, **fields)
        finally:
            if staged is not None:
                staged.discard()

    def _send(
        self,
        text: str,
        sampling: SamplingSettings,
        images: Sequence[Attachment],
        staged: StagedImages | None,
        **fields: Any,
    ) -> GenerationRequest:
        text = text.strip()
        if not text and not images:
            raise ValueError("Nothing to send: the message is empty")
        self.check_images(images)
        if self.conversation_id is None:
            title = " ".join(text.split())[:TITLE_CHARS] or images[0].name[:TITLE_CHARS]
            conv = self.store.create(title, system_prompt=self.system_prompt)
            self.conversation_id = conv.id
            self.tools.saved_as(conv.id)
        else:
            self.store.set_system_prompt(self.conversation_id, self.system_prompt)
        self.tools.drop_unanswered(self.conversation_id)
        if self.edit_position is not None:
            self.store.truncate(self.conversation_id, self.edit_position)
            self.tools.drop_from(self.conversation_id, self.edit_position)
            self.edit_position = None
        self.store.append(self.conversation_id, "user", text, images=images, staged=staged)
        self.messages = self.store.messages(self.conversation_id)
        with self.store.images.reading_ahead(staged.urls if staged is not None else {}):
            return self._request(sampling, **fields)

    def regenerate(self, sampling: SamplingSettings, **fields: Any) -> GenerationRequest | None:
        """Drop the last answer and return the request that asks again; None when there is no
        user message to answer."""
        if self.conversation_id is None or not self.messages:
            return None
        self.check_images()
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
        if f is not None and reason is None and continuing is None and self._keep_tool_calls(conv, text, f):
            return None  # a turn of calls: shown, and answered before the model goes on
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

    def _keep_tool_calls(self, conv: int, text: str, finished: RequestFinished) -> bool:
        """Keep the calls of an answer offered tools (the engine read them off it, as vLLM's
        server does) as a tool turn; False when it made none."""
        fields, self._tool_fields = self._tool_fields, {}
        if not fields:
            return False
        calls = list(finished.choices[0].tool_calls) if finished.choices else []
        if not calls:
            return False
        messages = self.store.messages(conv)
        self.tools.add_turn(conv, messages[-1].position if messages else 0, text, calls)
        return True


__all__ = ["ChatSession", "ConversationError"]
