"""``--engine URL`` and the engine flags: a server the console did not start keeps its
own model and settings, so chat, batch and bench refuse ``--preset``, ``--max-model-len`` and the
other engine flags with the way out (the server's own command line) instead of dropping them.
Refused before any connection: port 9 (discard) has no server, so reaching it would fail otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest

from console.cli.main import main

URL = "http://127.0.0.1:9"


@pytest.fixture()
def home(home: Path, tiny_model: Path) -> Path:
    """An empty data home whose store has a `smollm2` (the tiny model by reference): the commands'
    cheap model check passes, so the refusal shown is the one under test."""
    from console.models.store import ModelStore

    ModelStore().add_reference("smollm2", tiny_model)
    return home


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "Cannot reach" not in err  # refused before connecting
    return err


@pytest.mark.parametrize(
    "flags, named",
    [
        (["--preset", "cpu-default", "--max-model-len", "512"], "--preset, --max-model-len"),
        (["--model", "smollm2"], "--model"),
        (["--no-enforce-eager"], "--enforce-eager"),
        (["--kv-cache-dtype", "fp8", "--speculative-method", "ngram"], "--kv-cache-dtype, --speculative-method"),
    ],
)
def test_chat_refuses_engine_flags_with_a_server_url(
    home: Path, capsys: pytest.CaptureFixture[str], flags: list[str], named: str
) -> None:
    err = _run(["chat", "--engine", URL, *flags, "Hello"], capsys)
    assert f"error: {named} cannot change the server at {URL}" in err
    assert "server's own command line" in err and "--engine serve" in err


def test_batch_and_bench_refuse_them_too(home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inp = tmp_path / "in.jsonl"
    inp.write_text('{"prompt": "Hello"}\n', encoding="utf-8")
    err = _run(
        [
            "batch",
            "-i",
            str(inp),
            "-o",
            str(tmp_path / "out.jsonl"),
            "--engine",
            URL,
            "--max-num-seqs",
            "4",
            "--gpu-memory-utilization",
            "0.5",
        ],
        capsys,
    )
    assert f"--max-num-seqs, --gpu-memory-utilization cannot change the server at {URL}" in err
    assert not (tmp_path / "out.jsonl").exists()
    err = _run(["bench", "--engine", URL, "--baselines", "none", "--preset", "cpu-default"], capsys)
    assert f"--preset cannot change the server at {URL}" in err


@pytest.mark.parametrize("engine", [URL, "serve"])
def test_bench_refuses_what_only_the_in_process_run_measures(
    home: Path, capsys: pytest.CaptureFixture[str], engine: str
) -> None:
    err = _run(
        ["bench", "--engine", engine, "--baselines", "none", "--concurrency-sweep", "1,4", "--switch-to", "other"],
        capsys,
    )
    assert "--switch-to, --concurrency-sweep measure(s) the in-process engine only: use --engine local" in err


def test_without_engine_flags_a_url_is_tried(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The check names only what was given: plain chat, with sampling flags, goes to the server."""
    assert main(["chat", "--engine", URL, "--temperature", "0.5", "--max-tokens", "4", "Hello"]) == 2
    err = capsys.readouterr().err
    assert "cannot change the server" not in err
    assert f"error: Cannot reach the server at {URL}" in err
    # the folder of a remote server's file:// pictures is the console's own rule, read on this side
    assert main(["chat", "--engine", URL, "--allowed-local-media-path", str(home), "Hello"]) == 2
    err = capsys.readouterr().err
    assert "cannot change the server" not in err and f"error: Cannot reach the server at {URL}" in err


@pytest.mark.parametrize(
    "command, flags, message",
    [
        (["chat", "Hello"], ["--max-num-seqs", "0"], "'--max-num-seqs' = 0 is out of range [1, 65536]"),
        (["chat", "Hello"], ["--max-model-len", "8"], "'--max-model-len' = 8 is out of range [16, 10000000]"),
        (
            ["chat", "Hello"],
            ["--gpu-memory-utilization", "1.5"],
            "'--gpu-memory-utilization' = 1.5 is out of range (0, 1]",
        ),
        (
            ["bench", "--baselines", "none"],
            ["--kv-cache-dtype", "fp9"],
            "'--kv-cache-dtype' = 'fp9' is not one of auto",
        ),
        (
            ["bench", "--baselines", "none"],
            ["--num-speculative-tokens", "99"],
            "'--num-speculative-tokens' = 99 is out of range [1, 16]",
        ),
    ],
)
def test_typed_values_pass_the_preset_schema_and_name_the_flag(
    home: Path, capsys: pytest.CaptureFixture[str], command: list[str], flags: list[str], message: str
) -> None:
    """Values typed on the command line reached EngineConfig without the checks a preset's
    values pass (they failed later inside vLLM, or not at all); refused before any model is read."""
    assert main([command[0], *flags, *command[1:]]) == 2
    err = capsys.readouterr().err
    assert f"error: {message}" in err and "Traceback" not in err
