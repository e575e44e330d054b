"""``chat``'s output flags: parsed into the OpenAI fields vLLM checks, refused with a readable
message before any engine loads, and on the real CPU engine (tiny random model, the session's
shared engine) a choice list holds and the logprobs and extra answers are printed."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from console.cli.chat import answer
from console.cli.chat_output import add_output_args, output_fields_from_args
from console.cli.common import CliError
from console.sampling import SamplingSettings
from console.engine.openai_body import request_fields
from console.engine.types import GenerationRequest


def _args(*argv: str) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    add_output_args(p)
    return p.parse_args(list(argv))


def test_flags_become_openai_fields(tmp_path: Path) -> None:
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps({"type": "object", "properties": {"a": {"type": "string"}}}), encoding="utf-8")
    assert output_fields_from_args(_args()) == {}
    f = output_fields_from_args(_args("--json-schema", str(schema), "--logprobs", "2", "-n", "3"))
    assert f["response_format"]["json_schema"]["schema"]["properties"] == {"a": {"type": "string"}}
    assert (f["logprobs"], f["top_logprobs"], f["n"]) == (True, 2, 3)
    assert output_fields_from_args(_args("--choice", "yes", "--choice", "no")) == {
        "structured_outputs": {"choice": ["yes", "no"]}
    }
    assert output_fields_from_args(_args("--regex", "[0-9]+"))["structured_outputs"] == {"regex": "[0-9]+"}
    # the thinking switch is a template field, checked by vLLM's request model
    assert output_fields_from_args(_args("--no-think")) == {"chat_template_kwargs": {"enable_thinking": False}}
    assert request_fields(output_fields_from_args(_args("--think")), SamplingSettings())["openai_fields"][
        "chat_template_kwargs"
    ] == {"enable_thinking": True}
    schema.write_text("{nope", encoding="utf-8")
    with pytest.raises(CliError, match="not valid JSON"):
        output_fields_from_args(_args("--json-schema", str(schema)))
    with pytest.raises(CliError, match="cannot read the JSON schema"):
        output_fields_from_args(_args("--json-schema", str(tmp_path / "missing.json")))


def test_refused_before_the_engine_loads(home: Path, tiny_model: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from console.cli.main import main
    from console.models.store import ModelStore

    ModelStore().add_reference("tiny", tiny_model)  # the model check passes; vLLM's refusal is the one shown
    rc = main(["chat", "-n", "2", "--model", "tiny", "--temperature", "0", "hi"])  # in this process: no engine
    err = capsys.readouterr().err
    assert rc == 2 and "n must be 1 when using greedy sampling" in err, err[-2000:]
    assert "[engine]" not in err


@pytest.mark.engine
def test_choice_logprobs_and_answers_printed(tiny_engine: Any, capsys: pytest.CaptureFixture[str]) -> None:
    fields = output_fields_from_args(_args("--choice", "alpha", "--choice", "beta", "--logprobs", "2", "-n", "2"))
    sampling = SamplingSettings(temperature=1.0, seed=4, max_tokens=8)
    request = GenerationRequest(
        messages=[{"role": "user", "content": "pick"}], sampling=sampling, **request_fields(fields, sampling)
    )
    text = answer(tiny_engine, request)
    out, err = capsys.readouterr()
    assert text in ("alpha", "beta")
    lines = out.splitlines()
    assert lines[0] == text and lines[1] in ("alpha", "beta")  # answer 1 streamed, answer 2 after it
    assert "--- answer 2" in err and err.count("--- logprobs, answer") == 2
    assert "%" in err and "(also:" in err
