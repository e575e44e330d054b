"""Model families on the in-process engine (issue 27): the prompt token ids the engine receives
for a chat are the ones vLLM's own chat paths build, with one start token, and the template
fields reach the template.

One tiny engine per family (``console/models/families.py``: each carries its family's tokenizer
and chat template), one at a time (the session's parametrized ``family`` fixture in conftest.py,
shared with the chat's thinking tests); ChatML reuses the session's ``engine_host``. The
references are built independently of the console's prompt code: the
tokenizer's own rendering tokenized without special tokens (what vLLM's chat path does), vLLM's
offline ``LLM.chat`` preprocessing (its ``ChatParams`` from the same arguments, rendered by the
engine's renderer) and, for Llama-3, a real ``vllm serve`` started by the console.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from console.config import SamplingSettings
from console.engine.host import EngineHost
from console.engine.openai_body import request_fields
from console.engine.types import GenerationRequest, RequestFinished
from console.models.families import FAMILIES

pytestmark = pytest.mark.engine

GREEDY = SamplingSettings(temperature=0.0, max_tokens=8, ignore_eos=True)
#: Families whose template writes the start token while their tokenizer adds it too.
WRITES_START = ("llama3", "mistral", "gemma", "r1")


def _messages(family: str) -> list[dict[str, str]]:
    system = [] if family == "chatml" else [{"role": "system", "content": "Answer in one word."}]
    return system + [
        {"role": "user", "content": "What is the capital of France?"},
        {"role": "assistant", "content": "Paris."},
        {"role": "user", "content": "And of Italy?"},
    ]


def _hf_reference(tok: Any, messages: list[dict[str, str]], **kwargs: Any) -> list[int]:
    """The tokenizer's own rendering, tokenized as vLLM's chat path does: the template wrote the
    special tokens it wants, the tokenizer adds none."""
    text = tok.apply_chat_template(messages, tokenize=False, add_generation_prompt=True, **kwargs)
    return list(tok.encode(text, add_special_tokens=False))


def _offline_reference(
    host: EngineHost, messages: list[dict[str, str]], chat_template_kwargs: dict[str, Any] | None = None
) -> list[int]:
    """What vLLM's offline ``LLM.chat`` builds (entrypoints/common/offline.py ``_preprocess_chat``:
    its ChatParams and no special tokens), rendered by this engine's own renderer."""
    from vllm.renderers import ChatParams, merge_kwargs

    renderer = host._engine.renderer
    params = ChatParams(
        chat_template=None,
        chat_template_content_format="auto",
        chat_template_kwargs=merge_kwargs(
            chat_template_kwargs,
            dict(add_generation_prompt=True, continue_final_message=False, tools=None, tokenize=False),
        ),
    )
    tok_params = renderer.default_chat_tok_params.with_kwargs(add_special_tokens=False)
    _, (engine_input,) = renderer.render_chat([messages], params, tok_params)
    return list(engine_input["prompt_token_ids"])


def _finished(host: EngineHost, request: GenerationRequest) -> RequestFinished:
    final = host.generate(request, timeout=120)
    assert isinstance(final, RequestFinished), final
    return final


@pytest.mark.parametrize("family", FAMILIES, indirect=True)
def test_prompt_ids_and_greedy_answer_match_vllms_chat_path(family: tuple[str, Any]) -> None:
    name, host = family
    messages = _messages(name)
    final = _finished(host, GenerationRequest(messages=messages, sampling=GREEDY))
    reference = _hf_reference(host.tokenizer, messages)
    assert list(final.prompt_token_ids) == reference == _offline_reference(host, messages), name
    assert final.prompt_tokens == len(reference) == host.count_prompt_tokens(GenerationRequest(messages=messages))
    # the same ids given as ids answer the same (greedy): nothing but the ids decided the answer
    again = _finished(host, GenerationRequest(prompt_token_ids=reference, sampling=GREEDY))
    assert again.text == final.text and again.output_tokens == final.output_tokens == 8


@pytest.mark.parametrize("family", WRITES_START, indirect=True)
def test_a_template_that_writes_its_start_token_reaches_the_engine_with_one(family: tuple[str, Any]) -> None:
    """The doubled start token (issue 27): these tokenizers add the start token and their
    templates write it; the engine must receive it once."""
    name, host = family
    tok = host.tokenizer
    bos = tok.bos_token_id
    assert tok.encode("hi")[0] == bos  # the trap is armed: this tokenizer adds the start token
    final = _finished(host, GenerationRequest(messages=_messages(name), sampling=GREEDY))
    ids = final.prompt_token_ids
    assert ids[0] == bos and ids.count(bos) == 1, f"{name}: {ids[:4]}"


@pytest.mark.parametrize("family", ["qwen3", "chatml"], indirect=True)
def test_template_fields_reach_the_template(family: tuple[str, Any]) -> None:
    """chat_template_kwargs (Qwen3's enable_thinking) change the prompt the engine receives, as on
    vLLM's server; continue_final_message and a request's own chat_template too."""
    name, host = family
    messages = _messages(name)
    if name == "qwen3":
        off = request_fields({"chat_template_kwargs": {"enable_thinking": False}}, GREEDY)
        thinking_off = _finished(host, GenerationRequest(messages=messages, sampling=GREEDY, **off))
        default = _finished(host, GenerationRequest(messages=messages, sampling=GREEDY))
        closed = host.tokenizer.encode("<think>\n\n</think>\n\n", add_special_tokens=False)
        assert list(thinking_off.prompt_token_ids[-len(closed) :]) == closed
        assert thinking_off.prompt_token_ids[: -len(closed)] == default.prompt_token_ids
        assert list(thinking_off.prompt_token_ids) == _offline_reference(host, messages, {"enable_thinking": False})
    else:
        start = messages + [{"role": "assistant", "content": "The capital"}]
        fields = request_fields({"continue_final_message": True, "add_generation_prompt": False}, GREEDY)
        cont = _finished(host, GenerationRequest(messages=start, sampling=GREEDY, **fields))
        text = host.tokenizer.apply_chat_template(start, tokenize=False, continue_final_message=True)
        assert text.endswith("The capital")
        assert list(cont.prompt_token_ids) == host.tokenizer.encode(text, add_special_tokens=False)
        own = "{% for m in messages %}[{{ m['role'] }}] {{ m['content'] }}\n{% endfor %}[assistant]"
        custom = _finished(
            host,
            GenerationRequest(messages=messages, sampling=GREEDY, **request_fields({"chat_template": own}, GREEDY)),
        )
        rendered = "".join(f"[{m['role']}] {m['content']}\n" for m in messages) + "[assistant]"
        assert list(custom.prompt_token_ids) == host.tokenizer.encode(rendered, add_special_tokens=False)


@pytest.mark.parametrize("family", ["llama3"], indirect=True)
def test_in_process_equals_vllm_serve(family: tuple[str, Any]) -> None:
    """Llama-3 (the doubled-start-token family): the same chat request, with a template field, to
    ``vllm serve`` (the console-launched server) and to the in-process engine: the same prompt ids
    and the same greedy answer."""
    import httpx

    from console.engine.local_server import LocalServer

    name, host = family  # one server for one family (CI time); the others are checked against vLLM's chat path
    messages = _messages(name)
    body = {
        "model": name,
        "messages": messages,
        "temperature": 0.0,
        "max_tokens": 8,
        "ignore_eos": True,
        "chat_template_kwargs": {"unused_flag": True},
    }
    server = LocalServer(poll_interval_s=0.5, stop_timeout_s=15)
    try:
        server.load(host.config, name).result(timeout=600)
        served = httpx.post(
            server.url + "/v1/chat/completions", json={**body, "return_token_ids": True}, timeout=120
        ).json()
    finally:
        server.close()
    fields = {k: v for k, v in body.items() if k not in ("model", "messages")}
    final = _finished(host, GenerationRequest(messages=messages, sampling=GREEDY, **request_fields(fields, GREEDY)))
    assert list(final.prompt_token_ids) == served["prompt_token_ids"]
    assert served["prompt_token_ids"].count(host.tokenizer.bos_token_id) == 1
    assert final.text == served["choices"][0]["message"]["content"]


@pytest.mark.parametrize("family", ["qwen3"], indirect=True)
def test_batch_results_carry_reasoning_split_by_vllms_parser(family: tuple[str, Any], tmp_path: Path) -> None:
    """A Qwen3 batch: each answer is split by vLLM's qwen3 reasoning parser (as ``vllm serve
    --reasoning-parser qwen3`` would), thinking on by default and off when a line switches it off."""
    import json

    from vllm.reasoning import ReasoningParserManager

    from console.batch.formats import parse_jsonl
    from console.batch.runner import run_batch
    from console.engine import vllm_compat

    name, host = family
    lines = [
        {"custom_id": "think", "prompt": "Capital of France?", "temperature": 0, "max_tokens": 8},
        {
            "custom_id": "plain",
            "prompt": "Capital of France?",
            "temperature": 0,
            "max_tokens": 8,
            "chat_template_kwargs": {"enable_thinking": False},
        },
    ]
    parsed = parse_jsonl("\n".join(json.dumps(x) for x in lines))
    out = tmp_path / "out.jsonl"
    summary = run_batch(host, parsed.requests, out, resume=False)
    assert summary.succeeded == 2, summary.results
    got = {r.custom_id: r for r in summary.results}
    for cid, kwargs in (("think", {}), ("plain", {"enable_thinking": False})):
        raw = _finished(
            host,
            GenerationRequest(
                messages=[{"role": "user", "content": "Capital of France?"}],
                sampling=GREEDY,
                **request_fields({"chat_template_kwargs": kwargs}, GREEDY),
            ),
        ).text
        parser = ReasoningParserManager.get_reasoning_parser("qwen3")(host.tokenizer, chat_template_kwargs=kwargs)
        body = vllm_compat.chat_completion_request_class().model_validate(
            {"messages": [{"role": "user", "content": "?"}], "chat_template_kwargs": kwargs}
        )
        reasoning, content = parser.extract_reasoning(raw, body)
        assert (got[cid].reasoning, got[cid].text) == (reasoning, content or ""), cid
    assert got["plain"].reasoning is None and got["plain"].text  # thinking off: the answer is whole
    written = {json.loads(x)["custom_id"]: json.loads(x) for x in out.read_text().splitlines()}
    message = written["think"]["response"]["body"]["choices"][0]["message"]
    assert message["reasoning"] == message["reasoning_content"] == got["think"].reasoning
