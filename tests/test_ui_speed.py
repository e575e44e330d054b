"""The speed settings in the window: the knobs box's speed knobs reach the configuration Load uses, and the
Monitor turns vLLM's prefix-cache and spec-decode counts into plotted ratios (gaps, not zeros,
where nothing was looked up or drafted)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from console.metrics.store import MetricsStore
from console.presets import load_presets
from console.settings import Knobs
from console.ui.monitor.series import MonitorSeries

pytest.importorskip("pytestqt")


def test_the_speed_knobs_override_the_preset_and_survive_the_settings(qtbot, tiny_model: Path) -> None:
    from console.ui.models.knobs_box import KnobsBox

    box = KnobsBox()
    qtbot.addWidget(box)
    presets = load_presets()
    box.set_presets(presets, "cpu-ngram")
    preset = box.preset()
    assert preset is not None
    method, tokens = box.widget("speculative_method"), box.widget("num_speculative_tokens")
    offload, sleep = box.widget("kv_offloading_size"), box.widget("enable_sleep_mode")
    assert method.itemText(0) == "from preset (ngram)"
    # from preset: the preset's n-gram speculation
    assert preset.apply(str(tiny_model), **box.overrides()).speculative_config()["method"] == "ngram"
    # "off" over a preset that has it: no speculation, and nothing the capability check refuses
    method.setCurrentIndex(method.findData(""))
    config = preset.apply(str(tiny_model), **box.overrides())
    assert config.speculative_config() is None and config.engine_kwargs().get("speculative_config") is None
    from console.speed import capability_refusal

    assert capability_refusal(config, "cpu") is None
    # n-gram over a preset without it, with 6 draft tokens and KV offload + sleep mode
    box.set_presets(presets, "cpu-default")
    method.setCurrentIndex(method.findData("ngram"))
    tokens.setValue(6)
    offload.setValue(3.0)
    sleep.setCurrentIndex(sleep.findData(True))
    config = box.preset().apply(str(tiny_model), **box.overrides())
    assert config.speculative_config()["num_speculative_tokens"] == 6
    assert (config.kv_offloading_size, config.enable_sleep_mode) == (3.0, True)
    assert "CUDA only" in (capability_refusal(config, "cpu") or "")
    # the knobs are saved in the settings and shown again
    saved = box.knobs()
    assert (
        saved.speculative_method,
        saved.num_speculative_tokens,
        saved.kv_offloading_gib,
        saved.enable_sleep_mode,
    ) == ("ngram", 6, 3.0, True)
    box.set_knobs(Knobs())
    assert not {"speculative_method", "num_speculative_tokens", "kv_offloading_size", "enable_sleep_mode"} & set(
        box.overrides()
    )
    box.set_knobs(saved)
    assert box.knobs() == saved


def test_the_monitor_plots_prefix_hit_rate_and_draft_acceptance() -> None:
    store = MetricsStore(resolution_s=0.5)
    t0 = 1_000_000.0
    store.record_step(
        t=t0,
        prefix_hits=30,
        prefix_queries=120,
        spec={"spec_drafts": 4, "spec_draft_tokens": 16, "spec_accepted_tokens": 12},
    )
    store.record_step(t=t0 + 1.0, generation_tokens=5)  # a bin with no lookups and no drafts
    series = MonitorSeries(store, window_s=10.0)
    series.poll(now=t0 + 1.2)
    snap = series.snapshot(now=t0 + 1.2)
    x = snap.engine_x
    at = int(np.argmin(np.abs(x - (t0 - (t0 + 1.2)))))
    assert snap.engine["prefix_hit_pct"][at] == pytest.approx(25.0)
    assert snap.engine["spec_accept_pct"][at] == pytest.approx(75.0)
    assert snap.engine["spec_tokens_per_step"][at] == pytest.approx(1 + 12 / 4)
    later = int(np.argmin(np.abs(x - (-0.2))))
    assert math.isnan(snap.engine["prefix_hit_pct"][later]) and math.isnan(snap.engine["spec_accept_pct"][later])
    assert snap.engine["generation_tps"][later] == pytest.approx(10.0)
