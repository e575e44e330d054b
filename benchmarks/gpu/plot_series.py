#!/usr/bin/env python3
"""Render a recorded GPU series (benchmarks/gpu/results/series_*.json, MetricsStore.to_json() plus
``t_start`` and ``label``) as one PNG: engine stats and NVML samples on one time axis.

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/gpu/plot_series.py \\
        benchmarks/gpu/results/series_8b_bf16.json.gz docs/gpu/series_8b_bf16.png

Panels, top to bottom: KV-cache usage; running / waiting requests; prompt and generation tok/s
(per 0.5 s bin); TTFT of each request (when its first token came); NVML memory used (with the
vLLM budget and a 24 GB card's total for reference); GPU / memory utilisation; power; temperature;
SM and memory clocks. Uses pyqtgraph (already a dependency) off-screen, so no matplotlib is needed.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

GiB = 1 << 30
RTX_4090_BYTES = 24564 * (1 << 20)  # NVML total of a 24 GB card (console/planner/gpus.py)


def load(path: Path) -> dict[str, Any]:
    from console.metrics.recording import read_json_file

    data = read_json_file(path)
    if not isinstance(data, dict):
        raise SystemExit(f"{path}: not a MetricsStore series (not a JSON object)")
    for key in ("resolution_s", "bins", "device", "ttft"):
        if key not in data:
            raise SystemExit(f"{path}: not a MetricsStore series (no '{key}')")
    return data


def panels(data: dict[str, Any]) -> list[tuple[str, str, list[tuple[str, list[float], list[float], str]]]]:
    """(title, unit, [(legend, xs, ys, colour)]) per panel, x in seconds from the first NVML sample."""
    bins, dev = data["bins"], data["device"]
    t0 = min([s["t"] for s in dev] + [b["t"] for b in bins])
    res = float(data["resolution_s"])
    bx = [b["t"] - t0 + res / 2 for b in bins]
    dx = [s["t"] - t0 for s in dev]

    def dv(key: str, scale: float = 1.0) -> list[float]:
        return [float(s["values"].get(key, float("nan"))) * scale for s in dev]

    total = max((s["values"].get("mem_total_bytes", 0.0) for s in dev), default=0.0)
    mem_lines = [
        ("NVML memory used", dx, dv("mem_used_bytes", 1 / GiB), "#d62728"),
        ("RTX 4090 total (24,564 MiB)", [dx[0], dx[-1]], [RTX_4090_BYTES / GiB] * 2, "#7f7f7f"),
    ]
    util = data.get("gpu_memory_utilization")
    if util and total:
        mem_lines.append((f"util x total ({util:g})", [dx[0], dx[-1]], [util * total / GiB] * 2, "#1f77b4"))
    return [
        ("KV-cache usage", "fraction", [("KV usage (max per bin)", bx, [b["kv_usage"] for b in bins], "#9467bd")]),
        (
            "Requests",
            "count",
            [
                ("running", bx, [b["running"] for b in bins], "#2ca02c"),
                ("waiting", bx, [b["waiting"] for b in bins], "#ff7f0e"),
            ],
        ),
        (
            "Throughput",
            "tok/s",
            [
                ("generation", bx, [b["generation_tokens"] / res for b in bins], "#1f77b4"),
                ("prompt / 10", bx, [b["prompt_tokens"] / res / 10 for b in bins], "#8c564b"),
            ],
        ),
        (
            "TTFT",
            "s",
            [("TTFT per request", [t - t0 for t, _ in data["ttft"]], [v for _, v in data["ttft"]], "#e377c2")],
        ),
        ("GPU memory", "GiB", mem_lines),
        (
            "Utilisation (NVML)",
            "%",
            [("GPU", dx, dv("gpu_util_pct"), "#2ca02c"), ("memory", dx, dv("mem_util_pct"), "#17becf")],
        ),
        ("Power", "W", [("power", dx, dv("power_w"), "#d62728")]),
        ("Temperature", "deg C", [("GPU", dx, dv("temperature_c"), "#ff7f0e")]),
        ("Clocks", "MHz", [("SM", dx, dv("sm_clock_mhz"), "#1f77b4"), ("memory", dx, dv("mem_clock_mhz"), "#9467bd")]),
    ]


def render(data: dict[str, Any], out: Path, width: int = 1000, panel_height: int = 140, whole: bool = False) -> None:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import pyqtgraph as pg
    from PySide6 import QtCore, QtWidgets

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    pg.setConfigOptions(antialias=True, background="w", foreground="k")
    spec = panels(data)
    win = pg.GraphicsLayoutWidget()
    win.resize(width, 40 + panel_height * len(spec))
    win.addLabel(str(data.get("label", "")), row=0, col=0, size="11pt")
    first = None
    for i, (title, unit, lines) in enumerate(spec, start=1):
        plot = win.addPlot(row=i, col=0)
        names = ", ".join(f"<span style='color:{colour}'>{name}</span>" for name, _, _, colour in lines)
        plot.setTitle(f"<b>{title}</b>: {names}", size="9pt")  # the title is the legend: no box over the data
        plot.setLabel("left", unit)
        plot.showGrid(x=True, y=True, alpha=0.25)
        for _name, xs, ys, colour in lines:
            if title == "TTFT":
                plot.plot(xs, ys, pen=None, symbol="o", symbolSize=3, symbolPen=None, symbolBrush=colour)
            else:
                plot.plot(xs, ys, pen=pg.mkPen(colour, width=1.5))
        if first is None:
            first = plot
        else:
            plot.setXLink(first)
        if i == len(spec):
            plot.setLabel("bottom", "seconds since the first NVML sample (the engine's start-up comes first)")
        if not whole and data["bins"]:  # the runs only: from just before the first engine step
            t0 = min([d["t"] for d in data["device"]] + [b["t"] for b in data["bins"]])
            lo = data["bins"][0]["t"] - t0 - 3.0
            hi = max(data["bins"][-1]["t"], data["device"][-1]["t"]) - t0 + float(data["resolution_s"])
            plot.setXRange(lo, hi, padding=0.0)
            plot.enableAutoRange(axis="y")
            plot.setAutoVisible(y=True)
    win.show()
    app.processEvents()
    QtCore.QCoreApplication.processEvents()
    image = win.grab()
    out.parent.mkdir(parents=True, exist_ok=True)
    if not image.save(str(out), "PNG"):
        raise SystemExit(f"could not write {out}")
    win.close()
    win.deleteLater()
    app.processEvents()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("series", type=Path)
    ap.add_argument("png", type=Path)
    ap.add_argument(
        "--gpu-memory-utilization", type=float, help="draw vLLM's budget (utilisation x NVML total) on the memory panel"
    )
    ap.add_argument(
        "--whole",
        action="store_true",
        help="the whole recording, engine start-up included (default: from 3 s before the first engine step)",
    )
    args = ap.parse_args(argv)
    data = load(args.series)
    if args.gpu_memory_utilization:
        data["gpu_memory_utilization"] = args.gpu_memory_utilization
    render(data, args.png, whole=args.whole)
    print(f"{args.png}: {args.png.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    # PySide6 + pyqtgraph can crash while the interpreter tears Qt objects down (bool_dealloc in the
    # final garbage collection); the PNG is written and closed by then, so leave without teardown.
    os._exit(code)
