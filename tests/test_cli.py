"""The headless CLI as a user runs it: a real subprocess of ``python -m console``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_cli(home: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, INFERENCE_CONSOLE_HOME=str(home), PYTHONPATH=str(ROOT))
    env.pop("INFERENCE_CONSOLE_STORE", None)
    return subprocess.run(
        [sys.executable, "-m", "console", *args], capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT
    )


@pytest.mark.engine
def test_models_import_list_info_remove(tmp_path: Path, tiny_model: Path) -> None:
    home = tmp_path / "home"
    r = run_cli(home, "models", "import", str(tiny_model), "--name", "tiny")
    assert r.returncode == 0, r.stderr
    listed = json.loads(run_cli(home, "models", "list", "--json").stdout)
    assert [m["name"] for m in listed] == ["tiny"]
    info = json.loads(run_cli(home, "models", "info", "tiny", "--json").stdout)
    assert Path(info["path"]) == home / "models" / "tiny" and (Path(info["path"]) / "config.json").is_file()
    assert info["architecture"] == "LlamaForCausalLM" and info["available"] is True
    assert run_cli(home, "models", "remove", "tiny").returncode == 0
    assert json.loads(run_cli(home, "models", "list", "--json").stdout) == []


@pytest.mark.engine
def test_bad_import_is_one_clear_line_not_a_traceback(tmp_path: Path) -> None:
    bogus = tmp_path / "x.gguf"
    bogus.write_bytes(b"not a model at all")
    r = run_cli(tmp_path / "home", "models", "import", str(bogus))
    assert r.returncode == 2
    assert "not a GGUF file" in r.stderr and "Traceback" not in r.stderr
    r = run_cli(tmp_path / "home", "chat", "--model", "nope", "hi")
    assert r.returncode == 2 and "No model named 'nope'" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.e2e
def test_chat_streams_paris_from_the_bundled_model(tmp_path: Path, smollm2_model: Path) -> None:
    home = tmp_path / "home"
    assert run_cli(home, "models", "import", str(smollm2_model), "--name", "smollm2", "--reference").returncode == 0
    # the README's first command: no sampling flag, the bundled model's own defaults (greedy)
    r = run_cli(home, "chat", "--model", "smollm2", "What is the capital of France?")
    assert r.returncode == 0, r.stderr[-3000:]
    assert "Paris" in r.stdout
    assert "[engine] ready: smollm2 on cpu" in r.stderr  # answered by the vLLM in-process engine
    assert "[sampling] temperature 0," in r.stderr and "from the model's generation_config.json" in r.stderr
