"""The Monitor's comparison with a saved recording, and the Advisor replaying it.

No engine here: the live side is a real MetricsStore fed with record_step (what the in-process engine
does), the recording is a real GPU series committed in benchmarks/gpu/results. What is tested is
the overlay (its data, alignment, legend, closing) and the wiring to the Advisor dock.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from console.metrics.store import MetricsStore
from console.metrics.recording import load_recording
from console.metrics.device import DeviceSampler

pytest.importorskip("pytestqt")

ROOT = Path(__file__).resolve().parents[1]
GPU_SERIES = ROOT / "benchmarks" / "gpu" / "results" / "series_8b_bf16.json.gz"


@pytest.fixture()
def panel(qtbot: Any) -> Any:
    from console.ui.context import AppContext
    from console.ui.monitor.panel import MonitorPanel

    metrics = MetricsStore()
    sampler = DeviceSampler(metrics, interval_s=0.25)
    ctx = AppContext(engine=None, metrics=metrics, store=None, sampler=sampler, bridge=None)  # type: ignore[arg-type]
    p = MonitorPanel(ctx)
    qtbot.addWidget(p)
    p.resize(1100, 800)
    p.show()
    yield p
    p.stop()
    sampler.stop()


def test_recording_overlay_aligned_at_the_live_run_start_then_closed(panel: Any, qtbot: Any) -> None:
    store, meta = load_recording(GPU_SERIES)
    rec_kv_max = max(100.0 * b.kv_usage for b in store.bins())
    with qtbot.waitSignal(panel.recordingOpened) as opened:
        assert panel.open_comparison(str(GPU_SERIES))
    assert opened.args == [str(GPU_SERIES)]
    # engine and latency plots get a dashed twin; the GPU-only device series have no CPU plot here
    assert {"kv.kv_pct", "requests.running", "tokens.generation_tps", "ttft.ttft_p50_ms"} <= set(panel.compare_items)
    assert not any(k.startswith("vram.") for k in panel.compare_items)
    item = panel.compare_items["kv.kv_pct"]
    assert item.opts["pen"].style() != panel.curves["kv.kv_pct"].item.opts["pen"].style()  # dashed vs solid
    x, y = item.getData()
    assert np.nanmax(y) == pytest.approx(rec_kv_max)
    first_busy = x[np.nonzero(y)[0][0]]
    assert first_busy == pytest.approx(-panel.WINDOW_S, abs=0.6)  # no live run yet: run start at the left edge
    assert panel.compare_label.isVisible() and meta["label"] in panel.compare_label.text()

    # a live run that started 30 s ago: the recording's t=0 moves there
    now = time.time()
    for i in range(60):
        panel.ctx.metrics.record_step(t=now - 30 + i * 0.5, running=4, generation_tokens=50)
    panel.series.poll()
    panel.redraw()
    x, running = panel.compare_items["requests.running"].getData()
    assert -31.5 < x[np.nonzero(running)[0][0]] < -29.0  # the recording's run starts where the live one did

    with qtbot.waitSignal(panel.comparisonClosed):
        panel.close_comparison()
    assert not panel.compare_items and not panel.compare_label.isVisible()
    assert all(len(p.listDataItems()) == len(panel._plot_curves[n]) for n, p in panel.plots.items())


def test_an_unreadable_recording_is_refused_with_a_reason(panel: Any, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert not panel.open_comparison(str(bad))
    assert panel.compare is None and "not JSON" in panel.compare_label.text()


def test_the_advisor_replays_what_the_monitor_compares(home: Path, qtbot: Any) -> None:
    from console.models.store import ModelStore
    from console.settings import load_settings
    from console.ui.context import AppContext
    from console.ui.main_window import MainWindow

    ctx = AppContext.create(store=ModelStore())
    w = MainWindow(ctx, load_settings(), owns_engine=False)
    qtbot.addWidget(w)
    w.build_panels()
    monitor = w.panels["monitor"]
    assert monitor.open_comparison(str(GPU_SERIES))
    assert w.advisor.replay is not None and "recording" in w.advisor.header.text()
    fired = {f.rule_id for f in w.advisor.report.findings}
    assert "kv-cache-saturation" in fired  # the bf16 8B run filled its KV cache
    monitor.close_comparison()
    assert w.advisor.replay is None
    w.close()
    ctx.sampler.stop()


def test_a_plot_whose_data_did_not_change_is_not_redrawn(panel: Any) -> None:
    """The paint is what costs (benchmarks/README-gui.md): an idle engine's flat zeros are not
    re-set on every tick, new data is."""
    panel.redraw(force=True)
    when = panel._drawn["kv"][0]
    panel.redraw()
    assert panel._drawn["kv"][0] == when  # nothing new: skipped
    panel.ctx.metrics.record_step(running=3, kv_usage=0.5)
    panel.series.poll()
    panel.redraw()
    assert panel._drawn["kv"][0] > when
    _x, y = panel.curves["kv.kv_pct"].item.getData()
    assert np.nanmax(y) == pytest.approx(50.0)
