"""The Models panel's layout: the store's table, the import buttons, the preset and its knobs and
the plan in one column that scrolls on a short screen; the Load / Unload / Reload row (with Keep
warm), the warm line and the error line stay below it, always in view, so a laptop's 768-pixel
screen never cuts the panel's main action off."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtWidgets import QGridLayout, QHBoxLayout, QVBoxLayout, QWidget

from console.ui.widgets import VerticalScroll


def build_layout(
    panel: QWidget,
    table: QWidget,
    buttons: Sequence[QWidget],
    boxes: Sequence[QWidget],
    load_row: Sequence[QWidget],
    below: Sequence[QWidget],
) -> VerticalScroll:
    """Lay ``panel`` out (its widgets are its children already); the column's scroll area."""
    body = QWidget(panel)
    column = QVBoxLayout(body)
    column.setContentsMargins(0, 0, 0, 0)
    column.addWidget(table, 3)
    grid = QGridLayout()  # two rows of three: the sidebar stays narrow enough for a laptop
    for i, b in enumerate(buttons):
        grid.addWidget(b, i // 3, i % 3)
    column.addLayout(grid)
    for box in boxes:
        column.addWidget(box)

    root = QVBoxLayout(panel)
    root.setContentsMargins(6, 6, 6, 6)
    scroll = VerticalScroll(body, panel)
    root.addWidget(scroll, 1)
    row = QHBoxLayout()
    for w in load_row:
        row.addWidget(w)
    root.addLayout(row)
    for w in below:
        root.addWidget(w)
    return scroll
