"""The Chat tab's tools: function tools for the open conversation, off by default.

The user's own tools are JSON definitions (OpenAI's shape), checked as they are typed with the
error shown under the box; the built-in local tools (a calculator, a clock) are ticked on. A call
the model makes is shown in the transcript; a built-in tool answers its calls at once, the user
answers the others in the reply box here, and a call to an MCP server's tool waits for the user's
approval (``ui/chat/mcp_box.py``) before it runs. When every call of the turn has its answer the panel is
asked to go on (``resumeRequested``): the model's next turn sees the results. The logic is
:class:`~console.chat.tools.ChatTools` (no Qt); this widget edits it and forwards intents.
"""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from console.chat.session import ChatSession
from console.chat.tools import ToolSettings, check_definitions
from console.ui.chat.mcp_box import McpServersBox
from console.ui.theme import text_colour

EXAMPLE = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather in a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}


class ToolsEditor(QGroupBox):
    """Tools of the open conversation and the reply box for the model's calls.

    Signals:
        resumeRequested(): every call of the last turn is answered; ask the model again.
    """

    resumeRequested = Signal()

    def __init__(self, session: ChatSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTitle(self.tr("Tools"))
        self.session = session
        self._loading = False
        self.enabled = QCheckBox(self.tr("Use tools in this conversation"), self)
        self.enabled.setToolTip(self.tr("Offer these tools to the model (off by default, per conversation)"))
        self.calculator = QCheckBox(self.tr("Calculator (built-in, answers by itself)"), self)
        self.clock = QCheckBox(self.tr("Clock (built-in, answers by itself)"), self)
        self.choice = QComboBox(self)
        for text, value in (
            (self.tr("The model decides whether to call a tool"), "auto"),
            (self.tr("The model must call a tool"), "required"),
        ):
            self.choice.addItem(text, value)
        self.definitions = QPlainTextEdit(self)
        self.definitions.setPlaceholderText(
            self.tr("Your function tools as JSON, e.g. {0}").format(json.dumps(EXAMPLE))
        )
        self.definitions.setMaximumHeight(110)
        self.error_label = QLabel(self)
        text_colour(self.error_label, lambda c: c.error)
        self.error_label.setWordWrap(True)
        self.error_label.hide()
        self.call_label = QLabel(self)
        self.call_label.setWordWrap(True)
        self.reply = QLineEdit(self)
        self.reply.setPlaceholderText(self.tr("The tool's result, as the model should read it"))
        self.reply_button = QPushButton(self.tr("Send result"), self)
        self.reply.returnPressed.connect(self.send_reply)
        self.reply_button.clicked.connect(self.send_reply)
        self.mcp = McpServersBox(session, self)
        self.mcp.answered.connect(self._on_mcp_answered)
        #: why the loaded model cannot call tools (one line), None when it can or nothing says
        self.refusal: str | None = None
        self.refusal_label = QLabel(self)  # that reason, shown while the box is greyed out
        self.refusal_label.setWordWrap(True)
        text_colour(self.refusal_label, lambda c: c.faint)
        self.refusal_label.hide()

        layout = QVBoxLayout(self)
        widgets = (self.enabled, self.calculator, self.clock, self.mcp, self.choice, self.definitions, self.error_label)
        for w in (self.refusal_label, *widgets, self.call_label):
            layout.addWidget(w)
        row = QHBoxLayout()
        row.addWidget(self.reply, 1)
        row.addWidget(self.reply_button)
        layout.addLayout(row)

        self.enabled.toggled.connect(self._store)
        self.calculator.toggled.connect(self._store)
        self.clock.toggled.connect(self._store)
        self.choice.currentIndexChanged.connect(self._store)
        self.definitions.textChanged.connect(self._store)
        self.sync()

    # -- the open conversation's settings ---------------------------------------------------------
    def _settings(self) -> ToolSettings:
        return self.session.tools.settings(self.session.conversation_id)

    def sync(self) -> None:
        """Show the tools of the conversation now open (another one was opened, or a new chat)."""
        s = self._settings()
        self._loading = True
        try:
            self.enabled.setChecked(s.enabled)
            self.calculator.setChecked("calculator" in s.builtins)
            self.clock.setChecked("clock" in s.builtins)
            self.choice.setCurrentIndex(max(self.choice.findData(s.choice), 0))
            self.definitions.setPlainText(json.dumps(s.definitions, indent=1) if s.definitions else "")
        finally:
            self._loading = False
        self._check()
        self._enable(s.enabled)
        self.mcp.sync()
        self.show_pending()

    def follow_model(self, refusal: str | None) -> None:
        """The loaded model's refusal of tools (its one line, translated) or None: refused, the
        box is greyed out with the reason shown, before anything is typed or sent."""
        self.refusal = refusal
        self.refusal_label.setText(refusal or "")
        self.refusal_label.setVisible(refusal is not None)
        self.enabled.setEnabled(refusal is None)
        self.enabled.setToolTip(refusal or self.tr("Offer these tools to the model (off by default, per conversation)"))
        self._enable(self._settings().enabled)

    def _enable(self, on: bool) -> None:
        on = on and self.refusal is None
        for w in (self.calculator, self.clock, self.mcp, self.choice, self.definitions):
            w.setEnabled(on)

    def _check(self) -> list[dict[str, Any]] | None:
        """The definitions as typed, checked; the error shown under the box (None when invalid)."""
        try:
            tools = check_definitions(self.definitions.toPlainText())
        except ValueError as exc:
            self.error_label.setText(self.tr("Not valid: {0}").format(exc))
            self.error_label.show()
            return None
        self.error_label.hide()
        return tools

    def _store(self) -> None:
        if self._loading:
            return
        s = self._settings()
        s.enabled = self.enabled.isChecked()
        s.builtins = {n for n, box in (("calculator", self.calculator), ("clock", self.clock)) if box.isChecked()}
        s.choice = str(self.choice.currentData() or "auto")
        tools = self._check()
        if tools is not None:  # an invalid edit keeps the last valid tools
            s.definitions = tools
        self._enable(s.enabled)

    def is_valid(self) -> bool:
        return self.error_label.isHidden()

    # -- the model's calls -----------------------------------------------------------------------
    def after_answer(self) -> None:
        """An answer was recorded: the built-in tools answer their calls; go on when nothing is
        left, else ask the user for the first call's result."""
        if not self.session.pending_tool_calls():
            self.show_pending()
            return
        if self.session.tools.answer_builtins(self.session.conversation_id):
            self.show_pending()
            QTimer.singleShot(0, self.resumeRequested.emit)  # after the panel has finished this answer
            return
        self.mcp.ask_next()
        self.show_pending()

    def _on_mcp_answered(self, conversation: int) -> None:
        """An MCP call got its result: the next one is asked; go on when nothing is left."""
        if conversation != self.session.conversation_id:
            return
        if not self.session.pending_tool_calls():
            self.show_pending()
            QTimer.singleShot(0, self.resumeRequested.emit)
            return
        self.mcp.ask_next()
        self.show_pending()

    def _user_pending(self) -> list[dict[str, Any]]:
        """Pending calls the user answers (not those an MCP server runs)."""
        mcp = {c.call_id for c in self.session.tools.mcp_pending(self.session.conversation_id)}
        return [c for c in self.session.pending_tool_calls() if c["id"] not in mcp]

    def show_pending(self) -> None:
        pending = self._user_pending()
        for w in (self.call_label, self.reply, self.reply_button):
            w.setVisible(bool(pending))
        if pending:
            call = pending[0]["function"]
            self.call_label.setText(
                self.tr("The model calls {0} with {1}: type its result").format(call["name"], call["arguments"])
            )
            self.reply.setFocus()

    def send_reply(self) -> bool:
        """The reply box answers the first pending call; True when that was the last one."""
        pending = self._user_pending()
        if not pending:
            return False
        done = self.session.answer_tool_call(pending[0]["id"], self.reply.text())
        self.reply.clear()
        self.show_pending()
        if done:
            QTimer.singleShot(0, self.resumeRequested.emit)
        return done


__all__ = ["ToolsEditor"]
