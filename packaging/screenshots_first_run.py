"""The first-run screenshots and the new chat and serving features, for ``packaging/screenshots.py``.

Each function drives the real window (no fake parts) and saves one or two palette PNGs:

- :func:`picker_shot`: Models > "Get a model…" with the curated list and its fit badges, scrolled
  to the vision checkpoints (``first-run-picker.png``); the curated list is local, nothing is searched.
- :func:`load_shot`: the chat tab with its model picker and the load banner while the model loads
  (``first-run-load.png``).
- :func:`server_shot`: the Server tab serving the model on a free port with a generated key, after
  one request made with the tab's own curl example (``server.png`` with the curl page,
  ``server-log.png`` with the log); the server is stopped after and its processes checked gone.
- :func:`thinking_shot`: a Qwen3-family random-weight fixture (``tests/fixtures/families.py``)
  answering with a collapsed Thinking block and the Think switch (``chat-thinking.png``), made
  deterministic as in tests/test_ui_chat_thinking.py: greedy and a regular expression (the chat's
  structured output) that makes the model write a thinking block, then an answer.
- :func:`mcp_approval_shot`: the same fixture (its template renders tools) calling a tool of an MCP
  server (the tests' SDK-written one, imported as an ``mcp.json`` in the Tools box), the call shown
  with its server, tool and arguments and waiting for Run once / Always / Refuse
  (``chat-mcp-approval.png``); the model must call a tool (``tool_choice`` "required", which vLLM
  holds the output to), so a random-weight model makes a real call. The call is refused after.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

Spin = Callable[..., bool]
Save = Callable[[Any, Path], int]

#: tests/test_ui_chat_thinking.py's pattern for Qwen3: a thinking block, then an answer
QWEN3_THINK_THEN_ANSWER = r"<think>\n[a-z]{3,12}\n</think>\n\n[a-z]{3,12}"
THINKING_MODEL = "qwen3-tiny-random"


def _saved(save: Save, image: Any, path: Path) -> None:
    print(f"{path}: {image.width()}x{image.height()}, {save(image, path) // 1024} KB", flush=True)


def picker_shot(window: Any, spin: Spin, save: Save, out: Path) -> None:
    """``first-run-picker.png``: the "Get a model…" dialog with the curated list's fit badges."""
    dialog = window.models.open_get_model()
    picker = dialog.picker
    if not spin(120, lambda: bool(picker.rows) and not picker.busy):
        raise SystemExit(f"the curated list did not come: {picker.error_label.text() or 'timed out'}")
    picker.table.clearSelection()
    # the vision checkpoints in view: their Pictures badges beside the text models' dashes
    vision = [r for r, (_kind, _item, found) in enumerate(picker.rows) if found and found[0].badges.vision]
    if vision:
        picker.table.scrollToItem(picker.table.item(min(vision[-1] + 1, len(picker.rows) - 1), 0))
    spin(0.8)
    _saved(save, dialog.grab().toImage(), out / "first-run-picker.png")
    dialog.reject()
    spin(0.3)


def load_shot(window: Any, ctx: Any, spin: Spin, save: Save, out: Path) -> None:
    """``first-run-load.png``: the chat while the model loads (its picker and the load banner).
    Call it just after the load started."""
    from console.engine.types import EngineState

    chat = window.chat
    window.tabs.setCurrentWidget(chat)
    banner = chat.load_banner

    def loading_for_a_while() -> bool:  # a stage and a few seconds on the banner's clock
        waited = time.monotonic() - banner._since
        return banner.state == "loading" and waited > 4.2 and (bool(banner._stage) or waited > 15)

    spin(60, lambda: loading_for_a_while() or ctx.engine.status.state != EngineState.LOADING)
    if banner.state != "loading" or not banner.isVisible():
        raise SystemExit(f"no load banner to show (engine {ctx.engine.status.state}: {ctx.engine.status.error})")
    spin(0.3)
    _saved(save, window.grab().toImage(), out / "first-run-load.png")


def server_shot(window: Any, ctx: Any, spin: Spin, save: Save, out: Path) -> None:
    """``server.png`` and ``server-log.png``: the Server tab serving the selected model with a key,
    after one request sent with the tab's curl example; then Stop, and no process left."""
    import psutil

    from console.engine.child_server import free_port, port_free

    panel = window.panels["server"]
    window.tabs.setCurrentWidget(panel)
    port = free_port()
    panel.port_spin.setValue(port)
    panel.generate_button.click()
    panel.start_button.click()
    spin(900, lambda: panel.state_label.text().startswith("Serving at") or panel.error.isVisible())
    if not panel.state_label.text().startswith("Serving at"):
        raise SystemExit(f"the server did not start: {panel.error.text() or panel.state_label.text()}")
    server = panel.controller.server
    proc = psutil.Process(server.pid)
    group = [proc, *proc.children(recursive=True)]
    curl = subprocess.run(["sh", "-c", panel.curl_view.toPlainText()], capture_output=True, text=True, timeout=300)
    if curl.returncode != 0:
        raise SystemExit(f"the tab's curl example failed: {curl.stderr.strip()[:200]}")
    answer = json.loads(curl.stdout)["choices"][0]["message"]["content"]
    print("server answered the curl example:", " ".join(answer.split())[:100], flush=True)
    spin(30, lambda: "/v1/chat/completions" in panel.log_text())
    spin(1.0)
    panel.pages.setCurrentWidget(panel.curl_view)
    spin(0.5)
    _saved(save, window.grab().toImage(), out / "server.png")
    panel.pages.setCurrentWidget(panel.log_view)
    panel.log_view.verticalScrollBar().setValue(panel.log_view.verticalScrollBar().maximum())
    spin(0.5)
    _saved(save, window.grab().toImage(), out / "server-log.png")
    panel.pages.setCurrentWidget(panel.curl_view)
    panel.stop_button.click()
    spin(180, lambda: panel.state_label.text() == "Not serving")

    def alive(p: Any) -> bool:
        try:
            return bool(p.is_running() and p.status() != psutil.STATUS_ZOMBIE)
        except psutil.NoSuchProcess:
            return False

    left = [p.pid for p in group if alive(p)]
    if left or not port_free(port):
        raise SystemExit(f"the server left processes {left} or port {port} taken after Stop")
    print(f"server stopped: no process left, port {port} free", flush=True)


def load_fixture(window: Any, ctx: Any, spin: Spin, folder: Path, name: str, max_model_len: int) -> None:
    """Load the random-weight fixture in ``folder`` as ``name`` on the CPU engine and name it in the
    chat's picker: it is not in the model store (the script never changes the user's store)."""
    from console.config import EngineConfig
    from console.engine.types import EngineState

    config = EngineConfig(
        model=str(folder), kv_cache_memory_bytes=32 * 1024**2, max_model_len=max_model_len, device="cpu"
    )
    # a load under way (the Server tab's Stop loads back what was loaded before) finishes first
    if not spin(900, lambda: ctx.engine.status.state not in (EngineState.LOADING, EngineState.STOPPING)):
        raise SystemExit(f"the engine was still loading after 900 s; {name} not loaded")
    ctx.engine.load(config, name)
    if (
        not spin(900, lambda: ctx.engine.status.state in (EngineState.READY, EngineState.FAILED))
        or ctx.engine.status.state != EngineState.READY
    ):
        raise SystemExit(f"the fixture {name} did not load: {ctx.engine.status.error}")
    picker = window.chat.model_picker
    picker.set_models([*picker.names(), name])
    picker.show_loaded(name)


def _load_qwen3(window: Any, ctx: Any, spin: Spin, work: Path) -> None:
    """Load the Qwen3-family fixture (once) and name it in the chat's picker."""
    from console.engine.types import EngineState
    from tests.fixtures.families import make_family

    if ctx.engine.status.model == THINKING_MODEL and ctx.engine.status.state == EngineState.READY:
        return
    load_fixture(window, ctx, spin, make_family("qwen3", work / THINKING_MODEL), THINKING_MODEL, 512)


def thinking_shot(window: Any, ctx: Any, spin: Spin, save: Save, work: Path, out: Path) -> None:
    """``chat-thinking.png``: a Qwen3-family random-weight fixture's answer with its thinking
    collapsed, and the Think switch (the fixture's answers are random letters: the picture shows
    the split and the controls, not a model's knowledge)."""
    from console.ui.chat.output_control import FREE, REGEX

    _load_qwen3(window, ctx, spin, work)
    chat = window.chat
    window.tabs.setCurrentWidget(chat)
    chat.new_conversation()
    chat.temperature.setValue(0.0)
    chat.max_tokens.setValue(24)
    chat.output.set_mode(REGEX, QWEN3_THINK_THEN_ANSWER)
    spin(0.5)
    if not chat.think_box.isVisible():
        raise SystemExit("the Think switch is not shown for the Qwen3 fixture")
    chat.input.setPlainText("Think first, then answer: which word comes next?")
    if not chat.send():
        raise SystemExit(f"chat refused to send: {chat.error_label.text()}")
    spin(300, lambda: chat.active_id is None)
    spin(0.8)
    answer = chat.messages[-1]
    if answer.role != "assistant" or not answer.reasoning or not answer.content:
        raise SystemExit(f"no thinking split in the fixture's answer: {answer.content!r}")
    if "Thinking" not in chat.transcript_text():
        raise SystemExit("the transcript shows no Thinking block")
    _saved(save, window.grab().toImage(), out / "chat-thinking.png")
    chat.output.set_mode(FREE)


def mcp_approval_shot(window: Any, ctx: Any, spin: Spin, save: Save, work: Path, out: Path) -> None:
    """``chat-mcp-approval.png``: a tool call of the Qwen3 fixture waiting for the user's approval."""
    import sys

    _load_qwen3(window, ctx, spin, work)
    chat = window.chat
    window.tabs.setCurrentWidget(chat)
    chat.new_conversation()
    chat.temperature.setValue(0.0)
    chat.max_tokens.setValue(120)
    fixture = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "mcp_server.py"
    server = {"command": sys.executable, "args": [str(fixture)], "env": {"FIXTURE_TOOLS": "lookup"}}
    config = work / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"cities": server}}))
    tools = chat.tools_box
    tools.enabled.setChecked(True)
    if not tools.mcp.import_file(str(config)):
        raise SystemExit("the Tools box refused the mcp.json")
    tools.mcp.boxes["cities"].setChecked(True)
    if not spin(60, lambda: tools.mcp.status.text() == "cities: 1 tools"):
        raise SystemExit(f"the MCP server did not list its tool: {tools.mcp.status.text()}")
    tools.choice.setCurrentIndex(tools.choice.findData("required"))
    chat.input.setPlainText("What is the code of Rome?")
    if not chat.send():
        raise SystemExit(f"chat refused to send: {chat.error_label.text()}")
    spin(300, lambda: chat.active_id is None)
    if not spin(10, lambda: tools.mcp.approval.isVisible()):
        raise SystemExit("no tool call is waiting for approval")
    from PySide6.QtWidgets import QScrollArea

    area = tools.parentWidget()
    while area is not None and not isinstance(area, QScrollArea):
        area = area.parentWidget()
    if area is not None:  # the Tools box sits low in the chat's side column: bring the row into view
        area.ensureWidgetVisible(tools.mcp.approval, 0, 80)
        area.ensureWidgetVisible(tools.mcp, 0, 0)
        area.horizontalScrollBar().setValue(0)
    spin(0.8)
    _saved(save, window.grab().toImage(), out / "chat-mcp-approval.png")
    tools.mcp.refuse.click()
    spin(30, lambda: not tools.mcp.approval.isVisible())
    tools.choice.setCurrentIndex(tools.choice.findData("auto"))
    tools.enabled.setChecked(False)
