"""The Monitor tab: real engine (tiny model) feeding the real metrics store and device sampler.

Only ``test_monitor_gpu_layout_with_standin_source`` uses a stand-in (an NVML-shaped device
source that returns fixed values): it is about which plots a GPU machine gets, and there is no
GPU here.
"""

from __future__ import annotations


import numpy as np
import pytest

from console.sampling import SamplingSettings
from console.metrics.store import MetricsStore
from console.engine.types import GenerationRequest, RequestFinished
from console.models.store import ModelStore
from console.metrics.device import DeviceSampler, ProcessSource

pytest.importorskip("pytestqt")


def _ctx(engine, connections, sampler: DeviceSampler | None = None):
    """A context on ``engine``, its bridge closed at the test's teardown."""
    from console.ui.context import AppContext

    metrics = engine.metrics if engine is not None else MetricsStore()
    sampler = sampler or DeviceSampler(metrics, interval_s=0.25)
    return AppContext(
        engine=engine,
        metrics=metrics,
        store=ModelStore(),
        sampler=sampler,
        bridge=connections.bridge(engine) if engine is not None else None,
    )  # type: ignore[arg-type]


def _ydata(panel, name: str) -> np.ndarray:
    _x, y = panel.curves[name].item.getData()
    return np.asarray(y if y is not None else [], dtype=float)


@pytest.mark.engine
def test_monitor_series_grow_while_a_batch_streams(qtbot, connections, tiny_engine, home) -> None:
    from console.ui.monitor.panel import MonitorPanel

    ctx = _ctx(tiny_engine, connections)
    panel = MonitorPanel(ctx)
    qtbot.addWidget(panel)
    panel.resize(1100, 800)
    panel.show()
    try:
        assert "CPU" in panel.device_label.text() and ctx.sampler.reason in panel.device_label.text()
        qtbot.wait(600)
        before_dev = panel.series.device_held
        gen_before = float(np.nansum(_ydata(panel, "tokens.generation_tps")))

        finished: list[RequestFinished] = []
        connections.connect(
            ctx.bridge.requestEvents, lambda evs: finished.extend(e for e in evs if isinstance(e, RequestFinished))
        )
        settings = SamplingSettings(temperature=0.0, max_tokens=128, ignore_eos=True)
        for i in range(16):
            ctx.bridge.submit(GenerationRequest(prompt=f"count {i}: one two three", sampling=settings))
        qtbot.waitUntil(lambda: len(finished) == 16, timeout=120_000)
        qtbot.wait(1200)  # a few refresh ticks (4 Hz) and one latency sample (1 Hz)

        assert panel.redraws > 2
        assert panel.series.device_held > before_dev  # the sampler kept adding points
        gen = _ydata(panel, "tokens.generation_tps")
        # 16 x 128 tokens were generated inside the window: the curve carries (at least) them
        assert np.nansum(gen) * ctx.metrics.resolution_s >= gen_before * ctx.metrics.resolution_s + 16 * 128 - 1
        assert np.nanmax(_ydata(panel, "requests.running")) >= 1
        assert np.nanmax(_ydata(panel, "kv.kv_pct")) > 0
        ttft = _ydata(panel, "ttft.ttft_p50_ms")
        assert np.isfinite(ttft).any() and np.nanmax(ttft) > 0
        assert np.isfinite(_ydata(panel, "itl.itl_p95_ms")).any()
        rss = _ydata(panel, "vram.rss_bytes")
        assert np.nanmax(rss) > 0.05  # GiB: this process plus the engine core
        assert "tok/s" in panel.readout.text()
    finally:
        panel.stop()
        ctx.sampler.stop()


@pytest.mark.engine
def test_cpu_sampler_counts_the_engine_child_processes(tiny_engine) -> None:
    """Without NVML the sampler's memory figure is this process plus its children (vLLM's engine
    core runs in a child): the sum must exceed this process alone. Its CPU cost per sample is a
    benchmark figure (benchmarks/overheads.py, README-gui.md), not a timed test."""
    import psutil

    sampler = DeviceSampler(MetricsStore(), interval_s=0.5, source=ProcessSource())
    own = psutil.Process()
    children = own.children(recursive=True)
    assert children, "the engine core should be a child process of this one"
    s = sampler.sample_once()
    child_rss = sum(c.memory_info().rss for c in children if c.is_running())
    assert s["rss_bytes"] >= own.memory_info().rss + 0.5 * child_rss
    assert 0 < s["ram_used_bytes"] <= s["ram_total_bytes"]


class _FakeNvml:
    """Stand-in NVML source (layout test only): fixed values, power-capped half the time."""

    kind = "nvml"
    name = "Stand-in GPU"
    driver = "0.0"

    def __init__(self) -> None:
        self.n = 0

    def sample(self) -> dict[str, float]:
        self.n += 1
        return {
            "mem_used_bytes": 60e9,
            "mem_total_bytes": 140e9,
            "gpu_util_pct": 90.0,
            "mem_util_pct": 40.0,
            "power_w": 600.0,
            "power_limit_w": 700.0,
            "temperature_c": 71.0,
            "sm_clock_mhz": 1900.0,
            "mem_clock_mhz": 3200.0,
            "throttle_reasons": float(0x4 if self.n % 2 else 0x1),
        }


def test_monitor_gpu_layout_with_standin_source(qtbot) -> None:
    from console.ui.context import AppContext
    from console.ui.monitor.panel import MonitorPanel

    metrics = MetricsStore()
    sampler = DeviceSampler(metrics, interval_s=0.05, source=_FakeNvml())
    ctx = AppContext(engine=None, metrics=metrics, store=None, sampler=sampler, bridge=None)  # type: ignore[arg-type]
    panel = MonitorPanel(ctx)
    qtbot.addWidget(panel)
    panel.show()
    try:
        assert {"vram", "util", "power", "temp", "clocks", "kv", "ttft", "itl", "preempt"} <= set(panel.plots)
        for curve in ("power.power_w", "vram.mem_used_bytes"):  # each plot is redrawn in its own slice of ticks
            qtbot.waitUntil(lambda curve=curve: len(_ydata(panel, curve)) >= 4, timeout=5000)
        assert np.nanmax(_ydata(panel, "power.power_limit_w")) == 700.0
        assert np.nanmax(_ydata(panel, "vram.mem_used_bytes")) == pytest.approx(60e9 / 1024**3)
        marks_x, _ = panel.throttle_marks.getData()
        assert marks_x is not None and len(marks_x) >= 1  # power-cap samples are marked
        qtbot.waitUntil(
            lambda: "software power cap" in panel.readout.text() or "idle" in panel.readout.text(), timeout=3000
        )
        assert panel.guidance.isVisible() and "never changes driver settings" in panel.guidance.text()
    finally:
        panel.stop()
        sampler.stop()
