"""Which machine the fit badges are for (console/models/machine_fit.py), headless: without a GPU the
CPU engine's verdict in this machine's RAM (the planner's CPU arithmetic) first, the RTX 4090's
beside it; this machine's card by name with what other programs hold; a named card alone. The CLI's
``models curated`` prints the same columns. NVML is faked as tests/test_ui_picker_machine.py does."""

from __future__ import annotations

import json
import re

import pytest

from console.cli.main import main
from console.metrics import nvml
from console.models.curated import load_curated
from console.models.machine_fit import caption, curated_verdicts, machines_for, picker_machines, verdicts
from console.planner import KNOWN_SHAPES
from console.planner.core import PlanRequest
from console.planner.gpus import GiB, GpuProfile
from console.planner.verdict import plan


@pytest.fixture()
def no_nvml(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(nvml, "gpu_name", lambda index=0: None)
    monkeypatch.setattr(nvml, "memory_in_use_by_others", lambda index=0: None)
    monkeypatch.setattr("psutil.virtual_memory", lambda: type("Vm", (), {"total": 24 * GiB})())


def test_the_cpu_engine_refuses_fp8_weights_in_the_plan() -> None:
    shape = KNOWN_SHAPES["Qwen3-8B"]
    fp8 = plan(PlanRequest(shape, gpu="cpu:64", quantization="fp8", max_model_len=4096))
    assert fp8.verdict == "does-not-fit" and any("does not run FP8 weights" in p for p in fp8.problems)
    assert plan(PlanRequest(shape, gpu="cpu:64", quantization="awq", max_model_len=4096)).verdict == "fits"
    assert plan(PlanRequest(shape, gpu="rtx-4090", quantization="fp8", max_model_len=4096)).verdict == "fits"


def test_without_a_gpu_the_cpu_verdict_comes_first_and_the_4090_is_for_comparison(no_nvml: None) -> None:
    machines = picker_machines("cpu:24")
    assert [m.label for m in machines] == ["This PC (CPU engine, 24 GiB RAM)", "RTX 4090"]
    assert [m.this_pc for m in machines] == [True, False]
    assert dict(machines[0].knobs or ())["kv_cache_memory_bytes"] == 2 * GiB  # the CPU preset's KV space
    assert "CPU engine in 24 GiB of RAM" in caption(machines) and "RTX 4090" in caption(machines)
    by_repo = {m.repo: v for m, v in curated_verdicts(load_curated().models, machines)}
    cpu, card = by_repo["Qwen/Qwen3-8B-AWQ"]
    assert cpu.badges.verdict == "fits" and cpu.badges.card == "cpu" and card.badges.card == "rtx-4090"
    assert 1 <= cpu.tok_s < 100 and cpu.text() == f"fits, ~{cpu.tok_s} tok/s est."
    assert card.text() == "fits" and card.tok_s == 0  # no speed guess beside a card
    assert all(v[1].badges.verdict == "fits" for v in by_repo.values())  # the list is made for a 4090
    small_ram = machines_for("cpu:8", local=False)
    too_big = verdicts(KNOWN_SHAPES["Qwen3-14B"], "awq", small_ram)[0]
    assert too_big.badges.verdict == "does-not-fit" and "exceed 8.00 GiB of RAM" in too_big.badges.detail
    assert too_big.text() == "does not fit" and too_big.tok_s == 0 and not too_big.needs_gpu
    # FP8 weights are not a question of memory on the CPU engine: the cell says what they need
    fp8_cpu, fp8_card = by_repo["Qwen/Qwen3-8B-FP8"]
    assert fp8_cpu.badges.verdict == "does-not-fit" and fp8_cpu.text() == "needs an NVIDIA GPU (FP8 weights)"
    assert fp8_card.text() == "fits" and not fp8_card.needs_gpu


def test_this_machines_card_and_a_named_card(monkeypatch: pytest.MonkeyPatch) -> None:
    card = GpuProfile("geforce-rtx-3060", "NVIDIA GeForce RTX 3060", 12 * GiB, 1000.0, 100.0)
    monkeypatch.setattr(nvml, "gpu_name", lambda index=0: "NVIDIA GeForce RTX 3060")
    monkeypatch.setattr(nvml, "memory_in_use_by_others", lambda index=0: nvml.InUse(3 * GiB, ()))
    machines = picker_machines(card)
    assert [m.label for m in machines] == ["This PC (RTX 3060, 12 GiB)"] and machines[0].in_use == (3 * GiB, ())
    assert caption(machines) == "Fit for this PC's RTX 3060 (12 GiB), 3.0 GiB of it held by other programs"
    moe = verdicts(KNOWN_SHAPES["Qwen3-30B-A3B"], "gptq", machines)[0]  # about 16 GiB of weights
    assert moe.badges.verdict == "does-not-fit" and moe.badges.card == "geforce-rtx-3060"
    named = picker_machines("rtx-4080")  # not this machine's card: that card's alone, not "This PC"
    assert [m.label for m in named] == ["RTX 4080"] and not named[0].this_pc
    assert caption(named) == "Fit for the RTX 4080 (rtx-4080)"


def test_models_curated_prints_this_machines_column(no_nvml: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["models", "curated"]) == 0
    out = capsys.readouterr().out
    assert "This PC (CPU engine, 24 GiB RAM): fits at 8k" in out and "RTX 4090: fits at 8k" in out
    line = next(x for x in out.splitlines() if x.startswith("Qwen/Qwen3-8B-FP8 "))
    assert re.search(r"  needs an NVIDIA GPU \(FP8 weights\) +fits  ", line), line  # the CPU engine can't, the 4090 can
    assert main(["models", "curated", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["machines"] == ["This PC (CPU engine, 24 GiB RAM)", "RTX 4090"]
    first = data["models"][0]["verdicts"]
    assert [v["this_pc"] for v in first] == [True, False] and first[0]["tok_s_estimate"] > 0
