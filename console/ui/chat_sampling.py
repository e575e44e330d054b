"""The Chat tab's sampling controls: temperature, top-p, top-k, max tokens, repetition penalty,
seed and stop strings, as one group box that reads and writes :class:`SamplingSettings`."""

from __future__ import annotations

from PySide6.QtWidgets import QDoubleSpinBox, QFormLayout, QGroupBox, QPlainTextEdit, QSpinBox, QWidget

from console.config import SamplingSettings


class SamplingBox(QGroupBox):
    """The sampling knobs of the next request."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTitle(self.tr("Sampling"))
        self.temperature = QDoubleSpinBox(self)
        self.temperature.setRange(0.0, 2.0)
        self.temperature.setSingleStep(0.05)
        self.top_p = QDoubleSpinBox(self)
        self.top_p.setRange(0.01, 1.0)
        self.top_p.setSingleStep(0.05)
        self.top_k = QSpinBox(self)
        self.top_k.setRange(0, 1000)
        self.top_k.setSpecialValueText(self.tr("off"))
        self.max_tokens = QSpinBox(self)
        self.max_tokens.setRange(0, 1_048_576)  # 0 (FIT_CONTEXT): up to the context's end
        self.max_tokens.setSpecialValueText(self.tr("up to the context"))
        self.max_tokens.setToolTip(
            self.tr(
                "The longest answer in tokens; at the lowest value, as long as the "
                "model's context allows (an answer cut here can be continued)"
            )
        )
        self.repetition_penalty = QDoubleSpinBox(self)
        self.repetition_penalty.setRange(0.5, 2.0)
        self.repetition_penalty.setSingleStep(0.05)
        self.seed = QSpinBox(self)
        self.seed.setRange(-1, 2**31 - 1)
        self.seed.setSpecialValueText(self.tr("random"))
        self.stop_strings = QPlainTextEdit(self)
        self.stop_strings.setPlaceholderText(self.tr("one stop string per line"))
        self.stop_strings.setMaximumHeight(60)
        form = QFormLayout(self)
        form.addRow(self.tr("Temperature:"), self.temperature)
        form.addRow(self.tr("Top-p:"), self.top_p)
        form.addRow(self.tr("Top-k:"), self.top_k)
        form.addRow(self.tr("Max tokens:"), self.max_tokens)
        form.addRow(self.tr("Repetition penalty:"), self.repetition_penalty)
        form.addRow(self.tr("Seed:"), self.seed)
        form.addRow(self.tr("Stop strings:"), self.stop_strings)
        self.set_sampling(SamplingSettings())

    def sampling(self) -> SamplingSettings:
        stops = [line for line in self.stop_strings.toPlainText().split("\n") if line]
        seed = self.seed.value()
        return SamplingSettings(
            temperature=self.temperature.value(),
            top_p=self.top_p.value(),
            top_k=self.top_k.value(),
            max_tokens=self.max_tokens.value(),
            repetition_penalty=self.repetition_penalty.value(),
            seed=None if seed < 0 else seed,
            stop=stops,
        )

    def set_sampling(self, s: SamplingSettings) -> None:
        self.temperature.setValue(s.temperature)
        self.top_p.setValue(s.top_p)
        self.top_k.setValue(max(0, s.top_k))
        self.max_tokens.setValue(s.max_tokens)
        self.repetition_penalty.setValue(s.repetition_penalty)
        self.seed.setValue(-1 if s.seed is None else s.seed)
        self.stop_strings.setPlainText("\n".join(s.stop))
