"""How much of the model's context the chat (and the draft in the input box) uses: a bar that
turns red past 90 %. It counts with the engine's tokenizer in a worker thread, debounced (a burst
of typing costs one count) and a count superseded by a later one is dropped."""

from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QProgressBar, QWidget

from console.engine.types import EngineState, GenerationRequest
from console.ui.formatting import format_count
from console.ui.tasks import call_in_background
from console.ui.theme import set_themed_style

COUNT_DEBOUNCE_MS = 400


class ContextMeter(QProgressBar):
    """``used / max tokens``; "no model loaded" when there is no model to count with."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTextVisible(True)
        self.used_tokens: int | None = None
        self._engine: Callable[[], Any] | None = None
        self._request: Callable[[], GenerationRequest] | None = None
        self._generation = 0
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(COUNT_DEBOUNCE_MS)
        self._timer.timeout.connect(self.count_now)
        self.show_no_model()

    def follow(self, engine: Callable[[], Any], request: Callable[[], GenerationRequest]) -> None:
        """Count ``request()`` (the chat so far and the draft) with ``engine()``'s tokenizer."""
        self._engine, self._request = engine, request

    def schedule(self) -> None:
        """Count soon (edits in a burst cost one count)."""
        self._timer.start()

    def count_now(self) -> None:
        if self._engine is None or self._request is None:
            return
        engine = self._engine()
        status = engine.status
        if status.state != EngineState.READY or status.info is None:
            self.show_no_model()
            return
        self._generation += 1
        generation = self._generation
        request = self._request()
        max_len = status.info.max_model_len
        if request.messages is not None and not request.messages:  # an empty chat: nothing to count, and
            self.show_used(0, max_len)  # vLLM refuses to render an empty conversation (a 400 in a server's log)
            return

        def count() -> int:
            return int(engine.count_prompt_tokens(request))

        def done(n: int) -> None:
            if generation == self._generation:  # a later count supersedes this one
                self.show_used(n, max_len)

        call_in_background(count, on_success=done, on_failure=lambda _m: None, context=self)

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
        set_themed_style(self, lambda c: f"QProgressBar::chunk {{ background: {c.error}; }}" if over else "")
