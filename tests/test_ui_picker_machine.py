"""The model picker says which machine its fit badges are for (console/ui/models/get_model_picker.py):
without a GPU, the CPU engine's verdict for this PC (its RAM) first and coloured, the RTX 4090's beside
it and labelled; with this machine's NVIDIA card (NVML faked: a 12 GiB card, as tests/test_ui_monitor.py
fakes a device source), that card by name, counting what other programs hold. The device is found as
the Models panel finds it (``planner_device``); the verdicts are the planner's, no engine."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt

from console.metrics import nvml
from console.metrics.device import DeviceSampler
from console.metrics.store import MetricsStore
from console.models.curated import load_curated
from console.models.fit_table import planner_device
from console.planner.gpus import GiB
from console.ui.models.get_model_picker import COLUMNS, ModelPicker
from console.ui.models.table import VERDICT_COLOURS

FITS = COLUMNS.index("fits")
CARD = "NVIDIA GeForce RTX 3060"


class _NoGpu:
    """A device source without NVML, as on a machine without an NVIDIA GPU."""

    kind = "process"
    name = "process"

    def sample(self) -> dict[str, float]:
        return {}


class _Card:
    """A stand-in NVML source: a 12 GiB card the planner has no profile for."""

    kind = "nvml"
    name = CARD

    def sample(self) -> dict[str, float]:
        return {"mem_total_bytes": 12.0 * GiB, "mem_used_bytes": 0.0}


def _picker(qtbot: Any, device: Any) -> ModelPicker:
    picker = ModelPicker(device)
    qtbot.addWidget(picker)
    qtbot.waitUntil(lambda: not picker.busy, timeout=20_000)
    return picker


def _row(picker: ModelPicker, repo: str) -> dict[str, Any]:
    r = [picker.table.item(i, 0).text() for i in range(picker.table.rowCount())].index(repo)
    return {key: picker.table.item(r, c) for c, key in enumerate(COLUMNS)}


def _header(picker: ModelPicker, key: str) -> str:
    return picker.table.horizontalHeaderItem(COLUMNS.index(key)).text()


@pytest.fixture()
def no_nvml(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(nvml, "gpu_name", lambda index=0: None)
    monkeypatch.setattr(nvml, "memory_in_use_by_others", lambda index=0: None)


def test_without_a_gpu_this_pcs_cpu_verdict_comes_first_and_the_4090s_is_labelled(
    qtbot: Any, monkeypatch: pytest.MonkeyPatch, no_nvml: None
) -> None:
    monkeypatch.setattr("psutil.virtual_memory", lambda: type("Vm", (), {"total": 24 * GiB})())
    device = planner_device(DeviceSampler(MetricsStore(), source=_NoGpu()))
    picker = _picker(qtbot, device)
    assert picker.table.rowCount() == len(load_curated().models)
    assert _header(picker, "fits").startswith("This PC (CPU engine, 24 GiB RAM)")
    assert _header(picker, "reference").startswith("RTX 4090")
    assert not picker.table.isColumnHidden(COLUMNS.index("reference"))
    assert "this PC" in picker.caption.text() and "24 GiB" in picker.caption.text()
    small = _row(picker, "Qwen/Qwen3-8B-AWQ")
    assert small["fits"].text().startswith("fits, ~") and small["fits"].text().endswith("tok/s est.")
    assert small["fits"].background().color().name() == VERDICT_COLOURS["fits"][1]  # the prominent one
    assert small["reference"].text() == "fits" and "rtx-4090" in small["reference"].toolTip()
    assert small["reference"].background().style() == Qt.BrushStyle.NoBrush  # text only: the 4090 is for comparison
    fp8 = _row(picker, "Qwen/Qwen3-8B-FP8")  # the CPU engine does not run FP8 weights; a 4090 does
    assert fp8["fits"].text() == "needs an NVIDIA GPU (FP8 weights)" and "FP8" in fp8["fits"].toolTip()
    assert fp8["reference"].text() == "fits"


def test_a_model_larger_than_the_ram_is_no_cpu_fit(qtbot: Any, no_nvml: None) -> None:
    picker = _picker(qtbot, "cpu:8")
    assert _header(picker, "fits").startswith("This PC (CPU engine, 8 GiB RAM)")
    big = _row(picker, "Qwen/Qwen3-14B-AWQ")  # 9.3 GiB of weights
    assert big["fits"].text() == "does not fit" and "of RAM" in big["fits"].toolTip()
    assert big["fits"].background().color().name() == VERDICT_COLOURS["does-not-fit"][1]
    assert big["reference"].text() == "fits"


def test_this_machines_card_is_named_and_counts_what_others_hold(qtbot: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    held = {"bytes": int(0.25 * GiB)}
    monkeypatch.setattr(nvml, "gpu_name", lambda index=0: CARD)
    monkeypatch.setattr(nvml, "memory_in_use_by_others", lambda index=0: nvml.InUse(held["bytes"], ()))
    device = planner_device(DeviceSampler(MetricsStore(), source=_Card()))
    picker = _picker(qtbot, device)
    assert _header(picker, "fits").startswith("This PC (RTX 3060, 12 GiB)")
    assert picker.table.isColumnHidden(COLUMNS.index("reference"))  # this machine's card alone
    assert "RTX 3060" in picker.caption.text()
    moe = _row(picker, "Qwen/Qwen3-30B-A3B-GPTQ-Int4")  # about 16 GiB of weights
    assert moe["fits"].text() == "does not fit" and "RTX 4090" not in moe["fits"].text()
    assert _row(picker, "Qwen/Qwen3-8B-AWQ")["fits"].text() == "fits"
    held["bytes"] = 8 * GiB  # another program holds most of the card
    picker.show_curated()
    qtbot.waitUntil(lambda: not picker.busy, timeout=20_000)
    assert _row(picker, "Qwen/Qwen3-8B-AWQ")["fits"].text() != "fits"
    assert "8.0 GiB of it held by other programs" in picker.caption.text()
