"""The load banner at the top of the chat: a model's load progress and, when a load
fails, its one-line message and the way out, where the user looks rather than in the status bar.

It is fed by the bridge's signals, the ones the status bar gets (``statusChanged``, and
``loadFinished`` for a load refused before it started). A failure shows the engine's first line
and its hint, plus the planner's first suggestion for the model with an Apply that sets its knobs
(the same Apply as the Planner box) where the Models panel has one (:meth:`LoadBanner.set_fix_source`),
and "Load again". A successful load, an unload or the close button hides it. While loading, a line
beneath names vLLM's phases passed so far with their seconds and the one under way
(``EngineStatus.phases``): only those the load goes through (no CUDA graphs on the CPU).

Signals:
    applyRequested(dict): the planner suggestion's changes (engine-config keys), as the Planner box's Apply.
    retryRequested(): load the selected model again.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QProgressBar, QPushButton, QVBoxLayout, QWidget

from console.engine.errors import free_memory_fix, refusal_fix
from console.engine.load_phases import LoadPhases
from console.engine.types import EngineState, EngineStatus
from console.ui.context import AppContext
from console.ui.core_text import translate_core_text
from console.ui.load_phases_text import phases_line
from console.ui.theme import Colours, set_themed_style

#: (the suggestion's text as shown, its changes) for a model's failed load, or None
FixSource = Callable[[str], tuple[str, dict[str, Any]] | None]


def _style(state: str, c: Colours) -> str:
    """The banner's stylesheet while loading (amber) or after a failure (red), in the theme's colours."""
    background, border = c.loading_banner if state == "loading" else c.failed_banner
    return f"QFrame#LoadBanner {{ background: {background}; border: 1px solid {border}; border-radius: 4px; }}"


class LoadBanner(QFrame):
    applyRequested = Signal(dict)
    retryRequested = Signal()

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("LoadBanner")
        self.state = ""  # "" (hidden) | "loading" | "failed"
        self._model = ""
        self._stage = ""
        self._since = 0.0
        self._phases: LoadPhases | None = None
        self._phases_at = 0.0  # when they came (the phase under way goes on counting)
        self._error = ""
        self._fix: dict[str, Any] | None = None
        self._fix_source: FixSource | None = None

        self.message_label = QLabel(self)
        self.message_label.setWordWrap(True)
        self.phases_label = QLabel(self)  # vLLM's phases: "Weights 3.1 s · now: KV cache 2 s…"
        self.phases_label.setWordWrap(True)
        self.progress = QProgressBar(self)
        self.progress.setRange(0, 0)  # busy: vLLM reports stages, not a fraction
        self.progress.setMaximumHeight(8)
        self.progress.setTextVisible(False)
        self.hint_label = QLabel(self)
        self.hint_label.setWordWrap(True)
        self.fix_label = QLabel(self)
        self.fix_label.setWordWrap(True)
        self.apply_button = QPushButton(self.tr("Apply"), self)
        self.apply_button.setToolTip(self.tr("Set the knobs this suggestion names (Models panel)"))
        self.apply_button.clicked.connect(self._on_apply_clicked)
        self.retry_button = QPushButton(self.tr("Load again"), self)
        self.retry_button.clicked.connect(self.retryRequested)
        self.close_button = QPushButton("×", self)
        self.close_button.setToolTip(self.tr("Hide this message"))
        self.close_button.setFlat(True)
        self.close_button.setFixedWidth(24)
        self.close_button.clicked.connect(self.dismiss)

        top = QHBoxLayout()
        top.addWidget(self.message_label, 1)
        top.addWidget(self.close_button)
        fix = QHBoxLayout()
        fix.addWidget(self.fix_label, 1)
        fix.addWidget(self.apply_button)
        fix.addWidget(self.retry_button)
        root = QVBoxLayout(self)
        root.setContentsMargins(8, 4, 8, 4)
        root.addLayout(top)
        root.addWidget(self.phases_label)
        root.addWidget(self.progress)
        root.addWidget(self.hint_label)
        root.addLayout(fix)

        self._timer = QTimer(self)  # the elapsed seconds while loading
        self._timer.setInterval(1000)
        self._timer.timeout.connect(self._show_loading)
        ctx.bridge.statusChanged.connect(self._on_bridge_status_changed)
        ctx.bridge.loadFinished.connect(self._on_bridge_load_finished)
        self.hide()
        self._on_bridge_status_changed(ctx.engine.status)

    def set_fix_source(self, source: FixSource) -> None:
        """Where a failed load's fix comes from: the planner's suggestion for a model name."""
        self._fix_source = source

    def text(self) -> str:
        """Everything the banner says now (tests, the bug report)."""
        parts = (self.message_label, self.phases_label, self.hint_label, self.fix_label)
        return "\n".join(w.text() for w in parts if w.text() and not w.isHidden()) if self.state else ""

    def dismiss(self) -> None:
        self.state = ""
        self._timer.stop()
        self.hide()

    # -- states ----------------------------------------------------------------------------------
    def _show_loading(self) -> None:
        seconds = time.monotonic() - self._since
        self.message_label.setText(
            self.tr("Loading {0}: {1} ({2:.0f} s)").format(
                self._model, translate_core_text(self._stage) if self._stage else "…", seconds
            )
        )
        p = self._phases
        line = (
            "" if p is None else phases_line(p.done, p.current, p.current_seconds + time.monotonic() - self._phases_at)
        )
        self.phases_label.setText(line)
        self.phases_label.setVisible(bool(line))

    def _enter(self, state: str) -> None:
        self.state = state
        set_themed_style(self, lambda c: _style(state, c))
        loading = state == "loading"
        self.progress.setVisible(loading)
        self.phases_label.setVisible(loading and bool(self.phases_label.text()))
        for w in (self.hint_label, self.fix_label, self.apply_button, self.retry_button):
            w.setVisible(not loading)
        self.show()

    def show_loading(self, model: str, stage: str, phases: LoadPhases | None = None) -> None:
        if self.state != "loading":
            self._since = time.monotonic()
            self.phases_label.clear()
            self._enter("loading")
            self._timer.start()
        self._model, self._stage = model, stage
        self._phases, self._phases_at = phases, time.monotonic()
        self._show_loading()

    def show_failure(self, model: str, error: str) -> None:
        """The message's first line, its hint (the engine's way out), the planner's fix."""
        if self.state == "failed" and (model, error) == (self._model, self._error):
            return  # the status and the load's outcome say it twice
        self._timer.stop()
        self._model, self._error = model, error
        lines = [ln for ln in error.splitlines() if ln.strip()] or [self.tr("unknown error")]
        self.message_label.setText(
            self.tr("Loading {0} failed: {1}").format(model, lines[0])
            if model
            else self.tr("Load failed: {0}").format(lines[0])
        )
        self.hint_label.setText(" ".join(lines[1:]))
        own = refusal_fix(error)  # vLLM named the longest length that fits: that, not an estimate
        busy = free_memory_fix(error) if own is None else None  # vLLM measured what is free on the card
        fix = own or busy or (self._fix_source(model) if self._fix_source is not None and model else None)
        self._fix = fix[1] if fix else None
        if own is not None:
            self.fix_label.setText(self.tr("vLLM says this fits: {0}").format(own[0]))
        elif busy is not None:
            self.fix_label.setText(
                self.tr("Other programs hold memory on the card; this fits what is free: {0}").format(
                    translate_core_text(busy[0])
                )
            )
        else:
            self.fix_label.setText(self.tr("The planner suggests: {0}").format(fix[0]) if fix else "")
        self._enter("failed")
        self.hint_label.setVisible(len(lines) > 1)
        self.fix_label.setVisible(fix is not None)
        self.apply_button.setVisible(fix is not None)

    # -- slots -----------------------------------------------------------------------------------
    def _on_bridge_status_changed(self, status: EngineStatus) -> None:
        if status.state == EngineState.LOADING:
            self.show_loading(status.model or "", status.stage, status.phases)
        elif status.state == EngineState.FAILED:
            self.show_failure(status.model or "", status.error or "")
        elif self.state:  # ready, stopping or stopped: nothing to say here
            self.dismiss()

    def _on_bridge_load_finished(self, outcome: object) -> None:
        if not isinstance(outcome, str) or (self.state == "failed" and outcome == self._error):
            return  # a success, or the failure the status already showed
        self.show_failure("", outcome)  # refused before it started (busy, a speed knob the device lacks)

    def _on_apply_clicked(self) -> None:
        if self._fix is not None:
            self.applyRequested.emit(dict(self._fix))
            self.fix_label.setText(self.tr("Knobs changed: load again to use them."))
            self.apply_button.hide()
