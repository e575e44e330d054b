"""Import folder… checks the folder holds a model before it asks anything (copy or use in place,
a name): a folder without one is refused in one line, with no dialog. The real window, no engine."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QWidget

from console.models.store import ModelStore
from console.settings import load_settings
from console.ui.context import AppContext


def test_import_folder_refuses_a_folder_without_a_model_before_any_question(
    home: Path, qtbot: Any, tmp_path: Path
) -> None:
    from console.ui.main_window import MainWindow

    window = MainWindow(AppContext.create(store=ModelStore()), load_settings(), owns_engine=False)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window._panels_built, timeout=10_000)
    photos = tmp_path / "holiday photos"
    photos.mkdir()
    (photos / "beach.jpg").write_bytes(b"\xff\xd8not a model")

    asked: list[str] = []

    def close_any_question() -> None:  # a question would block here: note it and answer Cancel
        box = QApplication.activeModalWidget()
        if isinstance(box, QWidget):
            asked.append(box.windowTitle())
            box.close()

    timer = QTimer()
    timer.timeout.connect(close_any_question)
    timer.start(50)
    try:
        assert window.models.import_folder(str(photos)) is None
    finally:
        timer.stop()
    assert asked == []
    shown = window.models.error_label.text()
    assert shown.startswith("Not a model folder:") and "holiday photos" in shown and "\n" not in shown
    assert window.models.error_label.isVisible() and ModelStore().list() == []
