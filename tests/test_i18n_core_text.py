"""The core's own sentences shown in the window come out in Chinese under zh_CN (issue 30):
why there is no GPU series, where the planner's figures came from, why an advisor rule was not
checked. Each sentence is made by the core itself (NVML's reason on this machine, the planner's
provenance of real plans, the advisor's report on an empty store), so a changed wording in the
core fails here instead of showing English in the window. No engine."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path
from typing import Any, Iterator

import pytest

from console.ui.core_text import translate_core_text
from tests.test_i18n_window import english_words

CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture()
def zh_cn(qapp: Any) -> Iterator[None]:
    from PySide6.QtCore import QLocale

    from console.ui.app import install_translators

    installed = install_translators(qapp, "zh_CN")
    assert installed
    try:
        yield
    finally:
        for t in installed:
            qapp.removeTranslator(t)
        QLocale.setDefault(QLocale("en_US"))


def _translated(text: str) -> str:
    out = translate_core_text(text)
    assert out != text and CJK.search(out), f"not translated: {text!r} -> {out!r}"
    return out


def _nvml_reason(monkeypatch: pytest.MonkeyPatch, module: Any) -> str:
    """NVML's reason with ``module`` standing in for pynvml (None: not installed)."""
    from console.metrics import nvml

    monkeypatch.setitem(sys.modules, "pynvml", module)
    for name, value in (("_tried", False), ("_module", None), ("_reason", None)):
        monkeypatch.setattr(nvml, name, value)
    return nvml.unavailable_reason()


def test_nvml_and_device_reasons(zh_cn: None, monkeypatch: pytest.MonkeyPatch) -> None:
    from console.metrics import device, nvml

    here = nvml.unavailable_reason()  # this machine: no NVIDIA GPU, the real bindings' own error
    if not here:
        pytest.skip("an NVIDIA GPU is visible here")
    out = _translated(here)
    detail = re.search(r"\((.*)\)$", here)
    assert detail is None or detail.group(1) in out  # the library's own error is kept as it said it
    fallback = device.open_source()[1]
    assert _translated(fallback).startswith(out)

    class Refuses:  # stand-ins for pynvml on the failure paths this machine cannot take
        @staticmethod
        def nvmlInit() -> None:
            pass

        @staticmethod
        def nvmlShutdown() -> None:
            pass

        @staticmethod
        def nvmlDeviceGetCount() -> int:
            raise OSError("driver gone")

    class NoDevice(Refuses):
        @staticmethod
        def nvmlDeviceGetCount() -> int:
            return 0

    for stand_in in (None, Refuses, NoDevice):
        reason = _nvml_reason(monkeypatch, stand_in)
        assert reason, stand_in
        _translated(reason)


def test_planner_provenance(zh_cn: None, tiny_model: Path, home: Path) -> None:
    from console.config import EngineConfig
    from console.models.store import ModelStore
    from console.planner.calibration import Calibration
    from console.planner.fit_table import plan_for
    from console.planner.selfcal import status_text
    from console.ui.plan_view import details_markdown

    store = ModelStore()
    entry = store.add_reference("tiny", tiny_model)
    seen = set()
    for device, config in (("cpu:24", EngineConfig(model=str(tiny_model), kv_cache_memory_bytes=2 * 1024**3)),
                           ("h200", EngineConfig(model=str(tiny_model))),
                           ("rtx-4090", EngineConfig(model=str(tiny_model)))):
        p = plan_for(entry, config, device)
        texts = [str(p.calibration["status"])] + [str(v) for v in p.calibration["sources"].values()]
        for text in texts:
            _translated(text)
            seen.add(text)
        assert not english_words(details_markdown(p), set()), details_markdown(p)
    user = Calibration(gpu="h200", origin="user", loads=3, vllm_version="0.33.0", path="/x/h200-user.json",
                       overheads={"cuda_context": {"scale": 1.1}, "cuda_graphs": {"bytes": 1}},
                       inherited={"cuda_graphs": "h200.json"})
    shipped = Calibration(gpu="h200", path="/x/h200.json", overheads={"activation_peak": {"scale": 1.2}})
    notes = [user.correct("cuda_context", 100)[1], user.correct("cuda_graphs", 100)[1],
             shipped.correct("activation_peak", 100)[1]]
    for text in (status_text(None), status_text(user), "calibrated on this GPU",
                 "measured on this GPU (2026-12-01 10:00): 93,184 tokens", *notes):
        _translated(str(text))
    assert any(t.startswith("calibrated (") for t in seen) and "exact: kv_cache_memory_bytes, as given" in seen


def test_advisor_reasons(zh_cn: None) -> None:
    from console.advisor import evaluate, load_rules
    from console.metrics.store import MetricsStore
    from console.paths import resources_dir

    report = evaluate(MetricsStore(), load_rules(resources_dir() / "advisor" / "rules.toml"))
    assert len(report.not_evaluated) >= 3  # no NVML series here, no engine settings
    for reason in report.not_evaluated.values():
        _translated(reason)


def test_an_unknown_sentence_is_shown_as_written(zh_cn: None) -> None:
    assert translate_core_text("something the core says now") == "something the core says now"
    assert translate_core_text("estimates") == "estimates"  # whole sentences only
