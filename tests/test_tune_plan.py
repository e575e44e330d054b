"""Auto-tune's planner: the points it drops before anything loads, on known shapes
(the Llama-3.1-8B shape on a 24 GB RTX 4090; no engine), the folding of max_num_seqs into one
load, the order it tries points in, and the card emulation's memory fractions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from console.bench.tune_plan import WorkloadShape, default_grid, parse_grid, plan_tune, workload_shape
from console.bench.workload import synthetic
from console.config import EngineConfig

LLAMA_8B = dict(
    hidden_size=4096,
    intermediate_size=14336,
    num_attention_heads=32,
    num_hidden_layers=32,
    num_key_value_heads=8,
    head_dim=128,
    max_position_embeddings=131072,
    tie_word_embeddings=False,
    model_type="llama",
    architectures=["LlamaForCausalLM"],
    torch_dtype="bfloat16",
    vocab_size=128256,
)
H200_BYTES = 150_754_820_096
WS = WorkloadShape(256, 512, 256)  # the GPU acceptance workload: 256 x 512 -> 256, all at once


@pytest.fixture(scope="module")
def llama_8b(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("shapes") / "llama-8b"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(LLAMA_8B))
    return folder


def _base(folder: Path, **kw: object) -> EngineConfig:
    return EngineConfig(model=str(folder), device="cuda", max_model_len=8192, **kw)  # type: ignore[arg-type]


def _reasons(plan: object) -> dict[str, str]:
    return {json.dumps(p.point, sort_keys=True): p.reason for p in plan.pruned}  # type: ignore[attr-defined]


def test_points_that_cannot_fit_the_card_are_dropped(llama_8b: Path) -> None:
    """bf16 8B weights (15 GiB) on a 24 GB card: half the card cannot hold them, 0.99 leaves no
    room for the CUDA context and graphs outside vLLM's budget; 0.9 fits."""
    plan = plan_tune(_base(llama_8b), {"gpu_memory_utilization": [0.5, 0.9, 0.99]}, WS, device="cuda", card="rtx-4090")
    assert [c.knobs for c in plan.candidates] == [{"gpu_memory_utilization": 0.9}]
    reasons = _reasons(plan)
    assert "do not fit in 0.5" in reasons['{"gpu_memory_utilization": 0.5}']
    assert (
        "CUDA context" in reasons['{"gpu_memory_utilization": 0.99}']
        or "CUDA graphs" in reasons['{"gpu_memory_utilization": 0.99}']
    )


def test_a_point_that_cannot_hold_the_users_context_is_dropped(llama_8b: Path) -> None:
    """At the model's full 131,072-token context the bf16 KV cache left on a 24 GB card cannot
    hold one request (vLLM refuses to start); FP8 KV halves each token and still cannot; at the
    user's 8,192 both fit."""
    grid = {"kv_cache_dtype": ["auto", "fp8"]}
    long = plan_tune(_base(llama_8b).replace(max_model_len=131072), grid, WS, device="cuda", card="rtx-4090")
    assert long.candidates == []
    assert all("not one request" in p.reason for p in long.pruned), long.pruned
    short = plan_tune(_base(llama_8b), grid, WS, device="cuda", card="rtx-4090")
    assert len(short.candidates) == 2 and short.pruned == []


def test_dominated_points_are_dropped_with_the_point_that_dominates_them(llama_8b: Path) -> None:
    grid = {
        "quantization": ["fp8"],
        "kv_cache_dtype": ["fp8"],
        "gpu_memory_utilization": [0.9, 0.95],
        "max_num_batched_tokens": [8192, 16384],
        "enable_prefix_caching": [True, False],
        "enforce_eager": [False, True],
    }
    small = WorkloadShape(32, 128, 64)  # 32 x 129 = 4,128 prompt tokens in flight at most
    plan = plan_tune(_base(llama_8b), grid, small, device="cuda", card="rtx-4090")
    assert [c.knobs for c in plan.candidates] == [
        {
            "quantization": "fp8",
            "kv_cache_dtype": "fp8",
            "gpu_memory_utilization": 0.9,
            "max_num_batched_tokens": 8192,
            "enable_prefix_caching": False,
            "enforce_eager": False,
        }
    ]
    reasons = [p.reason for p in plan.pruned]
    assert len(reasons) == 2**4 - 1
    assert any("max_num_batched_tokens 16,384 is more than the 4,128 prompt tokens" in r for r in reasons)
    assert any("share no prefix" in r for r in reasons)
    assert any("eager mode" in r for r in reasons)
    assert any("memory fraction 0.9 already holds every request" in r for r in reasons)
    # Prompts that share a prefix keep prefix caching in the search.
    shared = plan_tune(
        _base(llama_8b), grid, WorkloadShape(32, 128, 64, shared_prefix=True), device="cuda", card="rtx-4090"
    )
    assert {c.knobs["enable_prefix_caching"] for c in shared.candidates} == {True, False}


def test_a_memory_fraction_is_kept_when_the_lower_one_cannot_hold_the_batch(llama_8b: Path) -> None:
    """bf16 KV for 256 requests of 768 tokens needs 196,608 tokens: neither fraction holds them,
    so the higher one is not dominated (it pre-empts less)."""
    plan = plan_tune(_base(llama_8b), {"gpu_memory_utilization": [0.9, 0.95]}, WS, device="cuda", card="rtx-4090")
    assert sorted(c.knobs["gpu_memory_utilization"] for c in plan.candidates) == [0.9, 0.95]


def test_max_num_seqs_values_fold_into_one_load_measured_as_requests_in_flight(llama_8b: Path) -> None:
    grid = {"max_num_seqs": [64, 128, 256, 512], "kv_cache_dtype": ["fp8"]}
    plan = plan_tune(_base(llama_8b), grid, WS, device="cuda", card="rtx-4090")
    assert len(plan.candidates) == 1
    c = plan.candidates[0]
    assert c.knobs["max_num_seqs"] == 256  # 512 is more than the 256 requests there are
    assert c.levels == [256, 128, 64]


def test_ranked_by_the_planners_ceiling_and_the_default_is_vllms(llama_8b: Path) -> None:
    """On the emulated 24 GB card (an H200 holding only a 4090's worth): FP8 weights + FP8 KV
    first; vLLM's default memory fraction (0.9) of the card becomes the H200's utilization."""
    plan = plan_tune(
        _base(llama_8b),
        default_grid("cuda", native_fp8=True),
        WS,
        device="cuda",
        card="rtx-4090",
        device_bytes=H200_BYTES,
    )
    top = plan.candidates[0].knobs
    assert (top["quantization"], top["kv_cache_dtype"], top["enable_prefix_caching"]) == ("fp8", "fp8", False)
    predicted = [c.predicted_tok_s for c in plan.candidates]
    assert predicted == sorted(predicted, reverse=True) and predicted[0] > predicted[-1]
    card = 24564 * 1024**2
    assert plan.default_knobs["gpu_memory_utilization"] == pytest.approx(0.9 * card / H200_BYTES, abs=1e-4)
    assert all(v is None for k, v in plan.default_knobs.items() if k != "gpu_memory_utilization")
    fractions = {c.knobs["gpu_memory_utilization"] for c in plan.candidates}
    assert fractions <= {round(f * card / H200_BYTES, 4) for f in (0.9, 0.95)}


def test_workload_shape_and_grid_text() -> None:
    w = synthetic(8, 40, 16, vocab_size=32000, seed=1)
    ws = workload_shape(w, max_concurrency=4)
    assert (ws.num_prompts, ws.input_len, ws.output_len, ws.concurrency, ws.shared_prefix) == (8, 40, 16, 4, False)
    w.prompt_token_ids[3][:16] = w.prompt_token_ids[0][:16]
    assert workload_shape(w).shared_prefix
    assert parse_grid("max_num_seqs=8,32; kv_cache_dtype=auto,fp8; quantization=null,fp8") == {
        "max_num_seqs": [8, 32],
        "kv_cache_dtype": ["auto", "fp8"],
        "quantization": [None, "fp8"],
    }
    with pytest.raises(ValueError, match="unknown engine knob"):
        parse_grid("max_num_seq=8")


def test_cli_refuses_a_bad_tune_grid_before_any_load(
    llama_8b: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A misspelt knob is one clear line, before an engine is built (no traceback): in this process."""
    from console.cli.main import main

    rc = main(
        [
            "bench",
            "--model",
            str(llama_8b),
            "--device",
            "cpu",
            "--tune",
            "--tune-grid",
            "max_num_seq=8,16",
            "--num-prompts",
            "2",
            "--input-len",
            "8",
        ]
    )
    err = capsys.readouterr().err
    assert rc != 0
    assert "--tune-grid: unknown engine knob(s) max_num_seq" in err
    assert "Traceback" not in err
