"""The planner's share of the speed settings, pinned to hand-computed figures: an EAGLE draft head's
weights and KV on the GPU, nothing for n-gram, KV offload checked against the host's RAM (and
refused on the CPU engine), and the fit table / CLI reading those settings from a preset."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from console.config import EngineConfig
from console.planner import KNOWN_SHAPES, PlanRequest, plan
from console.planner.gpus import GiB
from console.planner.speed import draft_params, params_in_folder

LLAMA8 = KNOWN_SHAPES["Llama-3.1-8B"]
BASE = dict(gpu="rtx-4090", max_model_len=16384, calibration=False)


def test_ngram_costs_no_device_memory_and_says_when_it_pays() -> None:
    plain = plan(PlanRequest(LLAMA8, **BASE))
    ngram = plan(PlanRequest(LLAMA8, speculative_method="ngram", num_speculative_tokens=4, **BASE))
    assert ngram.per_gpu[0].weights_bytes == plain.per_gpu[0].weights_bytes
    assert ngram.kv_tokens == plain.kv_tokens
    assert any("code editing" in n for n in ngram.notes)
    assert ngram.to_dict()["speed"]["speculative"]["draft_weights_gib"] == 0.0


def test_an_eagle_head_takes_its_weights_and_one_layer_of_kv_from_the_budget() -> None:
    # no family fit: the margin of an uncalibrated family, whose weights share covers the head too
    base = {**BASE, "measured_constants": False}
    plain = plan(PlanRequest(LLAMA8, **base))
    eagle = plan(PlanRequest(LLAMA8, speculative_method="eagle", num_speculative_tokens=3, **base))
    h = 4096
    layer = 4096 * 4096 * 2 + 4096 * 1024 * 2 + 3 * 4096 * 14336 + 2 * h  # q,o + k,v + MLP + 2 norms
    assert draft_params(LLAMA8, "eagle") == layer + 2 * h * h
    assert eagle.per_gpu[0].weights_bytes - plain.per_gpu[0].weights_bytes == (layer + 2 * h * h) * 2
    # 33 layers of KV per token instead of 32, from a budget smaller by the head's weights
    assert eagle.per_gpu[0].kv_bytes_per_token == 33 * 2 * 8 * 128 * 2
    head = (layer + 2 * h * h) * 2
    assert eagle.per_gpu[0].vllm_kv_budget_bytes == plain.per_gpu[0].vllm_kv_budget_bytes - head
    weights = plain.per_gpu[0].weights_bytes
    held_back = int(0.08 * (weights + head)) - int(0.08 * weights)  # margin "none": 8% of the weights
    budget = eagle.per_gpu[0].kv_budget_bytes
    assert budget == plain.per_gpu[0].kv_budget_bytes - head - held_back
    assert eagle.kv_blocks == budget // (16 * 33 * 2 * 8 * 128 * 2)
    # a head whose folder is known is counted by its files, not the estimate
    known = plan(
        PlanRequest(LLAMA8, speculative_method="eagle", num_speculative_tokens=3, draft_params=250_000_000, **base)
    )
    assert known.per_gpu[0].weights_bytes - plain.per_gpu[0].weights_bytes == 500_000_000


def test_kv_offload_is_counted_on_the_host_and_checked_against_its_ram() -> None:
    ok = plan(PlanRequest(LLAMA8, kv_offloading_size=8.0, host_memory_bytes=32 * GiB, **BASE))
    assert ok.verdict == "fits"
    off = ok.to_dict()["speed"]["kv_offload"]
    assert off["host_tokens"] == 8 * GiB // 131_072 == 65_536
    too_big = plan(PlanRequest(LLAMA8, kv_offloading_size=40.0, host_memory_bytes=32 * GiB, **BASE))
    assert too_big.verdict == "does-not-fit"
    assert any("KV offload of 40 GiB needs host memory" in p for p in too_big.problems)
    cpu = plan(
        PlanRequest(
            KNOWN_SHAPES["SmolLM2-135M"], gpu="cpu:24", max_model_len=4096, kv_offloading_size=2.0, calibration=False
        )
    )
    assert any("CPU engine refuses it" in p for p in cpu.problems)


def test_a_draft_heads_folder_gives_its_parameter_count(tmp_path: Path) -> None:
    (tmp_path / "model.safetensors").write_bytes(b"\0" * 4000)
    assert params_in_folder(str(tmp_path)) == 2000
    assert params_in_folder(None) == 0 and params_in_folder(str(tmp_path / "absent")) == 0


def test_the_plan_cli_counts_the_draft_and_the_offload(capsys: pytest.CaptureFixture[str]) -> None:
    from console.cli.main import main

    rc = main(
        [
            "plan",
            "--model",
            "Llama-3.1-8B",
            "--gpu",
            "rtx-4090",
            "--max-model-len",
            "16384",
            "--speculative-method",
            "eagle3",
            "--num-speculative-tokens",
            "3",
            "--kv-offloading-size",
            "4",
            "--no-calibration",
            "--json",
        ]
    )
    assert rc == 0
    data = json.loads(capsys.readouterr().out)
    assert (
        data["speed"]["speculative"]["method"] == "eagle3" and data["speed"]["speculative"]["draft_weights_gib"] > 0.5
    )
    assert data["speed"]["kv_offload"]["host_gib"] == 4.0


def test_the_fit_table_plans_a_presets_speed_settings(tmp_path: Path, tiny_model: Path) -> None:
    from console.models.fit_table import plan_for
    from console.models.store import ModelEntry

    config = EngineConfig(
        model="x",
        max_model_len=1024,
        speculative_method="eagle",
        num_speculative_tokens=3,
        speculative_model=str(tmp_path / "no-head"),
    )
    entry = ModelEntry(
        name="tiny",
        path=str(tiny_model),
        architecture="LlamaForCausalLM",
        params=0,
        dtype="float32",
        quantization=None,
        size_bytes=0,
        max_context=None,
        source="test",
    )
    p = plan_for(entry, config, "rtx-4090")
    assert p.request.speculative_method == "eagle" and p.request.num_speculative_tokens == 3
    plain = plan_for(
        entry, config.replace(speculative_method=None, num_speculative_tokens=None, speculative_model=None), "rtx-4090"
    )
    assert p.per_gpu[0].weights_bytes > plain.per_gpu[0].weights_bytes
    assert p.per_gpu[0].kv_bytes_per_token > plain.per_gpu[0].kv_bytes_per_token
