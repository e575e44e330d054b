"""The chat's model picker and load banner. The picker loads through the Models
panel's own path, fit confirmation included (no engine: the confirmation is refused). The
banner shows a real load's progress, its failure with the way out and the planner's fix with an
Apply, and hides on the successful load that follows (the session's in-process engine)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QMessageBox

from console.engine.types import EngineState
from console.models.store import ModelStore
from console.settings import load_settings
from console.ui.context import AppContext

pytest.importorskip("pytestqt")


def _window(ctx: AppContext, qtbot: Any) -> Any:
    from console.ui.main_window import MainWindow

    w = MainWindow(ctx, load_settings(), owns_engine=False)
    qtbot.addWidget(w)
    w.show()
    return w


def _answer(monkeypatch: pytest.MonkeyPatch, button: QMessageBox.StandardButton) -> list[str]:
    asked: list[str] = []

    def question(_parent: Any, _title: str, text: str, *a: Any, **k: Any) -> QMessageBox.StandardButton:
        asked.append(text)
        return button

    monkeypatch.setattr(QMessageBox, "question", question)
    return asked


def test_the_picker_loads_through_the_fit_confirmation(
    home: Path, tiny_model: Path, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = ModelStore()
    store.add_reference("tiny", tiny_model)
    store.add_reference("tiny-2", tiny_model)
    ctx = AppContext.create(store=store)
    w = _window(ctx, qtbot)
    m, picker = w.models, w.chat.model_picker
    assert picker.names() == ["tiny", "tiny-2"] and picker.combo.currentIndex() == 0  # nothing loaded
    assert w.chat.load_banner.isHidden()
    m.select_model("tiny")
    m.kv_gib_spin.setValue(4000)  # far more than this machine's RAM
    qtbot.waitUntil(
        lambda: str(getattr(m.table_model.verdicts.get("tiny-2"), "verdict", "")) == "fits-with-changes", timeout=60_000
    )
    asked = _answer(monkeypatch, QMessageBox.StandardButton.No)
    picker.choose("tiny-2")  # another model than the one selected: its row's verdict is asked about
    assert len(asked) == 1 and "tiny-2 does not fit" in asked[0], asked
    assert m.selected_name() == "tiny-2" and ctx.engine.status.state == EngineState.STOPPED  # not loaded
    assert picker.combo.currentIndex() == 0  # the combo says what is loaded: nothing
    store.add_reference("tiny-3", tiny_model)
    m.refresh()
    assert picker.names() == ["tiny", "tiny-2", "tiny-3"]  # the list follows the store


def _unsupported_copy(tiny_model: Path, folder: Path) -> Path:
    """The tiny model under an architecture vLLM does not know: the planner plans it from its
    config.json, and vLLM refuses it while checking the configuration, before any process starts."""
    shutil.copytree(tiny_model, folder)
    config = json.loads((folder / "config.json").read_text())
    config["architectures"] = ["NoSuchModelForCausalLM"]
    (folder / "config.json").write_text(json.dumps(config))
    return folder


@pytest.mark.engine
def test_the_banner_shows_a_failed_load_its_fix_and_hides_on_success(
    tiny_engine: Any,
    home: Path,
    tiny_model: Path,
    tmp_path: Path,
    qtbot: Any,
    monkeypatch: pytest.MonkeyPatch,
    connections: Any,
) -> None:
    store = ModelStore()
    store.add_reference("tiny", tiny_model)
    store.add_reference("odd", _unsupported_copy(tiny_model, tmp_path / "odd"))
    ctx = connections.context(engine=tiny_engine, store=store)
    w = _window(ctx, qtbot)
    m, picker, banner = w.models, w.chat.model_picker, w.chat.load_banner
    m.select_model("odd")
    m.context_spin.setValue(1024)  # the session engine's usual context, for the tests after this one
    m.kv_gib_spin.setValue(4000)  # far more than this machine's RAM: the planner has a fix
    qtbot.waitUntil(lambda: m.plan_view.plan is not None and bool(m.plan_view.plan.suggestions), timeout=10_000)
    asked = _answer(monkeypatch, QMessageBox.StandardButton.Yes)  # load anyway
    states: list[str] = []
    connections.connect(ctx.bridge.statusChanged, lambda _s: states.append(banner.state))

    picker.choose("odd")
    assert len(asked) == 1 and ctx.engine.status.state == EngineState.LOADING
    qtbot.waitUntil(lambda: banner.state == "failed", timeout=300_000)
    assert "loading" in states  # the progress was shown first
    text = banner.text()
    assert text.startswith("Loading odd failed: ") and "NoSuchModelForCausalLM" in text, text
    assert "not supported by the installed vLLM" in text  # the engine's way out
    assert "The planner suggests: kv_cache_memory_bytes " in text and banner.apply_button.isVisibleTo(banner)
    assert picker.combo.currentIndex() == 0  # nothing is loaded now

    banner.apply_button.click()  # the planner's fix sets the knob
    assert 0 < m.kv_gib_spin.value() < 1 and banner.apply_button.isHidden()
    m.kv_gib_spin.setValue(0.0625)  # 64 MiB of KV cache: a quick load
    picker.choose("tiny")  # it fits: no question
    assert len(asked) == 1
    qtbot.waitUntil(lambda: ctx.engine.status.state == EngineState.READY, timeout=300_000)
    qtbot.waitUntil(lambda: banner.isHidden(), timeout=5000)
    assert banner.state == "" and banner.text() == ""
    assert picker.combo.currentText() == "tiny"
    w.close()
