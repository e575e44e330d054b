"""The main window: visible fast with no engine imports, the Models sidebar (table, planner
verdict that follows the knobs, imports with progress and cancel), keyboard shortcuts, the
status bar, remembered layout and choices, and — against the real CPU engine — Load from the
sidebar, chat with Ctrl+Enter and stop with Esc."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton

from console.engine.types import EngineInfo, EngineState
from console.models.store import ModelStore
from console.settings import Settings, load_settings
from console.ui.context import AppContext

ROOT = Path(__file__).resolve().parents[1]


def _startup_script() -> str:
    spec = importlib.util.spec_from_file_location("overheads", ROOT / "benchmarks" / "overheads.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return str(module.STARTUP)


def test_window_shows_without_engine_imports(home: Path) -> None:
    """The window appears before torch / vLLM / transformers are imported (they load with the
    engine, on its thread). How long it takes to show is a benchmark figure
    (benchmarks/overheads.py, README-gui.md), not a timed test."""
    out = subprocess.run(
        [sys.executable, "-c", _startup_script()], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    line = [x for x in out.stdout.splitlines() if x.startswith("shown")]
    assert line, out.stderr[-2000:]
    assert line[0] == "shown True False False False", "vLLM/torch/transformers must not load at start"


def _window(ctx: AppContext, qtbot: Any) -> Any:
    from console.ui.main_window import MainWindow

    w = MainWindow(ctx, load_settings(), owns_engine=False)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitUntil(lambda: w._panels_built, timeout=10_000)
    return w


def test_window_layout_planner_shortcuts_and_memory(home: Path, tiny_model: Path, qtbot: Any, tmp_path: Path) -> None:
    """No engine is started: the engine stays stopped (nothing stands in for it)."""
    store = ModelStore()
    store.add_reference("tiny", tiny_model)
    ghost_dir = tmp_path / "ghost"
    shutil.copytree(tiny_model, ghost_dir)
    store.add_reference("ghost", ghost_dir)
    shutil.rmtree(ghost_dir)
    ctx = AppContext.create(store=store)
    w = _window(ctx, qtbot)

    tabs = [w.tabs.tabText(i) for i in range(w.tabs.count())]
    assert tabs == ["Chat", "Batch", "Monitor", "Export", "Bench", "Server"]
    assert w.state_label.text() == "Stopped" and w.device_label.text() == "Device: CPU"
    ctx.sampler.sample_once()
    w._refresh_status_bar()
    assert w.memory_label.text().startswith("RAM ") and "GiB" in w.memory_label.text()
    assert w.rate_label.text() == "0.0 tok/s" and w.preset_label.text() == "Preset: cpu-default"

    m = w.models
    names = [e.name for e in m.table_model.entries]
    assert names == ["ghost", "tiny"]
    m.select_model("tiny")
    qtbot.waitUntil(lambda: "context" in m.plan_label.text(), timeout=5000)
    first = m.verdict_label.text()
    assert "fits" in first and "KV cache:" in m.plan_label.text()
    # where the figures came from: the CPU's KV budget is the size given, exactly
    assert "Planner: calibrated from 4 shipped load(s) (cpu.json)" in m.plan_label.text()
    assert "tokens (exact: kv_cache_memory_bytes, as given)" in m.plan_label.text()
    assert "## Planner" in m.details_text() and "| KV cache tokens | exact" in m.details_text()
    fits_col = m.table_model.COLUMNS.index("fits")
    qtbot.waitUntil(lambda: m.table_model.index(1, fits_col).data() == "fits", timeout=5000)
    assert m.table_model.index(0, fits_col).data() == "files missing"
    # knobs re-plan live (off the GUI thread: the labels follow)
    m.context_spin.setValue(1024)
    qtbot.waitUntil(lambda: "context 1024" in m.plan_label.text(), timeout=5000)
    m.kv_gib_spin.setValue(4000)  # far more than this machine's RAM
    qtbot.waitUntil(lambda: m.verdict_label.text() != first, timeout=5000)
    assert "fit" in m.verdict_label.text() and "fits</b>" not in m.verdict_label.text()
    assert m.table_model.index(1, fits_col).data() != "fits"  # the column follows the knobs too
    m.kv_gib_spin.setValue(0)
    qtbot.waitUntil(lambda: m.verdict_label.text() == first, timeout=5000)
    assert "tiny" in m.details_text() and "LlamaForCausalLM" in m.details_text()

    # a model whose files are gone cannot load, and says why
    m.select_model("ghost")
    assert not m.load_selected()
    assert "are gone" in m.error_label.text() and ctx.engine.status.state == EngineState.STOPPED

    # shortcuts
    w.activateWindow()
    qtbot.waitUntil(lambda: w.isActiveWindow(), timeout=3000)
    qtbot.keyClick(w, Qt.Key.Key_3, Qt.KeyboardModifier.ControlModifier)
    assert w.tabs.currentIndex() == 2
    qtbot.keyClick(w, Qt.Key.Key_1, Qt.KeyboardModifier.ControlModifier)
    assert w.tabs.currentIndex() == 0
    m.table.clearSelection()
    qtbot.keyClick(w, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier)
    assert "Select a model" in m.error_label.text()
    w.chat.input.setFocus()
    w.chat.input.setPlainText("hi")
    qtbot.keyClick(w.chat.input, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert "No model is loaded" in w.chat.error_label.text()
    assert w.chat.input.toPlainText() == "hi"  # Ctrl+Enter sent (and was refused), no newline typed
    qtbot.keyClick(w, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    assert w.chat.conversation_id is None

    # memory: geometry, tab, model, preset, knobs and sampling survive a restart
    m.select_model("tiny")
    m.seqs_spin.setValue(8)
    w.chat.temperature.setValue(0.25)
    w.tabs.setCurrentIndex(3)
    w.resize(780, 700)
    w.close()
    s = load_settings()
    assert (s.last_model, s.last_tab, s.knobs.max_model_len, s.knobs.max_num_seqs) == ("tiny", 3, 1024, 8)
    w2 = _window(ctx, qtbot)
    # The offscreen screen is 800x800 and the window's minimum width is larger, so only the
    # height can round-trip exactly here.
    assert w2.height() == 700 and w2.height() != w.__class__(ctx, Settings(), owns_engine=False).height()
    assert w2.tabs.currentIndex() == 3 and w2.models.selected_name() == "tiny"
    assert w2.models.context_spin.value() == 1024 and w2.models.seqs_spin.value() == 8
    assert w2.chat.temperature.value() == 0.25
    w2.close()


def test_status_bar_shows_the_cpu_dtype_and_help_offers_the_check(home: Path, qtbot: Any) -> None:
    """Widget layout only: the READY status is handed to the window directly (no engine), as the
    bridge would deliver it after a CPU load."""
    from console.engine.types import EngineStatus
    from console.ui.cpu_check import summary
    from console.engine.cpu_dtype import CheckResult, DtypeResult, Fingerprint

    w = _window(AppContext.create(store=ModelStore()), qtbot)
    assert w.device_label.text() == "Device: CPU"
    info = EngineInfo(
        "tiny",
        "/m",
        "cpu",
        1024,
        8,
        128,
        1.0,
        "0.32.0",
        dtype="bfloat16",
        dtype_note="bfloat16 (checked on this CPU 2026-11-30)",
    )
    w._on_bridge_status_changed(EngineStatus(EngineState.READY, "tiny", info=info))
    assert w.device_label.text() == "Device: CPU · bfloat16"
    assert w.device_label.toolTip() == "bfloat16 (checked on this CPU 2026-11-30)"
    help_menu = w.menuBar().actions()[-1].menu()
    assert w.act_cpu_check in help_menu.actions() and w.act_cpu_check.text() == "Check &CPU engine…"
    rows = [
        DtypeResult("bfloat16", "Paris", True, 0.97, 0.05, 6.3, ok=True, reason="agrees with float32"),
        DtypeResult("float32", "Paris", True, None, None, 30.9, ok=True, reason="reference"),
    ]
    text = summary(CheckResult(Fingerprint("x", (), "v"), "smollm2", rows, "float32", "float32: fastest correct"))
    assert text.splitlines()[:2] == ["bfloat16: 6 tok/s, ok (agrees with float32)", "float32: 31 tok/s, ok (reference)"]
    assert text.endswith("float32: the fastest correct dtype (31 tok/s)")  # the verdict in the UI's words
    w.close()


def test_import_folder_with_progress_and_cancel(home: Path, tiny_model: Path, qtbot: Any, tmp_path: Path) -> None:
    ctx = AppContext.create(store=ModelStore())
    w = _window(ctx, qtbot)
    m = w.models

    call = m.import_folder(str(tiny_model), "copied", copy=True)
    assert call.dialog.isVisible()  # the progress dialog is up while the copy runs
    qtbot.waitUntil(lambda: m.selected_name() == "copied", timeout=30_000)
    assert ctx.store.get("copied").managed and "Imported copied" in w.statusBar().currentMessage()

    # a slow import (a 2 GiB sparse file rides along), cancelled at its first progress report
    big = tmp_path / "big"
    shutil.copytree(tiny_model, big)
    with open(big / "padding.bin", "wb") as fh:
        fh.truncate(2 * 1024**3)
    cancelled: list[bool] = []
    call = m.import_folder(str(big), "big", copy=True)
    cancel_button = call.dialog.findChild(QPushButton)
    assert cancel_button is not None and cancel_button.text() == "Cancel"
    call.progressed.connect(lambda _p: cancel_button.click())  # what the user's click does
    call.cancelled.connect(lambda: cancelled.append(True))
    qtbot.waitUntil(lambda: bool(cancelled), timeout=30_000)
    qtbot.waitUntil(lambda: "cancelled" in w.statusBar().currentMessage(), timeout=5000)
    assert "big" not in ctx.store and not (ctx.store.root / "big").exists()
    assert [e.name for e in m.table_model.entries] == ["copied"]

    # a file that is not GGUF: a clear message, nothing added, no traceback
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"NOPE" + b"\0" * 100)
    m.import_gguf(str(bad), "bad")
    qtbot.waitUntil(lambda: m.error_label.isVisibleTo(m), timeout=10_000)
    assert "not a GGUF file" in m.error_label.text() and "Traceback" not in m.error_label.text()
    w.close()


@pytest.mark.engine
def test_load_from_sidebar_chat_with_ctrl_enter_stop_with_esc(
    tiny_engine: Any, tiny_model: Path, home: Path, qtbot: Any, connections: Any
) -> None:
    store = ModelStore()
    store.add_reference("tiny", tiny_model)
    ctx = connections.context(engine=tiny_engine, store=store)
    w = _window(ctx, qtbot)
    m = w.models
    m.select_model("tiny")
    m.context_spin.setValue(1024)
    m.kv_gib_spin.setValue(0.0625)  # 64 MiB of KV cache: a quick load
    states: list[str] = []
    connections.connect(ctx.bridge.statusChanged, lambda st: states.append(w.state_label.text()))
    outcomes: list[object] = []
    connections.connect(ctx.bridge.loadFinished, outcomes.append)

    qtbot.mouseClick(m.load_button, Qt.MouseButton.LeftButton)
    assert not m.load_button.isEnabled()
    qtbot.waitUntil(lambda: bool(outcomes), timeout=300_000)
    assert isinstance(outcomes[0], EngineInfo), outcomes
    assert outcomes[0].max_model_len == 1024
    assert any(s.startswith("Loading: ") and "(" in s for s in states), states
    qtbot.waitUntil(lambda: w.state_label.text() == "Ready", timeout=5000)
    assert w.model_label.text() == "Model: tiny" and m.unload_button.isEnabled()
    assert w.device_label.text().startswith("Device: CPU · ")  # the dtype it runs in (float32 before a check)
    assert "tiny" in w.windowTitle()

    chat = w.chat
    chat.max_tokens.setValue(24)
    chat.seed.setValue(3)
    chat.input.setPlainText("Say something")
    w.activateWindow()
    qtbot.waitUntil(lambda: w.isActiveWindow(), timeout=3000)
    chat.input.setFocus()
    qtbot.keyClick(chat.input, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert chat.active_id is not None
    qtbot.waitUntil(lambda: chat.active_id is None, timeout=60_000)
    answer = chat.store.messages(chat.conversation_id)[-1]
    assert answer.role == "assistant" and answer.content and "TTFT" in chat.transcript_text()

    chat.max_tokens.setValue(900)
    chat.input.setPlainText("Keep going")
    qtbot.keyClick(chat.input, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: len(chat._stream_text) > 0, timeout=60_000)
    qtbot.keyClick(w, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: chat.active_id is None, timeout=30_000)
    stopped = chat.store.messages(chat.conversation_id)[-1]
    assert stopped.finish_reason == "abort" and (stopped.output_tokens or 0) < 900
    w.grab().save(str(home / "window-ready.png"))
    w.close()
    assert tiny_engine.status.state == EngineState.READY  # owns_engine=False: the shared engine lives on


_RUN = r"""
import os, sys
os.environ["QT_QPA_PLATFORM"] = "offscreen"
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from console.ui import app as console_app

qapp = QApplication(["inference-console"])  # run() uses it; the timer below needs it first

def close_main():
    for w in QApplication.topLevelWidgets():
        if w.objectName() == "MainWindow":
            w.shutdownFinished.connect(lambda: print("shutdown finished", flush=True))
            w.close()

QTimer.singleShot(1500, close_main)
console_app.run(["inference-console"])  # exits the process itself (os._exit) with the app's code
print("run() returned instead of exiting", flush=True)
"""


def test_run_shows_the_window_and_returns_on_close(home: Path) -> None:
    out = subprocess.run([sys.executable, "-c", _RUN], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert "shutdown finished" in out.stdout, out.stderr[-3000:]
    assert out.returncode == 0 and "returned instead" not in out.stdout, out.stderr[-3000:]
    assert (home / "settings.json").is_file()  # choices and layout were saved on close


def test_export_tab_follows_the_selected_model_and_preset(home: Path, tiny_model: Path, qtbot: Any) -> None:
    """No engine is started: choosing a model and a preset is enough for the Export tab."""
    store = ModelStore()
    store.add_reference("tiny", tiny_model)
    ctx = AppContext.create(store=store)
    w = _window(ctx, qtbot)
    w.build_panels()
    export = w.panels["export"]
    w.models.select_model("tiny")
    w.tabs.setCurrentWidget(export)  # what the user looks at
    qtbot.waitUntil(lambda: getattr(export, "config", None) is not None, timeout=10_000)
    assert export.config.model == str(tiny_model) and export.config.served_model_name == "tiny"
    assert export.files and "tiny" in "".join(export.files.values())


def test_a_knob_value_outside_the_preset_schema_is_refused_naming_the_knob(
    home: Path, tiny_model: Path, qtbot: Any
) -> None:
    """The knobs' values reached EngineConfig without the schema a preset's pass (a context
    of 8 tokens went to vLLM); Load refuses with one line naming the knob, and nothing loads."""
    store = ModelStore()
    store.add_reference("tiny", tiny_model)
    ctx = AppContext.create(store=store)
    w = _window(ctx, qtbot)
    m = w.models
    m.select_model("tiny")
    m.context_spin.setValue(8)
    assert m.load_selected() is False
    assert m.error_label.text() == "Cannot load: 'Context length' = 8 is out of range [16, 10000000]"
    assert ctx.engine.status.state == EngineState.STOPPED
    m.context_spin.setValue(1024)
    assert m.engine_config().max_model_len == 1024  # a value inside the range goes through
    w.close()


def test_every_menu_path_the_docs_name_exists(home: Path, qtbot: Any) -> None:
    """README and docs name menu paths ("Engine > Engine location…"); two were once
    no menu at all ("Models > Quantize…", "Models > Keep warm": sidebar buttons). Each path named
    must be a menu of the window holding an item that starts so."""
    import re

    docs = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    named = {
        (m.group(1), m.group(2).strip())
        for d in docs
        for m in re.finditer(r'\b([A-Z][a-z]+) > "?([A-Z][\w ]*…?)', d.read_text(encoding="utf-8"))
    }
    assert ("Engine", "Engine location…") in named  # the scan finds what the README names
    from console.ui.i18n import add_language_menu

    w = _window(AppContext.create(store=ModelStore()), qtbot)
    add_language_menu(w)  # as the app adds it (console/ui/app.py)

    def items(menu: Any) -> list[str]:
        out = []
        for a in menu.actions():
            out.append(a.text().replace("&", ""))
            if a.menu() is not None:
                out += items(a.menu())
        return out

    menus = {a.text().replace("&", ""): items(a.menu()) for a in w.menuBar().actions() if a.menu() is not None}
    missing = [
        f"{menu} > {item}"
        for menu, item in sorted(named)
        if not any(text.startswith(item) for text in menus.get(menu, []))
    ]
    assert missing == [], f"menus: {menus}"
    w.close()
