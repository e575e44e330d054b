"""The Server tab, driven like a user: one server start of the tiny model on a fixed
free port with an API key; requests through its URL (the tab's own curl and Python examples,
run as they are shown) answered, a request without the key refused (401), the launched argv is
the export's command, the log is streamed and on disk, the Monitor's store follows the server's
/metrics, the status bar shows the address, Stop leaves no process. A cancelled start (killed
while vLLM loads) and a taken port cost no engine build."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest

from console.engine.in_process import InProcessEngine
from console.engine.child_server import free_port, port_free
from console.engine.serving import SharedServer
from console.engine.types import EngineState
from console.engine.serve_args import serve_command
from console.models.store import ModelStore
from console.settings import load_settings
from console.ui.context import AppContext
from tests.test_child_server import _alive
from tests.test_serving import export_tokens


def _window(home: Path, tiny_model: Path, qtbot: Any) -> Any:
    from console.ui.main_window import MainWindow

    store = ModelStore()
    store.add_reference("tiny", tiny_model)
    ctx = AppContext.create(store=store)  # the window's engine switch, in-process first
    w = MainWindow(ctx, load_settings(), owns_engine=False)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitUntil(lambda: w._panels_built, timeout=10_000)
    w.models.select_model("tiny")
    w.models.context_spin.setValue(1024)
    w.models.kv_gib_spin.setValue(0.0625)  # 64 MiB of KV cache: a quick start
    w.tabs.setCurrentWidget(w.server)
    return w


def test_a_taken_port_is_one_line_in_the_tab_and_nothing_is_unloaded(home: Path, tiny_model: Path, qtbot: Any) -> None:
    w = _window(home, tiny_model, qtbot)
    panel, ctx = w.server, w.ctx
    before = ctx.engine.backend
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        panel.port_spin.setValue(port)
        panel.start_button.click()
        assert panel.error.isVisible()
        assert panel.error.text().startswith(f"Port {port} on 127.0.0.1 is already in use")
        assert "choose another port" in panel.error.text()
    assert ctx.engine.backend is before and isinstance(before, InProcessEngine)
    assert panel.start_button.isEnabled() and not panel.progress.isVisible()
    ctx.sampler.stop()


def test_the_local_network_needs_a_key_and_shows_a_warning(home: Path, tiny_model: Path, qtbot: Any) -> None:
    w = _window(home, tiny_model, qtbot)
    panel, ctx = w.server, w.ctx
    before = ctx.engine.backend
    assert not panel.lan_warning.isVisible()
    panel.lan_box.setChecked(True)
    assert panel.lan_warning.isVisible() and "/v1 routes only" in panel.lan_warning.text()
    panel.key_edit.clear()
    panel.start_button.click()
    assert panel.error.isVisible() and "needs an API key" in panel.error.text()
    assert ctx.engine.backend is before and panel.start_button.isEnabled()
    ctx.sampler.stop()


@pytest.mark.engine
def test_server_tab_serves_the_model_with_a_key_and_stop_leaves_nothing(
    home: Path, tiny_model: Path, qtbot: Any
) -> None:
    w = _window(home, tiny_model, qtbot)
    panel, ctx = w.server, w.ctx
    port = free_port()
    panel.port_spin.setValue(port)
    panel.generate_button.click()
    key = panel.key_edit.text()
    assert key.startswith("sk-") and len(key) > 20
    url = f"http://127.0.0.1:{port}/v1"
    assert panel.url_edit.text() == url and f"Bearer {key}" in panel.curl_view.toPlainText()

    # A start cancelled while vLLM loads: the process group ends, the engine goes back in process.
    panel.start_button.click()
    qtbot.waitUntil(
        lambda: panel.controller.server is not None and panel.controller.server.pid is not None, timeout=60_000
    )
    first = panel.controller.server
    assert isinstance(first, SharedServer) and panel.progress.isVisible()
    qtbot.waitUntil(lambda: panel.stop_button.text() == "Cancel start", timeout=5000)
    group = [psutil.Process(first.pid)]
    panel.stop_button.click()
    qtbot.waitUntil(lambda: panel.state_label.text() in ("Start cancelled", "Not serving"), timeout=60_000)
    qtbot.waitUntil(
        lambda: isinstance(ctx.engine.backend, InProcessEngine) and panel.start_button.isEnabled(), timeout=60_000
    )
    assert not _alive(group) and port_free(port)
    assert not panel.error.isVisible(), panel.error.text()

    # The real start.
    panel.start_button.click()
    qtbot.waitUntil(lambda: panel.state_label.text().startswith("Serving at"), timeout=600_000)
    server = panel.controller.server
    assert isinstance(server, SharedServer) and ctx.engine.backend is server
    assert panel.state_label.text() == f"Serving at {url}"
    qtbot.waitUntil(lambda: w.address_label.text() == f"Server: {url}", timeout=5000)
    assert w.address_label.isVisible()

    # What runs is what the export writes (the key travels in the environment).
    proc = psutil.Process(server.pid)
    launched = proc.cmdline()
    exported = export_tokens(serve_command(server.config, server.serve_options()))
    assert launched[1:4] == ["-m", "vllm.entrypoints.openai.api_server", "--model"]
    assert launched[4:] == exported[: exported.index("--api-key")] + exported[exported.index("--api-key") + 2 :]
    assert proc.environ().get("VLLM_API_KEY") == key and key not in launched
    shown = panel.command_view.toPlainText()
    assert f"--port {port}" in shown and "--served-model-name tiny" in shown and key not in shown

    # Requests through the URL: the tab's examples, run as shown; no key, no answer.
    curl = subprocess.run(["sh", "-c", panel.curl_view.toPlainText()], capture_output=True, text=True, timeout=120)
    assert curl.returncode == 0, curl.stderr
    reply = json.loads(curl.stdout)
    assert reply["model"] == "tiny" and reply["choices"][0]["message"]["content"]
    python = subprocess.run(
        [sys.executable, "-c", panel.python_view.toPlainText()], capture_output=True, text=True, timeout=120
    )
    assert python.returncode == 0 and python.stdout.strip(), python.stderr[-2000:]
    body = {"model": "tiny", "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 4}
    refused = httpx.post(f"{url}/chat/completions", json=body, timeout=60)
    assert refused.status_code == 401
    wrong = httpx.post(f"{url}/chat/completions", json=body, headers={"Authorization": "Bearer sk-wrong"}, timeout=60)
    assert wrong.status_code == 401
    assert panel.controller.health()
    # The other routes this vLLM offers, read from the running server, each with its example.
    qtbot.waitUntil(lambda: "/v1/completions" in panel.routes_view.toPlainText(), timeout=60_000)
    assert f"curl http://127.0.0.1:{port}/v1/completions" in panel.routes_view.toPlainText()

    # The Monitor's store follows the server's /metrics; the log is streamed and on disk.
    qtbot.waitUntil(lambda: ctx.metrics.totals_snapshot().get("generation_tokens", 0) > 0, timeout=30_000)
    qtbot.waitUntil(lambda: "/v1/chat/completions" in panel.log_text(), timeout=30_000)
    assert server.log_path is not None and server.log_path.is_relative_to(home / "server-logs")
    assert "/v1/chat/completions" in server.log_path.read_text()

    # Stop: the whole process group ends, the port is free, the engine is back in process.
    group = [proc, *proc.children(recursive=True)]
    assert len(group) >= 2, "expected vLLM's EngineCore child"
    panel.stop_button.click()
    qtbot.waitUntil(lambda: panel.state_label.text() == "Not serving", timeout=120_000)
    assert not _alive(group) and port_free(port)
    assert isinstance(ctx.engine.backend, InProcessEngine) and ctx.engine.status.state == EngineState.STOPPED
    qtbot.waitUntil(lambda: not w.address_label.isVisible(), timeout=5000)
    ctx.sampler.stop()
