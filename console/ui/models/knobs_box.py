"""The Models panel's "Preset and knobs" box: the preset and the engine knobs a user may set over
it. A knob at its minimum means "the preset's value", and says which value that is.

Each row is one window knob of :class:`~console.config.EngineConfig`, made from that field's knob
metadata (:mod:`console.knob_help`): its label, its widget (by the field's type: a combo for a
switch or a list of values, a spin box for a number, in the settings' unit), its range and step,
its tooltip (what it does, its RTX 4090 default and why), the device it shows on
(:meth:`set_device` hides the others) and whether it sits under the collapsed "Advanced"
section; a row's value is the settings' knob of that field (:class:`~console.settings.Knobs`),
read and shown by the widget's kind. A new window knob is a row here with nothing written here.

Signals:
    presetChanged(): another preset was chosen (the knobs' "from preset" texts follow it).
    knobsChanged(): a knob was edited.
"""

from __future__ import annotations

from typing import Any, get_type_hints

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

from console.config import ENGINE_CHOICES, ENGINE_LIMITS, EngineConfig
from console.knob_help import KNOB_HELP, applies_to
from console.knobs import Knob
from console.presets import Preset
from console.settings import Knobs, settings_name
from console.ui.formatting import format_bytes
from console.ui.i18n import translate_knob_help, translate_preset_description
from console.ui.theme import text_colour

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


def _upper(key: str, k: Knob) -> float:
    """The largest value ``key``'s row takes, in the settings' unit (its range's upper bound)."""
    bounds = ENGINE_LIMITS[key]
    return float(k.to_settings(bounds.get("le", bounds.get("lt"))))


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
        text_colour(self.preset_description, lambda c: c.muted)
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
        hints = get_type_hints(EngineConfig)
        for key, k in KNOB_HELP.items():
            widget = self._row_widget(key, k, hints[key])
            where = advanced if k.advanced else form
            where.addRow(translate_knob_help(k.label), widget)
            self.rows[key] = (where, widget)
            self._explain(key, widget, where)
        root = QVBoxLayout(self)
        root.addLayout(form)
        root.addWidget(self.advanced_button)
        root.addWidget(self.advanced)
        self.set_advanced_open(False)
        self.set_device(gpu=False)

    def _row_widget(self, key: str, k: Knob, hint: Any) -> QWidget:
        """The widget of ``key``'s row, by its type: a combo ("from preset", then on and off, or the
        values it offers), else a spin box over its range whose minimum is "from preset"."""
        offered = k.window_choices or ENGINE_CHOICES.get(key, ())
        if offered or hint == bool | None or hint is bool:
            combo = QComboBox(self)
            combo.addItem(self.tr("from preset"), None)
            if offered:
                words = dict(k.choice_labels)
                for value in offered:
                    combo.addItem(translate_knob_help(words[value]) if value in words else str(value), value)
            else:
                combo.addItem(self.tr("on"), True)
                combo.addItem(self.tr("off"), False)
            combo.currentIndexChanged.connect(self.knobsChanged)
            return combo
        spin: QSpinBox | QDoubleSpinBox
        if (k.settings_unit and k.settings_unit != k.unit) or hint == float | None:
            spin = QDoubleSpinBox(self)
            spin.setDecimals(k.decimals)
            spin.setRange(0.0, _upper(key, k))
            if k.step:
                spin.setSingleStep(k.step)
        else:
            spin = QSpinBox(self)
            spin.setRange(0, int(_upper(key, k)))
            if k.step:
                spin.setSingleStep(int(k.step))
        if (k.settings_unit or k.unit) == "GiB":
            spin.setSuffix(" GiB")
        spin.setSpecialValueText(self.tr("from preset"))
        spin.valueChanged.connect(self.knobsChanged)
        return spin

    def widget(self, key: str) -> QWidget:
        """The widget of EngineConfig field ``key``'s row."""
        return self.rows[key][1]

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

    def set_context_limit(self, limit: int | None) -> None:
        """The longest context the selected model takes (None: no model, the engine's bound): the
        context-length row goes no further, so it shows (and the settings keep) what is loaded
        rather than a longer value the load would cut down."""
        spin = self.widget("max_model_len")
        assert isinstance(spin, QSpinBox)
        spin.setMaximum(limit or int(_upper("max_model_len", KNOB_HELP["max_model_len"])))

    def knob_names(self) -> dict[str, str]:
        """Each override's knob as the form labels it (an error names the knob, not the field)."""
        return {key: translate_knob_help(k.label).rstrip(":：") for key, k in KNOB_HELP.items()}

    def _on_preset_combo_changed(self, *_: Any) -> None:
        preset = self.preset()
        self.preset_description.setText(translate_preset_description(preset.description) if preset else "")
        self.preset_description.setVisible(bool(preset and preset.description))
        if preset:  # the knobs show the preset's values as their "from preset" text
            from_preset = self.tr("from preset ({0})")
            for key, (_form, widget) in self.rows.items():
                said = from_preset.format(self._preset_value(KNOB_HELP[key], preset.engine.get(key)))
                if isinstance(widget, QComboBox):
                    widget.setItemText(0, said)
                else:
                    assert isinstance(widget, (QSpinBox, QDoubleSpinBox))
                    widget.setSpecialValueText(said)
        self.presetChanged.emit()

    def _preset_value(self, k: Knob, value: Any) -> str:
        """A preset's value of knob ``k`` as its row says it (unset: the knob's word for that)."""
        if value is None or value == "":
            return translate_knob_help(k.unset)
        if isinstance(value, bool):
            return self.tr("on") if value else self.tr("off")
        if k.unit == "bytes":
            return format_bytes(value)
        return f"{value:g} GiB" if k.unit == "GiB" else str(value)
