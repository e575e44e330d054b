"""The chat's "Output" control: free text, a JSON schema (edited and checked as you type), a
list of choices or a regular expression; log-probabilities on demand and several answers.

:meth:`OutputControl.fields` gives the OpenAI body fields (``output_fields`` in
``console/engine/openai_body.py``), which vLLM's own request model checks and converts; it raises
``ValueError`` with a readable message while the editor holds something unusable.

Signals: ``changed()`` whenever what the control asks for changes.
"""

from __future__ import annotations

import json
import re
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QFormLayout, QGroupBox, QLabel, QPlainTextEdit, QSpinBox, QWidget

from console.sampling import SamplingSettings
from console.engine.openai_body import output_fields, request_fields
from console.ui.theme import text_colour

FREE, SCHEMA, CHOICE, REGEX = "text", "json_schema", "choice", "regex"

EXAMPLE_SCHEMA = """{
  "type": "object",
  "properties": {"answer": {"type": "string"}, "confidence": {"type": "number"}},
  "required": ["answer", "confidence"]
}"""


def check_schema(text: str) -> dict[str, Any]:
    """The schema in ``text``; ValueError saying what is wrong (JSON, or not a valid schema)."""
    try:
        schema = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    if not isinstance(schema, dict):
        raise ValueError("a JSON schema is an object ({...})")
    import jsonschema

    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except jsonschema.SchemaError as exc:
        where = "/".join(str(p) for p in exc.path)
        raise ValueError(f"not a valid JSON schema: {exc.message}" + (f" (at {where})" if where else "")) from None
    return schema


class OutputControl(QGroupBox):
    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(self.tr("Output"), parent)
        self.mode = QComboBox(self)
        for key, label in (
            (FREE, self.tr("Free text")),
            (SCHEMA, self.tr("JSON schema")),
            (CHOICE, self.tr("One of a list")),
            (REGEX, self.tr("Regular expression")),
        ):
            self.mode.addItem(label, key)
        self.editor = QPlainTextEdit(self)
        self.editor.setMaximumHeight(120)
        self.check_label = QLabel(self)
        self.check_label.setWordWrap(True)
        self.logprobs = QSpinBox(self)
        self.logprobs.setRange(-1, 20)
        self.logprobs.setValue(-1)
        self.logprobs.setSpecialValueText(self.tr("off"))
        self.logprobs.setToolTip(self.tr("Show each token's probability and this many alternatives"))
        self.answers = QSpinBox(self)
        self.answers.setRange(1, 8)
        self.answers.setToolTip(self.tr("Answers to generate side by side (needs a temperature above 0)"))
        form = QFormLayout(self)
        form.addRow(self.tr("Format:"), self.mode)
        form.addRow(self.editor)
        form.addRow(self.check_label)
        form.addRow(self.tr("Logprobs:"), self.logprobs)
        form.addRow(self.tr("Answers:"), self.answers)
        self.mode.currentIndexChanged.connect(self._on_mode_current_index_changed)
        self.editor.textChanged.connect(self._on_editor_text_changed)
        self.logprobs.valueChanged.connect(lambda _v: self.changed.emit())
        self.answers.valueChanged.connect(lambda _v: self.changed.emit())
        self._texts: dict[str, str] = {
            SCHEMA: EXAMPLE_SCHEMA,
            CHOICE: "positive\nnegative",
            REGEX: r"\d{4}-\d{2}-\d{2}",
        }
        self._shown = FREE
        self._on_mode_current_index_changed()

    def current_mode(self) -> str:
        return str(self.mode.currentData())

    def set_mode(self, mode: str, text: str | None = None) -> None:
        self.mode.setCurrentIndex(self.mode.findData(mode))
        if text is not None:
            self.editor.setPlainText(text)

    def _on_mode_current_index_changed(self, _index: int = 0) -> None:
        if self._shown != FREE:
            self._texts[self._shown] = self.editor.toPlainText()
        mode = self.current_mode()
        self._shown = mode
        self.editor.setVisible(mode != FREE)
        self.check_label.setVisible(mode != FREE)
        self.editor.setPlaceholderText(
            {
                SCHEMA: self.tr("JSON schema"),
                CHOICE: self.tr("one choice per line"),
                REGEX: self.tr("regular expression"),
            }.get(mode, "")
        )
        self.editor.blockSignals(True)
        self.editor.setPlainText(self._texts.get(mode, ""))
        self.editor.blockSignals(False)
        self._on_editor_text_changed()

    def _on_editor_text_changed(self) -> None:
        try:
            self.fields()
            ok, text = (
                True,
                {
                    SCHEMA: self.tr("Valid schema"),
                    CHOICE: self.tr("{n} choices"),
                    REGEX: self.tr("Valid expression"),
                }.get(self.current_mode(), ""),
            )
            text = text.format(n=len(self._choices()))
        except ValueError as exc:
            ok, text = False, str(exc)
        self.check_label.setText(text)
        text_colour(self.check_label, (lambda c: c.ok) if ok else (lambda c: c.error))
        self.changed.emit()

    def _choices(self) -> list[str]:
        return [c for c in (line.strip() for line in self.editor.toPlainText().split("\n")) if c]

    def fields(self) -> dict[str, Any]:
        """OpenAI body fields for this output; ValueError while the editor is unusable."""
        mode, text = self.current_mode(), self.editor.toPlainText()
        kwargs: dict[str, Any] = {}
        if mode == SCHEMA:
            kwargs["json_schema"] = check_schema(text)
        elif mode == CHOICE:
            choices = self._choices()
            if not choices:
                raise ValueError(self.tr("give at least one choice, one per line"))
            kwargs["choice"] = choices
        elif mode == REGEX:
            if not text.strip():
                raise ValueError(self.tr("give a regular expression"))
            try:
                re.compile(text)
            except re.error as exc:
                raise ValueError(self.tr("not a valid regular expression: {e}").format(e=exc)) from None
            kwargs["regex"] = text
        lp = self.logprobs.value()
        return output_fields(**kwargs, logprobs=None if lp < 0 else lp, n=self.answers.value())


def request_extras(
    control: OutputControl, sampling: SamplingSettings, more: dict[str, Any] | None = None
) -> dict[str, Any]:
    """``GenerationRequest`` keyword arguments for what ``control`` asks for (``{}`` for free
    text) and the body fields in ``more`` (the Think switch's ``chat_template_kwargs``), checked
    and converted by vLLM's own request model; ValueError with the reason (the editor's, or
    vLLM's, e.g. n > 1 with greedy sampling)."""
    return request_fields({**control.fields(), **(more or {})}, sampling)
