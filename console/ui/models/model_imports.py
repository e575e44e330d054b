"""The Models panel's imports: a GGUF file or a Hugging Face folder into the store, in a worker
with progress and cancel (:func:`console.ui.tasks.run_with_progress`); the panel then shows the
new model selected. Split from ``panel.py`` by job; it tells the panel through its signals
(the panel is above this module).

Signals:
    started(): an import begins (the panel clears its error line).
    imported(str): the model of this name is in the store now.
    failed(str): the import failed; the text says why, for the panel's error line.
    message(str): a one-line outcome for the status bar.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMessageBox, QWidget

from console.models.inspect import ModelFormatError, inspect_checkpoint
from console.models.store import ModelEntry, suggest_name
from console.ui.tasks import run_with_progress
from console.models.importers import import_gguf, import_hf_folder

if TYPE_CHECKING:
    from console.ui.context import AppContext


class ModelImporter(QObject):
    """Imports into ``ctx``'s store; its dialogs open over ``panel``."""

    started = Signal()
    imported = Signal(str)
    failed = Signal(str)
    message = Signal(str)

    def __init__(self, panel: QWidget, ctx: AppContext) -> None:
        super().__init__(panel)
        self.panel = panel
        self.ctx = ctx

    def import_gguf(self, path: str | None = None, name: str | None = None) -> Any:
        if path is None:
            path, _ = QFileDialog.getOpenFileName(
                self.panel, self.tr("Import a GGUF file"), "", self.tr("GGUF files (*.gguf);;All files (*)")
            )
            if not path:
                return None
        if name is None:
            name = self._ask_name(Path(path).stem)
            if not name:
                return None

        return self._run_import(
            self.tr("Importing {0}").format(Path(path).name),
            lambda state: import_gguf(self.ctx.store, Path(path), name, state),
        )

    def import_folder(self, path: str | None = None, name: str | None = None, copy: bool | None = None) -> Any:
        if path is None:
            path = QFileDialog.getExistingDirectory(self.panel, self.tr("Import a Hugging Face model folder"))
            if not path:
                return None
        # The folder is checked before any question: no copy-or-use and no name for a folder that
        # holds no model. One GGUF file in it is imported as a GGUF (converted, so never in place).
        try:
            inspect_checkpoint(Path(path))
        except ModelFormatError as exc:
            ggufs = sorted(Path(path).glob("*.gguf")) if Path(path).is_dir() else []
            if len(ggufs) == 1:
                return self.import_gguf(str(ggufs[0]), name)
            self.failed.emit(self.tr("Not a model folder: {0}").format(exc))
            return None
        if copy is None:
            box = QMessageBox(
                QMessageBox.Icon.Question,
                self.tr("Import folder"),
                self.tr("Copy the model into the store, or use it where it is?"),
                QMessageBox.StandardButton.Cancel,
                self.panel,
            )
            copy_btn = box.addButton(self.tr("Copy into store"), QMessageBox.ButtonRole.AcceptRole)
            box.addButton(self.tr("Use in place"), QMessageBox.ButtonRole.AcceptRole)
            box.exec()
            if box.clickedButton() is box.button(QMessageBox.StandardButton.Cancel):
                return None
            copy = box.clickedButton() is copy_btn
        if name is None:
            name = self._ask_name(Path(path).name)
            if not name:
                return None

        return self._run_import(
            self.tr("Importing {0}").format(Path(path).name),
            lambda state: import_hf_folder(self.ctx.store, Path(path), name, state, copy=bool(copy)),
        )

    def _ask_name(self, suggestion: str) -> str | None:
        clean = suggest_name(suggestion)
        name, ok = QInputDialog.getText(self.panel, self.tr("Model name"), self.tr("Name in the store:"), text=clean)
        return name.strip() if ok and name.strip() else None

    def _run_import(self, title: str, fn: Any) -> Any:
        self.started.emit()

        def done(entry: ModelEntry) -> None:
            self.imported.emit(entry.name)
            self.message.emit(self.tr("Imported {0}").format(entry.name))

        def failed(msg: str) -> None:
            self.failed.emit(self.tr("Import failed: {0}").format(msg))

        def cancelled() -> None:
            self.message.emit(self.tr("Import cancelled; nothing was added"))

        return run_with_progress(self.panel, title, fn, done, failed, cancelled)


__all__ = ["ModelImporter"]
