"""The Models panel's "Preset and knobs" box: the preset and the engine knobs a user may set over
it. A knob at its minimum means "the preset's value", and says which value that is.

Each row is one window knob of :class:`~console.config.EngineConfig`, and that field's knob
metadata (:mod:`console.knob_help`) gives its tooltip (what it does, its RTX 4090 default and why),
the device it shows on (:meth:`set_device` hides the others) and whether it sits under the
collapsed "Advanced" section; a row's value is the settings' knob of that field
(:class:`~console.settings.Knobs`), read and shown by the widget's kind.

Signals:
    presetChanged(): another preset was chosen (the knobs' "from preset" texts follow it).
    knobsChanged(): a knob was edited.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from console.config import KV_CACHE_DTYPES
from console.knob_help import KNOB_HELP, applies_to
from console.presets import Preset
from console.settings import Knobs, settings_name
from console.ui.formatting import format_bytes
from console.ui.i18n import translate_knob_help, translate_preset_description
from console.ui.models.speed_knobs import SpeedKnobs

#: engine-config keys (an Advisor finding's or a planner suggestion's change) the box has a knob for
KNOB_KEYS = tuple(KNOB_HELP)


def knobs_with_change(knobs: Knobs, change: dict[str, Any]) -> tuple[Knobs, list[str]]:
    """``knobs`` with ``change`` applied, and the keys there is no knob for (set in a preset file)
    (:meth:`Knobs.with_change`: the KV cache size in GiB)."""
    return knobs.with_change(change)


def _value_of(widget: QWidget) -> Any:
    """A row's value: a combo's item data, a spin box's value (its minimum: None, the preset's)."""
    if isinstance(widget, QComboBox):
        return widget.currentData()
    assert isinstance(widget, (QSpinBox, QDoubleSpinBox))
    return widget.value() or None


def _show_value(widget: QWidget, value: Any) -> None:
    """Show ``value`` in a row (None: the "from preset" item or minimum)."""
    if isinstance(widget, QComboBox):
        widget.setCurrentIndex(max(0, widget.findData(value)) if value is not None else 0)
    else:
        assert isinstance(widget, (QSpinBox, QDoubleSpinBox))
        widget.setValue(value or 0)


class KnobsBox(QGroupBox):
    """The preset combo and the knobs; :meth:`overrides` is what Load applies over the preset."""

    presetChanged = Signal()
    knobsChanged = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTitle(self.tr("Preset and knobs"))
        self.presets: dict[str, Preset] = {}
        self.gpu = False  # the device the rows are shown for (set_device)
        self.preset_combo = QComboBox(self)
        self.preset_combo.currentIndexChanged.connect(self._on_preset_combo_changed)
        self.preset_description = QLabel(self)
        self.preset_description.setWordWrap(True)
        self.preset_description.setStyleSheet("color: #555;")
        self.context_spin = QSpinBox(self)
        self.context_spin.setRange(0, 10_000_000)
        self.context_spin.setSingleStep(1024)
        self.seqs_spin = QSpinBox(self)
        self.seqs_spin.setRange(0, 65_536)
        self.batched_spin = QSpinBox(self)
        self.batched_spin.setRange(0, 10_000_000)
        self.batched_spin.setSingleStep(1024)
        self.kv_dtype_combo = QComboBox(self)
        self.kv_dtype_combo.addItem(self.tr("from preset"), None)
        for d in KV_CACHE_DTYPES:
            self.kv_dtype_combo.addItem(d, d)
        self.util_spin = QDoubleSpinBox(self)
        self.util_spin.setRange(0.0, 1.0)
        self.util_spin.setSingleStep(0.05)
        self.util_spin.setDecimals(2)
        self.kv_gib_spin = QDoubleSpinBox(self)
        self.kv_gib_spin.setRange(0.0, 4096.0)
        self.kv_gib_spin.setDecimals(2)
        self.kv_gib_spin.setSingleStep(0.5)
        self.kv_gib_spin.setSuffix(" GiB")
        self.eager_combo, self.prefix_combo = QComboBox(self), QComboBox(self)
        for combo in (self.eager_combo, self.prefix_combo):
            combo.addItem(self.tr("from preset"), None)
            combo.addItem(self.tr("on"), True)
            combo.addItem(self.tr("off"), False)
            combo.currentIndexChanged.connect(self.knobsChanged)
        for w in (self.context_spin, self.seqs_spin, self.batched_spin, self.util_spin, self.kv_gib_spin):
            w.setSpecialValueText(self.tr("from preset"))
            w.valueChanged.connect(self.knobsChanged)
        self.kv_dtype_combo.currentIndexChanged.connect(self.knobsChanged)
        self.speed = SpeedKnobs(self)  # its own rows
        self.speed.changed.connect(self.knobsChanged)

        form = QFormLayout()
        form.addRow(self.tr("Preset:"), self.preset_combo)
        form.addRow(self.preset_description)
        self.advanced_button = QToolButton(self)
        self.advanced_button.setText(self.tr("Advanced"))
        self.advanced_button.setToolTip(self.tr("Speed knobs: scheduling, graphs, caching, speculation"))
        self.advanced_button.setCheckable(True)
        self.advanced_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.advanced_button.setArrowType(Qt.ArrowType.RightArrow)
        self.advanced_button.setAutoRaise(True)
        self.advanced_button.toggled.connect(self.set_advanced_open)
        self.advanced = QWidget(self)
        advanced = QFormLayout(self.advanced)
        advanced.setContentsMargins(0, 0, 0, 0)
        #: each knob's (form, widget) by engine field: its tooltip, its visibility, its value
        self.rows: dict[str, tuple[QFormLayout, QWidget]] = {}
        for key, label, widget in self._knob_rows():
            where = advanced if KNOB_HELP[key].advanced else form
            where.addRow(label, widget)
            self.rows[key] = (where, widget)
            self._explain(key, widget, where)
        root = QVBoxLayout(self)
        root.addLayout(form)
        root.addWidget(self.advanced_button)
        root.addWidget(self.advanced)
        self.set_advanced_open(False)
        self.set_device(gpu=False)

    def _knob_rows(self) -> list[tuple[str, str, QWidget]]:
        """(engine field, form label, widget) of every knob, in the order they are shown."""
        return [
            ("max_model_len", self.tr("Context length:"), self.context_spin),
            ("kv_cache_dtype", self.tr("KV cache dtype:"), self.kv_dtype_combo),
            ("gpu_memory_utilization", self.tr("GPU memory utilisation:"), self.util_spin),
            ("kv_cache_memory_bytes", self.tr("KV cache size (CPU):"), self.kv_gib_spin),
            ("max_num_seqs", self.tr("Max sequences:"), self.seqs_spin),
            ("max_num_batched_tokens", self.tr("Max batched tokens:"), self.batched_spin),
            ("enforce_eager", self.tr("Eager mode (no graphs):"), self.eager_combo),
            ("enable_prefix_caching", self.tr("Prefix caching:"), self.prefix_combo),
            *self.speed.rows(),
        ]

    def _explain(self, key: str, widget: QWidget, form: QFormLayout) -> None:
        """The knob's tooltip, on its widget and its label: what it does, the 4090 default, why."""
        h = KNOB_HELP[key]
        text = "\n\n".join(
            (
                translate_knob_help(h.help),
                self.tr("RTX 4090 default: {0}").format(translate_knob_help(h.default_4090)),
                translate_knob_help(h.why),
            )
        )
        widget.setToolTip(text)
        label = form.labelForField(widget)
        if label is not None:
            label.setToolTip(text)

    # -- the device and the Advanced section -----------------------------------------------------
    def set_device(self, gpu: bool) -> None:
        """Show the rows that apply to a GPU (``gpu``) or to the CPU engine, hide the others."""
        self.gpu = gpu
        for key, (form, widget) in self.rows.items():
            form.setRowVisible(widget, applies_to(key, gpu))

    def set_advanced_open(self, open_: bool) -> None:
        self.advanced_button.blockSignals(True)
        self.advanced_button.setChecked(open_)
        self.advanced_button.blockSignals(False)
        self.advanced_button.setArrowType(Qt.ArrowType.DownArrow if open_ else Qt.ArrowType.RightArrow)
        self.advanced.setVisible(open_)

    def row_shown(self, key: str) -> bool:
        """Whether ``key``'s row is shown on this device (the Advanced section open or not)."""
        form, widget = self.rows[key]
        return form.isRowVisible(widget)

    # -- the preset ------------------------------------------------------------------------------
    def set_presets(self, presets: dict[str, Preset], select: str) -> None:
        """Offer ``presets`` (already loaded) and choose ``select`` (the first one if absent)."""
        self.presets = presets
        self.preset_combo.blockSignals(True)
        self.preset_combo.clear()
        for name in sorted(presets):
            self.preset_combo.addItem(name, name)
        self.preset_combo.blockSignals(False)
        self.select_preset(select)
        self._on_preset_combo_changed()

    def preset_name(self) -> str | None:
        data = self.preset_combo.currentData()
        return str(data) if data else None

    def preset(self) -> Preset | None:
        return self.presets.get(self.preset_name() or "")

    def select_preset(self, name: str) -> bool:
        i = self.preset_combo.findData(name)
        if i >= 0:
            self.preset_combo.setCurrentIndex(i)
        return i >= 0

    # -- the knobs -------------------------------------------------------------------------------
    def knobs(self) -> Knobs:
        return Knobs(**{settings_name(key): _value_of(widget) for key, (_form, widget) in self.rows.items()})

    def set_knobs(self, k: Knobs) -> None:
        for key, (_form, widget) in self.rows.items():
            _show_value(widget, getattr(k, settings_name(key)))

    def overrides(self) -> dict[str, Any]:
        """The knobs that are set, by engine field name (what Load applies over the preset)."""
        return self.knobs().overrides()

    def knob_names(self) -> dict[str, str]:
        """Each override's knob as the form labels it (an error names the knob, not the field)."""
        return {key: label.rstrip(":：") for key, label, _w in self._knob_rows()}

    def _on_preset_combo_changed(self, *_: Any) -> None:
        preset = self.preset()
        self.preset_description.setText(translate_preset_description(preset.description) if preset else "")
        self.preset_description.setVisible(bool(preset and preset.description))
        if preset:  # the knobs show the preset's values as their "from preset" text
            e = preset.engine
            from_preset = self.tr("from preset ({0})")
            self.context_spin.setSpecialValueText(from_preset.format(e.get("max_model_len", self.tr("model"))))
            self.seqs_spin.setSpecialValueText(from_preset.format(e.get("max_num_seqs", self.tr("default"))))
            self.batched_spin.setSpecialValueText(
                from_preset.format(e.get("max_num_batched_tokens", self.tr("default")))
            )
            self.util_spin.setSpecialValueText(from_preset.format(e.get("gpu_memory_utilization", "—")))
            kv = e.get("kv_cache_memory_bytes")
            self.kv_gib_spin.setSpecialValueText(self.tr("from preset ({0})").format(format_bytes(kv) if kv else "—"))
            self.kv_dtype_combo.setItemText(0, self.tr("from preset ({0})").format(e.get("kv_cache_dtype", "auto")))
            for combo, key in ((self.eager_combo, "enforce_eager"), (self.prefix_combo, "enable_prefix_caching")):
                value = e.get(key)
                said = self.tr("default") if value is None else self.tr("on") if value else self.tr("off")
                combo.setItemText(0, from_preset.format(said))
            self.speed.show_preset(e)
        self.presetChanged.emit()
