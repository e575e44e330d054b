"""The speed knobs of the Models panel's knobs box: speculative decoding, draft tokens
per step, KV offload to host memory and sleep mode, each "from preset" unless set.

The knobs box places the rows (:meth:`SpeedKnobs.rows`) under its "Advanced" section, with their
tooltips from :mod:`console.knob_help`, and hides KV offload and sleep mode on the CPU engine;
what they override goes through :meth:`SpeedKnobs.overrides`, by engine field name. Whether the
device can run them is still the engine host's capability check at Load (the CPU build refuses KV
offload and sleep mode, and the message says why).

Signals:
    changed(): a speed knob was edited.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QSpinBox, QWidget

from console.config import SPECULATIVE_METHODS
from console.settings import Knobs

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

    def read_into(self, knobs: Knobs) -> Knobs:
        knobs.speculative_method = self.method_combo.currentData()
        knobs.num_speculative_tokens = self.tokens_spin.value() or None
        knobs.kv_offloading_gib = self.offload_spin.value() or None
        knobs.enable_sleep_mode = self.sleep_combo.currentData()
        return knobs

    def show(self, k: Knobs) -> None:
        self.method_combo.setCurrentIndex(
            max(0, self.method_combo.findData(k.speculative_method)) if k.speculative_method is not None else 0
        )
        self.tokens_spin.setValue(k.num_speculative_tokens or 0)
        self.offload_spin.setValue(k.kv_offloading_gib or 0.0)
        self.sleep_combo.setCurrentIndex(
            max(0, self.sleep_combo.findData(k.enable_sleep_mode)) if k.enable_sleep_mode is not None else 0
        )

    @staticmethod
    def overrides(k: Knobs) -> dict[str, Any]:
        """Engine fields over the preset; a method of "" turns a preset's speculation off."""
        out: dict[str, Any] = {
            "speculative_method": k.speculative_method,
            "num_speculative_tokens": k.num_speculative_tokens,
            "kv_offloading_size": k.kv_offloading_gib,
            "enable_sleep_mode": k.enable_sleep_mode,
        }
        if k.speculative_method == NGRAM and k.num_speculative_tokens is None:
            out["num_speculative_tokens"] = 4  # n-gram chosen here over a preset without it
        return {key: v for key, v in out.items() if v is not None}

    def show_preset(self, engine: dict[str, Any]) -> None:
        """The "from preset" texts name the preset's values."""
        text = self.tr("from preset ({0})")
        self.method_combo.setItemText(0, text.format(engine.get("speculative_method") or self.tr("off")))
        self.tokens_spin.setSpecialValueText(text.format(engine.get("num_speculative_tokens", "—")))
        offload = engine.get("kv_offloading_size")
        self.offload_spin.setSpecialValueText(text.format(f"{offload:g} GiB" if offload else self.tr("off")))
        sleep = self.tr("on") if engine.get("enable_sleep_mode") else self.tr("off")
        self.sleep_combo.setItemText(0, text.format(sleep))
