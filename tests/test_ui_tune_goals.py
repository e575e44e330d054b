"""The Auto-tune page's goal and prompts on a stand-in engine (loads always succeed, figures are made
up: every real trial would build an engine, 30-90 s here; the real engine runs the goals in
tests/test_tune_goals_run.py): "one user" over the user's saved conversations runs the one-user
trials at one request in flight, chooses the lowest time per output token, labels vLLM's defaults
and the chosen trial on the throughput-vs-TPOT chart and says goal and workload in the preset; "many
users" without a limit is refused with a message."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from console.chat.conversations import ConversationStore
from test_ui_bench import StandInEngine, _panel

pytest.importorskip("pytestqt")


def test_one_user_over_saved_conversations(qtbot: Any, connections: Any, home: Path, tmp_path: Path) -> None:
    store = ConversationStore()
    c = store.create("edit", system_prompt="You edit code.")
    for q, a, n in (("Fix: x=1", "x = 1", 5), ("Rename x to y", "y = 1", 4)):
        store.append(c.id, "user", q)
        store.append(c.id, "assistant", a, output_tokens=n)
    store.close()
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text("{}")
    engine = StandInEngine(tmp_path / "m")
    panel = _panel(qtbot, connections, engine)
    tune = panel.tune
    seen: list[tuple[Any, Any, Any]] = []

    def measure(h: Any, workload: Any, in_flight: Any = None) -> dict:
        seen.append((in_flight, workload.source, list(workload.output_lens)))
        k = h.config.num_speculative_tokens or 0
        tpot = (20.0 - k) / 1000  # more draft tokens, faster per token (made up)
        return {
            "output_tokens_per_s": 50.0 + k,
            "e2e_s": {"p99": 1.0},
            "tpot_s": {"p50": tpot, "p95": tpot},
            "ttft_s": {"p95": 0.1},
            "longest_prompt": {"prompt_tokens": 40, "ttft_s": 0.25},
        }

    tune.measure = measure
    tune.goal_box.set_goal("many")
    assert tune.grid_edit.text()  # the device's grid
    assert not tune.run() and "set a p95 TTFT or TPOT limit" in tune.error.text()
    tune.goal_box.set_goal("one-user")
    assert tune.grid_edit.text() == ""  # one user: its own trials
    tune.goal_box.set_source("conversations")
    with qtbot.waitSignal(tune.tuneFinished, timeout=60_000) as done:
        assert tune.run()
    result = done.args[0]
    assert result.goal["kind"] == "one-user" and result.workload["source"] == "your conversations"
    assert {(n, src) for n, src, _ in seen} == {(1, "your conversations")}  # one request in flight
    assert {tuple(lens) for _, _, lens in seen} == {(5,), (5, 4)}  # a short run, then the whole: real lengths
    reasons = " ".join(p["reason"] for p in result.plan["pruned"])
    assert "no EAGLE-3 draft head" in reasons and "max_num_seqs barely matters" in reasons
    best = result.trials[result.best]
    assert best.knobs["num_speculative_tokens"] == 8 and best.tpot_ms == pytest.approx(12.0)
    assert result.tpot_ratio_vs_default == pytest.approx(12.0 / 20.0)
    assert "12.0 ms per output token" in tune.best_label.text() and "250 ms" in tune.best_label.text()
    assert tune.table.item(result.best, 6).text() == "12.0" and tune.table.item(result.best, 1).text() == "★"
    labels = tune.tradeoff.labels
    assert labels["chosen"].isVisible() and labels["chosen"].toPlainText() == f"chosen (trial {result.best + 1})"
    assert labels["default"].toPlainText() == "vLLM's defaults (trial 1)"
    pos = labels["chosen"].pos()
    assert (pos.x(), pos.y()) == pytest.approx((12.0, 58.0))
    path = tune.save_preset(result.best, "tuned-one-user")
    text = Path(path).read_text()  # type: ignore[arg-type]
    assert "one user" in text and "your conversations" in text and 'goal = "low-latency"' in text
