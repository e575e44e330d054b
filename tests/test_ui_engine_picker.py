"""The engine picker: the dialog's choices, switching the window's engine to a remote server
(a local HTTP stub that looks like vLLM) with the status following, and the server-log dock."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

import pytest

from console.engine.factory import EngineChoice
from console.engine.remote import RemoteEngine
from console.engine.switch import EngineSwitch
from console.engine.types import EngineState
from console.models.store import ModelStore
from console.settings import load_settings
from console.ui.context import AppContext


class _Vllmish(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        body = {
            "/v1/models": {"data": [{"id": "stub-model", "max_model_len": 2048}]},
            "/health": {},
            "/version": {"version": "0.0-stub"},
        }.get(self.path)
        data = json.dumps(body if body is not None else {"detail": "Not Found"}).encode()
        self.send_response(200 if body is not None else 404)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture()
def stub_url() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Vllmish)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_dialog_choices(qtbot: Any) -> None:
    from console.ui.engine_picker import EnginePickerDialog

    dlg = EnginePickerDialog(EngineChoice("local"))
    qtbot.addWidget(dlg)
    assert dlg.local.isChecked() and not dlg.url.isEnabled() and not dlg.media_folder.isEnabled()
    dlg.remote.setChecked(True)
    assert dlg.media_folder.isEnabled() and dlg.result_media_folder() is None
    dlg.media_folder.setText(" /data/pictures ")  # a remote server's file:// pictures are read from here
    assert dlg.result_media_folder() == "/data/pictures"
    dlg._on_buttons_accepted()
    assert dlg.error.text()  # no URL given: says so, stays open
    dlg.url.setText("gpu-box:8000/v1")
    dlg.api_key.setText("k")
    dlg._on_buttons_accepted()
    assert dlg.result_choice() == (EngineChoice("remote", "http://gpu-box:8000"), "k")
    dlg.url.setText("trtllm+http://gpu-box:8000")  # TensorRT-LLM's trtllm-serve, named
    dlg._on_buttons_accepted()
    assert dlg.result_choice() == (EngineChoice("remote", "http://gpu-box:8000", "trtllm"), "k")


def test_window_switches_to_a_remote_server(home: Path, qtbot: Any, stub_url: str) -> None:
    from console.ui.main_window import MainWindow

    ctx = AppContext.create(store=ModelStore())
    assert isinstance(ctx.engine, EngineSwitch)
    w = MainWindow(ctx, load_settings(), owns_engine=False)
    qtbot.addWidget(w)
    w.show()
    assert w.engine_picker_action.text()
    engine = ctx.engine.use(EngineChoice("remote", stub_url), media_folder=str(home))
    assert isinstance(engine, RemoteEngine) and engine.allowed_local_media_path == str(home)
    info = ctx.engine.connect().result(30)
    assert info.model == "stub-model" and info.max_model_len == 2048
    qtbot.waitUntil(lambda: w._status.state == EngineState.READY and w._status.model == "stub-model", timeout=5000)
    ctx.engine.close()


def test_server_log_dock_shows_a_launched_servers_log(qtbot: Any) -> None:
    from console.ui.engine_picker import ServerLogDock

    class FakeServer:
        def __init__(self) -> None:
            self.listeners: list[Any] = []

        def log_lines(self) -> list[str]:
            return ["INFO starting"]

        def add_log_listener(self, fn: Any) -> None:
            self.listeners.append(fn)

        def remove_log_listener(self, fn: Any) -> None:
            self.listeners.remove(fn)

    dock = ServerLogDock()
    qtbot.addWidget(dock)
    server = FakeServer()
    dock.attach(server)  # type: ignore[arg-type]
    server.listeners[0]("INFO Uvicorn running")
    qtbot.waitUntil(lambda: "Uvicorn running" in dock.text.toPlainText(), timeout=2000)
    assert dock.text.toPlainText().startswith("INFO starting")
    dock.attach(RemoteEngine("http://127.0.0.1:1"))  # no log: detached and cleared
    assert not server.listeners and dock.text.toPlainText() == ""
