"""The Monitor tab: live engine and device metrics on one shared time axis (last 10 minutes).

Data flow: the engine thread folds vLLM's per-step stats into the :class:`MetricsStore` and the
device sampler thread adds NVML (or process RAM/CPU) samples to it; this panel never touches the
engine. A 4 Hz timer pulls only what is new into ring buffers (:class:`MonitorSeries`) and, while
the tab is visible, redraws every curve from them (pyqtgraph ``setDownsampling(mode='peak')``,
``setClipToView(True)``), so the cost per tick does not grow with the request rate.

Without an NVIDIA GPU the device plots show this process's RAM (the engine's child processes
included) and CPU instead, and the header says why (``sampler.reason``). With one, power draw vs
limit, temperature, clocks and throttle reasons are plotted too; the power-limit advice is shown
as guidance only — the console never changes driver settings.

Signals: none. Slots: ``_on_timer_tick``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget

from console.ui.context import AppContext
from console.ui.formatting import format_count, format_number
from console.ui.monitor_series import POWER_THERMAL_BITS, MonitorSeries, Snapshot, throttle_words

GIB = float(1024**3)
COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#7f7f7f")


@dataclass
class _Curve:
    item: pg.PlotDataItem
    source: str  # "engine" | "device" | "latency"
    key: str
    scale: float = 1.0


class MonitorPanel(QWidget):
    WINDOW_S = 600.0
    REFRESH_MS = 250  # 4 Hz: within the style's 2-10 Hz

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.series = MonitorSeries(ctx.metrics, window_s=self.WINDOW_S)
        self.gpu = ctx.sampler.kind == "nvml"
        self.curves: dict[str, _Curve] = {}
        self.plots: dict[str, pg.PlotItem] = {}
        self.redraws = 0
        self.refresh_cpu_s = 0.0  # GUI-thread CPU time spent in ticks (the benchmark reads it)
        self.ticks = 0

        pg.setConfigOptions(antialias=False, background="w", foreground="#333")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        self.device_label = QLabel(self)
        self.device_label.setWordWrap(True)
        layout.addWidget(self.device_label)
        readouts = QHBoxLayout()
        self.readout = QLabel(self)
        self.readout.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        readouts.addWidget(self.readout, 1)
        layout.addLayout(readouts)
        self.graphs = pg.GraphicsLayoutWidget(self)
        layout.addWidget(self.graphs, 1)
        self.guidance = QLabel(self)
        self.guidance.setWordWrap(True)
        layout.addWidget(self.guidance)
        self._build_plots()
        self._describe_device()

        ctx.sampler.start()  # idempotent; the app may have started it already
        self.timer = QTimer(self)
        self.timer.setInterval(self.REFRESH_MS)
        self.timer.timeout.connect(self._on_timer_tick)
        self.timer.start()

    # -- construction --------------------------------------------------------------------------
    def _build_plots(self) -> None:
        tr = self.tr
        specs: list[tuple[str, str, list[tuple[str, str, str, float, bool]]]] = []
        if self.gpu:
            specs += [
                ("vram", tr("VRAM (GiB)"), [(tr("used"), "device", "mem_used_bytes", 1 / GIB, False),
                                            (tr("total"), "device", "mem_total_bytes", 1 / GIB, True)]),
                ("util", tr("GPU utilisation (%)"), [(tr("GPU"), "device", "gpu_util_pct", 1.0, False),
                                                     (tr("memory"), "device", "mem_util_pct", 1.0, False)]),
                ("power", tr("Power (W)"), [(tr("draw"), "device", "power_w", 1.0, False),
                                            (tr("limit"), "device", "power_limit_w", 1.0, True)]),
                ("temp", tr("Temperature (°C)"), [(tr("GPU"), "device", "temperature_c", 1.0, False)]),
                ("clocks", tr("Clocks (MHz)"), [(tr("SM"), "device", "sm_clock_mhz", 1.0, False),
                                                (tr("memory"), "device", "mem_clock_mhz", 1.0, False)]),
            ]
        else:
            specs += [
                ("vram", tr("Memory (GiB)"), [(tr("console + engine RSS"), "device", "rss_bytes", 1 / GIB, False),
                                              (tr("RAM used"), "device", "ram_used_bytes", 1 / GIB, False),
                                              (tr("RAM total"), "device", "ram_total_bytes", 1 / GIB, True)]),
                ("util", tr("CPU (% of one core, console + engine)"),
                 [(tr("CPU"), "device", "cpu_pct", 1.0, False)]),
            ]
        specs += [
            ("kv", tr("KV cache usage (%)"), [(tr("used"), "engine", "kv_pct", 1.0, False)]),
            ("requests", tr("Requests"), [(tr("running"), "engine", "running", 1.0, False),
                                          (tr("waiting"), "engine", "waiting", 1.0, False)]),
            ("tokens", tr("Tokens/s"), [(tr("prompt"), "engine", "prompt_tps", 1.0, False),
                                        (tr("generation"), "engine", "generation_tps", 1.0, False)]),
            ("ttft", tr("Time to first token (ms)"), [(tr("p50"), "latency", "ttft_p50_ms", 1.0, False),
                                                       (tr("p95"), "latency", "ttft_p95_ms", 1.0, False)]),
            ("itl", tr("Inter-token latency (ms)"), [(tr("p50"), "latency", "itl_p50_ms", 1.0, False),
                                                      (tr("p95"), "latency", "itl_p95_ms", 1.0, False)]),
            ("preempt", tr("Preemptions (per 0.5 s)"), [(tr("preempted"), "engine", "preemptions", 1.0, False)]),
        ]
        columns = 2
        first: pg.PlotItem | None = None
        rows = (len(specs) + columns - 1) // columns
        for i, (name, title, curves) in enumerate(specs):
            row, col = divmod(i, columns)
            plot = self.graphs.addPlot(row=row, col=col)
            parts = [f"<span style='color:{COLORS[j]}'>{label}</span>" for j, (label, *_r) in enumerate(curves)]
            plot.setTitle(f"{title}: " + " · ".join(parts), size="9pt")
            plot.setDownsampling(mode="peak")
            plot.setClipToView(True)
            plot.showGrid(x=True, y=True, alpha=0.25)
            plot.setMouseEnabled(x=True, y=False)
            plot.setXRange(-self.WINDOW_S, 0, padding=0)
            plot.enableAutoRange(axis="y")
            plot.setLimits(xMin=-self.WINDOW_S, xMax=0)
            if row == rows - 1 or (row == rows - 2 and i + columns >= len(specs)):
                plot.setLabel("bottom", self.tr("seconds ago"))
            if first is None:
                first = plot
            else:
                plot.setXLink(first)
            for j, (label, source, key, scale, dashed) in enumerate(curves):
                pen = pg.mkPen(COLORS[j], width=1.5, style=Qt.PenStyle.DashLine if dashed else Qt.PenStyle.SolidLine)
                item = plot.plot([], [], pen=pen, name=label, connect="finite")
                self.curves[f"{name}.{key}"] = _Curve(item, source, key, scale)
            self.plots[name] = plot
        if self.gpu:
            # power/thermal throttling: red markers on the power curve where NVML reported it
            self.throttle_marks = self.plots["power"].plot([], [], pen=None, symbol="o", symbolSize=5,
                                                           symbolBrush="#d62728", symbolPen=None)

    def _describe_device(self) -> None:
        sampler = self.ctx.sampler
        name = getattr(sampler.source, "name", "?")
        if self.gpu:
            driver = getattr(sampler.source, "driver", None) or "?"
            self.device_label.setText(self.tr("Device: {name} (NVML, driver {driver})").format(
                name=name, driver=driver))
            self.guidance.setText(self.tr(
                "Guidance: inference is usually memory-bound; capping the power limit to about 70-80% "
                "of the default (nvidia-smi -pl, as administrator) often costs little throughput and "
                "avoids thermal throttling. The console shows this only; it never changes driver settings."))
        else:
            reason = sampler.reason or self.tr("no NVIDIA GPU")
            self.device_label.setText(self.tr("Device: CPU — {reason}").format(reason=reason))
            self.guidance.hide()

    # -- refresh -------------------------------------------------------------------------------
    def _on_timer_tick(self) -> None:
        t0 = time.thread_time()
        self.ticks += 1
        self.series.poll()
        if self.isVisible():
            self.redraw()
        self.refresh_cpu_s += time.thread_time() - t0

    def redraw(self) -> Snapshot:
        snap = self.series.snapshot()
        for curve in self.curves.values():
            if curve.source == "engine":
                x, y = snap.engine_x, snap.engine[curve.key]
            elif curve.source == "latency":
                x, y = snap.latency_x, snap.latency[curve.key]
            else:
                x = snap.device_x
                y = snap.device.get(curve.key, np.full(len(x), np.nan))
            curve.item.setData(x, y * curve.scale)
        if self.gpu and "throttle_reasons" in snap.device and "power_w" in snap.device:
            mask = np.nan_to_num(snap.device["throttle_reasons"]).astype(np.int64) & POWER_THERMAL_BITS
            hit = mask != 0
            self.throttle_marks.setData(snap.device_x[hit], snap.device["power_w"][hit])
        self._update_readout(snap)
        self.redraws += 1
        return snap

    def _update_readout(self, snap: Snapshot) -> None:
        d = snap.device_latest
        e = {k: (v[-1] if len(v) else 0.0) for k, v in snap.engine.items()}
        # tokens/s "now": mean of the last 2 s of bins (a single 0.5 s bin is noisy)
        gen = float(np.mean(snap.engine["generation_tps"][-5:-1])) if len(snap.engine_x) > 4 else 0.0
        parts = []
        if self.gpu and "mem_used_bytes" in d:
            parts.append(self.tr("VRAM {u}/{t} GiB").format(u=format_number(d["mem_used_bytes"] / GIB, 1),
                                                             t=format_number(d.get("mem_total_bytes", 0) / GIB, 1)))
            if "power_w" in d:
                parts.append(self.tr("{p:.0f}/{l:.0f} W").format(p=d["power_w"], l=d.get("power_limit_w", 0)))
            if "temperature_c" in d:
                parts.append(self.tr("{t:.0f} °C").format(t=d["temperature_c"]))
            words = throttle_words(d.get("throttle_reasons"))
            if words:
                parts.append(self.tr("throttle: {w}").format(w=", ".join(words)))
        elif "rss_bytes" in d:
            parts.append(self.tr("RSS {r} GiB, CPU {c:.0f}%").format(r=format_number(d["rss_bytes"] / GIB, 2),
                                                                     c=d.get("cpu_pct", 0)))
        parts.append(self.tr("KV {kv:.0f}%").format(kv=e["kv_pct"]))
        parts.append(self.tr("running {r:.0f}, waiting {w:.0f}").format(r=e["running"], w=e["waiting"]))
        parts.append(self.tr("{g} tok/s").format(g=format_count(gen)))
        self.readout.setText("   ".join(parts))

    def show_last(self, seconds: float) -> None:
        """Zoom every plot (they share the x axis) to the last ``seconds`` (<= 10 minutes)."""
        first = next(iter(self.plots.values()))
        first.setXRange(-min(seconds, self.WINDOW_S), 0, padding=0)

    # -- life cycle ----------------------------------------------------------------------------
    def stop(self) -> None:
        """Stop refreshing (the window calls this on close; the sampler belongs to the app)."""
        self.timer.stop()
