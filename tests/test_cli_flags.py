"""The CLI's flags: each flag means one thing across commands, the old spellings still
work with a deprecation note, argparse errors are one line naming the flag and the way out (with
"did you mean"), and the cheap checks (model name, preset, file) answer before vLLM is imported."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from console.cli.main import build_parser, main

ROOT = Path(__file__).resolve().parents[1]


def _parse(*argv: str) -> object:
    return build_parser().parse_args(list(argv))


def test_plan_users_and_its_old_spelling(capsys: pytest.CaptureFixture[str], home: Path) -> None:
    common = ["plan", "--model", "Qwen2.5-14B", "--gpu", "rtx-4090", "--max-model-len", "32768", "--json"]
    assert main([*common, "--users", "8"]) == 0
    new = capsys.readouterr()
    assert json.loads(new.out)["request"]["concurrency"] == 8 and "deprecated" not in new.err
    assert main([*common, "--concurrency", "8"]) == 0
    old = capsys.readouterr()
    assert json.loads(old.out) == json.loads(new.out)
    assert "note: --concurrency is deprecated in `plan`; use --users" in old.err


def test_batch_export_bench_flags_and_old_spellings(capsys: pytest.CaptureFixture[str]) -> None:
    batch = ["batch", "-i", "in.jsonl", "-o", "out.jsonl"]
    assert _parse(*batch, "--max-concurrency", "3").max_concurrency == 3
    assert _parse(*batch, "--concurrency", "5").max_concurrency == 5
    assert "--concurrency is deprecated in `batch`; use --max-concurrency" in capsys.readouterr().err
    assert _parse(*batch).max_concurrency is None  # neither given: every line at once

    assert _parse("export", "--served-api-key", "k1").served_api_key == "k1"
    assert _parse("export", "--api-key", "k2").served_api_key == "k2"
    assert "--api-key is deprecated in `export`; use --served-api-key" in capsys.readouterr().err
    assert _parse("chat", "--api-key", "remote").api_key == "remote"  # chat's: the remote's key

    from console.cli.bench import report_flags

    printed = _parse("bench", "--json")
    report_flags(printed)
    assert printed.json is True and printed.report is None  # --json prints, as everywhere
    written = _parse("bench", "--report", "r.json")
    report_flags(written)
    assert written.json is False and written.report == "r.json"
    old = _parse("bench", "--json", "old.json")
    report_flags(old)
    assert old.json is False and old.report == "old.json"
    assert "--json PATH is deprecated in `bench`; use --report PATH" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (
            ["plan", "--model", "x", "--concurency", "8"],
            "error: plan: unrecognized arguments: --concurency 8; did you mean --users? (inference-console plan --help",
        ),
        (["batch", "-i", "a", "-o", "b", "--max-concurency", "2"], "did you mean --max-concurrency?"),
        (["chatt", "hi"], "did you mean 'chat'?"),
        (["plan"], "error: plan: the following arguments are required: --model (inference-console plan --help"),
        (["plan", "--model", "x", "--users", "many"], "argument --users: invalid int value: 'many'"),
    ],
)
def test_argparse_errors_are_one_line(argv: list[str], says: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and says in err
    assert err.count("\n") == 1 and "usage:" not in err


def test_cheap_checks_answer_before_vllm_is_imported(tmp_path: Path, home: Path, tiny_model: Path) -> None:
    """`batch --model unknown` took 11 s (the batch file was parsed with vLLM first); now the
    model name, the preset and the input file are checked before vLLM or torch is imported."""
    from console.models.store import ModelStore

    ModelStore().add_reference("tiny", tiny_model)
    batch_file = tmp_path / "in.jsonl"
    batch_file.write_text(json.dumps({"prompt": "hi"}) + "\n")
    script = (
        "import sys\nfrom console.cli.main import main\n"
        "for argv in sys.argv[1].split('|'):\n"
        "    rc = main(argv.split())\n"
        "    print(rc, 'vllm' in sys.modules, 'torch' in sys.modules, flush=True)\n"
    )
    runs = [
        f"batch -i {batch_file} -o {tmp_path / 'out.jsonl'} --model tinny",
        f"batch -i {tmp_path / 'missing.jsonl'} -o {tmp_path / 'out.jsonl'} --model tiny",
        "chat --model tinny hi",
        "chat --model tiny --preset nope hi",
        "bench --model tinny",
    ]
    r = subprocess.run(
        [sys.executable, "-c", script, "|".join(runs)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert r.stdout.splitlines() == ["2 False False"] * len(runs), r.stderr[-3000:]
    errors = r.stderr.splitlines()
    assert errors[0].startswith("error: --model: No model named 'tinny' in the store; did you mean 'tiny'?")
    assert errors[1] == f"error: --input-file: {tmp_path / 'missing.jsonl'} does not exist"
    assert "did you mean 'tiny'?" in errors[2] and errors[3].startswith("error: --preset: No preset named 'nope'")
    assert "did you mean 'tiny'?" in errors[4]
