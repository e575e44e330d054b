"""The Models panel's table: the store's models as rows, with the planner's "fits?" verdict per
model (computed elsewhere, off the GUI thread: :mod:`console.models.fit_table`)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QCoreApplication, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QWidget

from console.models.store import ModelEntry
from console.models.fit_table import Fit
from console.ui.formatting import format_bytes, format_count, format_params
from console.ui.theme import LIGHT, colours

_Index = QModelIndex | QPersistentModelIndex
#: The verdict cell's (text, background) colours in the light theme (:data:`console.ui.theme.LIGHT`);
#: the cells take the current theme's (:func:`console.ui.theme.colours`).
VERDICT_COLOURS = LIGHT.badges


def human_bytes(n: float | None) -> str:
    """A size in the user's locale (``1.5 GiB`` / ``1,5 GiB``); "—" for none."""
    return format_bytes(n)


def human_params(n: int | None) -> str:
    return format_params(n)


def verdict_text(verdict: str) -> str:
    """A planner verdict (or a fit table's) in the user's language."""
    tr = QCoreApplication.translate
    words = {
        "fits": tr("ModelsPanel", "fits"),
        "fits-with-changes": tr("ModelsPanel", "fits with changes"),
        "does-not-fit": tr("ModelsPanel", "does not fit"),
        "files-missing": tr("ModelsPanel", "files missing"),
        "error": tr("ModelsPanel", "error"),
    }
    return words.get(verdict, verdict)


class ModelTableModel(QAbstractTableModel):
    """The store's models as rows; the "fits?" column, next to the name (fit first), holds the
    planner's verdict per model, coloured."""

    COLUMNS = ("name", "fits", "architecture", "params", "quantization", "size", "max_context")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.entries: list[ModelEntry] = []
        self.fits: dict[str, str] = {}
        self.verdicts: dict[str, Fit] = {}

    def headers(self) -> list[str]:
        return [
            self.tr("Name"),
            self.tr("Fits?"),
            self.tr("Architecture"),
            self.tr("Params"),
            self.tr("Quantization"),
            self.tr("Size"),
            self.tr("Max context"),
        ]

    def set_entries(self, entries: list[ModelEntry]) -> None:
        self.beginResetModel()
        self.entries = list(entries)
        self.endResetModel()

    def set_fits(self, fits: dict[str, Fit]) -> None:
        self.fits = {name: verdict_text(f.verdict) for name, f in fits.items()}
        self.verdicts = dict(fits)
        if self.entries:
            col = self.COLUMNS.index("fits")
            self.dataChanged.emit(self.index(0, col), self.index(len(self.entries) - 1, col))

    def rowCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.entries)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self.headers()[section]
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.entries):
            return None
        e = self.entries[index.row()]
        col = self.COLUMNS[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return {
                "name": e.name,
                "architecture": e.architecture.removesuffix("ForCausalLM"),
                "params": human_params(e.params),
                "quantization": e.quantization or self.tr("none"),
                "size": human_bytes(e.size_bytes),
                "max_context": format_count(e.max_context) if e.max_context else "—",
                "fits": self.fits.get(e.name, "?"),
            }[col]
        fit = self.verdicts.get(e.name) if col == "fits" else None
        if fit is not None and role in (Qt.ItemDataRole.ForegroundRole, Qt.ItemDataRole.BackgroundRole):
            badge = colours().badges.get(str(fit.verdict))  # green fits, amber with changes, red does not
            return QColor(badge[role == Qt.ItemDataRole.BackgroundRole]) if badge else None
        if role == Qt.ItemDataRole.ToolTipRole:
            if fit is not None and fit.detail:
                return fit.detail
            if not e.available:
                return self.tr("The files of this model are gone: {0}").format(e.path)
            return e.path
        if role == Qt.ItemDataRole.ForegroundRole and not e.available:
            return QColor(colours().faint)  # the files are gone
        if role == Qt.ItemDataRole.TextAlignmentRole and col in ("params", "size", "max_context"):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None
