"""Where the engine runs: the Engine menu's picker (in this process / a server the console starts /
a running server at a URL) and the dock that shows a console-launched server's log.

The window's engine is an :class:`~console.engine.switch.EngineSwitch`; picking a location swaps
what is behind it off the GUI thread (the old engine is unloaded, a launched server stopped). A
remote server is connected at once; the other two load when a model is loaded from the Models
panel, as before.
"""

from __future__ import annotations

import collections
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QButtonGroup,
    QDialog,
    QDialogButtonBox,
    QDockWidget,
    QFormLayout,
    QLabel,
    QLineEdit,
    QMainWindow,
    QPlainTextEdit,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from console.engine.factory import EngineChoice, parse_engine_choice
from console.engine.interface import Connectable, Engine, ServerLog, Switchable
from console.ui.tasks import call_in_background
from console.ui.widgets import ErrorLabel


class EnginePickerDialog(QDialog):
    """Choose the engine's location; ``result_choice()`` after ``exec()`` returns Accepted."""

    def __init__(self, current: EngineChoice, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Engine location"))
        self.local = QRadioButton(self.tr("In this process (default)"), self)
        self.serve = QRadioButton(self.tr("A vLLM server started by the console (127.0.0.1, stopped on exit)"), self)
        self.remote = QRadioButton(self.tr("A running server at a URL (vLLM, or TensorRT-LLM's trtllm-serve)"), self)
        group = QButtonGroup(self)
        for b in (self.local, self.serve, self.remote):
            group.addButton(b)
        self.url = QLineEdit(current.url or "", self)
        example = "http://127.0.0.1:8000"  # an address, the same in every language
        self.url.setPlaceholderText(example)
        self.api_key = QLineEdit(self)
        self.api_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.api_key.setPlaceholderText(self.tr("optional"))
        #: the folder whose pictures requests may name by file:// URLs (batch lines): read here and sent
        self.media_folder = QLineEdit(self)
        self.media_folder.setPlaceholderText(self.tr("optional: file:// pictures of batch lines are read from here"))
        form = QFormLayout()
        form.addRow(self.tr("Server URL"), self.url)
        form.addRow(self.tr("API key"), self.api_key)
        form.addRow(self.tr("Pictures folder"), self.media_folder)
        note = QLabel(
            self.tr(
                "TLS certificates are verified. A remote server uses its own model and settings; "
                "switching unloads the current engine."
            ),
            self,
        )
        note.setWordWrap(True)
        self.error = ErrorLabel(self)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(self._on_buttons_accepted)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        for w in (self.local, self.serve, self.remote):
            layout.addWidget(w)
        layout.addLayout(form)
        layout.addWidget(note)
        layout.addWidget(self.error)
        layout.addWidget(buttons)
        {"local": self.local, "serve": self.serve, "remote": self.remote}[current.kind].setChecked(True)
        self.remote.toggled.connect(self._on_remote_toggled)
        self._on_remote_toggled(self.remote.isChecked())
        self._choice = current

    def _on_remote_toggled(self, checked: bool) -> None:
        self.url.setEnabled(checked)
        self.api_key.setEnabled(checked)
        self.media_folder.setEnabled(checked)

    def _on_buttons_accepted(self) -> None:
        try:
            if self.remote.isChecked():
                if not self.url.text().strip():
                    raise ValueError(self.tr("Give the server's URL, e.g. http://127.0.0.1:8000"))
                self._choice = parse_engine_choice(self.url.text())
            else:
                self._choice = EngineChoice("serve" if self.serve.isChecked() else "local")
        except ValueError as exc:
            self.error.setText(str(exc))
            return
        self.accept()

    def result_choice(self) -> tuple[EngineChoice, str | None]:
        return self._choice, (self.api_key.text().strip() or None)

    def result_media_folder(self) -> str | None:
        """The folder a remote server's ``file://`` pictures are read from here (None: none)."""
        return self.media_folder.text().strip() or None


class ServerLogDock(QDockWidget):
    """The log of a console-launched server, live (lines are queued by the log reader thread and
    drained by a 200 ms timer)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(self.tr("Server log"), parent)
        self.setObjectName("ServerLogDock")
        self.text = QPlainTextEdit(self)
        self.text.setReadOnly(True)
        self.text.setMaximumBlockCount(5000)
        self.text.setPlaceholderText(
            self.tr("The log of a server started by the console appears here (Engine > Engine location…).")
        )
        self.setWidget(self.text)
        self._lines: collections.deque[str] = collections.deque(maxlen=5000)
        self._engine: ServerLog | None = None
        self._timer = QTimer(self)
        self._timer.setInterval(200)
        self._timer.timeout.connect(self._on_timer_tick)
        self._timer.start()

    def attach(self, engine: Engine) -> None:
        """Show ``engine``'s log if it has one (a ChildServer); detach from the previous one."""
        if self._engine is not None:
            self._engine.remove_log_listener(self._lines.append)
        self._engine = None
        self._lines.clear()
        self.text.clear()
        if isinstance(engine, ServerLog):
            self._engine = engine
            self.text.setPlainText("\n".join(engine.log_lines()))
            engine.add_log_listener(self._lines.append)

    def _on_timer_tick(self) -> None:
        if self._lines:
            lines = []
            while self._lines:
                lines.append(self._lines.popleft())
            self.text.appendPlainText("\n".join(lines))


def engine_label_text(choice: EngineChoice) -> str:
    from PySide6.QtCore import QCoreApplication

    if choice.kind == "local":
        return QCoreApplication.translate("EnginePicker", "Engine: in process")
    if choice.kind == "serve":
        return QCoreApplication.translate("EnginePicker", "Engine: local server")
    return QCoreApplication.translate("EnginePicker", "Engine: {0}").format(choice.url)


def add_engine_picker(window: QMainWindow, switch: Switchable, menu: Any) -> ServerLogDock:
    """Add Engine > Engine location… and the server-log dock to ``window``."""
    from PySide6.QtCore import QCoreApplication, Qt

    tr = QCoreApplication.translate

    dock = ServerLogDock(window)
    window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
    dock.hide()
    label = QLabel(engine_label_text(switch.choice), window)
    window.statusBar().addPermanentWidget(label)

    def follow() -> None:  # the Server tab moves the engine too
        text = engine_label_text(switch.choice)
        if label.text() != text:
            label.setText(text)

    follower = QTimer(label)
    follower.setInterval(1000)
    follower.timeout.connect(follow)
    follower.start()

    def show(text: str) -> None:
        window.statusBar().showMessage(text, 8000)

    def switched(engine: Engine, choice: EngineChoice) -> None:
        label.setText(engine_label_text(choice))
        dock.attach(engine)
        if choice.kind == "serve":
            dock.show()
        show(tr("EnginePicker", "Engine location: {0}").format(engine_label_text(choice)))

    def pick() -> None:
        dialog = EnginePickerDialog(switch.choice, window)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return
        choice, key = dialog.result_choice()
        folder = dialog.result_media_folder()

        def work() -> Engine:
            engine = switch.use(choice, api_key=key, media_folder=folder)
            if choice.kind == "remote" and isinstance(engine, Connectable):
                engine.connect().result()
            return engine

        def failed(message: str) -> None:
            label.setText(engine_label_text(switch.choice))
            dock.attach(switch.backend)
            show(tr("EnginePicker", "Engine: {0}").format(message))

        show(tr("EnginePicker", "Switching the engine…"))
        call_in_background(
            work,
            on_success=lambda engine: switched(engine, choice),
            on_failure=failed,
        )

    action = QAction(tr("EnginePicker", "Engine &location…"), window)
    action.triggered.connect(lambda _checked=False: pick())
    menu.addSeparator()
    menu.addAction(action)
    log_action = dock.toggleViewAction()
    log_action.setText(tr("EnginePicker", "Server &log"))
    menu.addAction(log_action)
    # kept on the window for its tests; a QMainWindow here (MainWindow imports this module)
    window.engine_picker_action = action  # type: ignore[attr-defined]
    window.server_log_dock = dock  # type: ignore[attr-defined]
    return dock


__all__ = ["EnginePickerDialog", "ServerLogDock", "add_engine_picker", "engine_label_text"]
