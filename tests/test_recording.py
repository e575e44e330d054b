"""Session recordings: save a store, load it back identical; the GPU evidence series load too;
broken files are one readable error."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from console.metrics.store import FinishedRecord, MetricsStore
from console.metrics.recording import RecordingError, from_json, load_recording, save_recording

ROOT = Path(__file__).resolve().parents[1]
T0 = 1_800_000_000.0


def _filled() -> MetricsStore:
    st = MetricsStore(resolution_s=0.5)
    for i in range(40):
        st.record_step(
            t=T0 + i * 0.3,
            running=i % 7,
            waiting=i % 3,
            kv_usage=i / 50,
            prompt_tokens=10 * i,
            generation_tokens=i,
            preemptions=i % 5 == 0,
            ttfts=[0.1 * i],
            itls=[0.01, 0.02],
            finished=[FinishedRecord(T0 + i, str(i), "stop", 1.0, 0.2, 0.1, 0.7, 12, 34, 0)],
        )
        st.record_device({"mem_used_bytes": 1e9 + i, "gpu_util_pct": float(i)}, t=T0 + i * 0.25)
    return st


def test_round_trip_keeps_every_series(tmp_path: Path) -> None:
    st = _filled()
    path = save_recording(st, tmp_path / "run.json", meta={"model": "tiny", "engine": {"max_num_seqs": 8}})
    loaded, meta = load_recording(path)
    assert meta == {"model": "tiny", "engine": {"max_num_seqs": 8}}
    # tuples become lists in JSON; compare both as JSON
    assert json.loads(json.dumps(loaded.to_json())) == json.loads(json.dumps(st.to_json()))
    assert loaded.latency_percentiles("ttft") == st.latency_percentiles("ttft")
    assert [b.kv_usage for b in loaded.bins()] == [b.kv_usage for b in st.bins()]
    loaded.record_step(t=T0 + 100, running=1)  # a loaded store is a normal store
    assert loaded.latest().running == 1  # type: ignore[union-attr]


def test_gpu_evidence_series_load_whole() -> None:
    path = ROOT / "benchmarks/gpu/results/series_8b_bf16.json.gz"
    raw = json.loads(gzip.decompress(path.read_bytes()))
    st, meta = load_recording(path)
    assert meta["label"] == raw["label"]
    assert len(st.bins()) == len(raw["bins"]) == 28
    assert len(st.device_samples()) == len(raw["device"])
    assert len(st.finished()) == 258 and st.totals["preemptions"] == 80
    assert st.latency_percentiles("itl", [50])[50] is not None


def test_long_recordings_are_not_truncated() -> None:
    data = MetricsStore(resolution_s=0.5).to_json()
    data["bins"] = [{"t": T0 + i * 0.5, "running": 1} for i in range(20_000)]  # ~2.8 h > the 1 h default
    assert len(from_json(data).bins()) == 20_000


@pytest.mark.parametrize(
    "text, words",
    [
        ("not json", "is not JSON"),
        ("[1, 2]", "not a metrics recording"),
        ('{"resolution_s": 0.5, "bins": [{"x": 1}]}', "not a metrics recording"),
        ('{"resolution_s": -1}', "resolution_s must be positive"),
    ],
)
def test_broken_files_are_one_clear_error(tmp_path: Path, text: str, words: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(RecordingError, match=words):
        load_recording(path)
    with pytest.raises(RecordingError, match="no recording at"):
        load_recording(tmp_path / "missing.json")


def test_gzipped_recording_round_trip(tmp_path: Path) -> None:
    store = MetricsStore()
    store.record_step(running=3, waiting=1, kv_usage=0.5, generation_tokens=7)
    path = save_recording(store, tmp_path / "rec.json.gz", {"model": "m"})
    assert path.read_bytes()[:2] == b"\x1f\x8b"  # really gzip
    loaded, meta = load_recording(path)
    assert meta["model"] == "m" and loaded.totals["generation_tokens"] == 7
    (tmp_path / "bad.json.gz").write_bytes(b"not gzip")
    with pytest.raises(RecordingError):
        load_recording(tmp_path / "bad.json.gz")
