"""The Batch tab's results table: one row per finished request (a read-only item model)."""

from __future__ import annotations

from typing import Any, Sequence

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt

from console.batch.results import BatchResult

_PREVIEW_CHARS = 300  # cells show a preview; the tooltip and the exports carry the whole text


class BatchResultsModel(QAbstractTableModel):
    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.results: list[BatchResult] = []
        self._headers = [
            self.tr("ID"),
            self.tr("Prompt"),
            self.tr("Output"),
            self.tr("Tokens (in/out)"),
            self.tr("TTFT (ms)"),
            self.tr("Latency (s)"),
            self.tr("Finish reason"),
        ]

    # -- Qt model interface --------------------------------------------------------------------
    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008 (Qt signature)
        return 0 if parent.isValid() else len(self.results)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._headers)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self._headers[section]
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.results):
            return None
        r = self.results[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(r, col)
        if role == Qt.ItemDataRole.ToolTipRole and col in (1, 2):
            return (r.prompt if col == 1 else (r.text if r.ok else r.error or ""))[:4000]
        if role == Qt.ItemDataRole.TextAlignmentRole and col >= 3 and col != 6:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def _display(self, r: BatchResult, col: int) -> str:
        if col == 0:
            return r.custom_id
        if col == 1:
            return _preview(r.prompt)
        if col == 2:
            return _preview(r.text) if r.ok else self.tr("error: {e}").format(e=_preview(r.error or ""))
        if col == 3:
            return f"{r.prompt_tokens}/{r.output_tokens}"
        if col == 4:
            return "" if r.ttft_s is None else f"{r.ttft_s * 1000:.0f}"
        if col == 5:
            return "" if r.latency_s is None else f"{r.latency_s:.2f}"
        return r.finish_reason or (r.error_code or "")

    # -- updates (GUI thread) ------------------------------------------------------------------
    def append(self, results: Sequence[BatchResult]) -> None:
        if not results:
            return
        n = len(self.results)
        self.beginInsertRows(QModelIndex(), n, n + len(results) - 1)
        self.results.extend(results)
        self.endInsertRows()

    def clear(self) -> None:
        self.beginResetModel()
        self.results = []
        self.endResetModel()


def _preview(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _PREVIEW_CHARS else text[:_PREVIEW_CHARS] + "…"
