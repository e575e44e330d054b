"""Model families on the in-process engine: the prompt token ids the engine receives
for a chat are the ones vLLM's own chat paths build, with one start token, and the template
fields reach the template.

One tiny engine per family (``tests/fixtures/families.py``: each carries its family's tokenizer
and chat template), family by family, the next one built while one's tests run (the session's
parametrized ``family`` fixture in conftest.py, shared with the chat's thinking tests); ChatML
reuses the session's ``tiny_engine``. The
references are built independently of the console's prompt code: the
tokenizer's own rendering tokenized without special tokens (what vLLM's chat path does), vLLM's
offline ``LLM.chat`` preprocessing (its ``ChatParams`` from the same arguments, rendered by the
engine's renderer) and, for Llama-3, a real ``vllm serve`` started by the console.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from console.sampling import SamplingSettings
from console.engine.in_process import InProcessEngine
from console.engine.openai_body import request_fields
from console.engine.tool_calls import parse_answer
from console.engine.types import GenerationRequest, RequestFinished
from console.models.family_table import family_of
from tests.fixtures.families import FAMILIES

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
    engine: InProcessEngine, messages: list[dict[str, str]], chat_template_kwargs: dict[str, Any] | None = None
) -> list[int]:
    """What vLLM's offline ``LLM.chat`` builds (entrypoints/common/offline.py ``_preprocess_chat``:
    its ChatParams and no special tokens), rendered by this engine's own renderer."""
    from vllm.renderers import ChatParams, merge_kwargs

    renderer = engine._engine.renderer
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


def _finished(engine: InProcessEngine, request: GenerationRequest) -> RequestFinished:
    final = engine.generate(request, timeout=120)
    assert isinstance(final, RequestFinished), final
    return final


@pytest.mark.parametrize("family", FAMILIES, indirect=True)
def test_prompt_ids_and_greedy_answer_match_vllms_chat_path(family: tuple[str, Any]) -> None:
    name, engine = family
    messages = _messages(name)
    final = _finished(engine, GenerationRequest(messages=messages, sampling=GREEDY))
    reference = _hf_reference(engine.tokenizer, messages)
    assert list(final.prompt_token_ids) == reference == _offline_reference(engine, messages), name
    assert final.prompt_tokens == len(reference) == engine.count_prompt_tokens(GenerationRequest(messages=messages))
    # the same ids given as ids answer the same (greedy): nothing but the ids decided the answer; the
    # ids' answer is a completion (the raw text), the chat answer that text read by the family's parsers
    again = _finished(engine, GenerationRequest(prompt_token_ids=reference, sampling=GREEDY))
    assert again.output_tokens == final.output_tokens == 8
    read = parse_answer(
        family_of(engine.tokenizer.chat_template), engine.tokenizer, {}, again.text, again.finish_reason
    )
    assert (read.content, read.reasoning) == (final.text, final.reasoning)


@pytest.mark.parametrize("family", WRITES_START, indirect=True)
def test_a_template_that_writes_its_start_token_reaches_the_engine_with_one(family: tuple[str, Any]) -> None:
    """The doubled start token: these tokenizers add the start token and their
    templates write it; the engine must receive it once."""
    name, engine = family
    tok = engine.tokenizer
    bos = tok.bos_token_id
    assert tok.encode("hi")[0] == bos  # the trap is armed: this tokenizer adds the start token
    final = _finished(engine, GenerationRequest(messages=_messages(name), sampling=GREEDY))
    ids = final.prompt_token_ids
    assert ids[0] == bos and ids.count(bos) == 1, f"{name}: {ids[:4]}"


@pytest.mark.parametrize("family", ["qwen3", "chatml"], indirect=True)
def test_template_fields_reach_the_template(family: tuple[str, Any]) -> None:
    """chat_template_kwargs (Qwen3's enable_thinking) change the prompt the engine receives, as on
    vLLM's server; continue_final_message and a request's own chat_template too."""
    name, engine = family
    messages = _messages(name)
    if name == "qwen3":
        off = request_fields({"chat_template_kwargs": {"enable_thinking": False}}, GREEDY)
        thinking_off = _finished(engine, GenerationRequest(messages=messages, sampling=GREEDY, **off))
        default = _finished(engine, GenerationRequest(messages=messages, sampling=GREEDY))
        closed = engine.tokenizer.encode("<think>\n\n</think>\n\n", add_special_tokens=False)
        assert list(thinking_off.prompt_token_ids[-len(closed) :]) == closed
        assert thinking_off.prompt_token_ids[: -len(closed)] == default.prompt_token_ids
        assert list(thinking_off.prompt_token_ids) == _offline_reference(engine, messages, {"enable_thinking": False})
    else:
        start = messages + [{"role": "assistant", "content": "The capital"}]
        fields = request_fields({"continue_final_message": True, "add_generation_prompt": False}, GREEDY)
        cont = _finished(engine, GenerationRequest(messages=start, sampling=GREEDY, **fields))
        text = engine.tokenizer.apply_chat_template(start, tokenize=False, continue_final_message=True)
        assert text.endswith("The capital")
        assert list(cont.prompt_token_ids) == engine.tokenizer.encode(text, add_special_tokens=False)
        own = "{% for m in messages %}[{{ m['role'] }}] {{ m['content'] }}\n{% endfor %}[assistant]"
        custom = _finished(
            engine,
            GenerationRequest(messages=messages, sampling=GREEDY, **request_fields({"chat_template": own}, GREEDY)),
        )
        rendered = "".join(f"[{m['role']}] {m['content']}\n" for m in messages) + "[assistant]"
        assert list(custom.prompt_token_ids) == engine.tokenizer.encode(rendered, add_special_tokens=False)


@pytest.mark.parametrize("family", ["llama3"], indirect=True)
def test_in_process_equals_vllm_serve(family: tuple[str, Any]) -> None:
    """Llama-3 (the doubled-start-token family): the same chat request, with a template field, to
    ``vllm serve`` (the console-launched server) and to the in-process engine: the same prompt ids
    and the same greedy answer."""
    import httpx

    from console.engine.child_server import ChildServer

    name, engine = family  # one server for one family (CI time); the others are checked against vLLM's chat path
    messages = _messages(name)
    body = {
        "model": name,
        "messages": messages,
        "temperature": 0.0,
        "max_tokens": 8,
        "ignore_eos": True,
        "chat_template_kwargs": {"unused_flag": True},
    }
    server = ChildServer(poll_interval_s=0.5, stop_timeout_s=15)
    try:
        server.load(engine.config, name).result(timeout=600)
        served = httpx.post(
            server.url + "/v1/chat/completions", json={**body, "return_token_ids": True}, timeout=120
        ).json()
    finally:
        server.close()
    fields = {k: v for k, v in body.items() if k not in ("model", "messages")}
    final = _finished(engine, GenerationRequest(messages=messages, sampling=GREEDY, **request_fields(fields, GREEDY)))
    assert list(final.prompt_token_ids) == served["prompt_token_ids"]
    assert served["prompt_token_ids"].count(engine.tokenizer.bos_token_id) == 1
    assert final.text == served["choices"][0]["message"]["content"]


@pytest.mark.parametrize("family", ["qwen3"], indirect=True)
def test_batch_results_carry_reasoning_split_by_vllms_parser(family: tuple[str, Any], tmp_path: Path) -> None:
    """A Qwen3 batch: each answer is split by vLLM's qwen3 reasoning parser (as ``vllm serve
    --reasoning-parser qwen3`` would), thinking on by default and off when a line switches it off."""
    import json

    from vllm.reasoning import ReasoningParserManager

    from console.batch.formats import parse_jsonl
    from console.batch.runner import run_batch
    from console import vllm_compat

    name, engine = family
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
    summary = run_batch(engine, parsed.requests, out, resume=False)
    assert summary.succeeded == 2, summary.results
    got = {r.custom_id: r for r in summary.results}
    for cid, kwargs in (("think", {}), ("plain", {"enable_thinking": False})):
        chat = _finished(
            engine,
            GenerationRequest(
                messages=[{"role": "user", "content": "Capital of France?"}],
                sampling=GREEDY,
                **request_fields({"chat_template_kwargs": kwargs}, GREEDY),
            ),
        )
        # the raw answer: the same prompt ids as a completion, which no parser reads
        raw = _finished(engine, GenerationRequest(prompt_token_ids=list(chat.prompt_token_ids), sampling=GREEDY)).text
        parser = ReasoningParserManager.get_reasoning_parser("qwen3")(engine.tokenizer, chat_template_kwargs=kwargs)
        body = vllm_compat.chat_completion_request_class().model_validate(
            {"messages": [{"role": "user", "content": "?"}], "chat_template_kwargs": kwargs}
        )
        reasoning, content = parser.extract_reasoning(raw, body)
        assert (got[cid].reasoning, got[cid].text) == (reasoning, content or ""), cid
    assert got["plain"].reasoning is None and got["plain"].text  # thinking off: the answer is whole
    written = {json.loads(x)["custom_id"]: json.loads(x) for x in out.read_text().split("\n") if x}
    message = written["think"]["response"]["body"]["choices"][0]["message"]
    assert message["reasoning"] == message["reasoning_content"] == got["think"].reasoning


def _served_in_process(engine: InProcessEngine, name: str, body: dict[str, Any], tmp_path: Path) -> dict[str, Any]:
    """``body`` answered by ``vllm serve``'s own application (vLLM's argument parser reading the
    YAML ``export`` writes, reasoning parser included, its ``build_app`` and ``init_app_state``) over this
    engine, on the engine's loop: every line of the server's chat path but the socket, without a
    second engine per family (CI time)."""
    import httpx
    from vllm.entrypoints.launchers.api_server.app_state import init_app_state
    from vllm.entrypoints.launchers.app import build_app
    from vllm.entrypoints.launchers.cli_args import make_arg_parser
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    from console.engine.child_server import ChildServer
    from console.engine.serve_options import ServeOptions
    from console.engine.serve_args import serve_yaml

    yaml_path = tmp_path / "serve.yaml"
    yaml_path.write_text(serve_yaml(engine.config, ServeOptions(host="127.0.0.1", port=8000, served_model_name=name)))
    argv = ChildServer().server_command(yaml_path, 8000)[3:]  # after "python -m MODULE": what the child parses
    args = make_arg_parser(FlexibleArgumentParser()).parse_args(argv)

    async def scenario() -> dict[str, Any]:
        app = build_app(args, ("generate",), engine._engine.model_config)
        await init_app_state(engine._engine, app.state, args, ("generate",))
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://served") as client:
            reply = await client.post("/v1/chat/completions", json=body, timeout=120)
        assert reply.status_code == 200, reply.text
        return dict(reply.json())

    return engine.run_coroutine(scenario()).result(timeout=180)


@pytest.mark.parametrize("family", FAMILIES, indirect=True)
def test_in_process_equals_vllm_serves_chat_path(family: tuple[str, Any], tmp_path: Path) -> None:
    """Every family, the same request with template fields to ``vllm serve``'s application (built from
    the exported YAML) and to the in-process engine: the same prompt ids, one start token, the same
    greedy answer (split by the server's reasoning parser where the export names one). Llama-3 also
    goes through a real server process above."""
    name, engine = family
    messages = _messages(name)
    kwargs: dict[str, Any] = {"enable_thinking": False} if name == "qwen3" else {"unused_flag": True}
    body = {
        "model": name,
        "messages": messages,
        "temperature": 0.0,
        "max_tokens": 8,
        "ignore_eos": True,
        "chat_template_kwargs": kwargs,
        "return_token_ids": True,
    }
    served = _served_in_process(engine, name, body, tmp_path)
    fields = {k: v for k, v in body.items() if k not in ("model", "messages", "return_token_ids")}
    final = _finished(engine, GenerationRequest(messages=messages, sampling=GREEDY, **request_fields(fields, GREEDY)))
    assert list(final.prompt_token_ids) == served["prompt_token_ids"]
    if name in WRITES_START:
        assert served["prompt_token_ids"].count(engine.tokenizer.bos_token_id) == 1
    message = served["choices"][0]["message"]
    reasoning = message.get("reasoning") or message.get("reasoning_content")
    if reasoning is None:
        assert final.text == message["content"]
    else:  # the export names the family's reasoning parser: the server split what the engine wrote
        assert reasoning in final.text and (message["content"] or "") in final.text


#: Tools with bounded arguments (enums): a random-weight model's call ends within a few tokens.
#: ``strict``: vLLM pins the arguments to the schema (OpenAI's field; vLLM's strict level "auto").
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": f"The {name} of a city",
            "strict": True,
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string", "enum": ["Paris", "Rome"]}, "unit": {"enum": units}},
                "required": ["city", "unit"],
                "additionalProperties": False,
            },
        },
    }
    for name, units in (("weather", ["c", "f"]), ("time", ["h24", "h12"]))
]


@pytest.mark.parametrize("family", ["qwen3"], indirect=True)
def test_batch_tool_calls_forced_by_name_and_required_are_valid_calls(family: tuple[str, Any], tmp_path: Path) -> None:
    """A batch with ``tools`` on Qwen3's template (vLLM's ``hermes`` parser): the tools
    reach the prompt, a named ``tool_choice`` and "required" make even random weights answer with a
    call whose arguments are JSON matching the tool's schema, written as vLLM's server writes them."""
    import json

    import jsonschema

    from console.batch.formats import parse_jsonl
    from console.batch.runner import run_batch

    name, engine = family
    base = {"messages": [{"role": "user", "content": "Weather in Paris?"}], "temperature": 0, "max_tokens": 120}
    lines = [
        {
            "custom_id": "named",
            "body": {**base, "tools": TOOLS, "tool_choice": {"type": "function", "function": {"name": "time"}}},
        },
        {  # one call: else vLLM's constraint lets random weights chain calls until max_tokens
            "custom_id": "required",
            "body": {**base, "tools": TOOLS, "tool_choice": "required", "parallel_tool_calls": False},
        },
    ]
    text = "\n".join(json.dumps({"method": "POST", "url": "/v1/chat/completions", **x}) for x in lines)
    parsed = parse_jsonl(text)
    prompt = engine.format_prompt(
        GenerationRequest(messages=base["messages"], openai_fields=parsed.requests[1].openai_fields)
    )
    assert '"name": "weather"' in engine.tokenizer.decode(prompt["prompt_token_ids"])  # the template rendered them
    out = tmp_path / "out.jsonl"
    summary = run_batch(engine, parsed.requests, out, resume=False)
    assert summary.succeeded == 2, summary.results
    written = {json.loads(x)["custom_id"]: json.loads(x) for x in out.read_text().split("\n") if x}
    schemas = {t["function"]["name"]: t["function"]["parameters"] for t in TOOLS}
    for cid in ("named", "required"):
        choice = written[cid]["response"]["body"]["choices"][0]
        calls = choice["message"].get("tool_calls")
        assert calls and all(c["type"] == "function" and c["id"] for c in calls), choice
        assert len(calls) == 1, calls
        for call in calls:
            jsonschema.validate(json.loads(call["function"]["arguments"]), schemas[call["function"]["name"]])
    assert [
        c["function"]["name"] for c in written["named"]["response"]["body"]["choices"][0]["message"]["tool_calls"]
    ] == ["time"]
    assert written["required"]["response"]["body"]["choices"][0]["finish_reason"] == "tool_calls"


@pytest.mark.parametrize("family", ["qwen3"], indirect=True)
def test_chat_tool_call_answered_by_the_calculator(
    family: tuple[str, Any], home: Path, qtbot: Any, connections: Any
) -> None:
    """In the window: with the built-in calculator on and a call required, the model's
    call is shown, the calculator answers it (safely, from the expression's syntax tree) and the
    model's next turn is generated with the call and its result in the prompt."""
    import json
    import re

    from console.ui.chat.panel import ChatPanel

    name, engine = family
    ctx = connections.context(engine=engine)
    panel = ChatPanel(ctx)
    qtbot.addWidget(panel)
    panel.show()
    panel.temperature.setValue(0.0)
    panel.max_tokens.setValue(120)
    finished: list[RequestFinished] = []
    connections.connect(
        ctx.bridge.requestEvents, lambda b: finished.extend(e for e in b if isinstance(e, RequestFinished))
    )
    box = panel.tools_box
    box.enabled.setChecked(True)
    box.calculator.setChecked(True)
    box.choice.setCurrentIndex(box.choice.findData("required"))
    panel.input.setPlainText("What is 12 * 7?")
    assert panel.send()
    qtbot.waitUntil(
        lambda: (
            panel.active_id is None
            and [m.role for m in panel.store.messages(panel.conversation_id or 0)] == ["user", "assistant"]
        ),
        timeout=180_000,
    )
    turns = panel.session.tools.turns(panel.conversation_id)
    assert turns, [(e.text, e.finish_reason) for e in finished]  # the model's (forced) call was read
    turn = turns[0]
    call = turn.calls[0]
    assert call["function"]["name"] == "calculator"
    expression = json.loads(call["function"]["arguments"])["expression"]
    assert re.fullmatch(r"[0-9]+( [-+*/] [0-9]+)+", expression)  # vLLM held the call to the tool's schema
    result = turn.results[call["id"]]
    try:
        expected = eval(expression)  # the test's own reference (a digits-and-operators string, checked above)
        assert float(result) == pytest.approx(expected)
    except ZeroDivisionError:
        assert result == "error: division by zero"
    text = panel.transcript_text()
    assert "calculator(" in text and result in text  # the call and its answer are shown
    assert len(finished) >= 2
    prompt = engine.tokenizer.decode(finished[1].prompt_token_ids)  # what the model's next turn read
    assert "<tool_call>" in prompt and "<tool_response>" in prompt and f"\n{result}\n" in prompt
    assert '"name": "calculator"' in prompt  # the tool is offered in the system part


@pytest.mark.parametrize("family", ["qwen3"], indirect=True)
def test_cli_chat_tool_turn_with_the_builtin_calculator(
    family: tuple[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``inference-console chat "..." --builtin-tool calculator --tool-choice required`` as its turn
    runs it: the call printed, the calculator's result printed, the model asked again with it."""
    import argparse

    from console.cli.chat import turn
    from console.cli.chat_tools import configure
    from console.chat.session import ChatSession
    from console.chat.conversations import ConversationStore

    name, engine = family
    session = ChatSession(ConversationStore(tmp_path / "c.sqlite3"))
    args = argparse.Namespace(tools=None, builtin_tool=["calculator"], tool_choice="required")
    configure(session, args)
    turn(engine, session, SamplingSettings(temperature=0.0, max_tokens=120), "What is 3 + 4?", {}, None)
    captured = capsys.readouterr()
    err = captured.err
    assert "[tool call] calculator(" in err, (err, captured.out) and "[tool result] calculator: " in err
    assert [m.role for m in session.messages] == ["user", "assistant"]  # the model answered after the result
    turn_ = session.tools.turns(session.conversation_id)[0]
    assert turn_.results and not turn_.pending()
