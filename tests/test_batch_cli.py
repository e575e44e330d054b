"""``inference-console batch`` end to end, with a crash: the CLI is killed with SIGKILL (engine
and all) mid-batch; every line already written is intact, and a re-run resumes the rest."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from console.batch.formats import read_batch_file
from console.batch.results import iter_output
from console.batch.runner import run_batch

pytestmark = pytest.mark.engine
REPO = Path(__file__).resolve().parent.parent


def test_cli_batch_killed_mid_run_then_resumed(tiny_model: Path, tiny_engine: Any, tmp_path: Path) -> None:
    """Unable to race: the last request starts when the third line is written and needs 960
    sequential decode steps (ignore_eos), far more than can run between the test seeing that
    line and its kill, so the batch is always mid-run when killed; the short requests in front
    keep the run and the resume cheap."""
    tokens = [32, 32, 32, 32, 960]
    n = len(tokens)
    inp = tmp_path / "in.jsonl"
    inp.write_text(
        "\n".join(
            [
                json.dumps(
                    {
                        "custom_id": f"q{i}",
                        "method": "POST",
                        "url": "/v1/chat/completions",
                        "body": {
                            "messages": [{"role": "user", "content": f"Tell me about {i}"}],
                            "max_tokens": m,
                            "ignore_eos": True,
                        },
                    }
                )
                for i, m in enumerate(tokens)
            ]
            + ["not json at all"]
        )
        + "\n",
        encoding="utf-8",
    )
    out = tmp_path / "out.jsonl"
    cmd = [
        sys.executable,
        "-m",
        "console",
        "--home",
        str(tmp_path / "home"),
        "batch",
        "-i",
        str(inp),
        "-o",
        str(out),
        "--model",
        str(tiny_model),
        "--max-model-len",
        "1024",
        "--kv-cache-memory-bytes",
        str(64 * 1024**2),
        "--device",
        "cpu",
        "--max-concurrency",
        "2",
    ]
    env = dict(os.environ, VLLM_LOGGING_LEVEL="WARNING")
    proc = subprocess.Popen(
        cmd, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    try:
        # The written lines are the event; the test's own timeout (pytest-timeout) bounds the wait.
        while proc.poll() is None and not (out.exists() and len(out.read_bytes().splitlines()) >= 3):
            time.sleep(0.05)
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        os.killpg(proc.pid, signal.SIGKILL)  # the CLI and its engine process, no clean-up
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
    written = list(iter_output(out))
    assert 3 <= len(written) < n
    for o in written:  # every complete line is a full, valid result
        expected = tokens[int(o["custom_id"][1:])]
        assert o["error"] is None and o["response"]["body"]["usage"]["completion_tokens"] == expected
    # Resume on the (same model) session engine: only the missing ones run.
    parsed = read_batch_file(inp)
    assert [e.line for e in parsed.errors] == [n + 1]
    summary = run_batch(tiny_engine, parsed.requests, out)
    assert summary.skipped == len(written) and summary.succeeded == n - len(written)
    ids = [o["custom_id"] for o in iter_output(out)]
    assert sorted(ids) == sorted(f"q{i}" for i in range(n))
    assert all(raw.strip() for raw in out.read_text(encoding="utf-8").splitlines())


def test_cli_refuses_missing_and_remote_files(tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """In this process (the refusals come before any engine): the command's code and messages."""
    from console.cli.main import main

    assert main(["batch", "-i", str(tmp_path / "nope.jsonl"), "-o", str(tmp_path / "o.jsonl")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["batch", "-i", "https://example.com/in.jsonl", "-o", str(tmp_path / "o.jsonl")]) == 2
    assert "local file" in capsys.readouterr().err
