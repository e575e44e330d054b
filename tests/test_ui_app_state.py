"""The views follow the application state (console/app_state.py), not the Models panel: a model or
preset picked in the Models panel reaches the Server tab, the Export tab, the chat's model picker
and the status bar; the chat picker's choice reaches the Models panel as an intent; the Qt adapter
(console/ui/state_signals.py) delivers on the GUI thread and stops with its view.

No engine is started in any of these tests (they are about state only): the window's engine switch
stays stopped, and a load the picker asks for is refused at the fit confirmation."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QObject
from PySide6.QtWidgets import QMessageBox, QWidget

from console.app_state import AppState, Selection
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
    w.build_panels()
    return w


def _store(tiny_model: Path, *names: str) -> ModelStore:
    store = ModelStore()
    for name in names:
        store.add_reference(name, tiny_model)
    return store


def test_a_models_panel_selection_reaches_every_view(home: Path, tiny_model: Path, qtbot: Any) -> None:
    store = _store(tiny_model, "tiny", "tiny-2")
    ctx = AppContext.create(store=store)
    w = _window(ctx, qtbot)
    m, picker, server, export = w.models, w.chat.model_picker, w.server, w.export
    assert ctx.state.models == ("tiny", "tiny-2") and picker.names() == ["tiny", "tiny-2"]

    m.select_model("tiny-2")
    assert ctx.state.selection.model == "tiny-2"
    preset = ctx.state.selection.preset
    assert preset and server.model_label.text() == f"Model: tiny-2 · preset: {preset}"
    assert export.config is not None and export.config.served_model_name == "tiny-2"  # before the tab is shown
    assert picker.combo.currentIndex() == 0  # the picker shows what is loaded: a selection is not a load

    other = next(name for name in m.presets if name != preset)
    m.select_preset(other)
    assert ctx.state.selection == Selection("tiny-2", other)
    assert server.model_label.text() == f"Model: tiny-2 · preset: {other}"
    assert w.preset_label.text() == f"Preset: {other}"  # at once, not at the status bar's next tick

    m.kv_gib_spin.setValue(0.5)  # a knob: no selection change; the Export tab reads it when shown
    w.tabs.setCurrentWidget(export)
    assert export.config is not None and export.config.kv_cache_memory_bytes == 512 * 1024**2

    store.add_reference("tiny-3", tiny_model)
    m.refresh()
    assert ctx.state.models == ("tiny", "tiny-2", "tiny-3") and picker.names() == ["tiny", "tiny-2", "tiny-3"]
    assert ctx.state.selection.model == "tiny-2"  # kept across the refresh


def test_the_chat_pickers_choice_selects_in_the_models_panel(
    home: Path, tiny_model: Path, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The load is refused at the fit confirmation (answered No): nothing loads."""
    ctx = AppContext.create(store=_store(tiny_model, "tiny", "tiny-2"))
    w = _window(ctx, qtbot)
    m, picker = w.models, w.chat.model_picker
    m.select_model("tiny")
    m.kv_gib_spin.setValue(4000)  # far more than this machine's RAM: the load asks first
    qtbot.waitUntil(
        lambda: str(getattr(m.table_model.verdicts.get("tiny-2"), "verdict", "")) == "fits-with-changes", timeout=60_000
    )
    asked: list[str] = []

    def no(_parent: Any, _title: str, text: str, *_a: Any, **_k: Any) -> QMessageBox.StandardButton:
        asked.append(text)
        return QMessageBox.StandardButton.No

    monkeypatch.setattr(QMessageBox, "question", no)
    picker.choose("tiny-2")
    assert len(asked) == 1 and "tiny-2" in asked[0]
    assert m.selected_name() == "tiny-2" and ctx.state.selection.model == "tiny-2"
    assert w.server.model_label.text().startswith("Model: tiny-2 · ")
    assert picker.combo.currentIndex() == 0 and ctx.engine.status.state == EngineState.STOPPED


def test_the_link_hands_the_choice_to_the_intents(home: Path, qtbot: Any) -> None:
    """The chat's picker and banner tied to a bare state and recorded intents (no panel, no
    engine: the context's engine switch stays stopped)."""
    from console.ui.chat.model_combo import ChatModelPicker
    from console.ui.chat.models_link import connect_models
    from console.ui.chat.load_banner import LoadBanner

    ctx = AppContext.create(store=ModelStore())
    calls: list[str] = []
    engine = QWidget()
    qtbot.addWidget(engine)
    picker, banner = ChatModelPicker(engine), LoadBanner(ctx, engine)

    def select(name: str) -> bool:
        calls.append(f"select {name}")
        ctx.state.select(name, None)
        return name != "gone"

    def load() -> bool:
        calls.append("load")
        return False  # refused

    ctx.state.list_models(["a", "b"])  # before the link: it starts from the state
    connect_models(ctx, picker, banner, select=select, load=load, apply_change=lambda _c: None, plan=lambda: None)
    assert picker.names() == ["a", "b"]
    ctx.state.list_models(["a", "b", "gone"])
    assert picker.names() == ["a", "b", "gone"]
    picker.choose("b")
    picker.choose("gone")
    assert calls == ["select b", "load", "select gone"] and picker.combo.currentIndex() == 0


class _Receiver(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.heard: list[tuple[Selection, int]] = []

    def on_selection(self, s: Selection) -> None:
        self.heard.append((s, threading.get_ident()))


def test_state_signals_deliver_on_the_gui_thread_and_stop_with_their_view(qtbot: Any) -> None:
    from console.ui.state_signals import follow_selection

    state, receiver = AppState(), _Receiver()
    follow_selection(state, receiver, receiver.on_selection)
    assert state.observer_count() == 3  # the selection, the models list and the configuration
    state.select("here", None)
    worker = threading.Thread(target=lambda: state.select("there", "p"))
    worker.start()
    worker.join()
    qtbot.waitUntil(lambda: len(receiver.heard) == 2, timeout=5000)
    gui = threading.get_ident()
    assert receiver.heard == [(Selection("here", None), gui), (Selection("there", "p"), gui)]

    receiver.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert state.observer_count() == 0
    state.select("after", None)  # nothing is called on the deleted view
