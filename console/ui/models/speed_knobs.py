"""The speed knobs of the Models panel's knobs box: speculative decoding, draft tokens
per step, KV offload to host memory and sleep mode, each "from preset" unless set.

The knobs box places the rows (:meth:`SpeedKnobs.rows`) as their knob metadata says (under its
"Advanced" section, KV offload and sleep mode hidden on the CPU engine), with their tooltips, and
reads and shows their values with its other rows. Whether the device can run them is still the
engine host's capability check at Load (the CPU build refuses KV offload and sleep mode, and the
message says why).

Signals:
    changed(): a speed knob was edited.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QSpinBox, QWidget

from console.config import SPECULATIVE_METHODS

NGRAM = SPECULATIVE_METHODS[0]


class SpeedKnobs(QObject):
    changed = Signal()

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.method_combo = QComboBox(parent)
        self.method_combo.addItem(self.tr("from preset"), None)
        self.method_combo.addItem(self.tr("off"), "")
        self.method_combo.addItem(self.tr("n-gram (no draft model)"), NGRAM)  # item data, not shown
        self.tokens_spin = QSpinBox(parent)
        self.tokens_spin.setRange(0, 16)
        self.offload_spin = QDoubleSpinBox(parent)
        self.offload_spin.setRange(0.0, 4096.0)
        self.offload_spin.setDecimals(1)
        self.offload_spin.setSingleStep(1.0)
        self.offload_spin.setSuffix(" GiB")
        self.sleep_combo = QComboBox(parent)
        self.sleep_combo.addItem(self.tr("from preset"), None)
        self.sleep_combo.addItem(self.tr("on"), True)
        self.sleep_combo.addItem(self.tr("off"), False)
        for spin in (self.tokens_spin, self.offload_spin):
            spin.setSpecialValueText(self.tr("from preset"))
            spin.valueChanged.connect(self.changed)
        for combo in (self.method_combo, self.sleep_combo):
            combo.currentIndexChanged.connect(self.changed)

    def rows(self) -> list[tuple[str, str, QWidget]]:
        """(engine field, form label, widget) of each speed knob, for the knobs box's form."""
        return [
            ("speculative_method", self.tr("Speculative decoding:"), self.method_combo),
            ("num_speculative_tokens", self.tr("Draft tokens per step:"), self.tokens_spin),
            ("kv_offloading_size", self.tr("KV offload (host):"), self.offload_spin),
            ("enable_sleep_mode", self.tr("Sleep mode:"), self.sleep_combo),
        ]

    def show_preset(self, engine: dict[str, Any]) -> None:
        """The "from preset" texts name the preset's values."""
        text = self.tr("from preset ({0})")
        self.method_combo.setItemText(0, text.format(engine.get("speculative_method") or self.tr("off")))
        self.tokens_spin.setSpecialValueText(text.format(engine.get("num_speculative_tokens", "—")))
        offload = engine.get("kv_offloading_size")
        self.offload_spin.setSpecialValueText(text.format(f"{offload:g} GiB" if offload else self.tr("off")))
        sleep = self.tr("on") if engine.get("enable_sleep_mode") else self.tr("off")
        self.sleep_combo.setItemText(0, text.format(sleep))
