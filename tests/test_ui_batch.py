"""The Batch tab on the real CPU engine (tiny model): open, run to completion, export; cancel
and resume. ``test_batch_panel_layout_without_engine`` needs no engine (no engine at all): it is
about what the panel shows before a model is loaded."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from console.metrics.store import MetricsStore
from console.models.store import ModelStore
from console.metrics.device import DeviceSampler

pytest.importorskip("pytestqt")


def _panel(qtbot, connections, engine):
    """A Batch panel on ``engine`` (None: no engine), its bridge closed at the test's teardown."""
    from console.ui.batch.panel import BatchPanel
    from console.ui.context import AppContext

    metrics = engine.metrics if engine is not None else MetricsStore()
    ctx = AppContext(
        engine=engine,
        metrics=metrics,
        store=ModelStore(),
        sampler=DeviceSampler(metrics),
        bridge=connections.bridge(engine) if engine is not None else None,
    )  # type: ignore[arg-type]
    panel = BatchPanel(ctx)
    qtbot.addWidget(panel)
    panel.resize(1000, 700)
    panel.show()
    return panel


def _write_mixed(path: Path) -> None:
    lines = [
        {
            "custom_id": "oa-1",
            "method": "POST",
            "url": "/v1/chat/completions",
            "body": {"model": "tiny", "messages": [{"role": "user", "content": "Say hello"}], "max_tokens": 12},
        },
        {"custom_id": "plain-2", "prompt": "Once upon a time"},
        {"messages": [{"role": "user", "content": "List three colours"}], "temperature": 0.0},
        {"custom_id": "bad-4", "prompt": 42},  # refused by line, the rest runs
    ]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")


@pytest.mark.engine
def test_batch_runs_to_completion_and_exports(qtbot, connections, tiny_engine, home, tmp_path: Path) -> None:
    panel = _panel(qtbot, connections, tiny_engine)
    src = tmp_path / "prompts.jsonl"
    _write_mixed(src)
    assert panel.open_file(src)
    assert "3 requests" in panel.file_label.text() and "line 4" in panel.file_label.text()
    panel.max_tokens.setValue(20)
    panel.temperature.setValue(0.0)
    assert panel.run_button.isEnabled()
    with qtbot.waitSignal(panel.batchFinished, timeout=120_000) as done:
        qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
        assert panel.cancel_button.isEnabled() and not panel.run_button.isEnabled()
    summary = done.args[0]
    assert summary.succeeded == 3 and summary.failed == 0 and not summary.cancelled
    assert panel.model.rowCount() == 3 and panel.progress.value() == 100
    by_id = {r.custom_id: r for r in panel.model.results}
    assert set(by_id) == {"oa-1", "plain-2", "line-3"}
    assert by_id["oa-1"].output_tokens <= 12  # the line's own max_tokens wins
    assert all(r.ttft_s is not None and r.latency_s and r.finish_reason for r in by_id.values())
    assert panel.model.data(panel.model.index(0, 2)) != ""  # the output column shows text
    assert "Done" in panel.status_label.text()
    assert panel.export_jsonl_button.isEnabled()

    out_jsonl = tmp_path / "export.jsonl"
    assert panel.export_jsonl(out_jsonl) == 3
    rows = [json.loads(line) for line in out_jsonl.read_text().split("\n") if line]
    assert {r["custom_id"] for r in rows} == set(by_id)
    for r in rows:  # the OpenAI batch output shape vllm run-batch writes
        assert r["error"] is None and r["response"]["status_code"] == 200
        body = r["response"]["body"]
        assert body["object"] == "chat.completion" and body["choices"][0]["message"]["role"] == "assistant"
        assert body["usage"]["completion_tokens"] == by_id[r["custom_id"]].output_tokens
    out_csv = tmp_path / "export.csv"
    assert panel.export_csv(out_csv) == 3
    table = list(csv.DictReader(out_csv.open(encoding="utf-8")))
    assert [t["custom_id"] for t in table] == [r.custom_id for r in panel.model.results]
    assert table[0]["prompt"] and table[0]["output"] == panel.model.results[0].text


@pytest.mark.engine
def test_batch_cancel_keeps_finished_and_resume_completes(
    qtbot, connections, tiny_engine, home, tmp_path: Path
) -> None:
    panel = _panel(qtbot, connections, tiny_engine)
    src = tmp_path / "many.csv"
    with src.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["custom_id", "prompt"])
        for i in range(64):
            w.writerow([f"q{i}", f"Write a long story number {i}"])
    assert panel.open_file(src)
    panel.max_tokens.setValue(200)
    panel.concurrency.setValue(4)  # slow enough to cancel midway on the tiny model
    with qtbot.waitSignal(panel.batchFinished, timeout=120_000) as done:
        assert panel.start()
        qtbot.waitUntil(lambda: panel.model.rowCount() >= 4, timeout=60_000)
        assert "ETA" in panel.status_label.text() and "tok/s" in panel.status_label.text()
        panel.cancel()
    first = done.args[0]
    assert first.cancelled and 4 <= first.succeeded < 64
    output = panel.output_path
    assert output is not None
    written = [json.loads(line) for line in output.read_text().split("\n") if line]
    assert len(written) == first.succeeded == panel.model.rowCount()  # nothing finished was lost
    assert "Cancelled" in panel.status_label.text()

    panel.concurrency.setValue(32)
    with qtbot.waitSignal(panel.batchFinished, timeout=180_000) as done:
        assert panel.start()
    second = done.args[0]
    assert not second.cancelled and second.skipped == first.succeeded
    assert second.succeeded == 64 - first.succeeded
    ids = [json.loads(line)["custom_id"] for line in output.read_text().split("\n") if line]
    assert sorted(ids) == sorted(f"q{i}" for i in range(64))  # each exactly once
    assert panel.model.rowCount() == 64


def test_batch_panel_layout_without_engine(qtbot, connections, home, tmp_path: Path) -> None:
    """No engine at all (layout only): Run stays disabled and says why; a bad file is explained."""
    panel = _panel(qtbot, connections, None)
    bad = tmp_path / "missing.jsonl"
    assert not panel.open_file(bad)
    assert "does not exist" in panel.file_label.text()
    good = tmp_path / "p.jsonl"
    _write_mixed(good)
    assert panel.open_file(good)
    assert not panel.run_button.isEnabled() and not panel.start()
    assert "Load a model first" in panel.status_label.text()
    assert not panel.export_csv_button.isEnabled()
