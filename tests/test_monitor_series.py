"""The Monitor's ring buffers (no Qt): what they plot equals what the store holds, computed once.

The GUI thread polls them eight times a second while an engine streams thousands of tokens a
second; these tests pin what they must show (each bin's values, the latency percentiles) and that
a poll costs what is new, not what is held.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from console.metrics.store import MetricsStore, percentile
from console.ui.monitor import series as monitor_series
from console.ui.monitor.series import ENGINE_KEYS, MonitorSeries, bin_columns


def _fill(store: MetricsStore, start: float, seconds: float, itl_per_step: int = 0) -> None:
    rng = random.Random(7)
    t = start
    while t < start + seconds:
        store.record_step(
            t=t,
            running=rng.randint(0, 64),
            waiting=rng.randint(0, 9),
            kv_usage=rng.random(),
            prompt_tokens=rng.randint(0, 300),
            generation_tokens=rng.randint(0, 300),
            prefix_hits=rng.randint(0, 50),
            prefix_queries=rng.choice([0, 100]),  # some bins have no lookups: a gap, not 0 %
            ttfts=[rng.random() * 0.2],
            itls=[0.005 + rng.random() * 0.02 for _ in range(itl_per_step)],
        )
        t += 0.1


def test_the_plotted_columns_equal_the_bins_values() -> None:
    store = MetricsStore()
    now = 10_000.0
    _fill(store, now - 120, 120)
    series = MonitorSeries(store, window_s=60)
    series.poll(now - 30)
    _fill(store, now, 0.3)  # the newest bin fills between polls
    series.poll(now + 0.4)
    snap = series.snapshot(now + 0.4)
    grid_start = snap.now + snap.engine_x[0]
    bins = [b for b in store.bins() if grid_start - 1e-9 <= b.t <= snap.now]
    want = bin_columns(bins, store.resolution_s)
    idx = np.rint((np.array([b.t for b in bins]) - grid_start) / store.resolution_s).astype(int)
    assert len(bins) > 100
    for key in ENGINE_KEYS:
        np.testing.assert_allclose(snap.engine[key][idx], want[key], equal_nan=True, err_msg=key)
    assert np.isnan(snap.engine["prefix_hit_pct"]).any() and (snap.engine["prefix_hit_pct"] >= 0).any()


def test_latency_percentiles_follow_the_store_from_a_thinned_sample() -> None:
    store = MetricsStore(max_samples=200_000)
    series = MonitorSeries(store, latency_every_s=1.0, latency_window_s=10.0)
    t0 = 50_000.0
    for k in range(60):  # 15 s of polls at 4 Hz, 400 ITL samples per 0.1 s step: 4,000 a second
        _fill(store, t0 + k * 0.25, 0.25, itl_per_step=400)
        series.poll(t0 + k * 0.25 + 0.25)
    now = t0 + 15.0
    exact = store.latency_percentiles("itl", (50, 95), since=now - 10.0)
    _, _, _, itl50, itl95 = series._latency[-1]
    assert itl50 == pytest.approx(1000 * exact[50], rel=0.05)
    assert itl95 == pytest.approx(1000 * exact[95], rel=0.05)
    held = len(series._recent["itl"])
    assert (
        held <= (10 + 1) * 4 * monitor_series.LATENCY_KEEP + monitor_series.LATENCY_KEEP
    )  # window + a second of polls
    assert held < len(store.latency_samples("itl", since=now - 10.0))  # thinned, not copied


def test_a_poll_reads_only_what_is_new(monkeypatch: pytest.MonkeyPatch) -> None:
    store = MetricsStore(max_samples=200_000)
    t0 = 90_000.0
    _fill(store, t0, 100, itl_per_step=100)  # 100,000 samples held
    series = MonitorSeries(store)
    series.poll(t0 + 100)
    seen: list[int] = []
    real = store.latency_after

    def spy(kind: str, after: float) -> list[tuple[float, float]]:
        out = real(kind, after)
        seen.append(len(out))
        return out

    monkeypatch.setattr(store, "latency_after", spy)
    _fill(store, t0 + 100, 0.25, itl_per_step=100)  # three steps more
    series.poll(t0 + 100.3)
    assert seen == [3, 300]  # ttft, itl: the new steps' samples only
    assert percentile([3.0, 1.0, 2.0], 50) == 2.0


def test_the_columns_stay_right_across_many_windows() -> None:
    """The bins live in a numpy buffer twice the window long that moves what it holds to its front
    when full, and device/latency arrays are rebuilt only when a sample arrived: polled every
    0.125 s for five windows, the plot always equals the store's bins and samples of the window."""
    store = MetricsStore()
    series = MonitorSeries(store, window_s=20, latency_every_s=1.0, latency_window_s=5.0)
    t0, rng = 50_000.0, random.Random(3)
    checked = 0
    for step in range(800):  # 100 s, 200 bins: five windows; the buffer (2 x 48 rows) moves to its front 3 times
        now = t0 + step * 0.125
        store.record_step(
            t=now, running=rng.randint(0, 64), kv_usage=rng.random(), generation_tokens=rng.randint(0, 300)
        )
        if step % 4 == 0:
            store.record_device({"cpu_pct": float(step), "rss_bytes": 1e9 + step}, t=now)
        series.poll(now)
        if step % 37 == 0 or step == 799:
            snap = series.snapshot(now)
            grid_start = snap.now + snap.engine_x[0]
            bins = [b for b in store.bins() if grid_start - 1e-9 <= b.t <= snap.now]
            idx = np.rint((np.array([b.t for b in bins]) - grid_start) / store.resolution_s).astype(int)
            want = bin_columns(bins, store.resolution_s)
            for key in ENGINE_KEYS:
                np.testing.assert_allclose(snap.engine[key][idx], want[key], equal_nan=True, err_msg=key)
            missing = np.setdiff1d(np.arange(len(snap.engine_x)), idx)
            assert (snap.engine["running"][missing] == 0).all()  # no stale row from an older window
            dev = [s for s in store.device_samples() if s.t >= now - 20]
            np.testing.assert_allclose(snap.device["cpu_pct"], [s.values["cpu_pct"] for s in dev])
            np.testing.assert_allclose(snap.device_x, [s.t - now for s in dev])
            assert snap.device_latest == dev[-1].values
            assert len(snap.latency_x) == len([r for r in series._latency if r[0] >= now - 20])
            checked += 1
    assert series.bins_held == int(20 / store.resolution_s) + 8
    assert checked > 20
