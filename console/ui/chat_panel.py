"""The Chat tab: conversations (persisted), a streaming markdown transcript, sampling controls,
a system prompt and a context meter.

Tokens arrive in batches from the bridge; the transcript is re-rendered on its own throttle timer
(not per batch), so a fast stream costs a few renders a second. Token counting for the context
meter runs in a worker thread, debounced. Every request id is remembered; events for other ids
(stale or someone else's) are ignored.
"""

from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt, QTimer, Signal
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import (
    QDoubleSpinBox, QFileDialog, QFormLayout, QGroupBox, QHBoxLayout, QInputDialog, QLabel,
    QListWidget, QListWidgetItem, QMessageBox, QPlainTextEdit, QProgressBar, QPushButton, QSpinBox,
    QSplitter, QTextBrowser, QVBoxLayout, QWidget,
)

from console.atomic import atomic_write_text
from console.config import SamplingSettings
from console.conversations import ConversationError, ConversationStore, Message
from console.engine.types import (
    EngineError, EngineState, EngineStatus, GenerationRequest, RequestFailed, RequestFinished, TokenDelta,
)
from console.settings import SamplingDefaults, Settings
from console.ui.chat_output import OutputControl, openai_request
from console.ui.context import AppContext
from console.ui.logprob_view import ChoicesView
from console.ui.formatting import format_count, format_datetime, format_number
from console.ui.tasks import call_in_background
from console.ui.widgets import ErrorLabel

RENDER_INTERVAL_MS = 100
COUNT_DEBOUNCE_MS = 400


def figures_text(m: Message | RequestFinished) -> str:
    """The figures line under an answer, translated."""
    tr = QCoreApplication.translate
    parts = []
    ttft = m.ttft_s
    tps = m.tokens_per_s
    tokens = m.output_tokens
    if ttft is not None:
        parts.append(tr("ChatPanel", "TTFT {0} s").format(format_number(ttft, 2)))
    if tps is not None:
        parts.append(tr("ChatPanel", "{0} tok/s").format(format_number(tps, 1)))
    if tokens is not None:
        parts.append(tr("ChatPanel", "{0} tokens").format(format_count(tokens)))
    reason = m.finish_reason
    if reason == "abort":
        parts.append(tr("ChatPanel", "stopped"))
    elif reason == "length":
        parts.append(tr("ChatPanel", "hit max tokens"))
    elif reason == "error":
        parts.append(tr("ChatPanel", "failed"))
    return " · ".join(parts)


class ChatPanel(QWidget):
    """Chat with the loaded model.

    Signals:
        busyChanged(bool): a generation started (True) or ended (False).
        message(str): a one-line outcome for the status bar.
    """

    busyChanged = Signal(bool)
    message = Signal(str)

    def __init__(self, ctx: AppContext, parent: QWidget | None = None,
                 conversations: ConversationStore | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.store = conversations or ConversationStore()
        self.conversation_id: int | None = None
        self.messages: list[Message] = []
        self.active_id: str | None = None
        self._active_conversation: int | None = None
        self._stream_text = ""
        self._stream_started = 0.0
        self._edit_position: int | None = None
        self._count_generation = 0
        self.used_tokens: int | None = None
        self.render_count = 0  # tests watch that rendering is throttled

        self._build_widgets()
        self._build_layout()

        self._render_timer = QTimer(self)
        self._render_timer.setInterval(RENDER_INTERVAL_MS)
        self._render_timer.timeout.connect(self._on_render_timer_timeout)
        self._dirty = False
        self._stream_anchor: tuple[str, int] | None = None  # (request id, where its answer starts)
        self._count_timer = QTimer(self)
        self._count_timer.setSingleShot(True)
        self._count_timer.setInterval(COUNT_DEBOUNCE_MS)
        self._count_timer.timeout.connect(self._on_count_timer_timeout)

        ctx.bridge.requestEvents.connect(self._on_bridge_request_events)
        ctx.bridge.statusChanged.connect(self._on_bridge_status_changed)
        self.refresh_conversations()
        self._update_buttons()

    # -- construction ------------------------------------------------------------------------
    def _build_widgets(self) -> None:
        self.conversation_list = QListWidget(self)
        self.conversation_list.currentItemChanged.connect(self._on_conversation_list_current_changed)
        self.conversation_list.itemDoubleClicked.connect(lambda _i: self.rename_conversation())
        self.new_button = QPushButton(self.tr("New chat"), self)
        self.new_button.setToolTip(self.tr("Start a new conversation (Ctrl+N)"))
        self.rename_button = QPushButton(self.tr("Rename"), self)
        self.delete_button = QPushButton(self.tr("Delete"), self)
        self.export_button = QPushButton(self.tr("Export…"), self)
        self.new_button.clicked.connect(self.new_conversation)
        self.rename_button.clicked.connect(lambda: self.rename_conversation())
        self.delete_button.clicked.connect(lambda: self.delete_conversation())
        self.export_button.clicked.connect(lambda: self.export_conversation())

        self.transcript = QTextBrowser(self)
        self.transcript.setOpenExternalLinks(False)
        self.transcript.setPlaceholderText(self.tr("Load a model, type a message and press Ctrl+Enter."))
        self.input = QPlainTextEdit(self)
        self.input.setPlaceholderText(self.tr("Message (Ctrl+Enter sends, Esc stops)"))
        self.input.setMaximumHeight(120)
        self.input.textChanged.connect(self._schedule_count)
        self.edit_label = QLabel(self)
        self.edit_label.setStyleSheet("color: #b26a00;")
        self.edit_label.hide()
        self.error_label = ErrorLabel(self)
        self.send_button = QPushButton(self.tr("Send"), self)
        self.send_button.setToolTip(self.tr("Send (Ctrl+Enter)"))
        self.stop_button = QPushButton(self.tr("Stop"), self)
        self.stop_button.setToolTip(self.tr("Stop the answer (Esc)"))
        self.regenerate_button = QPushButton(self.tr("Regenerate"), self)
        self.edit_button = QPushButton(self.tr("Edit last"), self)
        self.edit_button.setToolTip(self.tr("Put your last message back in the box; sending replaces it and the answers after it"))
        self.send_button.clicked.connect(self.send)
        self.stop_button.clicked.connect(self.stop)
        self.regenerate_button.clicked.connect(self.regenerate)
        self.edit_button.clicked.connect(self.edit_last)

        self.system_prompt = QPlainTextEdit(self)
        self.system_prompt.setPlaceholderText(self.tr("System prompt (optional)"))
        self.system_prompt.setMaximumHeight(90)
        self.system_prompt.textChanged.connect(self._schedule_count)
        self.temperature = QDoubleSpinBox(self)
        self.temperature.setRange(0.0, 2.0)
        self.temperature.setSingleStep(0.05)
        self.top_p = QDoubleSpinBox(self)
        self.top_p.setRange(0.01, 1.0)
        self.top_p.setSingleStep(0.05)
        self.top_k = QSpinBox(self)
        self.top_k.setRange(0, 1000)
        self.top_k.setSpecialValueText(self.tr("off"))
        self.max_tokens = QSpinBox(self)
        self.max_tokens.setRange(1, 131_072)
        self.repetition_penalty = QDoubleSpinBox(self)
        self.repetition_penalty.setRange(0.5, 2.0)
        self.repetition_penalty.setSingleStep(0.05)
        self.seed = QSpinBox(self)
        self.seed.setRange(-1, 2**31 - 1)
        self.seed.setSpecialValueText(self.tr("random"))
        self.stop_strings = QPlainTextEdit(self)
        self.stop_strings.setPlaceholderText(self.tr("one stop string per line"))
        self.stop_strings.setMaximumHeight(60)
        self.set_sampling(SamplingDefaults())

        self.output = OutputControl(self)
        self.choices_view = ChoicesView(self)

        self.context_bar = QProgressBar(self)
        self.context_bar.setRange(0, 1)
        self.context_bar.setValue(0)
        self.context_bar.setFormat(self.tr("no model loaded"))
        self.context_bar.setTextVisible(True)

    def _build_layout(self) -> None:
        left = QWidget(self)
        lv = QVBoxLayout(left)
        lv.setContentsMargins(0, 0, 0, 0)
        lv.addWidget(QLabel(self.tr("Conversations"), left))
        lv.addWidget(self.conversation_list)
        row1 = QHBoxLayout()
        row1.addWidget(self.new_button)
        row1.addWidget(self.export_button)
        row2 = QHBoxLayout()
        row2.addWidget(self.rename_button)
        row2.addWidget(self.delete_button)
        lv.addLayout(row1)
        lv.addLayout(row2)

        centre = QWidget(self)
        cv = QVBoxLayout(centre)
        cv.setContentsMargins(0, 0, 0, 0)
        cv.addWidget(self.transcript, 1)
        cv.addWidget(self.choices_view, 1)
        cv.addWidget(self.error_label)
        cv.addWidget(self.edit_label)
        cv.addWidget(self.input)
        buttons = QHBoxLayout()
        for b in (self.send_button, self.stop_button, self.regenerate_button, self.edit_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        cv.addLayout(buttons)

        right = QWidget(self)
        rv = QVBoxLayout(right)
        rv.setContentsMargins(0, 0, 0, 0)
        sys_box = QGroupBox(self.tr("System prompt"), right)
        QVBoxLayout(sys_box).addWidget(self.system_prompt)
        rv.addWidget(sys_box)
        samp_box = QGroupBox(self.tr("Sampling"), right)
        form = QFormLayout(samp_box)
        form.addRow(self.tr("Temperature:"), self.temperature)
        form.addRow(self.tr("Top-p:"), self.top_p)
        form.addRow(self.tr("Top-k:"), self.top_k)
        form.addRow(self.tr("Max tokens:"), self.max_tokens)
        form.addRow(self.tr("Repetition penalty:"), self.repetition_penalty)
        form.addRow(self.tr("Seed:"), self.seed)
        form.addRow(self.tr("Stop strings:"), self.stop_strings)
        rv.addWidget(samp_box)
        rv.addWidget(self.output)
        ctx_box = QGroupBox(self.tr("Context"), right)
        QVBoxLayout(ctx_box).addWidget(self.context_bar)
        rv.addWidget(ctx_box)
        rv.addStretch(1)

        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        for w in (left, centre, right):
            self.splitter.addWidget(w)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setStretchFactor(2, 0)
        self.splitter.setSizes([190, 620, 250])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.splitter)

    # -- sampling and settings ----------------------------------------------------------------------
    def sampling(self) -> SamplingSettings:
        stops = [line for line in self.stop_strings.toPlainText().split("\n") if line]
        seed = self.seed.value()
        return SamplingSettings(
            temperature=self.temperature.value(), top_p=self.top_p.value(), top_k=self.top_k.value(),
            max_tokens=self.max_tokens.value(), repetition_penalty=self.repetition_penalty.value(),
            seed=None if seed < 0 else seed, stop=stops)

    def set_sampling(self, s: SamplingDefaults | SamplingSettings) -> None:
        self.temperature.setValue(s.temperature)
        self.top_p.setValue(s.top_p)
        self.top_k.setValue(max(0, s.top_k))
        self.max_tokens.setValue(s.max_tokens)
        self.repetition_penalty.setValue(s.repetition_penalty)
        self.seed.setValue(-1 if s.seed is None else s.seed)
        self.stop_strings.setPlainText("\n".join(s.stop))

    def restore(self, st: Settings) -> None:
        self.set_sampling(st.sampling)
        if st.last_conversation is not None:
            self.open_conversation(st.last_conversation)
        if self.conversation_id is None:
            self.system_prompt.setPlainText(st.system_prompt)

    def save(self, st: Settings) -> None:
        s = self.sampling()
        st.sampling = SamplingDefaults(temperature=s.temperature, top_p=s.top_p, top_k=s.top_k,
                                       max_tokens=s.max_tokens, repetition_penalty=s.repetition_penalty,
                                       seed=s.seed, stop=list(s.stop))
        st.system_prompt = self.system_prompt.toPlainText()
        st.last_conversation = self.conversation_id

    # -- conversations ------------------------------------------------------------------------------
    def refresh_conversations(self) -> None:
        self.conversation_list.blockSignals(True)
        self.conversation_list.clear()
        for conv in self.store.list():
            item = QListWidgetItem(conv.title)
            item.setData(Qt.ItemDataRole.UserRole, conv.id)
            item.setToolTip(self.tr("Last message: {0}").format(format_datetime(conv.updated_at)))
            self.conversation_list.addItem(item)
            if conv.id == self.conversation_id:
                self.conversation_list.setCurrentItem(item)
        self.conversation_list.blockSignals(False)

    def new_conversation(self) -> None:
        """Start an empty chat; the conversation is created on the first message."""
        self._detach_active()
        self.conversation_id = None
        self.messages = []
        self._cancel_edit()
        self.conversation_list.clearSelection()
        self.conversation_list.setCurrentItem(None)
        self.input.setFocus()
        self._render()
        self._schedule_count()
        self._update_buttons()

    def open_conversation(self, conversation_id: int) -> bool:
        try:
            conv = self.store.get(conversation_id)
        except ConversationError:
            return False
        self._detach_active()
        self.conversation_id = conv.id
        self.messages = self.store.messages(conv.id)
        self.system_prompt.blockSignals(True)
        self.system_prompt.setPlainText(conv.system_prompt)
        self.system_prompt.blockSignals(False)
        self._cancel_edit()
        self.refresh_conversations()
        self._render()
        self._schedule_count()
        self._update_buttons()
        return True

    def rename_conversation(self, title: str | None = None) -> None:
        if self.conversation_id is None:
            return
        if title is None:
            current = self.store.get(self.conversation_id).title
            title, ok = QInputDialog.getText(self, self.tr("Rename conversation"), self.tr("Title:"), text=current)
            if not ok:
                return
        try:
            self.store.rename(self.conversation_id, title)
        except ConversationError as exc:
            self.show_error(str(exc))
            return
        self.refresh_conversations()

    def delete_conversation(self, confirm: bool = True) -> None:
        if self.conversation_id is None:
            return
        if confirm:
            answer = QMessageBox.question(self, self.tr("Delete conversation"),
                                          self.tr("Delete this conversation and all its messages?"))
            if answer != QMessageBox.StandardButton.Yes:
                return
        self._detach_active()
        self.store.delete(self.conversation_id)
        self.new_conversation()
        self.refresh_conversations()

    def export_conversation(self, path: str | None = None) -> str | None:
        if self.conversation_id is None:
            self.show_error(self.tr("Nothing to export: start or open a conversation first"))
            return None
        if path is None:
            title = self.store.get(self.conversation_id).title
            safe = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in title)[:40] or "chat"
            path, _ = QFileDialog.getSaveFileName(self, self.tr("Export conversation"), f"{safe}.md",
                                                  self.tr("Markdown (*.md);;JSON (*.json)"))
            if not path:
                return None
        text = (self.store.export_json(self.conversation_id) if path.lower().endswith(".json")
                else self.store.export_markdown(self.conversation_id))
        try:
            atomic_write_text(path, text)  # type: ignore[arg-type]
        except OSError as exc:
            self.show_error(self.tr("Export failed: {0}").format(exc))
            return None
        self.message.emit(self.tr("Exported to {0}").format(path))
        return path

    # -- chat intents ------------------------------------------------------------------------------
    def send(self) -> bool:
        """Send the input box as the next user message (or as the edited one)."""
        text = self.input.toPlainText().strip()
        if not text or self.active_id is not None:
            return False
        if not self._engine_ready():
            self.show_error(self.tr("No model is loaded: pick one in the Models sidebar and press Load (Ctrl+L)"))
            return False
        self.clear_error()
        try:
            if self.conversation_id is None:
                title = " ".join(text.split())[:48]
                conv = self.store.create(title, system_prompt=self.system_prompt.toPlainText())
                self.conversation_id = conv.id
            else:
                self.store.set_system_prompt(self.conversation_id, self.system_prompt.toPlainText())
            if self._edit_position is not None:
                self.store.truncate(self.conversation_id, self._edit_position)
            self.store.append(self.conversation_id, "user", text)
        except (ConversationError, OSError) as exc:
            self.show_error(self.tr("Could not save the message: {0}").format(exc))
            return False
        self._cancel_edit()
        self.input.clear()
        self.messages = self.store.messages(self.conversation_id)
        self.refresh_conversations()
        return self._generate()

    def regenerate(self) -> bool:
        """Drop the last answer and ask again."""
        if self.active_id is not None or self.conversation_id is None or not self.messages:
            return False
        if self.messages[-1].role == "assistant":
            self.store.truncate(self.conversation_id, self.messages[-1].position)
            self.messages = self.store.messages(self.conversation_id)
        if not self.messages or self.messages[-1].role != "user":
            return False
        return self._generate()

    def edit_last(self) -> bool:
        """Put the last user message back in the box; Send replaces it and all after it."""
        if self.active_id is not None:
            return False
        users = [m for m in self.messages if m.role == "user"]
        if not users:
            return False
        last = users[-1]
        self._edit_position = last.position
        self.input.setPlainText(last.content)
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

    def _cancel_edit(self) -> None:
        self._edit_position = None
        self.edit_label.hide()

    def _engine_ready(self) -> bool:
        return self.ctx.host.status.state == EngineState.READY

    def chat_messages(self, draft: str = "") -> list[dict[str, str]]:
        out = []
        sp = self.system_prompt.toPlainText().strip()
        if sp:
            out.append({"role": "system", "content": sp})
        out += [{"role": m.role, "content": m.content} for m in self.messages if m.role != "system"]
        if draft:
            out.append({"role": "user", "content": draft})
        return out

    def _generate(self) -> bool:
        try:
            sampling = self.sampling()
            request = openai_request(self.chat_messages(), self.output.fields(), sampling)
            self.active_id = self.ctx.bridge.submit(request)
        except (EngineError, ValueError) as exc:
            self.show_error(str(exc))
            self._render()
            return False
        self._active_conversation = self.conversation_id
        self._stream_text = ""
        self._stream_started = time.monotonic()
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
                self._dirty = True
            elif isinstance(ev, RequestFinished):
                self._finish(ev.text or self._stream_text, ev)
            elif isinstance(ev, RequestFailed):
                self.show_error(self.tr("The answer failed: {0}").format(ev.message))
                self._finish(ev.partial_text or self._stream_text, None, reason="error")

    def _finish(self, text: str, ev: RequestFinished | None, reason: str | None = None) -> None:
        self.active_id = None
        self._render_timer.stop()
        status = self.ctx.host.status
        conv = self._active_conversation
        if conv is not None and (text or ev is not None):
            try:
                self.store.append(
                    conv, "assistant", text, model=status.model,
                    ttft_s=ev.ttft_s if ev else None, tokens_per_s=ev.tokens_per_s if ev else None,
                    prompt_tokens=ev.prompt_tokens if ev else None,
                    output_tokens=ev.output_tokens if ev else None,
                    finish_reason=reason or (ev.finish_reason if ev else None))
            except (ConversationError, OSError) as exc:
                self.show_error(self.tr("Could not save the answer: {0}").format(exc))
            if conv == self.conversation_id:
                self.messages = self.store.messages(conv)
        self._stream_text = ""
        self.choices_view.show_choices(ev.choices if ev is not None else ())
        if ev is not None and status.info is not None:
            self._show_context(ev.prompt_tokens + ev.output_tokens, status.info.max_model_len)
        self._render()
        self._update_buttons()
        self.refresh_conversations()
        self.busyChanged.emit(False)

    def _on_render_timer_timeout(self) -> None:
        if not self._dirty:
            return
        anchor = self._stream_anchor
        if anchor is not None and anchor[0] == self.active_id and anchor[1] <= self.transcript.document().characterCount():
            self._render_stream_tail()
        else:
            self._render()

    def _on_bridge_status_changed(self, status: EngineStatus) -> None:
        self._update_buttons()
        self._schedule_count()

    # -- rendering -----------------------------------------------------------------------------------
    def transcript_markdown(self, streaming: bool = True) -> str:
        parts: list[str] = []
        you, model = self.tr("You"), self.tr("Assistant")
        for m in self.messages:
            if m.role == "system":
                continue
            part = f"**{you if m.role == 'user' else model}**\n\n{m.content}"
            figures = figures_text(m) if m.role == "assistant" else ""
            parts.append(f"{part}\n\n*{figures}*" if figures else part)
        if self.active_id is not None:
            parts.append(f"**{model}**" + (f"\n\n{self._stream_text or '…'}" if streaming else ""))
        return "\n\n---\n\n".join(parts) if parts else ""

    def _render(self) -> None:
        """Render the whole transcript; while an answer streams, remember where it starts so the
        render timer re-renders only the answer (the history can be long: setMarkdown of a
        15,000-character transcript costs ~12 ms, the tail ~1 ms)."""
        self._dirty = False
        self.render_count += 1
        bar = self.transcript.verticalScrollBar()
        at_end = bar.value() >= bar.maximum() - 4
        if self.active_id is None:
            self._stream_anchor = None
            self.transcript.setMarkdown(self.transcript_markdown())
        else:
            self.transcript.setMarkdown(self.transcript_markdown(streaming=False))
            cursor = QTextCursor(self.transcript.document())
            cursor.movePosition(QTextCursor.MoveOperation.End)
            cursor.insertBlock()
            self._stream_anchor = (self.active_id, cursor.position())
            cursor.insertMarkdown(self._stream_text or "…")
        if at_end:
            bar.setValue(bar.maximum())

    def _render_stream_tail(self) -> None:
        """Replace only the streaming answer's text (after ``_stream_anchor``)."""
        assert self._stream_anchor is not None
        self._dirty = False
        self.render_count += 1
        bar = self.transcript.verticalScrollBar()
        at_end = bar.value() >= bar.maximum() - 4
        cursor = QTextCursor(self.transcript.document())
        cursor.setPosition(self._stream_anchor[1])
        cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()
        cursor.insertMarkdown(self._stream_text or "…")
        if at_end:
            bar.setValue(bar.maximum())

    def transcript_text(self) -> str:
        return self.transcript.toPlainText()

    # -- context meter ---------------------------------------------------------------------------------
    def _schedule_count(self) -> None:
        self._count_timer.start()

    def _on_count_timer_timeout(self) -> None:
        status = self.ctx.host.status
        if status.state != EngineState.READY or status.info is None:
            self.used_tokens = None
            self.context_bar.setRange(0, 1)
            self.context_bar.setValue(0)
            self.context_bar.setFormat(self.tr("no model loaded"))
            return
        self._count_generation += 1
        generation = self._count_generation
        host = self.ctx.host
        request = GenerationRequest(messages=self.chat_messages(self.input.toPlainText()))
        max_len = status.info.max_model_len

        def count() -> int:
            return host.count_tokens(host.format_prompt(request))

        def done(n: int) -> None:
            if generation == self._count_generation:  # a later count supersedes this one
                self._show_context(n, max_len)

        call_in_background(count, on_success=done, on_failure=lambda _m: None, context=self.context_bar)

    def _show_context(self, used: int, max_len: int) -> None:
        self.used_tokens = used
        self.context_bar.setRange(0, max(1, max_len))
        self.context_bar.setValue(min(used, max_len))
        self.context_bar.setFormat(self.tr("{0} / {1} tokens").format(format_count(used), format_count(max_len)))
        over = used > max_len * 0.9
        self.context_bar.setStyleSheet("QProgressBar::chunk { background: #b00020; }" if over else "")

    # -- state ---------------------------------------------------------------------------------------
    def show_error(self, text: str) -> None:
        self.error_label.show_text(text)
        self.message.emit(text)

    def clear_error(self) -> None:
        self.error_label.clear_text()

    def _update_buttons(self) -> None:
        busy = self.active_id is not None
        ready = self._engine_ready()
        has_conv = self.conversation_id is not None
        self.send_button.setEnabled(not busy)
        self.stop_button.setEnabled(busy)
        self.regenerate_button.setEnabled(not busy and ready and bool(self.messages))
        self.edit_button.setEnabled(not busy and any(m.role == "user" for m in self.messages))
        self.rename_button.setEnabled(has_conv)
        self.delete_button.setEnabled(has_conv and not busy)
        self.export_button.setEnabled(has_conv)

    # -- slots ----------------------------------------------------------------------------------------
    def _on_conversation_list_current_changed(self, current: QListWidgetItem | None, _previous: Any) -> None:
        if current is None:
            return
        cid = current.data(Qt.ItemDataRole.UserRole)
        if cid != self.conversation_id:
            self.open_conversation(int(cid))
