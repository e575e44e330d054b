"""Session recordings: a run's full metric series saved to a JSON file and loaded back into a
:class:`MetricsStore` (for the Monitor's comparison view, the advisor's replay, or another
machine). The file is ``MetricsStore.to_json()`` plus ``format``/``meta`` keys; the GPU evidence
series in ``benchmarks/gpu/results`` have the same shape and load the same way."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from console.atomic import atomic_write_bytes, atomic_write_text
from console.metrics.store import DeviceSample, FinishedRecord, MetricsBin, MetricsStore

FORMAT = "inference-console-recording/1"


class RecordingError(ValueError):
    """A file that is not a readable recording; the message says what is wrong."""


def from_json(data: dict[str, Any]) -> MetricsStore:
    """A store holding exactly the series of ``data`` (as written by ``MetricsStore.to_json``)."""
    try:
        res = float(data["resolution_s"])
        bins = [MetricsBin(**b) for b in data.get("bins", [])]
        device = [
            DeviceSample(float(d["t"]), {k: float(v) for k, v in d["values"].items()}) for d in data.get("device", [])
        ]
        finished = [FinishedRecord(**f) for f in data.get("finished", [])]
        ttft = [(float(t), float(v)) for t, v in data.get("ttft", [])]
        itl = [(float(t), float(v)) for t, v in data.get("itl", [])]
        totals = {k: float(v) for k, v in data.get("totals", {}).items()}
    except (KeyError, TypeError, ValueError) as exc:
        raise RecordingError(f"not a metrics recording ({type(exc).__name__}: {exc})") from None
    if res <= 0:
        raise RecordingError("not a metrics recording (resolution_s must be positive)")
    return MetricsStore.from_series(res, bins=bins, device=device, finished=finished, ttft=ttft, itl=itl, totals=totals)


def read_json_file(path: Path) -> Any:
    """JSON from ``path``, gunzipped first when the name ends in ``.gz`` (recordings compress ~8x)."""
    path = Path(path)
    raw = path.read_bytes()
    if path.suffix == ".gz":
        raw = gzip.decompress(raw)
    return json.loads(raw.decode("utf-8"))


def save_recording(store: MetricsStore, path: Path, meta: dict[str, Any] | None = None) -> Path:
    """Write the store's whole history (and ``meta``: model, preset, engine settings) to ``path``
    (gzip-compressed when the name ends in ``.gz``)."""
    data = store.to_json()
    data["format"] = FORMAT
    data["meta"] = dict(meta or {})
    text = json.dumps(data)
    if Path(path).suffix == ".gz":
        atomic_write_bytes(Path(path), gzip.compress(text.encode("utf-8")))
    else:
        atomic_write_text(Path(path), text)
    return Path(path)


def load_recording(path: Path) -> tuple[MetricsStore, dict[str, Any]]:
    """The store and the meta dict of a recording file (a GPU evidence series works too: its
    ``label`` becomes ``meta["label"]``)."""
    try:
        data = read_json_file(Path(path))
    except FileNotFoundError:
        raise RecordingError(f"no recording at {path}") from None
    except OSError as exc:
        raise RecordingError(f"cannot read {path}: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise RecordingError(f"{path} is not JSON ({exc.msg}, line {exc.lineno})") from None
    except (gzip.BadGzipFile, EOFError, UnicodeDecodeError) as exc:
        raise RecordingError(f"{path} is not a readable recording ({exc})") from None
    if not isinstance(data, dict):
        raise RecordingError(f"{path} is not a metrics recording")
    meta = dict(data.get("meta") or {})
    for key in ("label", "t_start"):
        if key in data and key not in meta:
            meta[key] = data[key]
    try:
        return from_json(data), meta
    except RecordingError as exc:
        raise RecordingError(f"{path}: {exc}") from None
