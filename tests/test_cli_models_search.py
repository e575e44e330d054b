"""``inference-console models curated`` and ``models search`` (console/cli/models_search.py), the
search against the local fake of the hubs' APIs (tests/search_fakes.py, never the internet)."""

from __future__ import annotations

import json

import pytest

from console.cli.main import main
from console.models.curated import load_curated
from search_fakes import SearchHub, search_hub  # noqa: F401  (the fixture)


def test_curated_lists_every_entry_with_its_badge(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["models", "curated", "--gpu", "rtx-4090"]) == 0  # no --gpu: this machine (tests/test_machine_fit.py)
    out = capsys.readouterr().out
    assert "one user each" in out and "RTX 4090" in out.splitlines()[0]
    for m in load_curated().models:
        assert m.repo in out
    assert main(["models", "curated", "--gpu", "rtx-4080", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["gpu"] == "rtx-4080" and len(data["models"]) == len(load_curated().models)
    by_repo = {m["repo"]: m["badges"] for m in data["models"]}
    assert by_repo["Qwen/Qwen3-8B-AWQ"]["verdict"] == "fits"
    assert by_repo["Qwen/Qwen3-30B-A3B-GPTQ-Int4"]["verdict"] == "does-not-fit"  # 16.8 GB on a 16 GB card
    assert main(["models", "curated", "--gpu", "rtx-9999"]) == 2
    err = capsys.readouterr().err
    assert "--gpu: Unknown GPU 'rtx-9999'" in err and len(err.strip().splitlines()) == 1


def test_search_prints_badges_and_gguf_advice(search_hub: SearchHub, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    assert main(["models", "search", "qwen3", "8b", "--gpu", "rtx-4090"]) == 0
    out = capsys.readouterr().out
    assert search_hub.requests[0][1]["search"] == ["qwen3 8b"]
    line = next(x for x in out.splitlines() if x.startswith("Qwen/Qwen3-8B-AWQ "))
    assert "AWQ" in line and "fits" in line and "412,093" in line
    assert "Qwen/Qwen3-8B-GGUF: a GGUF becomes about 15.3 GiB as 16-bit weights; Qwen/Qwen3-8B-AWQ runs" in out
    assert "unknown: the planner" not in out  # every hit here has a shape the planner knows
    assert main(["models", "search", "mystery"]) == 0
    assert "unknown: the planner reads config.json at download" in capsys.readouterr().out
    assert main(["models", "search", "qwen3-8b", "--source", "modelscope", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["source"] == "modelscope" and data["results"][0]["repo"] == "Qwen/Qwen3-8B-AWQ"
    assert data["results"][0]["badges"]["card"] == "rtx-4090"


def test_search_errors_are_one_line(
    search_hub: SearchHub,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    search_hub.status = 500
    assert main(["models", "search", "qwen3"]) == 2
    assert "HTTP 500 (a problem on its side)" in capsys.readouterr().err
    monkeypatch.setenv("INFERENCE_CONSOLE_OFFLINE", "1")
    assert main(["models", "search", "qwen3"]) == 2
    err = capsys.readouterr().err
    assert "Offline mode is on" in err and len(err.strip().splitlines()) == 1
    assert main(["models", "search", "qwen3", "--limit", "0"]) == 2
    assert "--limit 0 is out of range" in capsys.readouterr().err
