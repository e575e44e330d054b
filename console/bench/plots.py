"""The bench report's PNG plots (matplotlib, Agg backend: no display needed), the same figures the
GUI's Bench tab draws (:mod:`console.bench.figures`):

- ``paths.png``: output tok/s of the console path and each baseline;
- ``throughput_vs_concurrency.png``; ``latency_percentiles.png``; ``roofline_fraction.png``;
- ``pareto.png`` after a sweep: output tok/s against p99 latency, the front highlighted;
- ``tune_tpot.png`` after a tune: output tok/s against TPOT, the Pareto front marked and vLLM's
  defaults and the chosen point labelled (:func:`tune_tradeoff_figure`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from console.bench.figures import (
    PERCENTILES,
    concurrency_points,
    latency_table,
    roofline_points,
    tune_points,
    tune_tradeoff,
)

COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c")


def write_plots(report: dict[str, Any], folder: Path) -> list[str]:
    """Write every plot the report has figures for; the files written."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder.mkdir(parents=True, exist_ok=True)
    files: list[str] = []

    def save(fig: Any, name: str) -> None:
        fig.tight_layout()
        fig.savefig(folder / name, dpi=100)
        plt.close(fig)
        files.append(str(folder / name))

    res = {k: v for k, v in (report.get("results") or {}).items() if "error" not in v}
    if res:
        fig, ax = plt.subplots(figsize=(5, 3.2))
        ax.bar(list(res), [v.get("output_tokens_per_s") or 0.0 for v in res.values()], color=COLORS[0])
        ax.set_ylabel("output tok/s")
        ax.set_title("Console path and baselines")
        save(fig, "paths.png")
    pts = concurrency_points(report)
    if pts:
        fig, ax = plt.subplots(figsize=(5, 3.2))
        ax.plot([p["concurrency"] for p in pts], [p["output_tokens_per_s"] for p in pts], "o-", label="output")
        ax.plot([p["concurrency"] for p in pts], [p["total_tokens_per_s"] for p in pts], "s--", label="total")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("concurrency (requests in flight)")
        ax.set_ylabel("tok/s")
        ax.set_title("Throughput vs concurrency")
        ax.legend()
        save(fig, "throughput_vs_concurrency.png")
    console = (report.get("results") or {}).get("console")
    if console and "error" not in console:
        table = latency_table(console)
        fig, ax = plt.subplots(figsize=(5, 3.2))
        width = 0.27
        for j, p in enumerate(PERCENTILES):
            ax.bar(
                [i + (j - 1) * width for i in range(len(table))],
                [1000 * (v[p] or 0.0) for v in table.values()],
                width,
                label=p,
                color=COLORS[j],
            )
        ax.set_xticks(range(len(table)), list(table))
        ax.set_yscale("log")
        ax.set_ylabel("ms")
        ax.set_title("Latency percentiles (console path)")
        ax.legend()
        save(fig, "latency_percentiles.png")
    roof = roofline_points(report)
    if roof:
        fig, ax = plt.subplots(figsize=(5, 3.2))
        ax.bar([str(p["concurrency"]) for p in roof], [100 * p["fraction"] for p in roof], color=COLORS[2])
        ax.set_xlabel("concurrency")
        ax.set_ylabel("% of roofline")
        rl = report.get("roofline") or {}
        cpu_note = " - GPU model on CPU" if rl.get("is_cpu") else ""
        ax.set_title(f"Measured / roofline ({rl.get('profile', '?')})" + cpu_note, fontsize=9)
        save(fig, "roofline_fraction.png")
    tune = report.get("tune") or {}
    trials = tune.get("trials") or []
    ok = tune_points(trials)
    if ok:
        front = set(tune.get("pareto") or [])
        fig, ax = plt.subplots(figsize=(5, 3.2))
        ax.scatter(
            [o[2] for o in ok if o[0] not in front],
            [o[1] for o in ok if o[0] not in front],
            color="#999999",
            label="trial",
        )
        f = sorted((o for o in ok if o[0] in front), key=lambda o: o[2])
        ax.plot([o[2] for o in f], [o[1] for o in f], "o-", color="#d62728", label="Pareto front")
        ax.set_xlabel("p99 end-to-end latency (s)")
        ax.set_ylabel("output tok/s")
        ax.set_title("Auto-tune trials")
        ax.legend()
        save(fig, "pareto.png")
    if tune_tradeoff(tune)["points"]:
        save(tune_tradeoff_figure(tune), "tune_tpot.png")
    return files


def tune_tradeoff_figure(tune: dict[str, Any]) -> Any:
    """A matplotlib figure of the tune's trials: output tok/s against TPOT, every trial a grey
    point, the Pareto front a red line, vLLM's defaults and the chosen point labelled. Colours are
    matplotlib's style (a theme set with ``matplotlib.style`` applies)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    data = tune_tradeoff(tune)
    pts = {p[0]: p for p in data["points"]}
    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    ax.scatter([p[2] for p in pts.values()], [p[1] for p in pts.values()], color="#999999", label="trial", zorder=2)
    front = [pts[i] for i in data["front"]]
    ax.plot([p[2] for p in front], [p[1] for p in front], "o-", color="#d62728", label="Pareto front", zorder=3)
    for key, text, colour in (("default", "vLLM's defaults", COLORS[0]), ("chosen", "chosen", COLORS[2])):
        i = data[key]
        if i is None:
            continue
        ax.scatter([pts[i][2]], [pts[i][1]], s=120, facecolors="none", edgecolors=colour, linewidths=2, zorder=4)
        right = pts[i][2] > 0.6 * max(p[2] for p in pts.values())  # a label there would leave the axes
        ax.annotate(
            f"{text} (trial {i + 1})",
            (pts[i][2], pts[i][1]),
            textcoords="offset points",
            xytext=(-6 if right else 6, 8 if key == "chosen" else -14),
            ha="right" if right else "left",
            fontsize=8,
            color=colour,
        )
    goal = (tune.get("goal") or {}).get("kind", "throughput")
    ax.set_xlabel("TPOT, median (ms per output token)")
    ax.set_ylabel("output tok/s")
    ax.set_title(f"Auto-tune trials (goal: {goal})", fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
