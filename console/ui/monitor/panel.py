"""The Monitor tab: live engine and device metrics on one shared time axis (last 10 minutes).

Data flow: the engine thread folds vLLM's per-step stats into the :class:`MetricsStore` and the
device sampler thread adds NVML (or process RAM/CPU) samples to it; this panel never touches the
engine. An 8 Hz timer pulls only what is new into ring buffers (:class:`MonitorSeries`) and, while
the tab is visible, redraws the curves from them (pyqtgraph ``setDownsampling(mode='peak')``,
``setClipToView(True)``), so the cost per tick does not grow with the request rate.

Painting, not the data, is what the GUI thread pays for (measured with
``benchmarks/gui_tick_costs.py``: 12 plots offscreen cost ~27 ms of CPU per repaint, most of it
pyqtgraph's grid lines at every tick level). So: horizontal grid lines only, at the major ticks
(a vertical grid makes each plot's bottom axis span the plot, so every curve update repainted
that axis and its labels), 1-px cosmetic pens, a scene without an item index (the curves change
their bounds on every redraw; keeping a BSP tree of them cost more than it saved), each tick
redraws an eighth of the plots (each plot refreshes once a second: short pieces of GUI-thread
work, the streaming lag's p99 -- in ``benchmarks/README-gui.md`` the three took it from 12 ms to
7-8 ms with 64 requests streaming), and a plot whose data did not change since its last redraw
is left alone for up to ``STALE_S`` (an idle engine's flat zeros). The readout line under the
plots (tokens/s, KV, requests) is updated on every tick.

Without an NVIDIA GPU the device plots show this process's RAM (the engine's child processes
included) and CPU instead, and the header says why (``sampler.reason``). With one, power draw vs
limit, temperature, clocks and throttle reasons are plotted too; the power-limit advice is shown
as guidance only — the console never changes driver settings.

"Compare with recording…" overlays a saved session (``console.metrics.recording``: .json or
.json.gz, e.g. the GPU series in ``benchmarks/gpu/results``) as dashed curves of the same colours,
its start aligned with the live run's start (the first engine bin in the window; the window's
left edge when there is none), so both read as "seconds into the run". "Close comparison" removes
it. The Advisor dock replays the same file (the window connects ``recordingOpened``).

Signals:
    recordingOpened(str): a recording was opened for comparison (its path).
    comparisonClosed(): the comparison was closed.

Slots: ``_on_timer_tick``, ``_on_compare_clicked``, ``_on_close_compare_clicked``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QFileDialog, QGraphicsScene, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from console.metrics.recording import RecordingError, load_recording
from console.metrics.store import prefix_hit_rate, spec_acceptance
from console.ui.context import AppContext
from console.ui.core_text import translate_core_text
from console.ui.formatting import format_count, format_number
from console.ui.theme import colours, follow_theme, style_plot
from console.ui.monitor.series import POWER_THERMAL_BITS, MonitorSeries, Snapshot, recording_snapshot, throttle_words

GIB = float(1024**3)


@dataclass
class _Curve:
    item: pg.PlotDataItem
    source: str  # "engine" | "device" | "latency"
    key: str
    scale: float = 1.0


class MonitorPanel(QWidget):
    recordingOpened = Signal(str)
    comparisonClosed = Signal()
    WINDOW_S = 600.0
    REFRESH_MS = 125  # 8 Hz (the style's 2-10 Hz); the readout every tick, each plot every SLICES-th
    SLICES = 8  # each tick redraws an eighth of the plots (each at 1 Hz): shorter paints, the lag's p99
    STALE_S = 2.0  # an unchanged plot is still redrawn this often (its x axis moves with time)

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.series = MonitorSeries(ctx.metrics, window_s=self.WINDOW_S)
        self.gpu = ctx.sampler.kind == "nvml"
        self.curves: dict[str, _Curve] = {}
        self.plots: dict[str, pg.PlotItem] = {}
        self._plot_curves: dict[str, list[_Curve]] = {}
        self._titles: dict[str, tuple[str, list[str]]] = {}  # plot -> (its title, its curves' labels)
        self._drawn: dict[str, tuple[float, list[np.ndarray]]] = {}  # plot -> (when, y arrays drawn)
        self.redraws = 0
        self.plot_redraws = 0  # plots actually redrawn (the rest were unchanged)
        self.refresh_cpu_s = 0.0  # GUI-thread CPU time spent in ticks (the benchmark reads it)
        self.ticks = 0

        pg.setConfigOptions(antialias=False)  # the colours are the theme's, set on each plot (_restyle)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        self.device_label = QLabel(self)
        self.device_label.setWordWrap(True)
        layout.addWidget(self.device_label)
        readouts = QHBoxLayout()
        self.readout = QLabel(self)
        self.readout.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        readouts.addWidget(self.readout, 1)
        self.compare_button = QPushButton(self.tr("Compare with recording…"), self)
        self.close_compare_button = QPushButton(self.tr("Close comparison"), self)
        self.close_compare_button.setVisible(False)
        readouts.addWidget(self.compare_button)
        readouts.addWidget(self.close_compare_button)
        layout.addLayout(readouts)
        self.compare_label = QLabel(self)  # the comparison's legend
        self.compare_label.setWordWrap(True)
        self.compare_label.setVisible(False)
        layout.addWidget(self.compare_label)
        self.compare: Snapshot | None = None
        self.compare_items: dict[str, pg.PlotDataItem] = {}
        self.compare_button.clicked.connect(self._on_compare_clicked)
        self.close_compare_button.clicked.connect(self._on_close_compare_clicked)
        self.graphs = pg.GraphicsLayoutWidget(self)
        # no BSP index: every redraw moves curve bounds, and re-indexing them cost more than it saved
        self.graphs.scene().setItemIndexMethod(QGraphicsScene.ItemIndexMethod.NoIndex)
        layout.addWidget(self.graphs, 1)
        self.guidance = QLabel(self)
        self.guidance.setWordWrap(True)
        layout.addWidget(self.guidance)
        self._build_plots()
        self._restyle()
        follow_theme(self.graphs, self._restyle)
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
                (
                    "vram",
                    tr("VRAM (GiB)"),
                    [
                        (tr("used"), "device", "mem_used_bytes", 1 / GIB, False),
                        (tr("total"), "device", "mem_total_bytes", 1 / GIB, True),
                    ],
                ),
                (
                    "util",
                    tr("GPU utilisation (%)"),
                    [
                        (tr("GPU"), "device", "gpu_util_pct", 1.0, False),
                        (tr("memory"), "device", "mem_util_pct", 1.0, False),
                    ],
                ),
                (
                    "power",
                    tr("Power (W)"),
                    [
                        (tr("draw"), "device", "power_w", 1.0, False),
                        (tr("limit"), "device", "power_limit_w", 1.0, True),
                    ],
                ),
                ("temp", tr("Temperature (°C)"), [(tr("GPU"), "device", "temperature_c", 1.0, False)]),
                (
                    "clocks",
                    tr("Clocks (MHz)"),
                    [
                        (tr("SM"), "device", "sm_clock_mhz", 1.0, False),
                        (tr("memory"), "device", "mem_clock_mhz", 1.0, False),
                    ],
                ),
            ]
        else:
            specs += [
                (
                    "vram",
                    tr("Memory (GiB)"),
                    [
                        (tr("console + engine RSS"), "device", "rss_bytes", 1 / GIB, False),
                        (tr("RAM used"), "device", "ram_used_bytes", 1 / GIB, False),
                        (tr("RAM total"), "device", "ram_total_bytes", 1 / GIB, True),
                    ],
                ),
                ("util", tr("CPU (% of one core, console + engine)"), [(tr("CPU"), "device", "cpu_pct", 1.0, False)]),
            ]
        specs += [
            ("kv", tr("KV cache usage (%)"), [(tr("used"), "engine", "kv_pct", 1.0, False)]),
            (
                "requests",
                tr("Requests"),
                [(tr("running"), "engine", "running", 1.0, False), (tr("waiting"), "engine", "waiting", 1.0, False)],
            ),
            (
                "tokens",
                tr("Tokens/s"),
                [
                    (tr("prompt"), "engine", "prompt_tps", 1.0, False),
                    (tr("generation"), "engine", "generation_tps", 1.0, False),
                ],
            ),
            (
                "ttft",
                tr("Time to first token (ms)"),
                [(tr("p50"), "latency", "ttft_p50_ms", 1.0, False), (tr("p95"), "latency", "ttft_p95_ms", 1.0, False)],
            ),
            (
                "itl",
                tr("Inter-token latency (ms)"),
                [(tr("p50"), "latency", "itl_p50_ms", 1.0, False), (tr("p95"), "latency", "itl_p95_ms", 1.0, False)],
            ),
            ("preempt", tr("Preemptions (per 0.5 s)"), [(tr("preempted"), "engine", "preemptions", 1.0, False)]),
            # prefix-cache reuse and speculative decoding (gaps where nothing was looked up or drafted)
            ("prefix", tr("Prefix cache hit rate (%)"), [(tr("hits"), "engine", "prefix_hit_pct", 1.0, False)]),
            ("spec_accept", tr("Draft acceptance (%)"), [(tr("accepted"), "engine", "spec_accept_pct", 1.0, False)]),
            (
                "spec_step",
                tr("Tokens per step (speculative)"),
                [(tr("mean"), "engine", "spec_tokens_per_step", 1.0, False)],
            ),
        ]
        columns = 2
        first: pg.PlotItem | None = None
        rows = (len(specs) + columns - 1) // columns
        for i, (name, title, curves) in enumerate(specs):
            row, col = divmod(i, columns)
            plot = self.graphs.addPlot(row=row, col=col)
            self._titles[name] = (title, [label for label, *_r in curves])
            plot.setDownsampling(mode="peak")
            plot.setClipToView(True)
            plot.showGrid(x=False, y=True, alpha=0.25)  # a vertical grid repaints the bottom axis on every redraw
            for axis in ("left", "bottom"):  # grid lines at minor ticks too cost most of a paint
                plot.getAxis(axis).setStyle(maxTickLevel=0)
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
            for label, source, key, scale, dashed in curves:
                pen = pg.mkPen(width=1, style=Qt.PenStyle.DashLine if dashed else Qt.PenStyle.SolidLine)
                item = plot.plot([], [], pen=pen, name=label, connect="finite")
                self.curves[f"{name}.{key}"] = _Curve(item, source, key, scale)
                self._plot_curves.setdefault(name, []).append(self.curves[f"{name}.{key}"])
            self.plots[name] = plot
        if self.gpu:
            # power/thermal throttling: red markers on the power curve where NVML reported it
            self.throttle_marks = self.plots["power"].plot([], [], pen=None, symbol="o", symbolSize=5, symbolPen=None)

    def _restyle(self) -> None:
        """The plots in the theme's colours (at start and when it changes): background, axes,
        titles, and each plot's curves in the series colours, a comparison's too (dashed)."""
        c = colours()
        self.graphs.setBackground(c.plot_background)
        for name, plot in self.plots.items():
            title, labels = self._titles[name]
            parts = [f"<span style='color:{c.series[j]}'>{label}</span>" for j, label in enumerate(labels)]
            plot.setTitle(f"{title}: " + " · ".join(parts), size="9pt")
            style_plot(None, plot, c)
            for j, curve in enumerate(self._plot_curves[name]):
                for item in (curve.item, self.compare_items.get(f"{name}.{curve.key}")):
                    if item is not None:
                        pen = pg.mkPen(item.opts["pen"])
                        pen.setColor(pg.mkColor(c.series[j]))
                        item.setPen(pen)
        if self.gpu:
            self.throttle_marks.setSymbolBrush(c.marker)  # power/thermal throttling, on the power curve

    def _describe_device(self) -> None:
        sampler = self.ctx.sampler
        name = sampler.source.name
        if self.gpu:
            driver = sampler.source.driver or "?"
            self.device_label.setText(
                self.tr("Device: {name} (NVML, driver {driver})").format(name=name, driver=driver)
            )
            self.guidance.setText(
                self.tr(
                    "Guidance: inference is usually memory-bound; capping the power limit to about 70-80% "
                    "of the default (nvidia-smi -pl, as administrator) often costs little throughput and "
                    "avoids thermal throttling. The console shows this only; it never changes driver settings."
                )
            )
        else:
            reason = translate_core_text(sampler.reason) if sampler.reason else self.tr("no NVIDIA GPU")
            self.device_label.setText(self.tr("Device: CPU — {reason}").format(reason=reason))
            self.guidance.hide()

    # -- refresh -------------------------------------------------------------------------------
    def _on_timer_tick(self) -> None:
        t0 = time.thread_time()
        self.ticks += 1
        self.series.poll()
        if self.isVisible():
            names = list(self.plots)
            self.redraw(names[self.ticks % self.SLICES :: self.SLICES])  # a slice a tick: shorter paints
        self.refresh_cpu_s += time.thread_time() - t0

    def redraw(self, plots: list[str] | None = None, force: bool = False) -> Snapshot:
        """Redraw ``plots`` (default: all) from a fresh snapshot; a plot whose data did not change
        is skipped unless ``force`` or its last redraw is older than ``STALE_S``."""
        snap = self.series.snapshot()
        for name in self.plots if plots is None else plots:
            ys: list[np.ndarray] = []
            xs: list[np.ndarray] = []
            for curve in self._plot_curves[name]:
                if curve.source == "engine":
                    x, y = snap.engine_x, snap.engine[curve.key]
                elif curve.source == "latency":
                    x, y = snap.latency_x, snap.latency[curve.key]
                else:
                    x = snap.device_x
                    y = snap.device.get(curve.key, np.full(len(x), np.nan))
                xs.append(x)
                ys.append(y * curve.scale)
            when, drawn = self._drawn.get(name, (-1e18, []))
            unchanged = len(drawn) == len(ys) and all(
                a.shape == b.shape and np.array_equal(a, b, equal_nan=True) for a, b in zip(drawn, ys)
            )
            if unchanged and not force and snap.now - when < self.STALE_S and self.compare is None:
                continue
            for curve, x, y in zip(self._plot_curves[name], xs, ys):
                curve.item.setData(x, y)
            if self.compare is not None:
                self._redraw_comparison(name, self.compare_offset(snap))
            self._drawn[name] = (snap.now, ys)
            self.plot_redraws += 1
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
            parts.append(
                self.tr("VRAM {u}/{t} GiB").format(
                    u=format_number(d["mem_used_bytes"] / GIB, 1), t=format_number(d.get("mem_total_bytes", 0) / GIB, 1)
                )
            )
            if "power_w" in d:
                parts.append(self.tr("{p:.0f}/{l:.0f} W").format(p=d["power_w"], l=d.get("power_limit_w", 0)))
            if "temperature_c" in d:
                parts.append(self.tr("{t:.0f} °C").format(t=d["temperature_c"]))
            words = throttle_words(d.get("throttle_reasons"))
            if words:
                parts.append(self.tr("throttle: {w}").format(w=", ".join(words)))
        elif "rss_bytes" in d:
            parts.append(
                self.tr("RSS {r} GiB, CPU {c:.0f}%").format(
                    r=format_number(d["rss_bytes"] / GIB, 2), c=d.get("cpu_pct", 0)
                )
            )
        parts.append(self.tr("KV {kv:.0f}%").format(kv=e["kv_pct"]))
        parts.append(self.tr("running {r:.0f}, waiting {w:.0f}").format(r=e["running"], w=e["waiting"]))
        parts.append(self.tr("{g} tok/s").format(g=format_count(gen)))
        totals = self.series.metrics.totals_snapshot()  # since the load: steadier than one bin
        hit = prefix_hit_rate(totals)
        if hit is not None:
            parts.append(self.tr("prefix hits {h:.0f}%").format(h=100 * hit))
        accept, per_step = spec_acceptance(totals)
        if accept is not None and per_step is not None:
            parts.append(self.tr("drafts accepted {a:.0f}%, {s:.2f} tokens/step").format(a=100 * accept, s=per_step))
        self.readout.setText("   ".join(parts))

    # -- comparison with a recording -----------------------------------------------------------
    def open_comparison(self, path: str) -> bool:
        """Overlay the recording at ``path``; False (and the reason in the legend line) if unreadable."""
        try:
            store, meta = load_recording(Path(path))
        except RecordingError as exc:
            self.compare_label.setText(self.tr("Cannot open the recording: {0}").format(exc))
            self.compare_label.setVisible(True)
            return False
        self.close_comparison(announce=False)
        self.compare = recording_snapshot(store)
        span = float(max([*self.compare.engine_x[-1:], *self.compare.device_x[-1:], 0.0]))
        shown = []
        for key, curve in self.curves.items():
            x, y = self._comparison_data(curve)
            if not len(x) or not np.isfinite(y).any():
                continue  # the recording has no such series (a GPU run on a CPU monitor, say)
            plot = key.split(".")[0]
            pen = pg.mkPen(pg.mkPen(curve.item.opts["pen"]).color(), width=1, style=Qt.PenStyle.DashLine)
            item = pg.PlotDataItem(connect="finite", pen=pen)
            self.plots[plot].addItem(item)
            self.compare_items[key] = item
            shown.append(plot)
        for plot in self.plots.values():  # pan right to see a recording longer than the live run
            plot.setLimits(xMin=-self.WINDOW_S, xMax=max(0.0, span))
        label = str(meta.get("label") or meta.get("model") or path.rsplit("/", 1)[-1])
        self.compare_label.setText(
            self.tr(
                "Solid: live. Dashed: recording “{0}” ({1:.0f} s), its start aligned with the live run's start; "
                "{2} of {3} plots have its data."
            ).format(label, span, len(set(shown)), len(self.plots))
        )
        self.compare_label.setVisible(True)
        self.close_compare_button.setVisible(True)
        self.redraw(force=True)
        self.recordingOpened.emit(path)
        return True

    def close_comparison(self, announce: bool = True) -> None:
        had = self.compare is not None
        for key, item in self.compare_items.items():
            self.plots[key.split(".")[0]].removeItem(item)
        self.compare_items.clear()
        self.compare = None
        for plot in self.plots.values():
            plot.setLimits(xMin=-self.WINDOW_S, xMax=0)
        self.compare_label.setVisible(False)
        self.close_compare_button.setVisible(False)
        if had and announce:
            self.redraw(force=True)
            self.comparisonClosed.emit()

    def compare_offset(self, snap: Snapshot) -> float:
        """Where the recording's t=0 goes on the live axis: the live run's first engine bin, or
        the window's left edge when the window holds none."""
        busy = np.nonzero(snap.engine["running"] + snap.engine["waiting"] + snap.engine["generation_tps"])[0]
        return float(snap.engine_x[busy[0]]) if len(busy) else -self.WINDOW_S

    def _comparison_data(self, curve: _Curve) -> tuple[np.ndarray, np.ndarray]:
        c = self.compare
        assert c is not None
        if curve.source == "engine":
            return c.engine_x, c.engine[curve.key] * curve.scale
        if curve.source == "latency":
            return c.latency_x, c.latency[curve.key] * curve.scale
        if curve.key not in c.device:
            return np.zeros(0), np.zeros(0)
        return c.device_x, c.device[curve.key] * curve.scale

    def _redraw_comparison(self, plot: str, offset: float) -> None:
        for key, item in self.compare_items.items():
            if key.split(".")[0] == plot:
                x, y = self._comparison_data(self.curves[key])
                item.setData(x + offset, y)

    def _on_compare_clicked(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self,
            self.tr("Compare with a metrics recording"),
            "",
            self.tr("Recordings (*.json *.json.gz);;All files (*)"),
        )
        if path:
            self.open_comparison(path)

    def _on_close_compare_clicked(self) -> None:
        self.close_comparison()

    def show_last(self, seconds: float) -> None:
        """Zoom every plot (they share the x axis) to the last ``seconds`` (<= 10 minutes)."""
        first = next(iter(self.plots.values()))
        first.setXRange(-min(seconds, self.WINDOW_S), 0, padding=0)

    # -- life cycle ----------------------------------------------------------------------------
    def stop(self) -> None:
        """Stop refreshing (the window calls this on close; the sampler belongs to the app)."""
        self.timer.stop()
