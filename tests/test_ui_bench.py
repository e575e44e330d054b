"""The Bench tab on the real CPU engine (tiny model): a tiny synthetic bench to completion with the
table and plots filled from the measured figures, and a cancel mid-run that leaves the engine
usable. ``test_bench_layout_without_engine`` has no engine at all, and
``test_tune_page_with_a_stand_in_engine`` uses a stand-in engine (loads succeed or fail on
command, figures are made up) because every real trial would build an engine (30-90 s here)."""

from __future__ import annotations

import concurrent.futures as cf
import json
from pathlib import Path
from typing import Any

import pytest

from console.config import EngineConfig
from console.sampling import SamplingSettings
from console.metrics.store import MetricsStore
from console.engine.types import EngineState, EngineStatus, GenerationRequest, RequestFinished
from console.models.store import ModelStore
from console.metrics.device import DeviceSampler

pytest.importorskip("pytestqt")


def _panel(qtbot: Any, connections: Any, engine: Any) -> Any:
    """A Bench panel on ``engine`` (None: no engine), its bridge closed at the test's teardown."""
    from console.ui.bench.panel import BenchPanel
    from console.ui.context import AppContext

    metrics = engine.metrics if engine is not None else MetricsStore()
    bridge = connections.bridge(engine) if engine is not None and hasattr(engine, "add_status_listener") else None
    ctx = AppContext(engine=engine, metrics=metrics, store=ModelStore(), sampler=DeviceSampler(metrics), bridge=bridge)  # type: ignore[arg-type]
    panel = BenchPanel(ctx)
    qtbot.addWidget(panel)
    panel.resize(1400, 900)
    panel.show()
    return panel


def _cell(panel: Any, row: int, col: int) -> str:
    item = panel.table.item(row, col)
    return item.text() if item is not None else ""


@pytest.mark.engine
def test_bench_runs_to_completion_and_fills_table_and_plots(
    qtbot, connections, tiny_engine, home, tmp_path: Path
) -> None:
    panel = _panel(qtbot, connections, tiny_engine)
    assert panel.run_button.isEnabled() and not panel.cancel_button.isEnabled()
    panel.num_prompts.setValue(8)
    panel.input_len.setValue(8)
    panel.output_len.setValue(8)
    panel.sweep_edit.setText("1,4")
    with qtbot.waitSignal(panel.benchFinished, timeout=240_000) as done:
        assert panel.run()
        assert panel.cancel_button.isEnabled() and not panel.run_button.isEnabled()
        assert not panel.tune.run_button.isEnabled()  # one job on the engine at a time
    report = done.args[0]
    assert isinstance(report, dict), report
    console = report["results"]["console"]
    assert console["requests"] == 8 and console["failed"] == 0 and console["output_tokens"] == 64
    assert [r["max_concurrency"] for r in report["concurrency_sweep"]] == [1, 4]

    assert panel.table.rowCount() == 1 and _cell(panel, 0, 0) == "console"
    assert float(_cell(panel, 0, 1)) == pytest.approx(console["output_tokens_per_s"], rel=0.01)
    assert float(_cell(panel, 0, 7)) == pytest.approx(console["e2e_s"]["p99"], abs=0.006)
    assert _cell(panel, 0, 8) == "1.000"
    xs, ys = panel.plots.output_curve.getData()
    assert list(xs) == [1.0, 4.0]
    assert list(ys) == pytest.approx([r["output_tokens_per_s"] for r in report["concurrency_sweep"]])
    p99 = panel.plots.latency_bars["p99"].opts["height"]
    assert len(p99) == 3 and p99[2] == pytest.approx(1000 * console["e2e_s"]["p99"])
    rl = report["roofline"]
    assert "error" not in rl, rl
    assert rl["is_cpu"] and set(rl["bounds"]) == {"1", "4"}
    roof = panel.plots.roofline_bars.opts["height"]
    assert len(roof) == 2 and all(h > 0 for h in roof)
    assert "CPU" in panel.plots.note.text()
    assert "Done" in panel.status_label.text() and panel.run_button.isEnabled()

    out = tmp_path / "report.json"
    panel.save_report(out)
    saved = json.loads(out.read_text())
    assert saved["results"]["console"]["output_tokens"] == 64 and "environment" in saved
    panel.grab().save(str(tmp_path / "bench.png"))


@pytest.mark.engine
def test_bench_cancel_mid_run_leaves_the_engine_usable(qtbot, connections, tiny_engine, home) -> None:
    panel = _panel(qtbot, connections, tiny_engine)
    panel.num_prompts.setValue(200)
    panel.input_len.setValue(16)
    panel.output_len.setValue(64)
    panel.max_concurrency.setValue(2)
    with qtbot.waitSignal(panel.benchFinished, timeout=120_000) as done:
        assert panel.run()
        qtbot.waitUntil(lambda: panel.progress.value() > 0, timeout=60_000)
        panel.cancel()
    assert done.args[0] == "cancelled"
    assert "Cancelled" in panel.status_label.text() and panel.run_button.isEnabled()
    assert tiny_engine.status.state == EngineState.READY
    ev = tiny_engine.generate(
        GenerationRequest(prompt="Hello", sampling=SamplingSettings(max_tokens=4, temperature=0.0)), timeout=120
    )
    assert isinstance(ev, RequestFinished) and ev.output_tokens > 0


def test_bench_layout_without_engine(qtbot, connections, home) -> None:
    """No engine at all: nothing can run, the form says why."""
    panel = _panel(qtbot, connections, None)
    assert not panel.run_button.isEnabled() and not panel.tune.run_button.isEnabled()
    assert not panel.save_button.isEnabled()
    assert "Load a model" in panel.status_label.text()
    assert panel.pages.count() == 2
    panel.sweep_edit.setText("1,x")
    assert not panel.run()

    from tests.test_bench_plots import synthetic_report  # figures made up: the table and plots only

    panel.show_report(synthetic_report())
    assert [_cell(panel, r, 0) for r in range(3)] == ["console", "plain vLLM", "Hugging Face"]
    assert _cell(panel, 1, 8) == f"{280 / 290:.3f}" and _cell(panel, 2, 1).startswith("failed: ")
    assert len(panel.plots.roofline_bars.opts["height"]) == 3 and panel.save_button.isEnabled()


def test_bench_table_gives_no_ratio_between_runs_of_other_concurrencies(qtbot, connections, home) -> None:
    """The console one request at a time, plain vLLM all four at once: "—" and the reason."""
    from tests.test_bench_plots import synthetic_report

    report = synthetic_report()
    report["workload"]["num_prompts"] = 4
    report["results"]["console"]["max_concurrency"] = 1
    report["results"]["vllm"]["max_concurrency"] = None
    panel = _panel(qtbot, connections, None)
    panel.show_report(report)
    assert _cell(panel, 0, 8) == "1.000" and _cell(panel, 1, 8) == "—"
    assert "no ratio" in panel.table.item(1, 8).toolTip()


class StandInEngine:
    """A stand-in engine for the tune: ``load`` succeeds (and becomes the configuration) unless
    the config has block_size 999."""

    def __init__(self, model: Path) -> None:
        self.config = EngineConfig(model=str(model), device="cpu", max_num_seqs=8)
        self.requested_config = None  # a stand-in: the tune takes ``config`` as the user's
        self.status = EngineStatus(EngineState.READY, "stand-in")
        self.metrics = MetricsStore()
        self.loads: list[Any] = []

    def current_loader(self) -> "StandInEngine":
        """Tuning needs an engine that can load (console.engine.interface.as_loader); this
        stand-in plays one for the layout test (it implements only ``load``)."""
        return self

    def load(self, config: EngineConfig, name: str | None = None) -> "cf.Future[None]":
        self.loads.append(config.block_size)
        fut: cf.Future[None] = cf.Future()
        if config.block_size == 999:
            fut.set_exception(RuntimeError("refused: blocks of 999 tokens do not fit"))
        else:
            self.config = config
            fut.set_result(None)
        return fut


def test_tune_page_with_a_stand_in_engine(qtbot, connections, home, tmp_path: Path) -> None:
    """vLLM's defaults first, then the grid (the stand-in model has no shape the planner can read,
    so nothing is pruned or ranked: grid order); the table fills in as trials end; the user's
    configuration is loaded again at the end; the preset says how it was measured."""
    from console.presets import user_presets_dir

    prompts = tmp_path / "p.jsonl"
    prompts.write_text('{"prompt": "hi"}\n', encoding="utf-8")
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text("{}")
    engine = StandInEngine(tmp_path / "m")
    user_config = engine.config
    panel = _panel(qtbot, connections, engine)
    panel.file_radio.setChecked(True)
    panel.file_edit.setText(str(prompts))
    tune = panel.tune
    figures = {None: (90.0, 0.9), 16: (100.0, 1.0), 32: (180.0, 1.5), 64: (150.0, 2.0)}
    snapshots: list[int] = []
    tune.trialMeasured.connect(lambda r: snapshots.append(len(r.trials)))

    def measure(h: Any, workload: Any, in_flight: Any = None) -> dict:
        n = h.config.block_size
        return {"output_tokens_per_s": figures[n][0], "e2e_s": {"p99": figures[n][1]}}

    tune.measure = measure
    tune.grid_edit.setText("block_size=16,32,999,64")
    assert tune.run_button.isEnabled()
    with qtbot.waitSignal(tune.tuneFinished, timeout=30_000) as done:
        assert tune.run()
    result = done.args[0]
    assert [t.status for t in result.trials] == ["ok", "ok", "ok", "failed", "ok"]
    assert [t.knobs.get("block_size") for t in result.trials] == [None, 16, 32, 999, 64]
    assert result.trials[0].label == "default" and engine.loads[0] is None  # vLLM's defaults measured first
    assert engine.loads[-1] is None and engine.config == user_config  # the user's configuration is loaded again
    qtbot.waitUntil(lambda: snapshots == [1, 2, 3, 4, 5], timeout=5_000)  # the table filled in trial by trial
    assert tune.table.rowCount() == 5
    assert tune.table.item(3, 3).text() == "failed" and "do not fit" in tune.table.item(3, 9).text()
    assert result.pareto == [0, 1, 2] and result.best == 2
    assert result.speedup_vs_default == pytest.approx(2.0)
    assert "2.00x vLLM's defaults" in tune.best_label.text()
    xs, ys = tune.pareto.front.getData()
    assert list(xs) == [0.9, 1.0, 1.5] and list(ys) == [90.0, 100.0, 180.0]
    assert len(tune.pareto.points.data) == 4
    assert tune.selected_trial() == 2 and tune.preset_button.isEnabled()
    path = tune.save_preset(2, "tuned-test")
    assert path is not None and Path(path).parent == user_presets_dir()
    text = Path(path).read_text()
    assert "block_size = 32" in text and "2.00x vLLM's defaults measured in the same run" in text
    assert panel.save_button.isEnabled()
    out = tmp_path / "r.json"
    panel.save_report(out)
    saved = json.loads(out.read_text())["tune"]
    assert saved["best"] == 2 and saved["speedup_vs_default"] == pytest.approx(2.0)


def test_tune_page_goes_on_with_a_stopped_tune_after_a_restart(qtbot, connections, home, tmp_path: Path) -> None:
    """A tune cancelled after two trials is saved; a new page (the window opened again) offers to go
    on with it, and going on loads only the points the first part never reached, ending as a tune
    never stopped would (stand-in engine and figures, as above)."""
    from PySide6.QtCore import Qt

    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text("{}")
    engine = StandInEngine(tmp_path / "m")
    figures = {None: (90.0, 0.9), 16: (100.0, 1.0), 32: (180.0, 1.5), 64: (150.0, 2.0)}

    def measure(h: Any, workload: Any, in_flight: Any = None) -> dict:
        n = h.config.block_size
        return {"output_tokens_per_s": figures[n][0], "e2e_s": {"p99": figures[n][1]}}

    first = _panel(qtbot, connections, engine).tune
    assert not first.go_on_button.isEnabled()  # nothing saved yet
    first.measure = measure
    first.grid_edit.setText("block_size=16,32,64")
    cancel = lambda r: len(r.trials) >= 2 and first.call.state.cancel()  # noqa: E731
    first.trialMeasured.connect(cancel, Qt.ConnectionType.DirectConnection)
    with qtbot.waitSignal(first.tuneFinished, timeout=30_000) as done:
        assert first.run()
    stopped = done.args[0]
    assert stopped.cancelled and [t.status for t in stopped.trials] == ["ok", "ok", "skipped", "skipped"]
    assert first.go_on_button.isEnabled()

    again = _panel(qtbot, connections, engine).tune  # a new window: the tune comes back from disk
    assert again.go_on_button.isEnabled() and again.saved is not None
    assert [t.status for t in again.saved.trials] == ["ok", "ok", "skipped", "skipped"]
    again.measure = measure
    again.goal_box.set_goal("many", max_tpot_ms=40.0)  # changed since: going on restores the stopped tune's
    again.goal_box.set_source("conversations")  # goal and prompts
    again.grid_edit.setText("block_size=16,32,64")
    engine.loads.clear()
    with qtbot.waitSignal(again.tuneFinished, timeout=30_000) as done:
        again.go_on_button.click()
    result = done.args[0]
    assert result.goal["kind"] == "throughput" and again.goal_box.kind() == "throughput"
    assert again.goal_box.source() == "bench"
    assert [(t.knobs.get("block_size"), t.status) for t in result.trials] == [
        (None, "ok"),
        (16, "ok"),
        (32, "ok"),
        (64, "ok"),
    ]
    assert engine.loads == [32, 64, None]  # the unreached points, then the user's configuration again
    assert result.best == 2 and result.resumed[0]["trials_kept"] == 2
    assert not again.go_on_button.isEnabled()  # nothing left to go on with
    assert again.table.rowCount() == 4


@pytest.mark.engine
def test_tune_page_cancel_after_the_first_trial_keeps_it(qtbot, connections, tiny_engine, home) -> None:
    """On the real CPU engine: the first trial (vLLM's defaults for the grid's knobs: the engine's
    own configuration, so nothing is loaded) is measured and shown; a cancel then stops the tune
    before any load, and the table and the status line keep that trial."""
    loaded = tiny_engine.config
    panel = _panel(qtbot, connections, tiny_engine)
    panel.num_prompts.setValue(4)
    panel.input_len.setValue(16)
    panel.output_len.setValue(8)
    tune = panel.tune
    tune.grid_edit.setText("max_num_seqs=2,4; max_num_batched_tokens=512,2048")
    from PySide6.QtCore import Qt

    # Cancel as the first trial ends, on the worker thread itself (the Cancel button's queued
    # click could land after the next load had started: a load cannot be interrupted).
    tune.trialMeasured.connect(lambda r: tune.call.state.cancel(), Qt.ConnectionType.DirectConnection)
    with qtbot.waitSignal(tune.tuneFinished, timeout=240_000) as done:
        assert tune.run()
    result = done.args[0]
    assert result.cancelled and result.trials[0].label == "default" and result.trials[0].status == "ok"
    assert result.trials[0].figures["output_tokens"] == 32
    assert [t.status for t in result.trials[1:]] == ["skipped"] * (len(result.trials) - 1)
    assert tune.table.item(0, 3).text() == "measured" and tune.table.item(1, 3).text() == "skipped"
    assert "Cancelled: the trials measured so far are kept." in tune.status_label.text()
    assert tiny_engine.config == loaded  # nothing loaded, nothing reloaded
    assert tune.run_button.isEnabled() and tune.preset_button.isEnabled()


@pytest.mark.engine
def test_tune_page_shows_the_reloaded_model_ready_when_the_tune_ends(qtbot, connections, tiny_engine, home) -> None:
    """The knobs swept include one the loaded model sets (its context), so vLLM's defaults are a
    load of their own; a cancel as that first trial ends, and the model is loaded again before the
    tune ends. At tuneFinished the page and the Bench panel already show the engine ready (Run and
    Save as preset enabled), not the LOADING they last heard of. The window's bridge delivers the
    engine's statuses on a timer; here it never ticks (the test delivers by hand, once, while the
    first trial loads), so what the tune left undelivered only shows if the page delivers it."""
    from PySide6.QtCore import Qt

    from console.ui.bench.panel import BenchPanel
    from console.ui.bridge import EngineBridge
    from console.ui.context import AppContext

    asked = tiny_engine.requested_config
    bridge = EngineBridge(tiny_engine, interval_ms=24 * 3600 * 1000)
    connections.add(bridge.close)
    ctx = AppContext(
        engine=tiny_engine,
        metrics=tiny_engine.metrics,
        store=ModelStore(),
        sampler=DeviceSampler(tiny_engine.metrics),
        bridge=bridge,
    )
    panel = BenchPanel(ctx)
    qtbot.addWidget(panel)
    panel.num_prompts.setValue(2)
    panel.input_len.setValue(8)
    panel.output_len.setValue(4)
    tune = panel.tune
    tune.grid_edit.setText("max_model_len=512,1024")  # vLLM's default: the model's 2,048
    tune.trialMeasured.connect(lambda r: tune.call.state.cancel(), Qt.ConnectionType.DirectConnection)

    def loading_heard() -> bool:
        bridge.flush()  # the bridge's timer, by hand
        return tune._status.state == EngineState.LOADING

    with qtbot.waitSignal(tune.tuneFinished, timeout=600_000) as done:
        assert tune.run()
        qtbot.waitUntil(loading_heard, timeout=120_000)  # the first trial's load
    result = done.args[0]
    assert result.cancelled and result.trials[0].status == "ok" and result.trials[0].load_seconds is not None
    assert tiny_engine.requested_config == asked and tiny_engine.status.state == EngineState.READY  # loaded again
    assert tune.run_button.isEnabled() and tune.preset_button.isEnabled() and panel.run_button.isEnabled()
