"""The metrics store's public read API, and that nothing outside it reaches into its private
fields (prometheus.py and recording.py used to)."""

from __future__ import annotations

import re
from pathlib import Path

from console.metrics.store import DeviceSample, FinishedRecord, MetricsBin, MetricsStore

ROOT = Path(__file__).resolve().parent.parent


def test_nothing_outside_the_store_touches_its_private_fields() -> None:
    private = re.compile(
        r"\b(?:store|metrics|self\.store|self\.metrics|ctx\.metrics)\._(?:lock|bins|ttft|itl|finished|device)\b"
    )
    offenders = []
    for path in sorted([*(ROOT / "console").rglob("*.py"), *(ROOT / "benchmarks").rglob("*.py")]):
        if path == ROOT / "console" / "metrics" / "store.py":
            continue
        for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if private.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{no}: {line.strip()}")
    assert offenders == []
    assert private.search("with store._lock:")  # the pattern catches the old reach-in


def test_latency_samples_and_totals_snapshot() -> None:
    store = MetricsStore()
    store.record_step(t=100.0, generation_tokens=5, ttfts=[0.2, 0.1], itls=[0.01])
    store.record_step(t=101.0, generation_tokens=3, ttfts=[0.3], itls=[0.02, 0.03])
    assert store.latency_samples("ttft") == [0.2, 0.1, 0.3]
    assert store.latency_samples("itl", since=101.0) == [0.02, 0.03]
    snap = store.totals_snapshot()
    assert snap["generation_tokens"] == 8 and snap["steps"] == 2
    snap["generation_tokens"] = 0  # a copy: the store's totals are untouched
    assert store.totals["generation_tokens"] == 8
    assert store.latency_percentiles("ttft", qs=(50,)) == {50: 0.2}


def test_from_series_keeps_every_point_of_a_long_recording() -> None:
    # two hours at 0.5 s: more bins than a default store keeps (one hour)
    bins = [MetricsBin(t=1_700_000_000.0 + i * 0.5, generation_tokens=1) for i in range(14_400)]
    device = [DeviceSample(1_700_000_000.0 + i, {"rss_bytes": float(i)}) for i in range(10)]
    finished = [FinishedRecord(1_700_000_001.0, "r", "length", 1.0, 0.1, 0.2, 0.7, 4, 8, 0)]
    store = MetricsStore.from_series(
        0.5,
        bins=reversed(bins),
        device=device,
        finished=finished,
        ttft=[(1_700_000_000.0, 0.25)],
        totals={"generation_tokens": 14_400},
    )
    got = store.bins()
    assert len(got) == 14_400 and got[0].t < got[-1].t  # all kept, sorted by time
    assert [s.values["rss_bytes"] for s in store.device_samples()] == [float(i) for i in range(10)]
    assert store.finished() == finished and store.latency_samples("ttft") == [0.25]
    assert store.totals_snapshot()["generation_tokens"] == 14_400
