"""The Chat tab's LoRA box: which adapter answers this conversation, attaching one to the loaded
model, and the same prompt answered by the base and by the adapter side by side.

The adapters live on the engine (``console/engine/adapters.py``); this box lists them, forwards
the user's choice (remembered per conversation) and renders the comparison. The two compared
answers are ordinary requests through the bridge, each with its own id; events of other ids are
ignored.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from console.sampling import SamplingSettings
from console.engine.interface import AttachesAdapters, backend_of
from console.engine.types import EngineError, EngineState, GenerationRequest, RequestFailed, RequestFinished, TokenDelta
from console.models.lora import AdapterError
from console.ui.context import AppContext
from console.ui.widgets import ErrorLabel


class AdapterBox(QWidget):
    """Pick the adapter that answers (or the base model), attach one, compare with the base: a
    narrow column in the chat's side bar (a row beside the buttons made the window too wide)."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.title = QLabel(self.tr("LoRA adapter"), self)
        self._by_conversation: dict[int, str | None] = {}
        self.combo = QComboBox(self)
        self.combo.setToolTip(self.tr("The adapter that answers this conversation (the base model: none)"))
        self.attach_button = QPushButton(self.tr("Attach adapter…"), self)
        self.attach_button.setToolTip(
            self.tr("Use a PEFT LoRA folder with the loaded model (it must have been loaded with LoRA slots)")
        )
        self.attach_button.clicked.connect(lambda: self.attach())
        self.compare_button = QPushButton(self.tr("Compare with base"), self)
        self.compare_button.setToolTip(
            self.tr("Answer the message box with the base model and with the adapter, side by side (not saved)")
        )
        self.error_label = ErrorLabel(self)
        self.compare = CompareView(ctx, self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.combo)
        row = QHBoxLayout()
        for widget in (self.attach_button, self.compare_button):
            row.addWidget(widget)
        layout.addLayout(row)
        layout.addWidget(self.error_label)
        self.refresh()

    def current(self) -> str | None:
        """The chosen adapter's name; None for the base model."""
        data = self.combo.currentData()
        return str(data) if data else None

    def refresh(self) -> None:
        """List the adapters of the loaded model (keeping the choice when it is still there)."""
        chosen = self.current()
        engine = self.ctx.engine
        names = sorted(engine.adapters()) if engine.status.state == EngineState.READY else []
        self.combo.blockSignals(True)
        self.combo.clear()
        self.combo.addItem(self.tr("Base model (no adapter)"), None)
        for name in names:
            self.combo.addItem(name, name)
        self.select(chosen)
        self.combo.blockSignals(False)
        lora = bool(engine.config is not None and engine.config.enable_lora)
        self.attach_button.setEnabled(self._in_process() is not None and lora)
        self.compare_button.setEnabled(bool(names))

    def compare_with_base(self, messages: list[dict[str, str]], sampling: SamplingSettings) -> list[str]:
        """Answer ``messages`` with the base model and the chosen adapter (else the first one)."""
        adapter = self.current() or next(iter(sorted(self.ctx.engine.adapters())), None)
        if adapter is None or self.ctx.engine.status.state != EngineState.READY or len(messages) < 1:
            return []
        return self.compare.start(messages, adapter, sampling)

    def select(self, name: str | None) -> None:
        index = self.combo.findData(name) if name else 0
        self.combo.setCurrentIndex(max(0, index))

    def fields(self) -> dict[str, Any]:
        """The request's adapter field."""
        return {"adapter": self.current()}

    def remember(self, conversation_id: int | None) -> None:
        """``conversation_id`` is answered by the current choice (:meth:`recall` restores it)."""
        if conversation_id is not None:
            self._by_conversation[conversation_id] = self.current()

    def recall(self, conversation_id: int) -> None:
        """Show the adapter ``conversation_id`` used last (no change for one never answered here)."""
        if conversation_id in self._by_conversation:
            self.select(self._by_conversation[conversation_id])

    def _in_process(self) -> AttachesAdapters | None:
        """The engine loaded in this process (adapters attach there), None for a server."""
        backend = backend_of(self.ctx.engine)
        return backend if isinstance(backend, AttachesAdapters) else None

    def attach(self, folder: str | None = None, name: str | None = None) -> bool:
        engine = self._in_process()
        if folder is None:
            folder = QFileDialog.getExistingDirectory(self, self.tr("PEFT LoRA adapter folder"))
            if not folder:
                return False
        name = name or folder.rstrip("/").rsplit("/", 1)[-1]
        if engine is None:
            self.error_label.show_text(
                self.tr(
                    "Adapters are attached to a model loaded in the console; "
                    "a server serves the adapters it was started with"
                )
            )
            return False
        try:
            engine.attach_adapter(name, folder)  # reads two small files: the checks, not the weights
        except (AdapterError, EngineError) as exc:
            self.error_label.show_text(str(exc))
            return False
        self.error_label.clear_text()
        self.refresh()
        self.select(name)
        return True


class CompareView(QWidget):
    """Two answers to one prompt, the base model's and the adapter's, side by side."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowFlag(Qt.WindowType.Window)  # its own window beside the chat
        self.ctx = ctx
        self.setWindowTitle(self.tr("Base model and adapter, same prompt"))
        self.base_title, self.adapter_title = QLabel(self.tr("Base model"), self), QLabel(self)
        self.base_text, self.adapter_text = QPlainTextEdit(self), QPlainTextEdit(self)
        self._ids: dict[str, QPlainTextEdit] = {}
        self._pending: set[str] = set()  # ids still answering
        layout = QHBoxLayout(self)
        for title, text in ((self.base_title, self.base_text), (self.adapter_title, self.adapter_text)):
            text.setReadOnly(True)
            column = QVBoxLayout()
            column.addWidget(title)
            column.addWidget(text, 1)
            layout.addLayout(column)
        ctx.bridge.requestEvents.connect(self._on_bridge_request_events)
        self.resize(760, 360)

    def start(self, messages: list[dict[str, str]], adapter: str, sampling: SamplingSettings) -> list[str]:
        """Submit the prompt twice (base, adapter); returns the two request ids."""
        self.adapter_title.setText(self.tr("Adapter: {0}").format(adapter))
        self._ids.clear()
        for text, name in ((self.base_text, None), (self.adapter_text, adapter)):
            text.clear()
            request = GenerationRequest(messages=messages, sampling=sampling, adapter=name)
            self._ids[self.ctx.bridge.submit(request)] = text
        self._pending = set(self._ids)
        self.show()
        return list(self._ids)

    def _on_bridge_request_events(self, batch: list[Any]) -> None:
        for ev in batch:
            view = self._ids.get(ev.request_id)
            if view is None:
                continue
            if isinstance(ev, TokenDelta):
                view.insertPlainText(ev.text)
            elif isinstance(ev, RequestFinished):
                view.setPlainText(ev.text)
                self._pending.discard(ev.request_id)
            elif isinstance(ev, RequestFailed):
                view.setPlainText(self.tr("The answer failed: {0}").format(ev.message))
                self._pending.discard(ev.request_id)

    def finished(self) -> bool:
        """Both answers are complete."""
        return bool(self._ids) and not self._pending

    def texts(self) -> tuple[str, str]:
        return self.base_text.toPlainText(), self.adapter_text.toPlainText()
