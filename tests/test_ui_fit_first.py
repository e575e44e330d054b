"""Fit first in the Models sidebar, with no engine started: the verdict is a coloured
column next to the name, a planner suggestion's Apply sets the knobs it names (the Advisor's
rule), and loading a model the planner says does not fit as set asks first (double-click loads)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QMessageBox

from console.engine.types import EngineState
from console.models.store import ModelStore
from console.settings import load_settings
from console.ui.context import AppContext
from console.ui.models.table import VERDICT_COLOURS


def test_verdict_column_apply_and_load_confirmation(
    home: Path, tiny_model: Path, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from console.ui.main_window import MainWindow

    store = ModelStore()
    store.add_reference("tiny", tiny_model)
    ctx = AppContext.create(store=store)
    w = MainWindow(ctx, load_settings(), owns_engine=False)
    qtbot.addWidget(w)
    w.show()
    m = w.models
    m.select_model("tiny")
    table = m.table_model
    assert table.headerData(1, Qt.Orientation.Horizontal) == "Fits?"  # next to the name
    qtbot.waitUntil(lambda: table.index(0, 1).data() == "fits", timeout=10_000)
    green = QColor(VERDICT_COLOURS["fits"][1])
    assert table.index(0, 1).data(Qt.ItemDataRole.BackgroundRole) == green
    fitting = m.verdict_label.text()

    m.kv_gib_spin.setValue(4000)  # far more than this machine's RAM
    qtbot.waitUntil(lambda: table.index(0, 1).data() == "fits with changes", timeout=10_000)  # not as set
    amber = QColor(VERDICT_COLOURS["fits-with-changes"][1])
    assert table.index(0, 1).data(Qt.ItemDataRole.BackgroundRole) == amber
    qtbot.waitUntil(lambda: bool(m.plan_view.suggestion_rows), timeout=10_000)

    asked: list[str] = []

    def no(_parent: Any, _title: str, text: str, *a: Any, **k: Any) -> QMessageBox.StandardButton:
        asked.append(text)
        return QMessageBox.StandardButton.No

    monkeypatch.setattr(QMessageBox, "question", no)
    rect = m.table.visualRect(table.index(0, 0))
    qtbot.mouseClick(m.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())  # as a user's first press
    qtbot.mouseDClick(m.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())  # double-click loads
    assert len(asked) == 1 and "tiny does not fit" in asked[0] and "exceed" in asked[0]
    assert ctx.engine.status.state == EngineState.STOPPED  # refused: nothing started

    qtbot.waitUntil(lambda: any(b.isVisibleTo(m.plan_view) for _l, b in m.plan_view.suggestion_rows), timeout=10_000)
    qtbot.waitUntil(lambda: m.plan_view.plan is not None, timeout=10_000)  # no plan in flight
    label, apply = next((lbl, b) for lbl, b in m.plan_view.suggestion_rows if b.isVisibleTo(m.plan_view))
    suggestion = label.text()  # the rows are rebuilt by the next plan
    messages: list[str] = []
    m.message.connect(messages.append)
    qtbot.mouseClick(apply, Qt.MouseButton.LeftButton)
    assert m.kv_gib_spin.value() < 4000 and "reload" in messages[-1]
    qtbot.waitUntil(lambda: table.index(0, 1).data() == "fits", timeout=10_000)
    assert "kv_cache_memory_bytes" in suggestion and m.verdict_label.text() == fitting
    ctx.sampler.stop()
