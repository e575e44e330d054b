"""A batch never resumes into another input's results: the output follows the opened input in
the Batch tab, and the core, the CLI and the tab refuse an output that holds other requests'
results (another file's ids, or the same ids asking something else) before anything runs.

The CLI and core refusals need no engine (they come before it starts); the runs that write an
output first use the tests' shared tiny engine and are marked ``engine``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from console.batch.formats import read_batch_file
from console.batch.results import BatchResult, iter_output


def _write(path: Path, prompts: dict[str, str]) -> Path:
    lines = [json.dumps({"custom_id": cid, "prompt": text, "max_tokens": 4}) for cid, text in prompts.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _vllm_output(path: Path, ids: list[str]) -> None:
    """An output as `vllm run-batch` (or the console before it recorded its requests) writes it."""
    lines = [json.dumps(BatchResult(cid, n + 1, "", ok=True, text="old").to_openai()) for n, cid in enumerate(ids)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    from console.cli.main import main

    code = main(["batch", *args])
    return code, capsys.readouterr().err


def test_cli_refuses_an_output_holding_other_ids(
    tiny_model: Path, home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "requests.results.jsonl"
    _vllm_output(out, ["req-1", "req-2"])
    before = out.read_bytes()
    second = _write(tmp_path / "second.jsonl", {"other-1": "Name a colour", "other-2": "Name a fruit"})
    code, err = _cli(["-i", str(second), "-o", str(out), "--model", str(tiny_model)], capsys)
    assert code == 2
    assert "requests.results.jsonl holds results of another input" in err
    assert len(err.strip().splitlines()) == 1  # one line, before any engine started
    assert out.read_bytes() == before  # nothing appended


def test_cli_refuses_reused_ids_that_ask_something_else(
    tiny_model: Path, home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from console.batch.provenance import request_digest

    first = _write(tmp_path / "requests.jsonl", {"req-1": "What is 2+2?", "req-2": "Capital of France?"})
    out = tmp_path / "requests.results.jsonl"
    lines = [
        BatchResult(r.custom_id, r.line, r.display_prompt, ok=True, text="old", request_sha256=request_digest(r))
        for r in read_batch_file(first).requests
    ]
    out.write_text("".join(json.dumps(r.to_openai()) + "\n" for r in lines), encoding="utf-8")
    before = out.read_bytes()
    second = _write(tmp_path / "second.jsonl", {"req-1": "Name a colour", "req-2": "Name a fruit"})
    code, err = _cli(["-i", str(second), "-o", str(out), "--model", str(tiny_model)], capsys)
    assert code == 2 and "request req-1 there asked something else" in err
    assert len(err.strip().splitlines()) == 1 and out.read_bytes() == before


def test_resume_accepts_its_own_input_grown_by_lines(tmp_path: Path) -> None:
    from console.batch.provenance import check_resume, request_digest

    first = _write(tmp_path / "requests.jsonl", {"req-1": "What is 2+2?"})
    out = tmp_path / "out.jsonl"
    (req,) = read_batch_file(first).requests
    out.write_text(json.dumps(BatchResult("req-1", 1, "", ok=True, request_sha256=request_digest(req)).to_openai()))
    out.write_text(out.read_text() + "\n")
    grown = _write(tmp_path / "moved.jsonl", {"req-1": "What is 2+2?", "req-2": "And 3+3?"})
    check_resume(out, read_batch_file(grown).requests)  # same requests, one more line: resumes
    check_resume(tmp_path / "absent.jsonl", read_batch_file(grown).requests)


@pytest.mark.engine
def test_run_batch_refuses_another_inputs_output_before_generating(tiny_engine: Any, tmp_path: Path) -> None:
    from console.batch.provenance import ResumeMismatch
    from console.batch.runner import run_batch

    first = _write(tmp_path / "requests.jsonl", {"req-1": "What is 2+2?", "req-2": "Capital of France?"})
    out = tmp_path / "requests.results.jsonl"
    assert run_batch(tiny_engine, read_batch_file(first).requests, out).succeeded == 2
    assert all(o["metrics"]["request_sha256"] for o in iter_output(out))
    before = out.read_bytes()
    second = _write(tmp_path / "second.jsonl", {"req-1": "Name a colour", "req-2": "Name a fruit"})
    with pytest.raises(ResumeMismatch, match="another input"):
        run_batch(tiny_engine, read_batch_file(second).requests, out)
    assert out.read_bytes() == before
    again = run_batch(tiny_engine, read_batch_file(first).requests, out)  # its own input resumes
    assert again.skipped == 2 and again.succeeded == 0


def _panel(qtbot: Any, connections: Any, host: Any) -> Any:
    from tests.test_ui_batch import _panel as make

    return make(qtbot, connections, host)


def test_batch_output_follows_the_opened_input(qtbot: Any, connections: Any, home: Path, tmp_path: Path) -> None:
    """No engine (the output field only): opening another file sets the output from it, unless
    the user chose an output for the file that is open."""
    panel = _panel(qtbot, connections, None)
    first = _write(tmp_path / "requests.jsonl", {"req-1": "What is 2+2?"})
    second = _write(tmp_path / "second.jsonl", {"req-1": "Name a colour"})
    assert panel.open_file(first)
    assert panel.output_edit.text() == str(tmp_path / "requests.results.jsonl")
    assert panel.open_file(second)
    assert panel.output_edit.text() == str(tmp_path / "second.results.jsonl")
    chosen = str(tmp_path / "mine.jsonl")
    panel.output_edit.clear()
    qtbot.keyClicks(panel.output_edit, chosen)  # typed for second.jsonl
    assert panel.open_file(second) and panel.output_edit.text() == chosen  # re-read: kept
    assert panel.open_file(first)
    assert panel.output_edit.text() == str(tmp_path / "requests.results.jsonl")


@pytest.mark.engine
def test_batch_tab_never_pairs_new_prompts_with_old_answers(
    qtbot: Any, connections: Any, tiny_engine: Any, home: Path, tmp_path: Path
) -> None:
    panel = _panel(qtbot, connections, tiny_engine)
    first = _write(tmp_path / "requests.jsonl", {"req-1": "What is 2+2?", "req-2": "Capital of France?"})
    second = _write(tmp_path / "second.jsonl", {"req-1": "Name a colour", "req-2": "Name a fruit"})
    assert panel.open_file(first) and panel.resume_check.isChecked()
    with qtbot.waitSignal(panel.batchFinished, timeout=120_000):
        assert panel.start()
    old = tmp_path / "requests.results.jsonl"
    before = old.read_bytes()

    assert panel.open_file(second)
    with qtbot.waitSignal(panel.batchFinished, timeout=120_000) as done:
        assert panel.start()
    assert done.args[0].succeeded == 2 and done.args[0].skipped == 0
    assert panel.output_path == tmp_path / "second.results.jsonl" and old.read_bytes() == before
    assert sorted(r.prompt for r in panel.model.results) == ["Name a colour", "Name a fruit"]

    panel.output_edit.setText(str(old))  # pointed back at the first file's results by hand
    assert not panel.start()
    assert "holds results of another input" in panel.status_label.text()
    assert "\n" not in panel.status_label.text() and old.read_bytes() == before
