"""The Chat tab: conversations (persisted), a streaming markdown transcript, sampling controls,
a system prompt and a context meter.

The chat itself (which conversation, send / regenerate / edit, saving answers with their figures)
is a :class:`console.chat.session.ChatSession`, shared with the terminal chat; this panel renders
it and forwards the user's intents, submitting the session's requests through the bridge.

Tokens arrive in batches from the bridge; the transcript is re-rendered on its own throttle timer
(not per batch). Token counting runs in a worker thread, debounced; events of other request ids
are ignored. The LoRA box (which adapter answers) is ``adapter_box.py``; the widgets are made by
``panel_ui.py``; the conversations' intents (new, open, rename, delete, export) are
``conversation_intents.py``.

A reasoning model's answer (its family has a vLLM reasoning parser, ``family_table.py``) streams
split into its thinking, shown apart and collapsed with its tokens and time, and the answer
(``console/engine/thinking.py``); the Think switch shows where the template has one (Qwen3's
``enable_thinking``) and goes to the template as ``chat_template_kwargs``.

Pictures (``pictures.py``): attached, pasted or dropped, read off the GUI thread, written at Send
in a worker (``send.py``) and sent with the next message as content parts; a model that does
not take images refuses them in one line before anything is saved or sent (``image_check``).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from PySide6.QtCore import QTimer, Signal
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QWidget

from console.chat.attachments import ImageError
from console.chat.session import ChatSession
from console.sampling import SamplingSettings
from console.chat.conversations import ConversationError, ConversationStore
from console.engine.image_parts import takes_images
from console.engine.types import (
    EngineError,
    EngineState,
    EngineStatus,
    GenerationRequest,
    RequestFailed,
    RequestFinished,
    TokenDelta,
)
from console.settings import Settings
from console.ui.chat.answer_end import AnswerGuard, answer_end_line
from console.ui.chat.pictures import ChatImages
from console.ui.chat.output_control import request_extras
from console.ui.chat.conversation_intents import ChatConversations
from console.ui.chat.panel_ui import setup_ui
from console.ui.chat.send import MessageSave
from console.models.family_table import Family
from console.ui.chat.thinking_view import ChatThinking
from console.ui.chat.transcript import figures_text
from console.ui.context import AppContext
from console.ui.core_text import translate_core_text, translate_error

RENDER_INTERVAL_MS = 100


class ChatPanel(ChatConversations):
    """Chat with the loaded model.

    Signals:
        busyChanged(bool): a generation started (True) or ended (False).
        message(str): a one-line outcome for the status bar (``conversation_intents.py``).
    """

    busyChanged = Signal(bool)

    def __init__(
        self, ctx: AppContext, parent: QWidget | None = None, conversations: ConversationStore | None = None
    ) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.session = ChatSession(conversations or ConversationStore())
        self.active_id: str | None = None  # the request whose answer streams now
        self._stream_text = ""
        self.render_count = 0  # tests watch that rendering is throttled
        self.guard = AnswerGuard()  # stops an answer that repeats one paragraph over and over

        setup_ui(self, ctx, self.session)
        self._connect_widgets()
        self.thinking = ChatThinking(  # the thinking shown apart, the Think switch
            lambda: self.ctx.engine.tokenizer if self._engine_ready() else None,
            self._loaded_family,
            self.think_box,
            self.transcript,
        )
        self.set_enter_sends(True)

        self._render_timer = QTimer(self)
        self._render_timer.setInterval(RENDER_INTERVAL_MS)
        self._render_timer.timeout.connect(self._on_render_timer_timeout)
        self._dirty = False
        self.context_bar.follow(lambda: self.ctx.engine, self._draft_request)  # the chat and the draft, debounced

        self.transcript.thinkingToggled.connect(lambda _key: self._render())
        self.transcript.thumbnails.ready.connect(self._render)
        self.transcript.restyled.connect(self._render)  # the code blocks in the style of the new palette
        ctx.bridge.requestEvents.connect(self._on_bridge_request_events)
        ctx.bridge.statusChanged.connect(self._on_bridge_status_changed)
        status = ctx.engine.status
        if status.state == EngineState.READY and status.info is not None:  # loaded before the window
            self.sampling_box.set_model_defaults(status.info.sampling_defaults)
        self._follow_capabilities(status)
        self.refresh_conversations()
        self._update_buttons()
        self.thinking.follow()

    def _on_busy_changed(self, busy: bool) -> None:
        if busy:  # the adapter that answers this conversation is remembered for it
            self.adapter_box.remember(self.conversation_id)

    def _connect_widgets(self) -> None:
        """The widgets ``panel_ui.py`` made, connected to this panel's slots."""
        self.conversations.conversationChosen.connect(self._on_conversations_conversation_chosen)
        self.conversation_list.itemDoubleClicked.connect(lambda _i: self.rename_conversation())
        self.new_button.clicked.connect(self.new_conversation)
        self.rename_button.clicked.connect(lambda: self.rename_conversation())
        self.delete_button.clicked.connect(lambda: self.delete_conversation())
        self.export_button.clicked.connect(lambda: self.export_conversation())
        self.input.sendRequested.connect(self.send)
        self.input.textChanged.connect(self._schedule_count)
        self.continue_button.clicked.connect(self.continue_answer)
        self.send_button.clicked.connect(self.send)
        self.stop_button.clicked.connect(self.stop)
        self.regenerate_button.clicked.connect(self.regenerate)
        self.edit_button.clicked.connect(self.edit_last)
        self.system_prompt.textChanged.connect(self._on_system_prompt_text_changed)
        self.adapter_box.compare_button.clicked.connect(
            lambda: self.adapter_box.compare_with_base(
                self.chat_messages(self.input.toPlainText().strip()), self.sampling()
            )
        )
        self.busyChanged.connect(self._on_busy_changed)
        self.tools_box.resumeRequested.connect(self.regenerate)
        self.images = ChatImages(
            self.image_strip, self.attach_button, self.input, self.transcript, self.show_error, self
        )
        self.image_strip.changed.connect(self._on_image_strip_changed)
        self.session.image_check = lambda: self.images.refusal(self.ctx.engine.status)
        locked = [self.image_strip, self.attach_button, self.conversations]  # what is saved is what was there
        self.saving = MessageSave(self.session, self.input, locked, self._sent, self.show_error, self)
        self.saving.savingChanged.connect(lambda _busy: self._update_buttons())

    # -- sampling and settings ----------------------------------------------------------------------
    def sampling(self) -> SamplingSettings:
        return self.sampling_box.sampling()

    def set_sampling(self, s: SamplingSettings) -> None:
        self.sampling_box.set_sampling(s)

    def set_enter_sends(self, on: bool) -> None:
        """Enter sends (Shift+Enter breaks the line), or the Ctrl+Enter way; saved in the settings."""
        self.input.set_enter_sends(on)
        keys = self.input.send_keys()
        self.send_button.setToolTip(self.tr("Send ({0})").format(keys))
        self.transcript.setPlaceholderText(self.tr("Load a model, type a message and press {0}.").format(keys))

    def restore(self, st: Settings) -> None:
        self.set_sampling(st.sampling)
        self.set_enter_sends(st.enter_sends)
        if st.last_conversation is not None:
            self.open_conversation(st.last_conversation)
        if self.conversation_id is None:
            self.system_prompt.setPlainText(st.system_prompt)

    def save(self, st: Settings) -> None:
        s = self.sampling()
        st.sampling = dataclasses.replace(s, stop=list(s.stop))
        st.system_prompt = self.system_prompt.toPlainText()
        st.enter_sends = self.input.enter_sends
        st.last_conversation = self.conversation_id
        st.chat_settings_shown = self.settings_shown()

    # -- chat intents ------------------------------------------------------------------------------
    def send(self) -> bool:
        """Send the input box as the next user message (or the edited one): ``send.py``."""
        text, images = self.input.toPlainText().strip(), self.image_strip.attachments()
        if not (text or images) or self.active_id is not None or self.saving.busy:
            return False
        if self.images.loading:
            self.show_error(self.tr("A picture is still being read: send when its thumbnail shows"))
            return False
        if not self._engine_ready():
            self.show_error(self._no_model_line())
            return False
        self.clear_error()
        return self.saving.send(
            text, images, lambda: {"sampling": self.sampling(), **self.adapter_box.fields(), **self._extras()}
        )

    def _sent(self, request: GenerationRequest) -> bool:
        """The message is saved: the box empties and ``request`` goes (not when the window closes)."""
        self._cancel_edit()
        self.input.clear()
        self.image_strip.clear()
        self.refresh_conversations()
        if self.saving.keep_only:  # the window is closing: the message is kept, not sent
            self.session.record_answer("")
            return False
        return self._generate(request)

    def regenerate(self) -> bool:
        """Drop the last answer and ask again."""
        if self.active_id is not None or self.saving.busy:
            return False
        try:
            request = self.session.regenerate(self.sampling(), **self.adapter_box.fields(), **self._extras())
        except (ConversationError, OSError, ValueError, ImageError) as exc:
            self.show_error(translate_error(exc))
            return False
        return request is not None and self._generate(request)

    def continue_answer(self) -> bool:
        """Go on with the last answer where max tokens or Stop cut it: the same answer grows."""
        if self.active_id is not None or self.saving.busy:
            return False
        try:
            request = self.session.continue_answer(self.sampling(), **self.adapter_box.fields())
        except (ConversationError, OSError, ValueError, ImageError) as exc:
            self.show_error(translate_error(exc))
            return False
        return request is not None and self._generate(request)

    def edit_last(self) -> bool:
        """Put the last user message back in the box; Send replaces it and all after it."""
        if self.active_id is not None or self.saving.busy:
            return False
        last = self.session.start_edit()
        if last is None:
            return False
        self.input.setPlainText(last.content)
        self.images.put_back(last.images)
        self.input.moveCursor(QTextCursor.MoveOperation.End)
        self.input.setFocus()
        self.edit_label.setText(self.tr("Editing your last message: Send replaces it and the answer after it."))
        self.edit_label.show()
        return True

    def stop(self) -> None:
        if self.active_id is not None:
            self.ctx.bridge.abort(self.active_id)

    def _detach_active(self) -> None:
        """Leaving a conversation mid-answer: stop it and keep what streamed so far."""
        if self.active_id is None:
            return
        self.ctx.bridge.abort(self.active_id)
        self._finish(self._stream_text, None, reason="abort")

    def _no_model_line(self) -> str:
        return self.tr("No model is loaded: pick one in the Models sidebar and press Load (Ctrl+L)")

    def _engine_ready(self) -> bool:
        return self.ctx.engine.status.state == EngineState.READY

    def _loaded_family(self) -> Family | None:
        info = self.ctx.engine.status.info
        return info.family if info is not None else None

    def chat_messages(self, draft: str = "") -> list[dict[str, Any]]:
        """The chat so far and ``draft`` with the pictures attached to it."""
        return self.session.chat_messages(draft, self.image_strip.attachments())

    def _draft_request(self) -> GenerationRequest:
        try:
            return GenerationRequest(messages=self.chat_messages(self.input.toPlainText()))
        except ImageError:  # a saved picture's file is gone: Send says so; nothing to count
            return GenerationRequest(messages=[])

    def _extras(self) -> dict[str, Any]:
        # vLLM's params for the output fields run as they are made: over the model's defaults
        return request_extras(self.output, self.sampling_box.effective(), self.thinking.fields())

    def _generate(self, request: GenerationRequest) -> bool:
        try:
            self.active_id = self.ctx.bridge.submit(request)
        except (EngineError, ValueError) as exc:
            self.session.record_answer("")  # nothing is answering after all
            self.show_error(str(exc))
            self._render()
            return False
        self._stream_text = ""
        self.guard.start(
            request.sampling.max_tokens, self.session.continuing.content if self.session.continuing else ""
        )
        self.thinking.start(split=self.session.continuing is None)
        self._render_timer.start()
        self._render()
        self._update_buttons()
        self.busyChanged.emit(True)
        return True

    # -- stream events -------------------------------------------------------------------------------
    def _on_bridge_request_events(self, batch: list[Any]) -> None:
        if self.active_id is None:
            return
        for ev in batch:
            if ev.request_id != self.active_id:
                continue  # another panel's request, or a stale one
            if isinstance(ev, TokenDelta):
                self._stream_text += ev.text
                self.thinking.add(ev.text, ev.num_tokens, ev.token_ids, ev.reasoning)
                self._dirty = True
                if self.guard.feed(ev.text):  # looping: stopped, saved as such
                    self.ctx.bridge.abort(self.active_id)
            elif isinstance(ev, RequestFinished):
                # an answer the engine read (its thinking or calls apart) may leave no text at all
                read = ev.reasoning is not None or bool(ev.choices and ev.choices[0].tool_calls)
                self._finish(ev.text if read or ev.text else self._stream_text, ev, self.guard.reason())
            elif isinstance(ev, RequestFailed):
                self.show_error(self.tr("The answer failed: {0}").format(ev.message))
                self._finish(ev.partial_text or self._stream_text, None, reason="error")

    def _finish(self, text: str, ev: RequestFinished | None, reason: str | None = None) -> None:
        self.active_id = None
        self._render_timer.stop()
        status = self.ctx.engine.status
        thought, answer = self.thinking.finish(text, ev)
        try:
            saved = self.session.record_answer(answer, ev, model=status.model, reason=reason, thought=thought)
        except (ConversationError, OSError) as exc:
            saved = None
            self.show_error(self.tr("Could not save the answer: {0}").format(exc))
        self.thinking.saved(saved)
        self.tools_box.after_answer()  # the model's tool calls: answered by a built-in tool or the user
        self._stream_text = ""
        self.choices_view.show_choices(ev.choices if ev is not None else ())
        full = False
        if ev is not None and status.info is not None:
            self.context_bar.show_used(ev.prompt_tokens + ev.output_tokens, status.info.max_model_len)
            full = ev.prompt_tokens + ev.output_tokens >= status.info.max_model_len
        self._render()
        self._update_buttons()
        self.refresh_conversations()
        line = answer_end_line(reason or (ev.finish_reason if ev else None), self.guard.max_tokens, full)
        if line is not None:  # cut at max tokens (Continue goes on) or for repeating itself
            self.message.emit(line)
        self.busyChanged.emit(False)

    def _on_render_timer_timeout(self) -> None:
        if not self._dirty:
            return
        if self.transcript.can_update_stream(self.active_id):
            self._render_stream_tail()
        else:
            self._render()

    def _on_bridge_status_changed(self, status: EngineStatus) -> None:
        if status.state == EngineState.READY and status.info is not None:
            self.sampling_box.set_model_defaults(status.info.sampling_defaults)
            self.session.tools.takes_images = takes_images(status.info.model_path)  # MCP results' images
            if self.error_label.text() == self._no_model_line():
                self.clear_error()  # that line was true before this load
        elif status.state in (EngineState.STOPPED, EngineState.FAILED):
            self.sampling_box.forget_model()  # not the defaults of a model (or server) that is gone
        self._follow_capabilities(status)
        self.thinking.follow()
        self.adapter_box.refresh()
        self._update_buttons()
        self._schedule_count()

    def _follow_capabilities(self, status: EngineStatus) -> None:
        """Tools and pictures greyed out, with the reason, while the model cannot take them (known
        once it is loaded; nothing is known of a model that is not)."""
        info = status.info if status.state == EngineState.READY else None
        refusal = info.tools_refusal if info is not None else None
        self.tools_box.follow_model(translate_core_text(refusal) if refusal is not None else None)
        before = self.images.refused
        self.images.follow_model(status if info is not None else EngineStatus(EngineState.STOPPED))
        if before is not None and self.images.refused != before and self.error_label.text() == before:
            self.clear_error()  # another model is loaded: that refusal was the last one's
        self._update_buttons()

    def _on_image_strip_changed(self) -> None:
        self._schedule_count()
        refused = self.images.refused
        if refused is not None and not self.image_strip.attachments() and self.error_label.text() == refused:
            self.clear_error()  # the pictures it was about are gone

    def _on_system_prompt_text_changed(self) -> None:
        self.session.system_prompt = self.system_prompt.toPlainText()
        self._schedule_count()

    # -- rendering -----------------------------------------------------------------------------------
    def _render(self) -> None:
        """Render the whole transcript (the streaming answer too, so the timer can then replace
        just that)."""
        self._dirty = False
        self.render_count += 1
        messages = self.session.shown(self._stream_text)[0]  # a continued answer grows in place
        stream = (self.active_id, self._stream_shown()) if self.active_id is not None else None
        self.transcript.show_conversation(messages, stream, model=self.ctx.engine.status.model or None)

    def _render_stream_tail(self) -> None:
        self._dirty = False
        self.render_count += 1
        self.transcript.update_stream(self._stream_shown())

    def _stream_shown(self) -> str:
        """The streaming answer as shown: its thinking apart, a continued answer's saved part first."""
        return self.thinking.markdown(self.session.shown(self._stream_text)[1])

    def transcript_text(self) -> str:
        return self.transcript.toPlainText()

    # -- context meter ---------------------------------------------------------------------------------
    def _schedule_count(self) -> None:
        self.context_bar.schedule()

    @property
    def used_tokens(self) -> int | None:
        return self.context_bar.used_tokens

    def _update_buttons(self) -> None:
        busy = self.active_id is not None or self.saving.busy  # saving: Send cannot save twice
        ready = self._engine_ready()
        has_conv = self.conversation_id is not None
        self.send_button.setEnabled(not busy)
        self.attach_button.setEnabled(not self.saving.busy and self.images.refused is None)
        self.stop_button.setEnabled(self.active_id is not None)
        self.regenerate_button.setEnabled(not busy and ready and bool(self.messages))
        self.edit_button.setEnabled(not busy and any(m.role == "user" for m in self.messages))
        self.continue_button.setEnabled(not busy and ready and self.session.can_continue())
        self.rename_button.setEnabled(has_conv)
        self.delete_button.setEnabled(has_conv and not busy)
        self.export_button.setEnabled(has_conv)


__all__ = ["ChatPanel", "figures_text"]
