"""quantize_and_gate: a rejected result leaves the store, an accepted one keeps the gate's figures
in its lineage. The job and the gate are stubbed here (they have their own tests)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from console.models.store import ModelStore
from console.quant import pipeline
from console.quant.gate import GateResult, ModelReport


def _report(ppl: float) -> ModelReport:
    return ModelReport("m", "/x", ppl, 400, ["Paris"] * 4, 1, 1, 1.0, 1.0)


@pytest.mark.parametrize("ppl, kept", [(10.5, True), (12.0, False)])
def test_rejected_results_are_removed(
    tmp_path: Path, tiny_model: Path, monkeypatch: pytest.MonkeyPatch, ppl: float, kept: bool
) -> None:
    store = ModelStore(tmp_path / "store")
    store.add_reference("src", tiny_model)

    def fake_quantize(store: ModelStore, source: str, out: str | None, **_: Any) -> Any:
        import shutil

        return store.add_staged(
            out or "q",
            lambda tmp: shutil.copytree(tiny_model, tmp, dirs_exist_ok=True),
            source="test",
            lineage={"method": "awq"},
        )

    monkeypatch.setattr(pipeline, "quantize_awq", fake_quantize)
    monkeypatch.setattr(pipeline, "run_gate", lambda *a, **k: GateResult("awq", _report(10.0), _report(ppl), 0.15))
    outcome = pipeline.quantize_and_gate(store, "src", "q")
    assert outcome.kept is kept and outcome.gate is not None and outcome.gate.passed is kept
    assert ("q" in store) is kept
    assert not (store.root / "q").exists() or kept
    if kept:
        gate = store.get("q").lineage["gate"]
        assert gate["passed"] and gate["perplexity_quantized"] == 10.5
    else:
        assert "+20.0%" in outcome.gate.message and "Rejected" in outcome.gate.message
