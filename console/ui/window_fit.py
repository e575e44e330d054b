"""The main window's size on the screen it opens on: :func:`initial_size` (pure) for a first start,
and :func:`fit_to_screen`, which keeps a first or restored window inside the screen's free area
(no status bar below the screen's edge, no Load row under the task bar)."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QSize
from PySide6.QtWidgets import QWidget

#: What the window manager's frame (title bar, borders) adds around the window's client area.
FRAME_ALLOWANCE = (16, 40)
#: The first start's size where the screen has room: wide enough for the Models sidebar, the
#: conversations, the chat and its settings side by side, not a wall of empty space on a 4K screen.
PREFERRED = (1560, 980)


def initial_size(available: tuple[int, int]) -> tuple[int, int]:
    """The first start's client size on a screen whose free area (``QScreen.availableGeometry``)
    is ``available`` (width, height): :data:`PREFERRED`, or the free area less the frame."""
    width = min(PREFERRED[0], available[0] - FRAME_ALLOWANCE[0])
    height = min(PREFERRED[1], available[1] - FRAME_ALLOWANCE[1])
    return max(width, 1), max(height, 1)


def fit_to_screen(window: QWidget) -> None:
    """Shrink ``window`` (never below its minimum) to fit its screen's free area and move it inside."""
    screen = window.screen()
    if screen is None:
        return
    free = screen.availableGeometry()
    w, h = initial_size((free.width(), free.height()))
    size = window.size().boundedTo(QSize(w, h)).expandedTo(window.minimumSizeHint())
    if size != window.size():
        window.resize(size)
    x = min(max(window.x(), free.left()), max(free.left(), free.right() - size.width() - FRAME_ALLOWANCE[0]))
    y = min(max(window.y(), free.top()), max(free.top(), free.bottom() - size.height() - FRAME_ALLOWANCE[1]))
    if (x, y) != (window.x(), window.y()):
        window.move(QPoint(x, y))
