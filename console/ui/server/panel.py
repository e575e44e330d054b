"""The Server tab: serve the chosen model to other apps.

A view over :class:`~console.engine.serving.SharingController`: the model and preset chosen in the
Models panel (read from the application state, :mod:`console.app_state`), the port (default 8000)
and an optional API key (typed or generated), Start and Stop (Stop also cancels a start), the base
URL and key with copy buttons, a curl and a Python example filled in, the other API routes the
running server offers (read from its ``/openapi.json``) with a curl example each, the launched
command and the live log. "Serve on the local network" binds every address of the machine, only
with a key, and shows a warning while it is on. Starting moves the window's engine to the server
(the in-process model is unloaded first: one engine on the device), so the chat and the Monitor
follow it: the Monitor plots the server's ``/metrics``. Starting, stopping, the port check's unload
and reading the routes run off the GUI thread; the log is drained by a 200 ms timer.

Signals:
    addressChanged(str): the base URL being served ("" when none).
"""

from __future__ import annotations

import collections
import shlex

from PySide6.QtCore import QTimer, Signal
from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from console.engine.serving import (
    DEFAULT_PORT,
    LAN_WARNING,
    LanNeedsKey,
    PortTaken,
    SharedServer,
    SharingController,
    base_url,
    curl_example,
    new_api_key,
    python_example,
)
from console.engine.server_api import ApiRoute
from console.engine.interface import ServedOverHttp, Switchable, backend_of
from console.engine.child_server import ChildServer
from console.engine.types import EngineState, EngineStatus
from console.app_state import Selection
from console.ui.context import AppContext
from console.ui.core_text import translate_core_text, translate_error
from console.ui.state_signals import follow_selection
from console.ui.tasks import call_in_background
from console.ui.widgets import ErrorLabel
from console.ui.theme import text_colour


def _code_view(parent: QWidget) -> QPlainTextEdit:
    view = QPlainTextEdit(parent)
    view.setReadOnly(True)
    view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
    view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    return view


class ServerPanel(QWidget):
    addressChanged = Signal(str)

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        switch = ctx.engine if isinstance(ctx.engine, Switchable) else None
        self.controller = SharingController(switch) if switch is not None else None
        self._address = ""
        self._lines: collections.deque[str] = collections.deque(maxlen=5000)
        self._attached: ChildServer | None = None

        self.model_label = QLabel(self)
        self.model_label.setWordWrap(True)
        note = QLabel(
            self.tr(
                "Serves the model and preset chosen in the Models panel through vLLM's OpenAI-compatible "
                "server, as the Export tab writes it. Starting moves the window's engine to the server "
                "(the loaded model is unloaded first); the chat and the Monitor then use it."
            ),
            self,
        )
        note.setWordWrap(True)

        self.port_spin = QSpinBox(self)
        self.port_spin.setRange(1, 65535)
        self.port_spin.setValue(DEFAULT_PORT)
        self.port_spin.setMaximumWidth(140)
        self.key_edit = QLineEdit(self)
        self.key_edit.setPlaceholderText(self.tr("none: anyone on this machine can use the server"))
        self.generate_button = QPushButton(self.tr("Generate"), self)
        self.generate_button.clicked.connect(self._on_generate_clicked)
        self.copy_key_button = QPushButton(self.tr("Copy key"), self)
        self.copy_key_button.clicked.connect(self._on_copy_key_clicked)
        key_row = QHBoxLayout()
        key_row.addWidget(self.key_edit, 1)
        key_row.addWidget(self.generate_button)
        key_row.addWidget(self.copy_key_button)
        self.url_edit = QLineEdit(self)
        self.url_edit.setReadOnly(True)
        self.copy_url_button = QPushButton(self.tr("Copy URL"), self)
        self.copy_url_button.clicked.connect(self._on_copy_url_clicked)
        url_row = QHBoxLayout()
        url_row.addWidget(self.url_edit, 1)
        url_row.addWidget(self.copy_url_button)
        self.lan_box = QCheckBox(self.tr("Serve on the local network (needs an API key)"), self)
        self.lan_warning = QLabel(translate_core_text(LAN_WARNING), self)
        self.lan_warning.setWordWrap(True)
        text_colour(self.lan_warning, lambda c: c.warning)
        self.lan_warning.hide()
        self.lan_box.toggled.connect(self._on_lan_toggled)
        form = QFormLayout()
        form.addRow(self.tr("Port"), self.port_spin)
        form.addRow(self.tr("API key"), key_row)
        form.addRow("", self.lan_box)
        form.addRow("", self.lan_warning)
        form.addRow(self.tr("Base URL"), url_row)

        self.start_button = QPushButton(self.tr("Start server"), self)
        self.start_button.clicked.connect(self.start)
        self.stop_button = QPushButton(self.tr("Stop"), self)
        self.stop_button.clicked.connect(self.stop)
        self.progress = QProgressBar(self)
        self.progress.setRange(0, 0)  # busy: vLLM's start has stages, not a percentage
        self.progress.setTextVisible(False)
        self.progress.hide()
        self.state_label = QLabel(self)
        self.state_label.setWordWrap(True)
        buttons = QHBoxLayout()
        buttons.addWidget(self.start_button)
        buttons.addWidget(self.stop_button)
        buttons.addWidget(self.progress, 1)
        self.error = ErrorLabel(self)

        self.curl_view, self.python_view = _code_view(self), _code_view(self)
        self.command_view, self.log_view = _code_view(self), _code_view(self)
        self.routes_view = _code_view(self)
        self.routes_view.setPlainText(self.tr("Start the server to list the other routes its vLLM offers."))
        self.log_view.setMaximumBlockCount(5000)
        self.pages = QTabWidget(self)
        for view, title in (
            (self.curl_view, self.tr("curl")),
            (self.python_view, self.tr("Python (openai)")),
            (self.routes_view, self.tr("Other routes")),
            (self.command_view, self.tr("Command")),
            (self.log_view, self.tr("Log")),
        ):
            self.pages.addTab(view, title)
        self.copy_example_button = QPushButton(self.tr("Copy"), self)
        self.copy_example_button.clicked.connect(self._on_copy_example_clicked)
        self.pages.setCornerWidget(self.copy_example_button)

        layout = QVBoxLayout(self)
        layout.addWidget(self.model_label)
        layout.addWidget(note)
        layout.addLayout(form)
        layout.addLayout(buttons)
        layout.addWidget(self.state_label)
        layout.addWidget(self.error)
        layout.addWidget(self.pages, 1)

        self._timer = QTimer(self)
        self._timer.setInterval(200)
        self._timer.timeout.connect(self._on_timer_tick)
        self._timer.start()
        ctx.bridge.statusChanged.connect(self._on_bridge_status_changed)
        follow_selection(ctx.state, self, self._on_state_selection_changed)  # the Models panel's choice
        self.port_spin.valueChanged.connect(self._on_port_changed)
        self.key_edit.textChanged.connect(self._on_key_changed)
        if self.controller is None:
            self.start_button.setEnabled(False)
            self.error.show_text(self.tr("Serving needs the window's engine switch (start the window normally)."))
        self._refresh()

    # -- what is shown ---------------------------------------------------------------------------
    def _served(self) -> SharedServer | None:
        server = self.controller.server if self.controller is not None else None
        return server if server is not None and self.controller is not None and self.controller.running else None

    def address_text(self) -> str:
        """The base URL of the console-launched server that is the window's engine, when it is up
        (the Server tab's or Engine > Engine location's), else a remote server's URL, else ""."""
        backend = backend_of(self.ctx.engine)
        if not isinstance(backend, ServedOverHttp) or not backend.url:
            return ""
        if backend.status.state != EngineState.READY:
            return ""
        return backend.url + "/v1"

    def _refresh(self) -> None:
        served = self.controller.endpoint() if self.controller is not None else None
        server = self._served()
        state = server.status.state if server is not None else EngineState.STOPPED
        busy = state in (EngineState.LOADING, EngineState.STOPPING)
        up = state == EngineState.READY
        chosen = self.ctx.state.selection
        model = served.model if served is not None and server is not None else chosen.model
        self.model_label.setText(self.tr("Model: {0} · preset: {1}").format(model or "—", chosen.preset or "—"))
        self.start_button.setEnabled(self.controller is not None and not busy)
        self.stop_button.setEnabled(server is not None and state != EngineState.STOPPED)
        self.stop_button.setText(self.tr("Cancel start") if state == EngineState.LOADING else self.tr("Stop"))
        self.progress.setVisible(busy)
        for w in (self.port_spin, self.key_edit, self.generate_button, self.lan_box):
            w.setEnabled(not busy and not up)
        port = server.port if server is not None and server.port else self.port_spin.value()
        key = served.api_key if served is not None and server is not None else (self.key_edit.text().strip() or None)
        url = (
            (served.lan_url or served.url) if served is not None and server is not None else base_url("127.0.0.1", port)
        )
        self.url_edit.setText(url)
        name = model or "MODEL"
        self.curl_view.setPlainText(curl_example(url, name, key))
        self.python_view.setPlainText(python_example(url, name, key))
        if server is not None and server.argv:
            self.command_view.setPlainText(shlex.join(server.argv))
        address = self.address_text()
        if address != self._address:
            self._address = address
            self.addressChanged.emit(address)

    def _set_state(self, status: EngineStatus) -> None:
        if status.state == EngineState.LOADING:
            self.state_label.setText(self.tr("Starting: {0}").format(translate_core_text(status.stage or "…")))
        elif status.state == EngineState.READY:
            self.state_label.setText(self.tr("Serving at {0}").format(self.url_edit.text()))
        elif status.state == EngineState.STOPPING:
            self.state_label.setText(self.tr("Stopping…"))
        elif status.state == EngineState.FAILED:
            self.state_label.setText("")
            self.error.show_text(status.error or self.tr("The server failed"))
        else:
            self.state_label.setText(self.tr("Not serving"))

    # -- intents -----------------------------------------------------------------------------------
    def start(self) -> None:
        """Start the server for the chosen model and preset on the chosen port (off the GUI thread)."""
        controller = self.controller
        if controller is None:
            return
        self.error.clear_text()
        try:
            config = self.ctx.state.engine_config()
            name = self.ctx.state.selection.model or ""
            key = self.key_edit.text().strip() or None
            controller.check_port(self.port_spin.value(), self.lan_box.isChecked(), key)  # before anything unloads
        except (ValueError, PortTaken, LanNeedsKey) as exc:  # a missing model, a refused knob, a taken port...
            self.error.show_text(translate_error(exc))
            return
        port, lan = self.port_spin.value(), self.lan_box.isChecked()
        self.start_button.setEnabled(False)
        self.state_label.setText(self.tr("Starting: {0}").format(self.tr("switching the engine")))
        self.progress.show()

        def work() -> object:
            return controller.start(config, name, port, key, lan=lan).result()

        call_in_background(work, on_success=self._on_started, on_failure=self._on_start_failed, context=self)

    def stop(self) -> None:
        """Stop the server, or cancel its start (off the GUI thread)."""
        if self.controller is None or self.controller.server is None:
            return
        self.stop_button.setEnabled(False)
        self.state_label.setText(self.tr("Stopping…"))
        call_in_background(
            self.controller.stop, on_success=self._on_stopped, on_failure=self._on_stop_failed, context=self
        )

    # -- slots -------------------------------------------------------------------------------------
    def _on_started(self, _info: object) -> None:
        self._attach()
        self._refresh()
        self.state_label.setText(self.tr("Serving at {0}").format(self.url_edit.text()))
        if self.controller is not None:
            call_in_background(
                self.controller.routes, on_success=self._on_routes_read, on_failure=self._on_routes_failed, context=self
            )

    def _on_routes_read(self, routes: object) -> None:
        listed = [r for r in routes if isinstance(r, ApiRoute)] if isinstance(routes, list) else []
        if not listed:
            self.routes_view.setPlainText(self.tr("This server offers no other routes than chat completions."))
            return
        self.routes_view.setPlainText("\n\n".join(f"# {r.title}: {r.path}\n{r.curl}" for r in listed))

    def _on_routes_failed(self, message: str) -> None:
        self.routes_view.setPlainText(self.tr("Could not read the server's routes: {0}").format(message))

    def _on_lan_toggled(self, on: bool) -> None:
        self.lan_warning.setVisible(on)

    def _on_start_failed(self, message: str) -> None:
        self._refresh()
        if "cancelled" in message:
            self.state_label.setText(self.tr("Start cancelled"))
        else:
            self.state_label.setText("")
            self.error.show_text(message)

    def _on_stopped(self, _result: object) -> None:
        self._refresh()
        self.state_label.setText(self.tr("Not serving"))

    def _on_stop_failed(self, message: str) -> None:
        self._refresh()
        self.error.show_text(message)

    def _on_bridge_status_changed(self, status: EngineStatus) -> None:
        if self._served() is not None:
            self._attach()
            self._set_state(status)
        self._refresh()

    def _on_state_selection_changed(self, _selection: Selection) -> None:
        self._refresh()

    def _on_port_changed(self, _value: int) -> None:
        self._refresh()

    def _on_key_changed(self, _text: str) -> None:
        self._refresh()

    def _on_generate_clicked(self) -> None:
        self.key_edit.setText(new_api_key())

    def _on_copy_key_clicked(self) -> None:
        QGuiApplication.clipboard().setText(self.key_edit.text())

    def _on_copy_url_clicked(self) -> None:
        QGuiApplication.clipboard().setText(self.url_edit.text())

    def _on_copy_example_clicked(self) -> None:
        view = self.pages.currentWidget()
        if isinstance(view, QPlainTextEdit):
            QGuiApplication.clipboard().setText(view.toPlainText())

    # -- the log -----------------------------------------------------------------------------------
    def _attach(self) -> None:
        """Stream the tab's server's log into the Log page (once per server)."""
        server = self.controller.server if self.controller is not None else None
        if server is None or server is self._attached:
            return
        if self._attached is not None:
            self._attached.remove_log_listener(self._lines.append)
        self._attached = server
        self._lines.clear()
        self.log_view.setPlainText("\n".join(server.log_lines()))
        server.add_log_listener(self._lines.append)

    def _on_timer_tick(self) -> None:
        if self.controller is not None and self.controller.server is not None:
            self._attach()
        if self._lines:
            lines = []
            while self._lines:
                lines.append(self._lines.popleft())
            self.log_view.appendPlainText("\n".join(lines))

    def log_text(self) -> str:
        return self.log_view.toPlainText()


__all__ = ["ServerPanel"]
