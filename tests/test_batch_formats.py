"""Batch input parsing and output format (no engine): vLLM's own models agree with us, malformed
lines are reported by number, and a fuzz test finds no crash and no silently accepted garbage."""

from __future__ import annotations

import json
import string
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from console.batch.formats import BatchFormatError, parse_csv, parse_jsonl, read_batch_file
from console.batch.results import BatchResult
from console.sampling import SamplingSettings


def openai_line(cid: str, content: str, **body: object) -> str:
    return json.dumps(
        {
            "custom_id": cid,
            "method": "POST",
            "url": "/v1/chat/completions",
            "body": {"model": "smollm2", "messages": [{"role": "user", "content": content}], **body},
        }
    )


def test_openai_format_lines_and_sampling() -> None:
    text = "\n".join(
        [
            openai_line("a", "Hello", max_tokens=12, temperature=0.5, stop="END"),
            "",
            openai_line("b", "World", max_completion_tokens=7, seed=3),
        ]
    )
    parsed = parse_jsonl(text, SamplingSettings(temperature=0.0, max_tokens=99))
    assert parsed.errors == [] and parsed.format == "openai"
    a, b = parsed.requests
    assert (a.custom_id, a.line, a.sampling.max_tokens, a.sampling.temperature, a.sampling.stop) == (
        "a",
        1,
        12,
        0.5,
        ["END"],
    )
    assert (b.custom_id, b.line, b.sampling.max_tokens, b.sampling.seed, b.sampling.temperature) == ("b", 3, 7, 3, 0.0)
    assert a.messages == [{"role": "user", "content": "Hello"}] and a.model == "smollm2"


def test_vllm_accepts_what_we_accept_and_reads_what_we_write() -> None:
    """The same file works with vllm run-batch: vLLM's own pydantic models parse our input
    lines and our output lines."""
    rb = pytest.importorskip("vllm.entrypoints.launchers.run_batch")
    line = openai_line("q1", "What is 2+2?", max_tokens=16, temperature=0.0)
    assert parse_jsonl(line).errors == []
    rb.BatchRequestInput.model_validate_json(line)
    ok = BatchResult(
        "q1",
        1,
        "What is 2+2?",
        ok=True,
        text="4",
        finish_reason="stop",
        prompt_tokens=9,
        output_tokens=1,
        ttft_s=0.01,
        latency_s=0.02,
        model="smollm2",
        request_id="abc",
    )
    bad = BatchResult("q2", 2, "x", ok=False, error="too long", error_code="context_length_exceeded")
    for r in (ok, bad):
        out = rb.BatchRequestOutput.model_validate_json(json.dumps(r.to_openai()))
        assert out.custom_id == r.custom_id
        assert BatchResult.from_openai(json.loads(json.dumps(r.to_openai()))).ok == r.ok
    parsed = rb.BatchRequestOutput.model_validate_json(json.dumps(ok.to_openai()))
    assert parsed.response.body.choices[0].message.content == "4"
    assert parsed.response.body.usage.total_tokens == 10


def test_malformed_lines_reported_by_number_good_lines_kept() -> None:
    lines = [
        openai_line("ok1", "fine"),
        "{not json",
        json.dumps({"custom_id": "x", "method": "GET", "url": "/v1/chat/completions", "body": {"messages": []}}),
        json.dumps({"custom_id": "y", "method": "POST", "url": "/v1/embeddings", "body": {"input": "a"}}),
        openai_line("ok1", "duplicate id"),
        openai_line("z", "hi", tool_choice="required"),  # vLLM: tool_choice needs tools
        openai_line("t", "hi", temperature=-1),
        json.dumps(["a", "list"]),
        json.dumps({"prompt": "plain prompt", "max_tokens": 5}),
        json.dumps({"prompt": "p", "bogus": 1}),
    ]
    parsed = parse_jsonl("\n".join(lines))
    assert [r.custom_id for r in parsed.requests] == ["ok1", "line-9"]
    by_line = {e.line: e.message for e in parsed.errors}
    assert sorted(by_line) == [2, 3, 4, 5, 6, 7, 8, 10]
    assert "not valid JSON" in by_line[2]
    assert "POST" in by_line[3]
    assert "/v1/embeddings" in by_line[4]
    assert "duplicate custom_id 'ok1' (first on line 1)" in by_line[5]
    assert "tools" in by_line[6]  # presence_penalty & co. now run (tests/test_batch_openai.py)
    assert "temperature" in by_line[7]
    assert "bogus" in by_line[10]
    assert str(parsed.errors[0]).startswith("line 2:")


def test_csv_and_non_utf8(tmp_path: Path) -> None:
    p = tmp_path / "in.csv"
    p.write_text('id,prompt,max_tokens,notes\nq1,"Hello, there",8,x\nq2,,8,y\nq3,Bye,lots,z\n', encoding="utf-8")
    parsed = read_batch_file(p)
    assert [r.custom_id for r in parsed.requests] == ["q1"]
    assert parsed.requests[0].messages == [{"role": "user", "content": "Hello, there"}]
    assert parsed.requests[0].sampling.max_tokens == 8
    assert [e.line for e in parsed.errors] == [3, 4]
    assert "notes" in parsed.warnings[0]
    with pytest.raises(BatchFormatError, match="prompt"):
        parse_csv("a,b\n1,2\n")
    j = tmp_path / "in.jsonl"
    j.write_bytes(json.dumps({"prompt": "good"}).encode() + b"\n" + b'{"prompt": "bad \xff\xfe"}\n')
    parsed = read_batch_file(j)
    assert len(parsed.requests) == 1 and parsed.errors[0].line == 2 and "UTF-8" in parsed.errors[0].message
    with pytest.raises(BatchFormatError, match="does not exist"):
        read_batch_file(tmp_path / "missing.jsonl")


# -- fuzz --------------------------------------------------------------------------------------

json_scalars = (
    st.none() | st.booleans() | st.integers(-(10**20), 10**20) | st.floats(allow_nan=True) | st.text(max_size=20)
)
json_values = st.recursive(
    json_scalars, lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=8), c, max_size=4), max_leaves=12
)
body_keys = st.sampled_from(
    [
        "model",
        "messages",
        "max_tokens",
        "temperature",
        "top_p",
        "stop",
        "seed",
        "n",
        "stream",
        "presence_penalty",
        "tools",
        "bogus",
        "max_completion_tokens",
    ]
)
fuzz_line = st.one_of(
    st.text(string.printable, max_size=60),
    json_values.map(json.dumps),
    st.fixed_dictionaries(
        {
            "custom_id": json_values,
            "method": st.sampled_from(["POST", "GET", 1]),
            "url": st.sampled_from(["/v1/chat/completions", "/v1/completions", None]),
            "body": st.dictionaries(body_keys, json_values, max_size=5),
        }
    ).map(json.dumps),
    st.dictionaries(
        st.sampled_from(["prompt", "messages", "custom_id", "id", "system", "max_tokens", "x"]), json_values, max_size=4
    ).map(json.dumps),
)


def _sane(req: object) -> None:
    """What an accepted request must satisfy: nothing garbage reaches the engine."""
    from console.batch.formats import BatchRequest

    assert isinstance(req, BatchRequest)
    assert isinstance(req.custom_id, str) and req.custom_id.strip()
    assert req.messages and any(m["role"] != "system" for m in req.messages)
    for m in req.messages:
        assert set(m) == {"role", "content"} and isinstance(m["content"], str)
        m["content"].encode("utf-8")  # writable back out
    s = req.sampling
    s.validate()
    assert isinstance(s.max_tokens, int) and s.max_tokens >= 1
    assert s.temperature == s.temperature and s.temperature != float("inf")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(fuzz_line, max_size=8))
def test_fuzz_jsonl_parser(lines: list[str]) -> None:
    parsed = parse_jsonl("\n".join(lines))
    nonblank = [i for i, ln in enumerate("\n".join(lines).split("\n"), start=1) if ln.strip()]
    # Every non-blank line is either accepted or reported, each exactly once, by its number.
    seen = sorted([r.line for r in parsed.requests] + [e.line for e in parsed.errors])
    assert seen == nonblank
    for r in parsed.requests:
        _sane(r)
    assert len({r.custom_id for r in parsed.requests}) == len(parsed.requests)
    for e in parsed.errors:
        assert e.message


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=200))
def test_fuzz_csv_parser(text: str) -> None:
    try:
        parsed = parse_csv("prompt,custom_id,max_tokens\n" + text)
    except BatchFormatError:
        return
    for r in parsed.requests:
        _sane(r)
