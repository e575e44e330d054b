"""The Bench tab's plots (pyqtgraph), drawn from a report dict through :mod:`console.bench.figures`
(the same figures the CLI's PNGs show): throughput vs concurrency, latency percentiles, measured
speed as a fraction of the planner's roofline, the auto-tune Pareto scatter and its throughput
against time per output token (the front marked, vLLM's defaults and the chosen trial labelled).

Each plot redraws only when a run ends (``show_report`` / ``show_trials``), never per request.
"""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget

from console.bench.figures import (
    PERCENTILES,
    concurrency_points,
    latency_table,
    roofline_points,
    tune_points,
    tune_tradeoff,
)
from console.ui.theme import colours, follow_theme, style_plot, text_colour

#: the theme's series colours the plots take: blue, orange, green
SERIES = (0, 3, 2)


def _plot(parent: QWidget, title: str, x_label: str, y_label: str) -> pg.PlotWidget:
    w = pg.PlotWidget(parent, background=colours().plot_background)
    w.setTitle(title, size="10pt")
    w.setLabel("bottom", x_label)
    w.setLabel("left", y_label)
    w.showGrid(x=True, y=True, alpha=0.25)
    w.setMinimumHeight(200)
    w.getAxis("left").enableAutoSIPrefix(False)  # "% (x0.001)" reads badly: show the plain numbers
    return w


class BenchPlots(QWidget):
    """Three plots side by side, plus the roofline note (on CPU: the roofline is a GPU model)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        self.throughput = _plot(
            self, self.tr("Throughput vs concurrency"), self.tr("requests in flight"), self.tr("tok/s")
        )
        self.throughput.addLegend(offset=(10, 10))
        self.output_curve = self.throughput.plot([], [], pen=pg.mkPen(width=2), symbol="o", name=self.tr("output"))
        self.total_curve = self.throughput.plot(
            [], [], pen=pg.mkPen(width=2, style=Qt.PenStyle.DashLine), symbol="s", name=self.tr("total")
        )
        self.latency = _plot(self, self.tr("Latency percentiles (console path)"), "", self.tr("ms"))
        self.latency.addLegend(offset=(10, 10))
        self.latency_bars: dict[str, pg.BarGraphItem] = {}
        for p in PERCENTILES:
            bars = pg.BarGraphItem(x=[], height=[], width=0.27, name=p)
            self.latency.addItem(bars)  # named: the legend lists it
            self.latency_bars[p] = bars
        self.roofline = _plot(
            self, self.tr("Measured / roofline"), self.tr("requests in flight"), self.tr("% of roofline")
        )
        self.roofline_bars = pg.BarGraphItem(x=[], height=[], width=0.6)
        self.roofline.addItem(self.roofline_bars)
        for w in (self.throughput, self.latency, self.roofline):
            row.addWidget(w, 1)
        layout.addLayout(row, 1)
        self.note = QLabel(self)
        self.note.setWordWrap(True)
        text_colour(self.note, lambda c: c.muted)
        layout.addWidget(self.note)
        self._restyle()
        follow_theme(self, self._restyle)

    def _restyle(self) -> None:
        """The plots in the theme's colours (at start and when it changes)."""
        c = colours()
        series = [c.series[i] for i in SERIES]
        for w in (self.throughput, self.latency, self.roofline):
            style_plot(w, w.getPlotItem(), c)
        for curve, colour in zip((self.output_curve, self.total_curve), series):
            pen = pg.mkPen(curve.opts["pen"])
            pen.setColor(pg.mkColor(colour))
            curve.setPen(pen)
            curve.setSymbolBrush(colour)
        for bars, colour in zip(self.latency_bars.values(), series):
            bars.setOpts(brush=colour)
        self.roofline_bars.setOpts(brush=series[2])

    def show_report(self, report: dict[str, Any]) -> None:
        pts = concurrency_points(report)
        xs = [float(p["concurrency"]) for p in pts]
        self.output_curve.setData(xs, [p["output_tokens_per_s"] for p in pts])
        self.total_curve.setData(xs, [p["total_tokens_per_s"] for p in pts])
        self.throughput.getAxis("bottom").setTicks([[(x, f"{x:g}") for x in xs]] if xs else None)
        console = (report.get("results") or {}).get("console") or {}
        table = latency_table(console) if "error" not in console else {}
        for j, p in enumerate(PERCENTILES):
            self.latency_bars[p].setOpts(
                x=[i + (j - 1) * 0.27 for i in range(len(table))], height=[1000 * (v[p] or 0.0) for v in table.values()]
            )
        self.latency.getAxis("bottom").setTicks([[(i, name) for i, name in enumerate(table)]])
        roof = roofline_points(report)
        self.roofline_bars.setOpts(x=list(range(len(roof))), height=[100 * p["fraction"] for p in roof])
        self.roofline.getAxis("bottom").setTicks([[(i, str(p["concurrency"])) for i, p in enumerate(roof)]])
        for w in (self.throughput, self.latency, self.roofline):
            w.enableAutoRange()
        rl = report.get("roofline") or {}
        if "error" in rl:
            self.note.setText(self.tr("Roofline: {0}").format(rl["error"]))
        elif rl.get("is_cpu"):
            self.note.setText(
                self.tr(
                    "The roofline is the planner's GPU model (memory bandwidth, tensor cores). On "
                    "the CPU engine it uses the nominal {0:g} GB/s memory bandwidth of the planner's "
                    "CPU profile: read the fraction as a rough guide."
                ).format(rl.get("bandwidth_gbs", 0))
            )
        elif rl:
            self.note.setText(
                self.tr("Roofline for {0}: the planner's decode ceiling at each concurrency.").format(
                    rl.get("profile", "?")
                )
            )
        else:
            self.note.clear()


class ParetoPlot(pg.PlotWidget):  # type: ignore[misc]  # pyqtgraph is untyped (Any): see [tool.mypy]
    """Output tok/s against p99 end-to-end latency, one point per measured trial, the Pareto front
    drawn as a red line.

    Signals:
        trialClicked(int): the index of the trial whose point was clicked.
    """

    trialClicked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, background=colours().plot_background)
        self.setTitle(self.tr("Throughput vs p99 latency"), size="10pt")
        self.setLabel("bottom", self.tr("p99 end-to-end latency (s)"))
        self.setLabel("left", self.tr("output tok/s"))
        self.showGrid(x=True, y=True, alpha=0.25)
        self.setMinimumHeight(220)
        self.points = pg.ScatterPlotItem(size=9, pen=None)
        self.points.sigClicked.connect(self._on_points_clicked)
        self.front = self.plot([], [], pen=pg.mkPen(width=2), symbol="o")
        self.addItem(self.points)
        self._shown: tuple[list[dict[str, Any]], list[int]] = ([], [])
        self._restyle()
        follow_theme(self, self._restyle)

    def _restyle(self) -> None:
        """In the theme's colours (at start and when it changes): the front red, the other trials grey."""
        c = colours()
        style_plot(self, self.getPlotItem(), c)
        self.front.setPen(pg.mkPen(c.marker, width=2))
        self.front.setSymbolBrush(c.marker)
        self.show_trials(*self._shown)

    def show_trials(self, trials: list[dict[str, Any]], front: list[int]) -> None:
        self._shown = (trials, front)
        c = colours()
        ok = tune_points(trials)
        on_front = set(front)
        self.points.setData(
            [{"pos": (o[2], o[1]), "data": o[0], "brush": c.marker if o[0] in on_front else c.point} for o in ok]
        )
        f = sorted((o for o in ok if o[0] in on_front), key=lambda o: o[2])
        self.front.setData([o[2] for o in f], [o[1] for o in f])
        self.enableAutoRange()

    def _on_points_clicked(self, _item: Any, points: Any, *_: Any) -> None:
        if len(points):
            self.trialClicked.emit(int(points[0].data()))


class TradeoffPlot(QWidget):
    """Output tok/s against TPOT (median ms per output token), one point per measured trial: the
    Pareto front (most tok/s, least TPOT) as a line, vLLM's defaults and the chosen trial ringed
    and labelled (:func:`console.bench.figures.tune_tradeoff`, the CLI's ``tune_tpot.png``)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.plot = _plot(
            self, self.tr("Throughput vs time per token"), self.tr("TPOT, median (ms)"), self.tr("output tok/s")
        )
        layout.addWidget(self.plot)
        self.points = pg.ScatterPlotItem(size=9, pen=None)
        self.plot.addItem(self.points)
        self.front = self.plot.plot([], [], pen=pg.mkPen(width=2), symbol="o")
        self.rings: dict[str, pg.ScatterPlotItem] = {}
        self.labels: dict[str, pg.TextItem] = {}
        for key, anchor in (("default", (0, 0)), ("chosen", (0, 1))):
            ring = pg.ScatterPlotItem(size=18, brush=None)
            label = pg.TextItem("", anchor=anchor)
            self.plot.addItem(ring)
            self.plot.addItem(label)
            label.hide()
            self.rings[key], self.labels[key] = ring, label
        self._restyle()
        follow_theme(self, self._restyle)

    def _restyle(self) -> None:
        """In the theme's colours (at start and when it changes): the trials grey, the front red,
        vLLM's defaults ringed blue and the chosen trial green."""
        c = colours()
        style_plot(self.plot, self.plot.getPlotItem(), c)
        self.points.setBrush(pg.mkBrush(c.point))
        self.front.setPen(pg.mkPen(c.marker, width=2))
        self.front.setSymbolBrush(c.marker)
        for key, i in (("default", SERIES[0]), ("chosen", SERIES[2])):
            self.rings[key].setPen(pg.mkPen(c.series[i], width=2))
            self.labels[key].setColor(c.series[i])

    def show_tune(self, tune: dict[str, Any]) -> None:
        """Draw a tune result's dict (``TuneResult.to_dict()``)."""
        data = tune_tradeoff(tune)
        pts = {p[0]: p for p in data["points"]}
        self.points.setData([p[2] for p in pts.values()], [p[1] for p in pts.values()])
        front = [pts[i] for i in data["front"]]
        self.front.setData([p[2] for p in front], [p[1] for p in front])
        words = {"default": self.tr("vLLM's defaults"), "chosen": self.tr("chosen")}
        for key in ("default", "chosen"):
            i = data[key]
            if i is None:
                self.rings[key].setData([], [])
                self.labels[key].hide()
                continue
            self.rings[key].setData([pts[i][2]], [pts[i][1]])
            self.labels[key].setText(self.tr("{0} (trial {1})").format(words[key], i + 1))
            self.labels[key].setPos(pts[i][2], pts[i][1])
            self.labels[key].show()
        self.plot.enableAutoRange()
