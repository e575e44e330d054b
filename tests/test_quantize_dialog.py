"""The Quantize… dialog with a stand-in runner: progress, ETA, log, cancel, the comparison table,
and the FP8 presets' memory won. The real job and gate are covered by tests/test_quant_awq.py."""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from console.jobs import Cancelled
from console.quant.evalset import Flip
from console.quant.gate import GateResult, ModelReport


def _report(name: str, ppl: float, correct: int = 200) -> ModelReport:
    return ModelReport(
        name=name,
        path="/x",
        perplexity=ppl,
        heldout_tokens=400,
        answers=["Paris."] * 4,
        size_bytes=2**28,
        weights_bytes=2**27,
        tokens_per_s=50.0,
        load_s=3.0,
        accuracy=correct / 250,
        eval={"set": "quick-v1", "correct": correct, "total": 250},
        engine={"device": "cpu", "vllm_version": "0.32.0", "dtype": "float16"},
    )


def _dialog(qtbot: Any, runner: Any) -> Any:
    from console.models.store import ModelStore
    from console.ui.context import AppContext
    from console.ui.models.quantize_dialog import QuantizeDialog

    ctx = AppContext.create(store=ModelStore())
    ctx.sampler.stop()
    d = QuantizeDialog(ctx, "smollm2", runner=runner)
    qtbot.addWidget(d)
    return d


def test_job_progress_log_and_comparison(qtbot: Any, home: Path) -> None:
    def runner(store: Any, source: str, name: str | None, *, task: Any, on_log: Any, **_: Any) -> Any:
        for i in range(3):
            task.report(f"AWQ: layer {i + 1}/3", 0.1 + 0.3 * i, f"ETA {30 - 10 * i} s")
            on_log(f"layer {i + 1} done")
        gate = GateResult(
            "awq",
            _report(source, 10.0),
            _report(name or "q", 10.8, 199),
            0.15,
            regressions=[
                Flip(
                    "en-units-regex-01",
                    "How many days are there in a week?",
                    "7",
                    "A week has 7 days.",
                    "A typical week has 4 days.",
                )
            ],
        )
        return SimpleNamespace(entry=SimpleNamespace(name=name), gate=gate, kept=True)

    d = _dialog(qtbot, runner)
    assert d.method() == "awq" and d.name_edit.text() == "smollm2-awq-w4"
    with qtbot.waitSignal(d.modelAdded, timeout=10000) as added:
        d.start()
    assert added.args == ["smollm2-awq-w4"]
    qtbot.waitUntil(lambda: d.table.rowCount() > 4, timeout=5000)
    assert "layer 3 done" in d.log_view.toPlainText()
    assert d.table.item(0, 1).text() == "10.00" and d.table.item(0, 2).text() == "10.80"
    assert d.table.item(1, 1).text() == "80.0% (200/250)" and d.table.item(1, 2).text() == "79.6% (199/250)"
    last = d.table.rowCount() - 1  # the question that went from right to wrong, with both answers
    assert d.table.item(last, 0).text().startswith("✗ How many days are there in a week?")
    assert d.table.item(last, 2).text() == "A typical week has 4 days."
    verdict = d.verdict_label.text()
    assert verdict.startswith("Accepted") and "+8.0%" in verdict and "1 of 250 questions right -> wrong" in verdict
    assert "measured on the CPU engine; GPU kernels can differ" in verdict
    assert d.progress.value() == 1000


def test_cancel_stops_the_job(qtbot: Any, home: Path) -> None:
    def runner(store: Any, source: str, name: str | None, *, task: Any, **_: Any) -> Any:
        task.report("AWQ: layer 1/30", 0.1)
        while not task.cancelled:
            time.sleep(0.01)
        raise Cancelled()

    d = _dialog(qtbot, runner)
    call = d.start()
    qtbot.waitUntil(lambda: "layer 1/30" in d.stage_label.text(), timeout=5000)
    assert d.cancel_button.isEnabled() and not d.start_button.isEnabled()
    with qtbot.waitSignal(call.cancelled, timeout=5000):
        d.cancel_button.click()
    qtbot.waitUntil(lambda: d.start_button.isEnabled(), timeout=5000)
    assert "nothing was added" in d.stage_label.text()


def test_fp8_choices_show_the_memory_won(qtbot: Any, home: Path) -> None:
    d = _dialog(qtbot, lambda *a, **k: None)
    d.method_combo.setCurrentIndex(d.method_combo.findData("fp8-w8kv8"))
    # No job to start for FP8 (vLLM quantizes on load): the button measures its quality instead.
    assert not d.name_edit.isEnabled() and d.start_button.text() == "Measure quality"
    assert d.table.rowCount() == 3 and d.table.item(0, 0).text() == "weights"
    assert "4090-fp8-kv8" in d.note.text()


def test_fp8_measure_quality_on_a_cpu_machine_says_it_cannot(qtbot: Any, home: Path, tiny_model: Path) -> None:
    """The real gate runner: without a GPU it refuses before loading anything, and says why."""
    d = _dialog(qtbot, lambda *a, **k: None)
    d.ctx.store.add_reference("smollm2", tiny_model)
    d.method_combo.setCurrentIndex(d.method_combo.findData("fp8-weights"))
    assert d.start_button.isEnabled() and d.start_button.text() == "Measure quality"
    assert "not assumed" in d.note.text()
    d.start()
    qtbot.waitUntil(lambda: d.stage_label.text().startswith("Failed"), timeout=60000)
    text = d.stage_label.text()
    assert text.startswith("Failed: FP8 is not measurable on this machine") and "4090-fp8" in text
