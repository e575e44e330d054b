"""The planner against what vLLM sized on a GPU, for every measured load (no GPU here).

The loads in ``resources/calibration/vllm-memory.json`` were measured on an H200 by
``benchmarks/gpu/fit_check.py`` (published configs, dummy weights, the emulated 24 GB card) and by
the earlier ``run_gpu.py``; the release's constants in the same file were fitted from them by
``benchmarks/gpu/fit_report.py``, with the error they leave on families left out of the fit. These
tests replay every one: a recorded figure that drifts, constants that no longer are the fit of their
loads, or a planner rule that changes fails here.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from console.planner.core import compute
from console.planner.kvlayout import kv_layout
from console.planner.published import PUBLISHED_CONFIGS
from console.planner.shapes import KNOWN_SHAPES, ModelShape
from console.planner.vllm_memory import memory_constants

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks" / "gpu"))
import fit_report  # noqa: E402

DOC = json.loads((ROOT / "resources" / "calibration" / "vllm-memory.json").read_text(encoding="utf-8"))
LOADS = DOC["loads"]


def _id(r: dict) -> str:
    return f"{r['repo'].split('/')[-1].split(' ')[0]}-{r['engine_args']['max_model_len']}-{r['mode']}"


def _fitted(r: dict) -> bool:
    """A load the shipped constants were fitted to (not held out, its GPU and release measured)."""
    return not r.get("held_out") and memory_constants().find(r["gpu"], r["vllm_version"])[1] == "exact"


FITTED = [r for r in LOADS if _fitted(r)]
OUTSIDE = [r for r in LOADS if not _fitted(r)]
#: loads outside the fit that miss the issue's bar, with what is known of why: strict, so the day a
#: planner change fixes one this fails until the entry goes
KNOWN_MISSES = {
    "phi-4-fp8-online-default-compiled-16384": "vLLM 0.26 reported 15.22 GiB of weights after quantizing "
    "Phi-4 to FP8 online, 0.61 GiB above its parameters at their width (Llama-3.1-8B through the same path: "
    "0.05); the planner is 12% optimistic there. Cause not found in vLLM's source; "
    "benchmarks/gpu/weights_probe.py lists what the worker holds",
}


@pytest.mark.parametrize("record", FITTED, ids=[_id(r) for r in FITTED])
def test_every_recorded_load_is_predicted_within_3_percent_and_its_promise_never_above(record: dict) -> None:
    p = compute(fit_report.request_of(record))
    assert p.rules["calibration"] == "exact"
    measured = record["kv_tokens"]
    # vLLM's own arithmetic with the release's constants (no margin): within 3.5% either way
    assert abs(p.vllm_kv_tokens / measured - 1) <= 0.035, (p.vllm_kv_tokens, measured)
    # the planner's promise (the badge, the verdict) holds back the measured error: never 3% above vLLM
    assert p.kv_cache_size_tokens <= measured * 1.03
    assert p.kv_cache_size_tokens <= p.vllm_kv_tokens


@pytest.mark.parametrize(
    "record",
    [
        pytest.param(r, marks=pytest.mark.xfail(strict=True, reason=KNOWN_MISSES[r["load_id"]]))
        if r.get("load_id") in KNOWN_MISSES
        else r
        for r in OUTSIDE
    ],
    ids=[r.get("load_id") or _id(r) for r in OUTSIDE],
)
def test_a_load_outside_the_fit_is_within_5_percent_and_its_promise_never_3_above(record: dict) -> None:
    """The issue's bar on what the constants never saw: the matrix's held-out loads (other sizes,
    families, knobs) and loads on a GPU with too few loads to fit (planned with another GPU's)."""
    p = compute(fit_report.request_of(record))
    measured = record["kv_tokens"]
    assert abs(p.vllm_kv_tokens / measured - 1) <= 0.05, (p.vllm_kv_tokens, measured)
    assert p.kv_cache_size_tokens <= measured * 1.03, (p.kv_cache_size_tokens, measured)


def test_the_matrix_loads_are_all_replayed() -> None:
    ids = {r.get("load_id") for r in LOADS}
    assert {x["load_id"] for x in fit_report.matrix_lines() if x.get("rc") == 0} <= ids
    assert set(KNOWN_MISSES) <= ids


def test_every_curated_checkpoint_was_measured() -> None:
    measured = {r["repo"] for r in LOADS}
    assert set(PUBLISHED_CONFIGS) - measured == set()
    c, _ = memory_constants().find("h200", "0.26.0")
    assert c is not None
    for repo, config in PUBLISHED_CONFIGS.items():
        shape = ModelShape.from_hf_config(config, repo)
        assert shape.model_type in c.architectures or shape.model_type in {
            fit_report.request_of(r).shape.model_type for r in LOADS
        }, repo


def test_the_shipped_constants_are_the_fit_of_their_loads() -> None:
    refit = fit_report.constants_document(fit_report.records())
    assert refit["releases"] == DOC["releases"]
    assert [r["kv_tokens"] for r in refit["loads"]] == [r["kv_tokens"] for r in LOADS]


def test_the_readme_fit_table_is_the_replay() -> None:
    table = fit_report.table(fit_report.replay(fit_report.records()))
    assert (ROOT / "benchmarks/gpu/results/fit/fit-table.md").read_text(encoding="utf-8") == table
    assert table in (ROOT / "benchmarks/gpu/README-fit.md").read_text(encoding="utf-8")


def test_the_constants_state_their_error_on_families_left_out() -> None:
    """Each family left out of the fit in turn and its loads predicted: the error a plan states."""
    c, _ = memory_constants().find("h200", "0.26.0")
    assert c is not None
    eager = c.held_out["eager"]
    assert eager.families >= 6 and eager.loads >= 20
    assert eager.kv_most_pessimistic < 0 < eager.kv_most_optimistic
    assert 0 <= eager.non_kv_share <= eager.non_kv_worst
    p = compute(fit_report.request_of(LOADS[3]))
    assert any("left out of the fit" in n for n in p.notes)


def test_unmeasured_constants_err_toward_does_not_fit() -> None:
    """Without the measured constants every load is planned below what vLLM gave (the stated margin)."""
    for r in LOADS:
        p = compute(fit_report.request_of(r).with_changes(measured_constants=False))
        assert p.rules["calibration"] == "none"
        assert p.kv_cache_size_tokens < r["kv_tokens"], r["repo"]
        assert any("held back" in n for n in p.notes)


def test_an_architecture_residual_carries_to_its_other_sizes() -> None:
    """Gemma-3's measured residuals (in the rule's units: shares of its quantized linears and of its
    forward peak) apply to a Gemma-3 size that was never loaded, scaled by that size's own terms."""
    from console.planner.request import PlanRequest

    c, _ = memory_constants().find("h200", "0.26.0")
    assert c is not None and c.residual("gemma3_text", "weights") > 0
    small = ModelShape.from_hf_config(
        {
            **PUBLISHED_CONFIGS["RedHatAI/gemma-3-12b-it-FP8-dynamic"],
            "hidden_size": 2560,
            "intermediate_size": 10240,
            "num_hidden_layers": 34,
            "num_attention_heads": 8,
            "num_key_value_heads": 4,
        },
        "Gemma-3-4B",
    )
    big = ModelShape.from_hf_config(PUBLISHED_CONFIGS["RedHatAI/gemma-3-12b-it-FP8-dynamic"], "Gemma-3-12B")
    args = dict(
        gpu="h200",
        quantization="fp8",
        max_model_len=8192,
        gpu_memory_utilization=0.1638,
        max_num_seqs=256,
        max_num_batched_tokens=8192,
        enforce_eager=True,
        vllm_version="0.26.0",
    )
    p_small, p_big = compute(PlanRequest(small, **args)), compute(PlanRequest(big, **args))
    ratio = p_small.overheads["activation_peak"].bytes / p_big.overheads["activation_peak"].bytes
    assert ratio < 0.8  # the residual scales with the size's forward peak, not a constant per family


def test_the_constants_say_how_close_they_are() -> None:
    mc = memory_constants()
    assert mc.find("h200", "0.26.0")[1] == "exact"
    assert mc.find("rtx-4090", "0.26.0")[1] == "other-gpu"
    assert mc.find("h200", "0.33.0")[1] == "other-version"
    assert mc.find("rtx-4090", "0.33.0")[1] == "other-gpu-and-version"
    # a release no GPU load measured says so in the plan's rules line
    from console.planner.request import PlanRequest

    qwen = KNOWN_SHAPES["Qwen3-8B"]
    unmeasured = compute(PlanRequest(qwen, gpu="rtx-4090", quantization="fp8", max_model_len=8192))
    measured = compute(PlanRequest(qwen, gpu="h200", quantization="fp8", max_model_len=8192, vllm_version="0.26.0"))
    assert unmeasured.rules["vllm"].endswith("read from the source, not measured")
    assert "not measured" not in measured.rules["vllm"]


def test_gemma3_hybrid_layout_gives_vllms_own_figures() -> None:
    """vLLM 0.26 logged 9,048 blocks for Gemma-3-12B (FP8) at 8,192 batched tokens: 24,088 tokens at
    max_model_len 8,192 and 39,568 at 32,768 -- the same blocks, another length."""
    gemma = ModelShape.from_hf_config(PUBLISHED_CONFIGS["RedHatAI/gemma-3-12b-it-FP8-dynamic"], "Gemma-3-12B")
    assert (gemma.sliding_window, gemma.sliding_layers) == (1024, 40)
    short = kv_layout(gemma, 2, 16, 8192, 8192, vllm_minor=26)
    long = kv_layout(gemma, 2, 16, 32768, 8192, vllm_minor=26)
    assert short.bytes_per_block == 8 * 16 * 2 * 8 * 256 * 2  # 8 layers a group share one block id
    assert (short.reported_tokens(9048), long.reported_tokens(9048)) == (24088, 39568)
    # the refused load: 16,384 batched tokens, every sliding layer then holds the whole
    # context below 33,791 tokens; vLLM named 21,008 as the longest length for its 7,884 blocks
    refused = kv_layout(gemma, 2, 16, 32768, 16384, vllm_minor=26)
    assert not refused.fits_one(7884) and refused.longest_fitting(7884, 131072) == 21008


def test_gpt_oss_alternating_layers_and_an_all_full_model() -> None:
    oss = KNOWN_SHAPES["gpt-oss-20b"]
    layout = kv_layout(oss, 2, 16, 131072, 8192, vllm_minor=26)
    assert (layout.groups_full, layout.groups_sliding, layout.group_size) == (1, 1, 12)
    assert layout.blocks_per_request() == 8192 + 1033  # vLLM's own arithmetic for 128k
    llama = kv_layout(KNOWN_SHAPES["Llama-3.1-8B"], 2, 16, 8192, 8192, vllm_minor=33)
    assert llama.rule == "every layer as full attention" and llama.reported_tokens(6803) == 6803 * 16
    cpu = kv_layout(oss, 2, 128, 8192, 4096, hybrid=False)  # no hybrid KV cache on the CPU
    assert cpu.groups == 1 and cpu.group_size == 24


def test_the_readme_curated_table_is_the_calibrated_badges() -> None:
    from console.models.curated import badges_table

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("<!-- curated-badges:start -->\n", 1)[1].split("<!-- curated-badges:end -->", 1)[0]
    assert block == badges_table()
    assert (
        "| RedHatAI/gemma-3-12b-it-FP8-dynamic | gpu-default | 13.5 | fits | 10,240 | 256 tokens a picture |" in block
    )


def test_gemma3_at_32k_on_a_4090_is_not_called_a_fit_and_no_fix_is_refused() -> None:
    """The issue's case: the planner said 'fits with changes' and offered 0.94 of the card with
    max_model_len 25,600, which vLLM would refuse. Every suggestion now fits when planned again."""
    from console.models.curated import load_curated
    from console.planner import PlanRequest, plan

    gemma = next(m for m in load_curated().models if m.repo == "RedHatAI/gemma-3-12b-it-FP8-dynamic")
    p = plan(PlanRequest(gemma.model_shape, gpu="rtx-4090", quantization="fp8", max_model_len=32768))
    assert p.problems and "longest that fits is" in p.problems[0]
    assert p.longest_context < 16384
    for s in p.suggestions:
        changes = {k: v for k, v in s.changes.items() if k != "model"}
        assert compute(p.request.with_changes(**changes)).fits, s.summary
        assert s.changes.get("max_model_len", 0) <= max(p.longest_context, 16384) or "kv_cache_dtype" in s.changes


VLLM_REFUSAL = (
    "ValueError: To serve at least one request with the model's max seq len (32768), (13.32 GiB KV cache is "
    "needed, which is larger than the available KV cache memory (7.70 GiB). Based on the available memory, "
    "the estimated maximum model length is 21008. Try increasing `gpu_memory_utilization` or decreasing "
    "`max_model_len` when initializing the engine."
)


def test_a_refused_length_becomes_vllms_own_fix() -> None:
    from console.engine.errors import explain, kv_refusal, refusal_fix

    refusal = kv_refusal(VLLM_REFUSAL)
    assert refusal is not None and (refusal.max_model_len, refusal.estimate) == (32768, 21008)
    assert (refusal.needed_gib, refusal.available_gib) == (13.32, 7.7)
    # the engine core's exception says only that it failed: the refusal is in the load's log
    message = explain(RuntimeError("Engine core initialization failed. See root cause above."), None, VLLM_REFUSAL)
    assert "vLLM's own estimate: max_model_len 21,008 fits" in message
    assert refusal_fix(message) == ("max_model_len 21,008 (vLLM's own estimate)", {"max_model_len": 21008})
    assert refusal_fix("CUDA out of memory") is None
