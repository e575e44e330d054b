"""The Models panel's "Preset and knobs" box: the preset and the engine knobs a user may set over
it. A knob at its minimum means "the preset's value", and says which value that is.

Signals:
    presetChanged(): another preset was chosen (the knobs' "from preset" texts follow it).
    knobsChanged(): a knob was edited.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QFormLayout, QGroupBox, QLabel, QSpinBox, QWidget

from console.config import KV_CACHE_DTYPES
from console.presets import Preset
from console.settings import Knobs
from console.ui.formatting import format_bytes
from console.ui.i18n import translate_preset_description
from console.ui.speed_knobs import SpeedKnobs

#: engine-config keys (an Advisor finding's or a planner suggestion's change) the box has a knob for
KNOB_KEYS = ("max_model_len", "max_num_seqs", "kv_cache_dtype", "gpu_memory_utilization", "kv_cache_memory_bytes")


def knobs_with_change(knobs: Knobs, change: dict[str, Any]) -> tuple[Knobs, list[str]]:
    """``knobs`` with ``change`` applied, and the keys there is no knob for (set in a preset file).
    ``kv_cache_memory_bytes`` is the KV cache knob in GiB (None: the preset's or the planner's)."""
    applied = {k: v for k, v in change.items() if k in KNOB_KEYS}
    if "kv_cache_memory_bytes" in applied:
        size = applied.pop("kv_cache_memory_bytes")
        applied["kv_cache_gib"] = max(round(size / 1024**3, 2), 0.01) if size else None
    return dataclasses.replace(knobs, **applied), sorted(set(change) - set(KNOB_KEYS))


class KnobsBox(QGroupBox):
    """The preset combo and the knobs; :meth:`overrides` is what Load applies over the preset."""

    presetChanged = Signal()
    knobsChanged = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTitle(self.tr("Preset and knobs"))
        self.presets: dict[str, Preset] = {}
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
        for w in (self.context_spin, self.seqs_spin, self.util_spin, self.kv_gib_spin):
            w.setSpecialValueText(self.tr("from preset"))
            w.valueChanged.connect(self.knobsChanged)
        self.kv_dtype_combo.currentIndexChanged.connect(self.knobsChanged)

        form = QFormLayout(self)
        form.addRow(self.tr("Preset:"), self.preset_combo)
        form.addRow(self.preset_description)
        form.addRow(self.tr("Context length:"), self.context_spin)
        form.addRow(self.tr("Max sequences:"), self.seqs_spin)
        form.addRow(self.tr("KV cache dtype:"), self.kv_dtype_combo)
        form.addRow(self.tr("GPU memory utilisation:"), self.util_spin)
        form.addRow(self.tr("KV cache size (CPU):"), self.kv_gib_spin)
        self.speed = SpeedKnobs(self)  # issue 21: its own rows, its own overrides
        self.speed.add_rows(form)
        self.speed.changed.connect(self.knobsChanged)

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
        return self.speed.read_into(
            Knobs(
                max_model_len=self.context_spin.value() or None,
                max_num_seqs=self.seqs_spin.value() or None,
                kv_cache_dtype=self.kv_dtype_combo.currentData(),
                gpu_memory_utilization=self.util_spin.value() or None,
                kv_cache_gib=self.kv_gib_spin.value() or None,
            )
        )

    def set_knobs(self, k: Knobs) -> None:
        self.context_spin.setValue(k.max_model_len or 0)
        self.seqs_spin.setValue(k.max_num_seqs or 0)
        i = self.kv_dtype_combo.findData(k.kv_cache_dtype) if k.kv_cache_dtype else 0
        self.kv_dtype_combo.setCurrentIndex(max(0, i))
        self.util_spin.setValue(k.gpu_memory_utilization or 0.0)
        self.kv_gib_spin.setValue(k.kv_cache_gib or 0.0)
        self.speed.show(k)

    def overrides(self) -> dict[str, Any]:
        """The knobs that are set, by engine field name (what Load applies over the preset)."""
        k = self.knobs()
        out: dict[str, Any] = {
            "max_model_len": k.max_model_len,
            "max_num_seqs": k.max_num_seqs,
            "kv_cache_dtype": k.kv_cache_dtype,
            "gpu_memory_utilization": k.gpu_memory_utilization,
        }
        if k.kv_cache_gib:
            out["kv_cache_memory_bytes"] = int(k.kv_cache_gib * 1024**3)
        out.update(SpeedKnobs.overrides(k))
        return {key: v for key, v in out.items() if v is not None}

    def knob_names(self) -> dict[str, str]:
        """Each override's knob as the form labels it (an error names the knob, not the field)."""

        def label(text: str) -> str:
            return text.rstrip(":：")

        return {
            "max_model_len": label(self.tr("Context length:")),
            "max_num_seqs": label(self.tr("Max sequences:")),
            "kv_cache_dtype": label(self.tr("KV cache dtype:")),
            "gpu_memory_utilization": label(self.tr("GPU memory utilisation:")),
            "kv_cache_memory_bytes": label(self.tr("KV cache size (CPU):")),
            **self.speed.knob_names(),
        }

    def _on_preset_combo_changed(self, *_: Any) -> None:
        preset = self.preset()
        self.preset_description.setText(translate_preset_description(preset.description) if preset else "")
        self.preset_description.setVisible(bool(preset and preset.description))
        if preset:  # the knobs show the preset's values as their "from preset" text
            e = preset.engine
            from_preset = self.tr("from preset ({0})")
            self.context_spin.setSpecialValueText(from_preset.format(e.get("max_model_len", self.tr("model"))))
            self.seqs_spin.setSpecialValueText(from_preset.format(e.get("max_num_seqs", self.tr("default"))))
            self.util_spin.setSpecialValueText(from_preset.format(e.get("gpu_memory_utilization", "—")))
            kv = e.get("kv_cache_memory_bytes")
            self.kv_gib_spin.setSpecialValueText(self.tr("from preset ({0})").format(format_bytes(kv) if kv else "—"))
            self.kv_dtype_combo.setItemText(0, self.tr("from preset ({0})").format(e.get("kv_cache_dtype", "auto")))
            self.speed.show_preset(e)
        self.presetChanged.emit()
