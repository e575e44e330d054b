"""The bench's PNG plots and plot figures from a report built of synthetic numbers (no engine)."""

from __future__ import annotations

from pathlib import Path

from console.bench.figures import concurrency_points, latency_table, roofline_points
from console.bench.report import write_plots


def _figures(c: int, tok_s: float) -> dict:
    lat = {"p50": 0.01 * c, "p90": 0.02 * c, "p99": 0.03 * c, "mean": 0.015 * c}
    return {
        "output_tokens_per_s": tok_s,
        "total_tokens_per_s": 3 * tok_s,
        "requests_per_s": tok_s / 8,
        "max_concurrency": c,
        "ttft_s": lat,
        "itl_s": {k: v / 10 for k, v in lat.items()},
        "e2e_s": lat,
    }


def synthetic_report() -> dict:
    sweep = [_figures(c, 40.0 * c**0.7) for c in (1, 4, 16)]
    trials = [
        {
            "knobs": {"max_num_seqs": s},
            "status": "ok",
            "error": None,
            "seconds": 1.0,
            "figures": {"output_tokens_per_s": t, "e2e_s": {"p99": p}},
        }
        for s, t, p in ((8, 100.0, 1.0), (32, 180.0, 1.5), (64, 150.0, 2.0))
    ]
    trials.append({"knobs": {"max_num_seqs": 128}, "status": "failed", "error": "out of memory", "figures": {}})
    return {
        "workload": {"num_prompts": 16},
        "engine_kwargs": {"max_num_seqs": 64},
        "results": {
            "console": _figures(16, 280.0),
            "vllm": {"output_tokens_per_s": 290.0},
            "hf": {"error": "the hf baseline failed"},
        },
        "concurrency_sweep": sweep,
        "roofline": {"profile": "CPU engine", "is_cpu": True, "bounds": {"1": 400.0, "4": 1200.0, "16": 3000.0}},
        "tune": {"trials": trials, "pareto": [0, 1], "best": 1},
    }


def test_plot_figures_from_a_report() -> None:
    r = synthetic_report()
    pts = concurrency_points(r)
    assert [p["concurrency"] for p in pts] == [1, 4, 16]
    assert latency_table(r["results"]["console"])["TTFT"]["p99"] == 0.03 * 16
    roof = roofline_points(r)
    assert [round(p["fraction"], 3) for p in roof] == [0.1, round(40 * 4**0.7 / 1200, 3), round(40 * 16**0.7 / 3000, 3)]
    del r["concurrency_sweep"]  # one console run: one point, at its concurrency
    assert [p["concurrency"] for p in concurrency_points(r)] == [16]


def test_write_plots_writes_real_pngs(tmp_path: Path) -> None:
    import matplotlib.image as mpimg

    files = write_plots(synthetic_report(), tmp_path / "plots")
    names = sorted(Path(f).name for f in files)
    assert names == [
        "latency_percentiles.png",
        "pareto.png",
        "paths.png",
        "roofline_fraction.png",
        "throughput_vs_concurrency.png",
    ]
    for f in files:
        data = Path(f).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000
        img = mpimg.imread(f)
        assert img.shape[0] >= 200 and img.shape[1] >= 400
        assert img.std() > 0.01  # not a blank canvas


def _trial(tok_s: float, tpot_ms: float, label: str = "", status: str = "ok") -> dict:
    return {
        "label": label,
        "status": status,
        "figures": {"output_tokens_per_s": tok_s, "tpot_s": {"p50": tpot_ms / 1000}} if status == "ok" else {},
    }


def test_tune_tradeoff_marks_the_front_and_labels_default_and_chosen(tmp_path: Path) -> None:
    from console.bench.figures import tune_tradeoff
    from console.bench.plots import tune_tradeoff_figure

    tune = {
        "trials": [
            _trial(100.0, 20.0, "default"),
            _trial(180.0, 15.0),  # on the front: the most tok/s
            _trial(150.0, 10.0),  # on the front: the least TPOT (chosen for one user)
            _trial(120.0, 25.0),  # dominated by trials 2 and 3
            _trial(151.0, 9.0, "confirmation"),  # trial 3 again: not a point of its own
            _trial(0.0, 0.0, status="failed"),
        ],
        "default": 0,
        "best": 2,
        "goal": {"kind": "one-user"},
    }
    data = tune_tradeoff(tune)
    assert [p[0] for p in data["points"]] == [0, 1, 2, 3]
    assert data["front"] == [2, 1] and data["default"] == 0 and data["chosen"] == 2
    fig = tune_tradeoff_figure(tune)
    ax = fig.axes[0]
    front_line = next(line for line in ax.get_lines() if line.get_label() == "Pareto front")
    assert list(front_line.get_xdata()) == [10.0, 15.0] and list(front_line.get_ydata()) == [150.0, 180.0]
    labels = {t.get_text(): t.xy for t in ax.texts}
    assert labels == {"vLLM's defaults (trial 1)": (20.0, 100.0), "chosen (trial 3)": (10.0, 150.0)}
    assert "TPOT" in ax.get_xlabel() and "tok/s" in ax.get_ylabel()
    files = write_plots({"tune": tune}, tmp_path)
    assert str(tmp_path / "tune_tpot.png") in files and (tmp_path / "tune_tpot.png").stat().st_size > 0
