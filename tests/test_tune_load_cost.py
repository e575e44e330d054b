"""Auto-tune on the GPU, what a load costs: a speculative trial's CUDA-graph limit holds its draft
tokens (vLLM's own rounding refuses one below them), a point whose compile key was loaded before
is expected to load as fast as such loads did (vLLM reads its compile cache) and is tried first
among equally near points, a budget that no longer holds a first compile still holds those, and a
short run stops a trial only where stopping saves time against its load.

The search runs on a stand-in engine (``tests/fixtures/stand_in.py``) with a clock the test
advances: a load of a new compile key takes 100 s, one of a key loaded before 10 s, a run 5 s. What
a real load does is tested on the CPU engine (``tests/test_tune_run.py``); vLLM's rounding is its
installed ``CompilationConfig``'s."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from console.bench.tune import tune
from console.bench.tune_cost import capture_limit
from console.bench.tune_goal import Goal
from console.bench.tune_result import Trial
from console.bench.workload import synthetic
from console.config import EngineConfig
from tests.fixtures.stand_in import StandInLoader


def _vllm_capture_sizes(limit: int) -> list[int]:
    """vLLM 0.26's capture sizes under ``max_cudagraph_capture_size`` (``VllmConfig._set_cudagraph_sizes``,
    written out here from its source rather than taken from the console's copy)."""
    sizes = [1, 2, 4, *range(8, 256, 8), *range(256, limit + 1, 16)]
    return [s for s in sizes if s <= limit]


@pytest.mark.parametrize("draft", [0, 1, 2, 4, 8])
@pytest.mark.parametrize("level", [1, 3, 64])
def test_a_speculative_trials_graph_limit_is_one_vllm_takes(draft: int, level: int) -> None:
    """One request in flight with n-gram speculation of 2 drafts decodes 3 tokens a step: a limit
    of 1 (what the tune gave before) makes vLLM refuse the load ("No valid cudagraph sizes after
    rounding to multiple of 3"); the limit covers every request in flight with its drafts."""
    from vllm.config.compilation import CompilationConfig

    spec = {"speculative_method": "ngram", "num_speculative_tokens": draft} if draft else {}
    config = EngineConfig(model="m", device="cuda", **spec)  # type: ignore[arg-type]
    limit = capture_limit(config, level)
    sizes = _vllm_capture_sizes(limit)
    compilation = CompilationConfig(cudagraph_capture_sizes=sizes, max_cudagraph_capture_size=limit)
    compilation.adjust_cudagraph_sizes_for_spec_decode(1 + draft)  # raises ValueError for a limit it refuses
    step = 1 + draft  # the widest decode step vLLM can graph under its 512: the largest multiple of it
    assert compilation.max_cudagraph_capture_size >= min(level * step, 512 - 512 % step)


def test_a_preset_keeps_the_drafts_in_its_graph_limit() -> None:
    """A batch cap measured as fewer requests in flight shrinks the saved limit, never below the drafts."""
    t = Trial(
        {"max_num_seqs": 8, "speculative_method": "ngram", "num_speculative_tokens": 4}
        | {"max_cudagraph_capture_size": 40},
        "ok",
        level=1,
    )
    assert t.preset_knobs()["max_cudagraph_capture_size"] == 10  # 1 x (1 + 4): capture size 8, up to a multiple of 5


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class _CompilingStandIn(StandInLoader):
    """Loads cost 100 s on the test's clock for a compile key never loaded, 10 s for one loaded before."""

    def __init__(self, model: Path, clock: _Clock, base: EngineConfig) -> None:
        super().__init__(model)
        self.clock, self.compiled = clock, set[tuple[str, int | None]]()
        self.config = self.requested_config = base

    def load(self, config: EngineConfig, name: str | None = None) -> Any:
        key = (config.kv_cache_dtype or "auto", config.max_cudagraph_capture_size)
        self.clock.now += 10.0 if key in self.compiled else 100.0
        self.compiled.add(key)
        return super().load(config, name)


def test_points_of_a_compiled_key_go_first_and_fit_where_a_compile_would_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """vLLM's defaults (a 100 s compile, runs of 5 s), then the first point (another key: 100 s):
    its neighbours are one knob away, and the two of its compile key go before the one of a new
    key. The first of them is expected to cost a compile (no load of a key loaded before has been
    timed yet) and takes 10 s; the second is expected at 20 s with its runs and fits the 90 s left;
    a new compile (110 s with its runs) fits neither that nor the 70 s after: it is skipped with that
    reason. Before, every point was
    expected at the slowest load so far, and the grid's order sent the new key first."""
    clock = _Clock()
    monkeypatch.setattr("console.bench.tune.time.monotonic", clock)
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text("{}")
    base = EngineConfig(model=str(tmp_path / "m"), device="cuda")
    engine = _CompilingStandIn(tmp_path / "m", clock, base)

    def measure(eng: Any, workload: Any, in_flight: int | None = None) -> dict[str, Any]:
        clock.now += 5.0
        c = eng.config
        tok_s = 90.0 if c.max_cudagraph_capture_size is None else 100.0  # vLLM's defaults are the slowest
        tok_s += 10.0 * (c.gpu_memory_utilization or 0) - (30.0 if c.kv_cache_dtype == "fp8" else 0.0)
        return {"output_tokens_per_s": tok_s, "e2e_s": {"p99": 1.0}}

    # the planner cannot read a config.json of "{}": it ranks nothing and the points keep the grid's order
    grid = [
        {"kv_cache_dtype": "auto", "gpu_memory_utilization": 0.9},
        {"kv_cache_dtype": "fp8", "gpu_memory_utilization": 0.9},  # another compile key
        {"kv_cache_dtype": "auto", "gpu_memory_utilization": 0.8},  # the first point's key
        {"kv_cache_dtype": "auto", "gpu_memory_utilization": 0.7},  # the first point's key
    ]
    w = synthetic(2, 16, 8, vocab_size=512, seed=1)
    result = tune(
        engine, base, grid, w, budget_s=330, measure=measure, goal=Goal(), card="rtx-4090", device_bytes=24 * 2**30
    )
    trials = [t for t in result.trials if t.label != "default"]
    assert [(t.knobs["kv_cache_dtype"], round(t.knobs["gpu_memory_utilization"], 1), t.status) for t in trials] == [
        ("auto", 0.9, "ok"),
        ("auto", 0.8, "ok"),
        ("auto", 0.7, "ok"),
        ("fp8", 0.9, "skipped"),
    ]
    assert [(t.load_seconds, t.first_load_of_key) for t in trials[:3]] == [(100.0, True), (10.0, False), (10.0, False)]
    assert "time budget used up (a trial needs ~110 s, 70 s left)" in (trials[3].error or "")
    assert len(engine.loads) == 4  # the defaults and three points


@pytest.mark.parametrize(("load_s", "status"), [(100.0, "ok"), (0.0, "stopped")])
def test_a_short_run_stops_a_trial_only_where_stopping_saves_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, load_s: float, status: str
) -> None:
    """The second point's short run is slower than the first's: behind a 100 s load, the rest of
    its runs (6 prompts at the short run's 2.5 s a prompt: 15 s) is finished for its figures; behind
    a load that costs nothing the short run stops it, as before."""
    clock = _Clock()
    monkeypatch.setattr("console.bench.tune.time.monotonic", clock)
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text("{}")
    base = EngineConfig(model=str(tmp_path / "m"), device="cpu")
    engine = StandInLoader(tmp_path / "m")
    engine.config = engine.requested_config = base
    plain_load = engine.load

    def load(config: EngineConfig, name: str | None = None) -> Any:
        clock.now += load_s
        return plain_load(config, name)

    monkeypatch.setattr(engine, "load", load)

    def measure(eng: Any, workload: Any, in_flight: int | None = None) -> dict[str, Any]:
        clock.now += 2.5 * workload.num_prompts
        tok_s = {None: 90.0, 16: 120.0, 32: 60.0}[eng.config.block_size]
        return {"output_tokens_per_s": tok_s, "e2e_s": {"p99": 1.0}}

    w = synthetic(6, 16, 8, vocab_size=512, seed=1)
    result = tune(engine, base, {"block_size": [16, 32]}, w, budget_s=3600, measure=measure, goal=Goal())
    slow = next(t for t in result.trials if t.knobs.get("block_size") == 32)
    assert slow.status == status, slow.error
    assert [r["prompts"] for r in slow.runs] == ([2, 6] if status == "ok" else [2])
