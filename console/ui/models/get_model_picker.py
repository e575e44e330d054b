"""The model picker at the top of "Get a model…": the curated list first, then search across
Hugging Face and ModelScope, every row with the planner's fit badges for this machine: its card,
or without one the CPU engine's verdict first and the RTX 4090's beside it (column headers and the
caption name each machine: ``console.models.machine_fit``).

The view only renders: the badges come from ``console.models.machine_fit`` / ``console.models.search``,
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
from console.ui.theme import colours, follow_theme
from console.ui.tasks import BackgroundCall
from console.ui.widgets import ErrorLabel
from console.models.curated import load_curated
from console.models.machine_fit import Machine, caption, curated_verdicts, picker_machines, verdicts

#: (column key) in order; headers are set in :meth:`ModelPicker._headers`. "fits": the verdict on
#: the machine the badges are for (this PC); "reference": the card beside it, for comparison.
COLUMNS = ("model", "fits", "reference", "longest", "pictures", "disk", "memory", "weights", "notes")
SEARCH_SOURCES = ("hf", "modelscope")  # console.models.search.SEARCH_SOURCES, not imported on the GUI's start


def _curated(device: Any) -> tuple[list[Machine], list[Any]]:
    """Worker side: the machines the badges are for, and the curated list with its verdicts, as rows."""
    machines = picker_machines(device)
    return machines, [("curated", m, v) for m, v in curated_verdicts(load_curated().models, machines)]


def _search(query: str, source: str, device: Any, state: Any) -> tuple[list[Machine], list[Any]]:
    # deferred: imports httpx
    from console.models.search import search_models

    hits = search_models(query, source=source, device=device, task=state)
    machines = picker_machines(device)
    return machines, [
        ("hit", h, verdicts(h.model_shape, None if h.gguf else h.quantization, machines, unknown=h.badges.detail))
        for h in hits
    ]


class ModelPicker(QWidget):
    """Curated checkpoints and search results with fit badges.

    Signals:
        chosen(str, str): a repository id and its source (``hf`` / ``modelscope``) to check.
    """

    chosen = Signal(str, str)

    def __init__(self, device: Any = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.device = device
        self.rows: list[Any] = []  # (kind, item, its MachineVerdicts, the prominent one first)
        self.machines: list[Machine] = []
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
        self.table.setColumnHidden(COLUMNS.index("reference"), True)  # shown when a second machine comes
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.setWordWrap(False)  # one line a model; the whole note is the cell's tooltip
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(COLUMNS.index("notes"), QHeaderView.ResizeMode.Stretch)
        self.table.setMinimumHeight(200)
        follow_theme(self.table, self._paint_badges)
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
        def fits_on(i: int) -> str:
            if i >= len(self.machines):
                return self.tr("Fits? (8k)")
            return self.tr("{0}\nfits? (8k)").format(translate_core_text(self.machines[i].label))

        return [
            self.tr("Model"),
            fits_on(0),
            fits_on(1),
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
        machines, found = cast("tuple[list[Machine], Iterable[Any]]", rows)  # what the worker returns
        self.machines, self.rows = list(machines), list(found)
        self.table.setHorizontalHeaderLabels(self._headers())
        self.table.setColumnHidden(COLUMNS.index("reference"), len(self.machines) < 2)
        self._fill()
        kind, query = self._mode
        legend = translate_core_text(caption(self.machines))
        if kind == "curated":
            self.caption.setText(
                self.tr("Curated: {0} checkpoints vLLM serves well on 24 GB. {1}.").format(
                    format_count(len(self.rows)), legend
                )
            )
        elif not self.rows:
            self.caption.setText(self.tr("Nothing found for '{0}'.").format(query))
        else:
            self.caption.setText(
                self.tr("{0} results for '{1}'. {2}.").format(format_count(len(self.rows)), query, legend)
            )

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
        for r, (kind, item, found) in enumerate(self.rows):
            for c, key in enumerate(COLUMNS):
                cell = QTableWidgetItem(self._cell(key, kind, item, found))
                if key == "notes":
                    cell.setToolTip(cell.text())
                if key in ("fits", "reference") and (verdict := self._verdict(key, found)) is not None:
                    cell.setToolTip(translate_core_text(verdict.badges.detail))
                self.table.setItem(r, c, cell)
        self._paint_badges()

    def _paint_badges(self) -> None:
        """The verdict cells in the theme's badge colours (again when the theme changes)."""
        badge_colours = colours()
        for r, (_kind, _item, found) in enumerate(self.rows):
            for key in ("fits", "reference"):
                cell = self.table.item(r, COLUMNS.index(key))
                if cell is None or (verdict := self._verdict(key, found)) is None:
                    continue
                fg, bg = badge_colours.badge(verdict.badges.verdict)
                cell.setForeground(QColor(fg))
                if key == "fits":  # this machine's verdict is the prominent one; the other is text
                    cell.setBackground(QColor(bg))

    @staticmethod
    def _verdict(key: str, found: Any) -> Any:
        """The row's verdict shown in column ``key`` (None: no such machine)."""
        i = 0 if key == "fits" else 1
        return found[i] if i < len(found) else None

    def _cell(self, key: str, kind: str, item: Any, found: Any) -> str:
        if key == "model":
            return str(item.repo)
        if key in ("fits", "reference"):
            verdict = self._verdict(key, found)
            return translate_core_text(verdict.text()) if verdict is not None else ""
        badges = found[0].badges  # the figures of the machine the badges are for
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
