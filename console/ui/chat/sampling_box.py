"""The Chat tab's sampling controls: temperature, top-p, top-k, max tokens, repetition penalty,
seed and stop strings, as one group box that reads and writes :class:`SamplingSettings`.

Max tokens starts at the chat's default answer length (:data:`~console.sampling.CHAT_MAX_TOKENS`,
shown as the number); 0, "up to the context", is there to pick.

Temperature, top-p, top-k and repetition penalty start at the loaded model's defaults (its
generation_config.json as vLLM reads it, else its family's preset, else vLLM's own), shown with
where they came from; a control the user changes is theirs and wins (``None`` in the settings
otherwise), until "Model's defaults" hands them all back."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QWidget,
)

from console.sampling import (
    CHAT_MAX_TOKENS,
    FROM_FAMILY,
    FROM_GENERATION_CONFIG,
    MODEL_DEFAULT_FIELDS,
    SamplingDefaults,
    SamplingSettings,
)


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
        self.max_tokens.setSingleStep(256)  # from the default, four steps down reach "up to the context"
        self.max_tokens.setSpecialValueText(self.tr("up to the context"))
        self.max_tokens.setToolTip(
            self.tr(
                "The longest answer in tokens (default {0}); an answer cut here can be continued. "
                "At 0, as long as the model's context allows."
            ).format(CHAT_MAX_TOKENS)
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
        self.defaults_source = QLabel(self)
        self.defaults_source.setWordWrap(True)
        self.reset_defaults = QPushButton(self.tr("Model's defaults"), self)
        self.reset_defaults.setToolTip(self.tr("Temperature, top-p, top-k and repetition penalty back to the model's"))
        self.reset_defaults.clicked.connect(self.use_model_defaults)
        #: the loaded model's defaults (None: a server's, unknown here), and the controls set by the user
        self._defaults: SamplingDefaults | None = SamplingDefaults()
        self._model_known = False
        self._explicit: set[str] = set()
        self._showing = False  # the box itself sets the controls: not the user's choice
        for name in MODEL_DEFAULT_FIELDS:
            getattr(self, name).valueChanged.connect(lambda _v, n=name: self._changed(n))
        form = QFormLayout(self)
        form.addRow(self.tr("Defaults:"), self.defaults_source)  # its own row: the chat fits a laptop screen
        form.addRow("", self.reset_defaults)
        form.addRow(self.tr("Temperature:"), self.temperature)
        form.addRow(self.tr("Top-p:"), self.top_p)
        form.addRow(self.tr("Top-k:"), self.top_k)
        form.addRow(self.tr("Max tokens:"), self.max_tokens)
        form.addRow(self.tr("Repetition penalty:"), self.repetition_penalty)
        form.addRow(self.tr("Seed:"), self.seed)
        form.addRow(self.tr("Stop strings:"), self.stop_strings)
        self.set_sampling(SamplingSettings())

    def sampling(self) -> SamplingSettings:
        """The next request's settings: the controls the user set, None for those left to the model."""
        stops = [line for line in self.stop_strings.toPlainText().split("\n") if line]
        seed = self.seed.value()
        mine = {n: getattr(self, n).value() for n in MODEL_DEFAULT_FIELDS if n in self._explicit}
        return SamplingSettings(
            **mine,
            max_tokens=self.max_tokens.value(),
            seed=None if seed < 0 else seed,
            stop=stops,
        )

    def effective(self) -> SamplingSettings:
        """:meth:`sampling` with the model's defaults filled in (what the in-process engine runs)."""
        return self.sampling().resolved(self._defaults)

    def set_sampling(self, s: SamplingSettings) -> None:
        self._explicit = set(s.explicit())
        self.max_tokens.setValue(s.max_tokens)
        self.seed.setValue(-1 if s.seed is None else s.seed)
        self.stop_strings.setPlainText("\n".join(s.stop))
        self._show(s)

    def set_model_defaults(self, defaults: SamplingDefaults | None) -> None:
        """The loaded model's defaults (None: a server engine's, which the console does not know and
        does not send): the controls the user has not set show them."""
        self._defaults, self._model_known = defaults, True
        self._show(self.sampling())

    def forget_model(self) -> None:
        """No model is loaded (unloaded, or a server stopped): the box no longer describes its
        defaults; the next model's come with it."""
        self._defaults, self._model_known = SamplingDefaults(), False
        self._show(self.sampling())

    def use_model_defaults(self) -> None:
        """Every model-default control back to the model's value."""
        self._explicit.clear()
        self._show(self.sampling())

    def _show(self, s: SamplingSettings) -> None:
        r = s.resolved(self._defaults)
        self._showing = True
        try:
            self.temperature.setValue(r.temperature or 0.0)
            self.top_p.setValue(r.top_p or 1.0)
            self.top_k.setValue(max(0, r.top_k or 0))
            self.repetition_penalty.setValue(r.repetition_penalty or 1.0)
        finally:
            self._showing = False
        self._show_source()

    def _changed(self, name: str) -> None:
        if not self._showing:
            self._explicit.add(name)
            self._show_source()

    def _show_source(self) -> None:
        d = self._defaults  # the words of SamplingDefaults.describe, in the UI's language
        if d is None:
            text = self.tr("the server's defaults (sent only where you change them)")
        elif not self._model_known:
            text = self.tr("the loaded model's (its generation_config.json, else vLLM's defaults)")
        elif d.source == FROM_GENERATION_CONFIG:
            text = self.tr("from the model's generation_config.json")
        elif d.source == FROM_FAMILY:
            text = self.tr("from the {0} family's preset (the model's generation_config.json sets none)").format(
                d.family
            )
        else:
            text = self.tr("vLLM defaults (the model's generation_config.json sets none)")
        names = {
            "temperature": self.tr("temperature"),
            "top_p": self.tr("top-p"),
            "top_k": self.tr("top-k"),
            "repetition_penalty": self.tr("repetition penalty"),
        }
        mine = [names[n] for n in MODEL_DEFAULT_FIELDS if n in self._explicit]
        if mine:
            text += self.tr("; yours: {0}").format(", ".join(mine))
        self.defaults_source.setText(text)
        self.reset_defaults.setEnabled(bool(mine))
