"""The Chat tab's MCP servers: import an ``mcp.json``, switch servers on for the open
conversation, and approve each call the model makes to one of their tools.

The servers come from the window's copy of the imported file (``mcp_config.saved_servers``) and
run in the session's :class:`~console.chat.mcp_client.McpHub`; starting one and running a call happen
off the GUI thread (``ui/tasks.py``), their outcome (a tool count, a one-line error, a result)
comes back here. A call waits in the approval row (server, tool, arguments) until the user runs it
once, always for that tool, or refuses it; a tool approved "always" runs without asking.
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from console.chat.session import ChatSession
from console.chat.mcp_client import McpHub
from console.chat.mcp_config import McpConfigError, McpServer, import_servers, saved_servers
from console.chat.tool_approval import Decision, PendingCall
from console.ui.tasks import call_in_background
from console.ui.theme import set_themed_style, text_colour


class McpServersBox(QWidget):
    """MCP servers of the open conversation and the approval of their calls.

    Signals:
        answered(int): a call of that conversation got its result.
    """

    answered = Signal(int)

    def __init__(self, session: ChatSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.boxes: dict[str, QCheckBox] = {}
        self.waiting: PendingCall | None = None  # the call in the approval row
        self._conversation: int | None = None  # the conversation of that call
        self.import_button = QPushButton(self.tr("Import mcp.json…"), self)
        self.import_button.setToolTip(
            self.tr("MCP servers as Claude Desktop or LM Studio configure them (an mcpServers JSON file)")
        )
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        self.approval = QLabel(self)
        self.approval.setWordWrap(True)
        self.run_once = QPushButton(self.tr("Run once"), self)
        self.run_always = QPushButton(self.tr("Always for this tool"), self)
        self.refuse = QPushButton(self.tr("Refuse"), self)
        self.server_list = QVBoxLayout()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.import_button)
        layout.addLayout(self.server_list)
        layout.addWidget(self.status)
        layout.addWidget(self.approval)
        row = QHBoxLayout()
        for button in (self.run_once, self.run_always, self.refuse):
            row.addWidget(button)
        layout.addLayout(row)
        self.import_button.clicked.connect(lambda: self.import_file())
        self.run_once.clicked.connect(lambda: self.decide(Decision.ONCE))
        self.run_always.clicked.connect(lambda: self.decide(Decision.ALWAYS))
        self.refuse.clicked.connect(lambda: self.decide(Decision.REFUSE))
        self._show_approval(None)
        servers, error = saved_servers()
        if servers:
            self._use(servers)
        if error:
            self._error(error)

    # -- servers -----------------------------------------------------------------------------------
    def hub(self) -> McpHub:
        if self.session.tools.hub is None:
            self.session.tools.hub = McpHub()
        return self.session.tools.hub

    def import_file(self, path: str | None = None) -> bool:
        """Import an mcpServers file (asked for when ``path`` is None); False when refused."""
        if path is None:
            path, _ = QFileDialog.getOpenFileName(self, self.tr("Import MCP servers"), "", "JSON (*.json)")
            if not path:
                return False
        try:
            servers = import_servers(path)
        except (McpConfigError, OSError) as exc:
            self._error(str(exc))
            return False
        self._use(servers)
        self.status.setText(self.tr("{0} servers imported").format(len(servers)))
        return True

    def _use(self, servers: list[McpServer]) -> None:
        self.hub().configure(servers)
        for box in self.boxes.values():
            self.server_list.removeWidget(box)
            box.deleteLater()
        self.boxes = {}
        for server in servers:
            box = QCheckBox(server.name, self)
            box.setToolTip(server.describe())
            box.setEnabled(not server.disabled)
            box.toggled.connect(self._toggler(server.name))
            self.server_list.addWidget(box)
            self.boxes[server.name] = box
        self.sync()

    def _toggler(self, name: str) -> Callable[[bool], None]:
        return lambda on: self.switch(name, on)

    def sync(self) -> None:
        """Show which servers the open conversation uses."""
        on = self.session.tools.settings(self.session.conversation_id).servers
        for name, box in self.boxes.items():
            box.blockSignals(True)
            box.setChecked(name in on)
            box.blockSignals(False)
        running = set(self.hub().running()) if on & set(self.boxes) else set()
        for name in sorted((on & set(self.boxes)) - running):
            self.switch(name, True)  # a reopened conversation's servers: started again, off the GUI thread
        self.ask_next()

    def switch(self, name: str, on: bool) -> None:
        """Offer ``name``'s tools in the open conversation (started off the GUI thread)."""
        servers = self.session.tools.settings(self.session.conversation_id).servers
        if not on:
            servers.discard(name)
            return
        servers.add(name)
        self.status.setText(self.tr("Starting {0}…").format(name))
        hub = self.hub()

        def started(result: object) -> None:
            tools, errors = result if isinstance(result, tuple) else ([], {})
            if name in errors:
                servers.discard(name)
                if name in self.boxes:
                    self.boxes[name].setChecked(False)
                self._error(errors[name])
            else:
                set_themed_style(self.status, lambda c: "")
                self.status.setText(self.tr("{0}: {1} tools").format(name, len(tools)))

        call_in_background(hub.tools, [name], on_success=started, on_failure=self._error, context=self)

    def _error(self, line: str) -> None:
        text_colour(self.status, lambda c: c.error)
        self.status.setText(line)

    # -- approvals ---------------------------------------------------------------------------------
    def ask_next(self) -> bool:
        """Show (or run, when approved "always") the open conversation's next MCP call; False
        when there is none."""
        if self.waiting is not None:
            return True
        conversation = self.session.conversation_id
        pending = self.session.tools.mcp_pending(conversation)
        if not pending:
            self._show_approval(None)
            return False
        call = pending[0]
        self._conversation = conversation
        known = self.session.tools.approvals.known(call)
        self._show_approval(call)
        if known is not None:
            self.decide(known)
        return True

    def _show_approval(self, call: PendingCall | None) -> None:
        self.waiting = call
        for w in (self.approval, self.run_once, self.run_always, self.refuse):
            w.setVisible(call is not None)
            w.setEnabled(True)
        if call is not None:
            self.approval.setText(self.tr("The model calls {0}. Run it?").format(call.shown()))

    def decide(self, decision: Decision) -> None:
        """Answer the call in the approval row: run it off the GUI thread (or refuse it)."""
        call, conversation = self.waiting, self._conversation
        if call is None:
            return
        self.session.tools.approvals.record(call, decision)
        for w in (self.run_once, self.run_always, self.refuse):
            w.setEnabled(False)
        self.approval.setText(self.tr("Running {0}…").format(call.shown()))

        def done(result: object) -> None:
            self.waiting = None
            self._show_approval(None)
            text, images = result if isinstance(result, tuple) else (str(result), ())
            try:
                self.session.tools.answer(conversation, call.call_id, str(text), decision.value, tuple(images))
            except KeyError:  # the turn went meanwhile (a new message was sent)
                return
            if conversation is not None:
                self.answered.emit(conversation)

        call_in_background(self.session.tools.run_mcp_parts, call, decision, on_success=done, context=self)


__all__ = ["McpServersBox"]
