"""OpenAI request fields through vLLM's own protocol models, on the real CPU engine (tiny random
model, the session's shared engine): structured outputs (JSON schema, JSON object, choice, regex,
grammar), logprobs with top_logprobs, n, presence/frequency penalties, /v1/completions lines; and
each refusal, with vLLM's message, by line (no engine needed for those)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from console.batch.formats import parse_jsonl
from console.batch.results import BatchResult, iter_output
from console.batch.runner import run_batch
from console.sampling import SamplingSettings
from console.engine.types import GenerationRequest

GREEDY = SamplingSettings(temperature=0.0, max_tokens=16)


def chat(cid: str, content: str = "Say something", **body: Any) -> str:
    return json.dumps(
        {
            "custom_id": cid,
            "method": "POST",
            "url": "/v1/chat/completions",
            "body": {"messages": [{"role": "user", "content": content}], **body},
        }
    )


def completion(cid: str, prompt: Any, **body: Any) -> str:
    return json.dumps(
        {"custom_id": cid, "method": "POST", "url": "/v1/completions", "body": {"prompt": prompt, **body}}
    )


# -- refusals: vLLM's message (or the console's, for what it cannot run), by line -----------------

REFUSALS = [
    (chat("n-greedy", n=2, temperature=0.0), "n must be 1 when using greedy sampling"),
    (chat("n-default", n=2), "console's default temperature is 0"),
    (chat("top-no-lp", top_logprobs=2), "`logprobs` must be set to true"),
    (chat("bad-type", temperature="hot"), "temperature: Input should be a valid number"),
    (chat("neg-temp", temperature=-1), "temperature must be non-negative"),
    (chat("zero-tokens", max_tokens=0), "max_tokens must be at least 1"),
    (chat("schema-missing", response_format={"type": "json_schema"}), "'json_schema' field must be provided"),
    (chat("two-kinds", structured_outputs={"choice": ["a"], "regex": "a"}), "structured"),
    (chat("tools", tool_choice="required"), "`tools` must be set"),
    (chat("beam", use_beam_search=True), "use_beam_search is not supported"),
    (chat("stream", stream=True), "stream must be false"),
    (
        json.dumps(
            {
                "custom_id": "audio",
                "method": "POST",
                "url": "/v1/chat/completions",
                "body": {
                    "messages": [
                        {
                            "role": "user",
                            "content": [{"type": "input_audio", "input_audio": {"data": "", "format": "wav"}}],
                        }
                    ]
                },
            }
        ),
        "only text and image_url parts",
    ),
    (completion("two-prompts", ["a", "b"]), "one prompt per line"),
    (completion("echo", "a", echo=True), "echo is not supported"),
    (
        json.dumps({"custom_id": "emb", "method": "POST", "url": "/v1/embeddings", "body": {"input": "a"}}),
        "url '/v1/embeddings' is not supported",
    ),
    (json.dumps({"prompt": "plain", "bogus": 1}), "unknown field(s) bogus"),
]


def test_each_refusal_names_its_reason_by_line() -> None:
    parsed = parse_jsonl("\n".join(line for line, _ in REFUSALS), GREEDY)
    assert parsed.requests == []
    by_line = {e.line: e.message for e in parsed.errors}
    for n, (_, expected) in enumerate(REFUSALS, start=1):
        assert expected in by_line[n], (n, by_line[n])


def test_fields_reach_vllm_params_and_ignored_fields_are_named() -> None:
    parsed = parse_jsonl(
        "\n".join(
            [
                chat(
                    "schema",
                    response_format={"type": "json_schema", "json_schema": {"name": "p", "schema": {"type": "object"}}},
                ),
                chat("object", response_format={"type": "json_object"}),
                chat("choice", structured_outputs={"choice": ["yes", "no"]}),
                chat("regex", structured_outputs={"regex": "[ab]+"}),
                chat("grammar", structured_outputs={"grammar": 'root ::= "x"'}),
                chat(
                    "pen",
                    n=3,
                    temperature=0.9,
                    presence_penalty=0.5,
                    frequency_penalty=-0.25,
                    logprobs=True,
                    top_logprobs=4,
                    whatever=1,
                ),
                completion("cmpl", "Once upon", logprobs=2, max_tokens=5),
                json.dumps({"prompt": "plain", "presence_penalty": 1.5, "response_format": {"type": "json_object"}}),
            ]
        ),
        GREEDY,
    )
    assert parsed.errors == []
    r = {q.custom_id: q for q in parsed.requests}
    so = {k: r[k].params.structured_outputs for k in ("schema", "object", "choice", "regex", "grammar")}
    assert so["schema"].json == {"type": "object"} and so["object"].json_object is True
    assert (
        so["choice"].choice == ["yes", "no"]
        and so["regex"].regex == "[ab]+"
        and so["grammar"].grammar == 'root ::= "x"'
    )
    p = r["pen"].params
    assert (p.n, p.presence_penalty, p.frequency_penalty, p.logprobs, p.temperature) == (3, 0.5, -0.25, 4, 0.9)
    assert r["pen"].top_logprobs == 4 and "whatever" not in r["pen"].openai_fields
    assert parsed.warnings[-1] == "line 6: field(s) ignored by vLLM: whatever"
    assert r["cmpl"].endpoint == "completion" and r["cmpl"].prompt == "Once upon" and r["cmpl"].params.logprobs == 2
    assert r["line-8"].params.presence_penalty == 1.5 and r["line-8"].params.structured_outputs.json_object
    # Defaults fill what a line leaves out; the line's own values win.
    assert r["schema"].params.temperature == 0.0 and r["schema"].params.max_tokens == 16
    assert r["cmpl"].params.max_tokens == 5


# -- on the engine -------------------------------------------------------------------------------


@pytest.mark.engine
def test_structured_logprobs_n_penalties_on_the_engine(tiny_engine: Any, tmp_path: Path) -> None:
    schema = {
        "type": "object",
        "properties": {"label": {"type": "string", "enum": ["yes", "no"]}},
        "required": ["label"],
        "additionalProperties": False,
    }
    text = "\n".join(
        [
            chat("json", structured_outputs={"json": schema, "disable_any_whitespace": True}, max_tokens=32),
            chat("choice", structured_outputs={"choice": ["positive", "negative"]}),
            chat("regex", structured_outputs={"regex": "[ab]{5}"}),
            chat("lp", logprobs=True, top_logprobs=3, max_tokens=6, ignore_eos=True),
            chat(
                "n2",
                n=2,
                temperature=1.0,
                seed=7,
                presence_penalty=0.5,
                frequency_penalty=0.5,
                max_tokens=8,
                ignore_eos=True,
            ),
            chat("plain", max_tokens=24, ignore_eos=True),
            chat("penalised", max_tokens=24, ignore_eos=True, frequency_penalty=2.0, presence_penalty=2.0),
            completion("cmpl", "Once upon a time", logprobs=2, max_tokens=5, ignore_eos=True),
        ]
    )
    parsed = parse_jsonl(text, GREEDY)
    assert parsed.errors == []
    out = tmp_path / "out.jsonl"
    summary = run_batch(tiny_engine, parsed.requests, out, concurrency=8)
    assert (summary.succeeded, summary.failed) == (8, 0), [r.error for r in summary.results]
    rows = {o["custom_id"]: o for o in iter_output(out)}
    body = {k: v["response"]["body"] for k, v in rows.items()}
    content = {k: b["choices"][0].get("message", {}).get("content") for k, b in body.items()}

    # The random model may pad with whitespace (the schema allows it) until max_tokens; what it
    # wrote is the schema's one shape, closed unless the length ran out.
    compact = re.sub(r"\s+", "", content["json"])
    closed = body["json"]["choices"][0]["finish_reason"] == "stop"
    assert (
        compact in ('{"label":"yes"}', '{"label":"no"}')
        if closed
        else compact in ('{"label":"yes"', '{"label":"no"', '{"label":"yes"}', '{"label":"no"}')
    ), content["json"]
    assert content["choice"] in ("positive", "negative")
    assert re.fullmatch("[ab]{5}", content["regex"])

    lp = body["lp"]["choices"][0]["logprobs"]["content"]
    assert len(lp) == 6 == body["lp"]["usage"]["completion_tokens"]
    for step in lp:
        assert len(step["top_logprobs"]) == 3 and step["logprob"] <= 0
        assert step["top_logprobs"][0]["token"] == step["token"]  # greedy: the sampled token is the likeliest
        assert step["top_logprobs"][0]["logprob"] == pytest.approx(step["logprob"])
        assert step["bytes"] == list(step["token"].encode("utf-8"))
    # The random model emits partial UTF-8 byte tokens: vLLM decodes those as "" per token and as
    # U+FFFD in the text.
    assert "".join(s["token"] for s in lp) == content["lp"].replace("\ufffd", "")
    assert body["json"]["choices"][0]["logprobs"] is None

    n2 = body["n2"]["choices"]
    assert [c["index"] for c in n2] == [0, 1]
    assert body["n2"]["usage"]["completion_tokens"] == 16
    assert all(c["finish_reason"] == "length" for c in n2)
    assert content["plain"] != content["penalised"]  # the penalties reached the sampler

    cmpl = body["cmpl"]
    assert cmpl["object"] == "text_completion" and cmpl["choices"][0]["text"]
    clp = cmpl["choices"][0]["logprobs"]
    assert len(clp["tokens"]) == 5 and "".join(clp["tokens"]) == cmpl["choices"][0]["text"].replace("\ufffd", "")
    assert all(1 <= len(top) <= 3 for top in clp["top_logprobs"])

    # vLLM's own output model reads every line; our reader gets the n answers back.
    rb = pytest.importorskip("vllm.entrypoints.launchers.run_batch")
    for k in ("json", "lp", "n2"):
        rb.BatchRequestOutput.model_validate_json(json.dumps(rows[k]))
    back = BatchResult.from_openai(rows["n2"])
    assert [c.text for c in back.choices] == [c["message"]["content"] for c in n2]


@pytest.mark.engine
def test_prompt_logprobs_are_written_as_vllm_writes_them(tiny_engine: Any, tmp_path: Path) -> None:
    """A line's ``prompt_logprobs`` (computed, then never written): the chat body carries
    them beside its choices, each completion choice its own, in vLLM's form (one entry per prompt
    token, null first, token id -> logprob, rank, decoded token), and vLLM's response models read them."""
    text = "\n".join(
        [
            chat("chat", prompt_logprobs=2, max_tokens=2, ignore_eos=True),
            completion("cmpl", "Once upon a time", prompt_logprobs=0, max_tokens=2, ignore_eos=True),
            chat("none", max_tokens=2),
        ]
    )
    parsed = parse_jsonl(text, GREEDY)
    out = tmp_path / "out.jsonl"
    summary = run_batch(tiny_engine, parsed.requests, out, concurrency=3)
    assert (summary.succeeded, summary.failed) == (3, 0), [r.error for r in summary.results]
    body = {o["custom_id"]: o["response"]["body"] for o in iter_output(out)}
    ids = tiny_engine.tokenizer.encode("Once upon a time", add_special_tokens=False)
    for name, entries, top in (
        ("chat", body["chat"]["prompt_logprobs"], 2),
        ("cmpl", body["cmpl"]["choices"][0]["prompt_logprobs"], 0),
    ):
        assert len(entries) == body[name]["usage"]["prompt_tokens"] and entries[0] is None, name
        for entry in entries[1:]:
            assert 1 <= len(entry) <= top + 1  # the prompt's own token, and the top ones
            for tid, lp in entry.items():
                assert int(tid) >= 0 and lp["logprob"] <= 0 and lp["rank"] >= 1 and isinstance(lp["decoded_token"], str)
    # With prompt_logprobs 0, each entry is the prompt's own token: exactly these ids after the
    # first (which has none), with a BOS in front when the model adds one.
    cmpl = body["cmpl"]["choices"][0]["prompt_logprobs"]
    assert [int(next(iter(e))) for e in cmpl[len(cmpl) - len(ids) + 1 :]] == ids[1:]
    assert "prompt_logprobs" not in body["none"]  # not asked for: not written
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionResponse
    from vllm.entrypoints.openai.completion.protocol import CompletionResponse

    read = ChatCompletionResponse.model_validate(body["chat"]).prompt_logprobs
    assert read is not None and len(read) == len(body["chat"]["prompt_logprobs"])
    assert CompletionResponse.model_validate(body["cmpl"]).choices[0].prompt_logprobs is not None
    assert (
        BatchResult.from_openai({"custom_id": "chat", "response": {"body": body["chat"]}}).prompt_logprobs
        == body["chat"]["prompt_logprobs"]
    )


@pytest.mark.engine
def test_streamed_request_with_n_and_logprobs(tiny_engine: Any) -> None:
    """The chat path (streamed): deltas carry answer 0 only; the end event has every answer."""
    from console.engine.openai_body import parse_body

    b = parse_body(
        "chat",
        {
            "messages": [{"role": "user", "content": "hi"}],
            "n": 2,
            "temperature": 1.0,
            "seed": 1,
            "logprobs": True,
            "top_logprobs": 2,
            "max_tokens": 5,
            "ignore_eos": True,
        },
    )
    req = GenerationRequest(messages=b.messages, sampling=b.sampling, openai_fields=b.fields)
    events = list(tiny_engine.stream(req, timeout=120))
    end = events[-1]
    assert [c.index for c in end.choices] == [0, 1]
    assert "".join(e.text for e in events[:-1]) == end.text == end.choices[0].text
    assert all(len(c.logprobs) == 5 and all(len(t.top) >= 2 for t in c.logprobs) for c in end.choices)
    assert end.output_tokens == 10


@pytest.mark.engine
def test_server_engine_forwards_the_fields(vllm_server: Any, tmp_path: Path) -> None:
    """A console-launched vLLM server (the same code path as a remote one) receives the fields as
    written and its answers come back as choices: choice list, top logprobs, two answers."""
    text = "\n".join(
        [
            chat("choice", structured_outputs={"choice": ["positive", "negative"]}),
            chat("lp", logprobs=True, top_logprobs=2, max_tokens=4, ignore_eos=True),
            chat("n2", n=2, temperature=1.0, seed=3, frequency_penalty=0.5, max_tokens=4, ignore_eos=True),
            completion("cmpl", "Once upon a time", logprobs=1, max_tokens=3, ignore_eos=True),
        ]
    )
    parsed = parse_jsonl(text, GREEDY)
    out = tmp_path / "out.jsonl"
    summary = run_batch(vllm_server, parsed.requests, out, concurrency=4)
    assert (summary.succeeded, summary.failed) == (4, 0), [r.error for r in summary.results]
    body = {o["custom_id"]: o["response"]["body"] for o in iter_output(out)}
    assert body["choice"]["choices"][0]["message"]["content"] in ("positive", "negative")
    lp = body["lp"]["choices"][0]["logprobs"]["content"]
    assert len(lp) == 4 and all(len(s["top_logprobs"]) == 2 for s in lp)
    assert len(body["n2"]["choices"]) == 2 and body["n2"]["usage"]["completion_tokens"] == 8
    clp = body["cmpl"]["choices"][0]["logprobs"]
    assert body["cmpl"]["object"] == "text_completion" and len(clp["tokens"]) == 3
