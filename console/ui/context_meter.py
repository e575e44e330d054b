"""How much of the model's context the chat (and the draft in the input box) uses: a bar that
turns red past 90 %."""

from __future__ import annotations

from PySide6.QtWidgets import QProgressBar, QWidget

from console.ui.formatting import format_count


class ContextMeter(QProgressBar):
    """``used / max tokens``; "no model loaded" when there is no model to count with."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTextVisible(True)
        self.used_tokens: int | None = None
        self.show_no_model()

    def show_no_model(self) -> None:
        self.used_tokens = None
        self.setRange(0, 1)
        self.setValue(0)
        self.setFormat(self.tr("no model loaded"))

    def show_used(self, used: int, max_len: int) -> None:
        self.used_tokens = used
        self.setRange(0, max(1, max_len))
        self.setValue(min(used, max_len))
        self.setFormat(self.tr("{0} / {1} tokens").format(format_count(used), format_count(max_len)))
        over = used > max_len * 0.9
        self.setStyleSheet("QProgressBar::chunk { background: #b00020; }" if over else "")
