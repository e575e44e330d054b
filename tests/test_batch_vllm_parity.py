"""The issue's acceptance check: one JSONL file with a json_schema line, a choice line, a
logprobs + top_logprobs line and an n=2 line with penalties runs through the console's batch
runner on the bundled SmolLM2 and through vLLM's own ``run_batch`` module, and the two agree:
greedy lines identical, the JSON valid against its schema, the choice honoured, top-k logprobs
present, two choices for n=2.

The console side runs on the session's SmolLM2 engine (``smollm2_engine``) through ``run_batch``,
what ``inference-console batch`` calls once its engine is up (the command itself, with a folder as
``--model``, is driven as a child in tests/test_batch_cli.py); vLLM's side gets the same dtype (the
one the CPU dtype check chose, read from the loaded engine), eager mode, context and KV size. It
used to convert the GGUF and start the console CLI as a second child with a float16
run_batch (float16 has no native path on this CPU): 15-25 minutes on a loaded 2-core machine."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema  # vLLM's structured-output stack depends on it
import pytest

from vllm_run_batch import bodies, run_vllm_batch

pytestmark = pytest.mark.e2e

SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "country": {"type": "string"}},
    "required": ["city", "country"],
    "additionalProperties": False,
}


def _line(cid: str, content: str, **body: Any) -> dict[str, Any]:
    return {
        "custom_id": cid,
        "method": "POST",
        "url": "/v1/chat/completions",
        "body": {"messages": [{"role": "user", "content": content}], **body},
    }


LINES = [
    _line(
        "json",
        "Give the capital of France as JSON with city and country.",
        temperature=0,
        max_tokens=48,
        response_format={"type": "json_schema", "json_schema": {"name": "capital", "schema": SCHEMA}},
    ),
    _line(
        "choice",
        "Is this review positive or negative? 'I loved this film, wonderful acting.'",
        temperature=0,
        max_tokens=8,
        structured_outputs={"choice": ["positive", "negative"]},
    ),
    _line("logprobs", "What is the capital of France?", temperature=0, max_tokens=12, logprobs=True, top_logprobs=3),
    _line(
        "n2",
        "Name a colour.",
        n=2,
        temperature=0.8,
        seed=11,
        presence_penalty=0.6,
        frequency_penalty=0.4,
        max_tokens=12,
    ),
]


def _content(body: dict[str, Any], i: int = 0) -> str:
    return str(body["choices"][i]["message"]["content"])


@pytest.mark.timeout(900)
def test_console_batch_agrees_with_vllm_run_batch(smollm2_engine: Any, smollm2_model: Path, tmp_path: Path) -> None:
    from conftest import SMOLLM2_KV_BYTES, SMOLLM2_MAX_LEN
    from console.batch.formats import read_batch_file
    from console.batch.runner import run_batch
    from console.sampling import SamplingSettings

    inp = tmp_path / "in.jsonl"
    inp.write_text("".join(json.dumps(x) + "\n" for x in LINES), encoding="utf-8")
    ours, theirs = tmp_path / "console.jsonl", tmp_path / "vllm.jsonl"
    parsed = read_batch_file(inp, SamplingSettings(temperature=0.0))  # the CLI's default sampling
    assert not parsed.errors and len(parsed.requests) == len(LINES)
    summary = run_batch(smollm2_engine, parsed.requests, ours, model_name=str(smollm2_model))
    assert summary.succeeded == len(LINES) and not summary.engine_error, summary
    info = smollm2_engine.status.info
    run_vllm_batch(inp, theirs, smollm2_model, info.dtype, SMOLLM2_MAX_LEN, SMOLLM2_KV_BYTES, tmp_path)
    a, b = bodies(ours), bodies(theirs)

    for cid in ("json", "choice", "logprobs"):  # greedy: identical answers
        assert _content(a[cid]) == _content(b[cid]), cid
    jsonschema.validate(json.loads(_content(a["json"])), SCHEMA)
    assert _content(a["choice"]) in ("positive", "negative")
    lp_a = a["logprobs"]["choices"][0]["logprobs"]["content"]
    lp_b = b["logprobs"]["choices"][0]["logprobs"]["content"]
    assert [s["token"] for s in lp_a] == [s["token"] for s in lp_b]
    assert all(len(s["top_logprobs"]) == 3 for s in lp_a)
    for sa, sb in zip(lp_a, lp_b):
        assert [t["token"] for t in sa["top_logprobs"]] == [t["token"] for t in sb["top_logprobs"]]
        assert sa["logprob"] == pytest.approx(sb["logprob"], abs=0.05)
    assert len(a["n2"]["choices"]) == len(b["n2"]["choices"]) == 2
    assert all(_content(a["n2"], i) for i in range(2))
    for cid in a:
        assert a[cid]["usage"]["prompt_tokens"] == b[cid]["usage"]["prompt_tokens"], cid
