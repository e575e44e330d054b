"""The model picker at the top of "Get a model…": the curated list first, then search across
Hugging Face and ModelScope, every row with the planner's fit badge for this machine's card.

The view only renders: the badges come from ``console.models.curated`` / ``console.models.search``,
computed in a worker thread (:class:`console.ui.tasks.BackgroundCall`) and never on the GUI
thread. A search starts only when the user presses Enter or Search; Cancel drops the answer (the
request itself ends at its timeout). Choosing a row emits :attr:`ModelPicker.chosen`, which the
dialog turns into its Check step, so a download goes through the same path as a typed name.
"""

from __future__ import annotations

from typing import Any, Iterable, cast

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from console.ui.core_text import translate_core_text
from console.ui.formatting import format_bytes, format_count, format_params
from console.ui.models.table import VERDICT_COLOURS, verdict_text
from console.ui.tasks import BackgroundCall
from console.ui.widgets import ErrorLabel
from console.models.curated import curated_badges, load_curated
from console.models.fit_table import local_in_use

#: (column key) in order; headers are set in :meth:`ModelPicker._headers`.
COLUMNS = ("model", "fits", "longest", "pictures", "disk", "memory", "weights", "notes")
UNKNOWN_COLOURS = ("#555555", "#e6e6e6")
SEARCH_SOURCES = ("hf", "modelscope")  # console.models.search.SEARCH_SOURCES, not imported on the GUI's start


def _curated(device: Any) -> list[Any]:
    """Worker side: the curated list with its badges, as rows."""

    in_use = local_in_use(device) if device is not None and not isinstance(device, str) else None  # this card's
    return [("curated", m, b) for m, b in curated_badges(load_curated().models, device, in_use)]


def _search(query: str, source: str, device: Any, state: Any) -> list[Any]:
    # deferred: imports httpx
    from console.models.search import search_models

    return [("hit", h, h.badges) for h in search_models(query, source=source, device=device, task=state)]


class ModelPicker(QWidget):
    """Curated checkpoints and search results with fit badges.

    Signals:
        chosen(str, str): a repository id and its source (``hf`` / ``modelscope``) to check.
    """

    chosen = Signal(str, str)

    def __init__(self, device: Any = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.device = device
        self.rows: list[Any] = []
        self._call: BackgroundCall | None = None
        self._mode: tuple[str, str] = ("curated", "")

        self.search_edit = QLineEdit(self)
        self.search_edit.setPlaceholderText(self.tr("Search models, e.g. qwen3 awq (Enter searches)"))
        self.source_combo = QComboBox(self)
        self.source_combo.addItem(self.tr("Hugging Face"), SEARCH_SOURCES[0])
        self.source_combo.addItem(self.tr("ModelScope"), SEARCH_SOURCES[1])
        self.search_button = QPushButton(self.tr("Search"), self)
        self.cancel_button = QPushButton(self.tr("Cancel search"), self)
        self.cancel_button.setEnabled(False)
        self.curated_button = QPushButton(self.tr("Curated list"), self)
        self.busy_bar = QProgressBar(self)
        self.busy_bar.setRange(0, 0)
        self.busy_bar.setMaximumHeight(6)
        self.busy_bar.setTextVisible(False)
        self.busy_bar.hide()
        self.caption = QLabel(self)
        self.caption.setWordWrap(True)
        self.error_label = ErrorLabel(self)
        self.table = QTableWidget(0, len(COLUMNS), self)
        self.table.setHorizontalHeaderLabels(self._headers())
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.setWordWrap(False)  # one line a model; the whole note is the cell's tooltip
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(COLUMNS.index("notes"), QHeaderView.ResizeMode.Stretch)
        self.table.setMinimumHeight(200)
        self.use_button = QPushButton(self.tr("Check the selected model"), self)
        self.use_button.setEnabled(False)

        row = QHBoxLayout()
        row.addWidget(self.search_edit, 1)
        row.addWidget(self.source_combo)
        row.addWidget(self.search_button)
        row.addWidget(self.cancel_button)
        row.addWidget(self.curated_button)
        root = QVBoxLayout(self)
        root.setContentsMargins(0, 0, 0, 0)
        root.addLayout(row)
        root.addWidget(self.busy_bar)
        root.addWidget(self.caption)
        root.addWidget(self.error_label)
        root.addWidget(self.table, 1)
        root.addWidget(self.use_button, 0, Qt.AlignmentFlag.AlignRight)

        self.search_edit.returnPressed.connect(self.search)
        self.search_button.clicked.connect(self.search)
        self.cancel_button.clicked.connect(self.cancel)
        self.curated_button.clicked.connect(self.show_curated)
        self.table.itemSelectionChanged.connect(lambda: self.use_button.setEnabled(self.selected() is not None))
        self.table.itemDoubleClicked.connect(lambda _item: self.use_selected())
        self.use_button.clicked.connect(self.use_selected)
        self.show_curated()

    def _headers(self) -> list[str]:
        return [
            self.tr("Model"),
            self.tr("Fits? (8k)"),
            self.tr("Longest context"),
            self.tr("Pictures"),
            self.tr("On disk"),
            self.tr("In memory (8k)"),
            self.tr("Weights"),
            self.tr("Notes"),
        ]

    # -- state -----------------------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        return self._call is not None

    def _start(self, call: BackgroundCall, caption: str) -> None:
        self.cancel()
        self._call = call
        self.error_label.clear_text()
        self.caption.setText(caption)
        self.busy_bar.show()
        self.cancel_button.setEnabled(True)
        # bound slots (not lambdas): Qt drops them with the picker, and sender() tells a stale call
        call.succeeded.connect(self._on_rows)
        call.failed.connect(self._on_failed)
        call.finished.connect(self._on_finished)
        call.start()

    def show_curated(self) -> None:
        """The curated list with badges for this machine's card (computed off the GUI thread)."""
        self._mode = ("curated", "")
        self._start(BackgroundCall(_curated, self.device), self.tr("Working out the curated list's fit…"))

    def search(self) -> None:
        """Search the chosen hub for the box's words: only on the user's Enter or Search."""
        query = self.search_edit.text().strip()
        if not query:
            self.show_curated()
            return
        source = str(self.source_combo.currentData())
        self._mode = ("search", query)
        call = BackgroundCall(lambda: _search(query, source, self.device, call.state))
        self._start(call, self.tr("Searching {0} for '{1}'…").format(self.source_combo.currentText(), query))

    def cancel(self) -> None:
        """Stop waiting for the answer in flight (it is dropped when it comes)."""
        if self._call is None:
            return
        self._call.state.cancel()
        self._call = None
        self.busy_bar.hide()
        self.cancel_button.setEnabled(False)
        self.caption.setText(self.tr("Search cancelled."))

    def _current(self) -> bool:
        """Whether the signal being handled comes from the call in flight (not a cancelled one)."""
        return self._call is not None and self.sender() is self._call

    def _on_rows(self, rows: object) -> None:
        if not self._current():
            return  # cancelled or replaced meanwhile
        self.rows = list(cast("Iterable[Any]", rows))  # what the worker returns
        self._fill()
        kind, query = self._mode
        if kind == "curated":
            card = self.rows[0][2].card if self.rows else ""
            self.caption.setText(
                self.tr("Curated: {0} checkpoints vLLM serves well on 24 GB; fit for {1}.").format(
                    format_count(len(self.rows)), card
                )
            )
        elif not self.rows:
            self.caption.setText(self.tr("Nothing found for '{0}'.").format(query))
        else:
            self.caption.setText(self.tr("{0} results for '{1}'.").format(format_count(len(self.rows)), query))

    def _on_failed(self, message: str) -> None:
        if self._current():
            self.caption.clear()
            self.error_label.show_text(translate_core_text(message))

    def _on_finished(self) -> None:
        if self._current():
            self._call = None
            self.busy_bar.hide()
            self.cancel_button.setEnabled(False)

    # -- rows ------------------------------------------------------------------------------------
    def _fill(self) -> None:
        self.table.setRowCount(0)
        self.table.setRowCount(len(self.rows))
        for r, (kind, item, badges) in enumerate(self.rows):
            for c, key in enumerate(COLUMNS):
                cell = QTableWidgetItem(self._cell(key, kind, item, badges))
                if key == "notes":
                    cell.setToolTip(cell.text())
                if key == "fits":
                    fg, bg = VERDICT_COLOURS.get(badges.verdict, UNKNOWN_COLOURS)
                    cell.setForeground(QColor(fg))
                    cell.setBackground(QColor(bg))
                    cell.setToolTip(translate_core_text(badges.detail))
                self.table.setItem(r, c, cell)

    def _cell(self, key: str, kind: str, item: Any, badges: Any) -> str:
        if key == "model":
            return str(item.repo)
        if key == "fits":
            return self.tr("unknown") if badges.verdict == "unknown" else verdict_text(badges.verdict)
        if key == "longest":
            return self.tr("{0} tokens").format(format_count(badges.longest_context)) if badges.longest_context else "—"
        if key == "pictures":  # "vision: 256 tokens a picture"; a text model takes none
            picture = badges.picture_text()
            return translate_core_text(picture) if picture is not None else "—"
        if key == "disk":
            return format_bytes(item.disk_bytes if kind == "curated" else item.size_bytes)
        if key == "memory":
            return format_bytes(badges.memory_bytes)
        if key == "weights":
            if kind == "hit" and item.gguf:
                return self.tr("GGUF → 16-bit")
            quant = (item.quantization or "").upper() or self.tr("16-bit")
            return f"{quant} · {format_params(item.params)}"
        if kind == "curated":
            return self.tr("preset {0}; {1}").format(item.preset, item.note)
        if item.gguf:
            text = self.tr("becomes about {0} as 16-bit weights").format(format_bytes(item.converted_bytes))
            if item.alternatives:
                text += "; " + self.tr("instead: {0}").format(item.alternatives[0].repo)
            return text
        return self.tr("shape unknown until download") if item.shape_name is None else str(item.shape_name)

    def selected(self) -> tuple[str, str] | None:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return None
        kind, item, _badges = self.rows[rows[0].row()]
        return str(item.repo), str(item.source)

    def use_selected(self) -> None:
        picked = self.selected()
        if picked is not None:
            self.chosen.emit(*picked)
