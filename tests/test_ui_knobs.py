"""The knobs explain themselves and show only what applies. Every knob has a tooltip
from the core's one table (console/knob_help.py: what it does, the RTX 4090 default and why),
the rows that mean nothing on the device are hidden (the device passed in), and the speed knobs
sit under a collapsed "Advanced" section. No engine."""

from __future__ import annotations

from typing import Any

import pytest

from console.knob_help import KNOB_HELP, applies_to
from console.planner.defaults import OFFLINE_DEFAULTS_GPU
from console.presets import load_presets

pytest.importorskip("pytestqt")

GPU_ONLY = {"gpu_memory_utilization", "kv_offloading_size", "enable_sleep_mode"}
CPU_ONLY = {"kv_cache_memory_bytes"}


def test_the_help_table_agrees_with_the_gpu_default_preset_and_vllms_defaults() -> None:
    engine = load_presets()["gpu-default"].engine
    assert KNOB_HELP["gpu_memory_utilization"].default_4090 == f"{engine['gpu_memory_utilization']:g}"
    assert engine["enable_prefix_caching"] is True and KNOB_HELP["enable_prefix_caching"].default_4090 == "on"
    assert engine["enforce_eager"] is False and KNOB_HELP["enforce_eager"].default_4090.startswith("off")
    assert KNOB_HELP["max_num_batched_tokens"].default_4090 == f"{OFFLINE_DEFAULTS_GPU[0]:,}"
    assert KNOB_HELP["max_num_seqs"].default_4090 == f"{OFFLINE_DEFAULTS_GPU[1]:,}"
    assert {k for k in KNOB_HELP if not applies_to(k, gpu=False)} == GPU_ONLY
    assert {k for k in KNOB_HELP if not applies_to(k, gpu=True)} == CPU_ONLY


def test_every_knob_has_a_tooltip_from_the_table(qtbot: Any) -> None:
    from console.ui.models.knobs_box import KnobsBox

    box = KnobsBox()
    qtbot.addWidget(box)
    assert set(box.rows) == set(KNOB_HELP)  # every knob of the window is in the table, and no other
    for key, (form, widget) in box.rows.items():
        tip = widget.toolTip()
        assert KNOB_HELP[key].help in tip and "RTX 4090 default: " in tip and KNOB_HELP[key].why in tip, key
        label = form.labelForField(widget)
        assert label is not None and label.toolTip() == tip, key


@pytest.mark.parametrize("gpu", [True, False], ids=["gpu", "cpu"])
def test_rows_that_do_not_apply_to_the_device_are_hidden(qtbot: Any, gpu: bool) -> None:
    from console.ui.models.knobs_box import KnobsBox

    box = KnobsBox()
    qtbot.addWidget(box)
    box.set_device(gpu=not gpu)  # the other device first: the rows must follow a change
    box.set_device(gpu=gpu)
    box.set_advanced_open(True)
    box.show()
    hidden = {key for key in box.rows if not box.row_shown(key)}
    assert hidden == (CPU_ONLY if gpu else GPU_ONLY)
    for key, (_form, widget) in box.rows.items():  # really on screen or not
        assert widget.isVisible() == (key not in hidden), key
    label = "GPU memory utilisation:" if not gpu else "KV cache size (CPU):"
    assert label.rstrip(":") in box.knob_names().values()  # still named in errors, only not shown


def test_the_speed_knobs_sit_under_a_collapsed_advanced_section(qtbot: Any) -> None:
    from console.ui.models.knobs_box import KnobsBox

    box = KnobsBox()
    qtbot.addWidget(box)
    box.set_device(gpu=True)
    box.show()
    advanced = {k for k, h in KNOB_HELP.items() if h.advanced}
    assert {"max_num_seqs", "max_num_batched_tokens", "enforce_eager", "enable_prefix_caching"} <= advanced
    assert not box.advanced_button.isChecked() and not box.advanced.isVisible()
    for key, (_form, widget) in box.rows.items():
        assert widget.isVisible() == (key not in advanced and key not in CPU_ONLY), key
        assert box.advanced.isAncestorOf(widget) == (key in advanced), key
    box.advanced_button.click()
    assert box.advanced.isVisible() and all(box.rows[k][1].isVisible() for k in advanced)
    box.advanced_button.click()
    assert not box.advanced.isVisible()


def test_the_advanced_knobs_reach_the_configuration(qtbot: Any, tiny_model: Any) -> None:
    from console.settings import Knobs
    from console.ui.models.knobs_box import KnobsBox

    box = KnobsBox()
    qtbot.addWidget(box)
    box.set_presets(load_presets(), "cpu-default")
    eager, prefix = box.widget("enforce_eager"), box.widget("enable_prefix_caching")
    assert eager.itemText(0) == "from preset (on)" and prefix.itemText(0) == "from preset (on)"  # type: ignore[attr-defined]
    box.set_knobs(Knobs(max_num_batched_tokens=2048, enforce_eager=False, enable_prefix_caching=False))
    config = box.preset().apply(str(tiny_model), **box.overrides())  # type: ignore[union-attr]
    assert (config.max_num_batched_tokens, config.enforce_eager, config.enable_prefix_caching) == (2048, False, False)
    assert box.knobs() == Knobs(max_num_batched_tokens=2048, enforce_eager=False, enable_prefix_caching=False)
