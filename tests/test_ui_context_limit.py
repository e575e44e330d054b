"""The context-length knob shows what a load would use: with a model selected it goes no further
than the model's own context, so typing 10,000,000 leaves that model's longest context in the
field and in the saved settings (not a value the load cuts down). The real window, no engine."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QSpinBox

from console.models.store import ModelStore
from console.settings import load_settings
from console.ui.context import AppContext


def test_context_length_stays_within_the_selected_model(home: Path, tiny_model: Path, qtbot: Any) -> None:
    from console.ui.main_window import MainWindow

    store = ModelStore()
    longest = store.add_reference("tiny", tiny_model).max_context
    assert longest
    window = MainWindow(AppContext.create(store=store), load_settings(), owns_engine=False)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window._panels_built, timeout=10_000)
    models = window.models
    assert models.select_model("tiny")
    field = models.knobs_box.widget("max_model_len")
    assert isinstance(field, QSpinBox)

    field.setFocus()
    field.selectAll()
    qtbot.keyClicks(field, "10000000")
    qtbot.keyClick(field, Qt.Key.Key_Return)
    assert 0 < field.value() <= longest  # never more than the model takes
    field.setValue(10_000_000)  # as a restored setting or an Apply would set it
    assert field.value() == longest
    settings = load_settings()
    models.save(settings)
    assert settings.knobs.max_model_len == longest  # the settings keep what is used
