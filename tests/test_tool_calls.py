"""Tool calling: the family table's tool-call parsers are vLLM's, a model whose family or
template cannot run tools is refused in one line, vLLM's parser reads the answers, bodies with
tools are accepted as vLLM's protocol accepts them and a server's streamed calls are kept.
The end-to-end calls on a tools template are in ``test_families.py`` (its shared Qwen3 engine)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from console import vllm_compat
from console.engine.choices import OpenAIChoiceCollector
from console.engine.openai_body import BodyError, parse_body
from console.engine.tool_calls import ToolsRefused, parse_answer, parser_for
from tests.fixtures import families
from console.models.family_table import FAMILY_TABLE, family_by_name

TOOL = {
    "type": "function",
    "function": {
        "name": "add",
        "description": "Add two numbers",
        "parameters": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}},
    },
}


def test_every_family_tool_parser_is_registered_in_vllm() -> None:
    named = [f for f in FAMILY_TABLE if f.tool_parser]
    assert {f.name for f in named} >= {"qwen3", "llama3", "mistral", "chatml"}
    for f in named:
        assert vllm_compat.has_tool_parser(f.tool_parser or ""), f.name
    assert not vllm_compat.has_tool_parser("no-such-parser")


def test_parser_chosen_per_family_template_and_refusals_say_why_in_one_line() -> None:
    assert parser_for(families.QWEN3_TEMPLATE) == "hermes"
    llama_with_tools = families.LLAMA3_TEMPLATE + "{% if tools %}{{ tools | tojson }}{% endif %}"
    assert parser_for(llama_with_tools) == "llama3_json"
    refusals = {
        "gemma": (families.GEMMA_TEMPLATE, "Gemma"),  # no tool-call parser for the family
        "llama3": (families.LLAMA3_TEMPLATE, "never renders `tools`"),  # the template has no tools branch
        "unknown": ("{{ messages[0]['content'] }}", "not one of a family"),
    }
    for name, (template, says) in refusals.items():
        with pytest.raises(ToolsRefused) as info:
            parser_for(template)
        message = str(info.value)
        assert says in message and "remove `tools`" in message and "\n" not in message, name


def test_auto_answer_read_by_vllms_hermes_parser() -> None:
    tok = families.qwen3_tokenizer()
    qwen3 = family_by_name("qwen3")
    fields = {"tools": [TOOL], "chat_template_kwargs": {"enable_thinking": False}}
    text = 'Sure. <tool_call>\n{"name": "add", "arguments": {"a": 1, "b": 2}}\n</tool_call>'
    answer = parse_answer(qwen3, tok, fields, text)
    assert [c["function"]["name"] for c in answer.tool_calls] == ["add"]
    assert json.loads(answer.tool_calls[0]["function"]["arguments"]) == {"a": 1, "b": 2}
    assert answer.tool_calls[0]["id"] and answer.finish_reason == "tool_calls"
    assert answer.content.strip() == "Sure."
    plain = parse_answer(qwen3, tok, fields, "No call here.")
    assert plain.tool_calls == () and plain.content == "No call here." and plain.finish_reason == "stop"
    none = parse_answer(qwen3, tok, {**fields, "tool_choice": "none"}, text)  # "none": never read as a call
    assert none.tool_calls == () and "<tool_call>" in none.content


def test_bodies_with_tools_and_tool_messages_are_accepted_as_vllm_accepts_them() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "1+2?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "add", "arguments": '{"a":1}'}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "3"},
    ]
    body = parse_body("chat", {"messages": messages, "tools": [TOOL], "tool_choice": "required"})
    assert body.fields["tools"] == [TOOL] and body.fields["tool_choice"] == "required"
    assert body.messages is not None
    assert body.messages[1]["tool_calls"][0]["id"] == "c1" and body.messages[2]["tool_call_id"] == "c1"
    with pytest.raises(BodyError, match="tool_choice"):  # vLLM's own check: the named tool is not given
        parse_body(
            "chat",
            {"messages": messages, "tools": [TOOL], "tool_choice": {"type": "function", "function": {"name": "x"}}},
        )
    with pytest.raises(BodyError, match="chat body"):
        parse_body("completion", {"prompt": "hi", "tools": [TOOL]})


def test_a_servers_streamed_tool_calls_are_put_together() -> None:
    collected = OpenAIChoiceCollector()
    head = {"index": 0, "id": "call-1", "type": "function", "function": {"name": "add", "arguments": ""}}
    collected.add([{"index": 0, "delta": {"role": "assistant", "tool_calls": [head]}}])
    for part in ('{"a": ', "1}"):
        collected.add([{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": part}}]}}])
    collected.add([{"index": 0, "delta": {}, "finish_reason": "tool_calls"}])
    (choice,) = collected.choices()
    assert choice.tool_calls == (
        {"id": "call-1", "type": "function", "function": {"name": "add", "arguments": '{"a": 1}'}},
    )
    assert choice.finish_reason == "tool_calls"
    whole = OpenAIChoiceCollector()
    whole.add([{"index": 0, "message": {"content": None, "tool_calls": [head]}, "finish_reason": "tool_calls"}])
    assert whole.choices()[0].tool_calls[0]["function"]["name"] == "add"


@pytest.mark.engine
def test_tools_on_a_template_without_them_fail_the_line_in_one_line(tiny_engine: Any, tmp_path: Path) -> None:
    """The session's tiny model has a ChatML template with no tools branch: a line with tools is
    refused before it reaches the engine, with the reason; the line without tools still runs."""
    from console.batch.formats import parse_jsonl
    from console.batch.runner import run_batch

    lines = [
        {"custom_id": "tools", "messages": [{"role": "user", "content": "1+2?"}], "tools": [TOOL], "max_tokens": 4},
        {"custom_id": "plain", "messages": [{"role": "user", "content": "1+2?"}], "max_tokens": 4},
    ]
    parsed = parse_jsonl("\n".join(json.dumps(x) for x in lines))
    summary = run_batch(tiny_engine, parsed.requests, tmp_path / "out.jsonl", resume=False)
    got = {r.custom_id: r for r in summary.results}
    assert got["plain"].ok and not got["tools"].ok
    assert "never renders `tools`" in (got["tools"].error or "") and "\n" not in (got["tools"].error or "")


def test_the_calculator_evaluates_arithmetic_from_its_syntax_tree_and_refuses_the_rest() -> None:
    from console.chat.tools import ToolError, calculate, run_builtin

    assert calculate("12 * 7") == "84" and calculate("(1 + 2) / 4") == "0.75" and calculate("-2 ** 3") == "-8"
    assert calculate("7 // 2 + 7 % 2") == "4"
    for bad in ("__import__('os').system('echo hi')", "x + 1", "len('a')", "2 ** 99999", "1 / 0", "(1"):
        with pytest.raises(ToolError):
            calculate(bad)
    assert run_builtin("calculator", '{"expression": "1 / 0"}') == "error: division by zero"
    assert run_builtin("clock", '{"zone": "utc"}').endswith("+00:00")
    assert run_builtin("nope", "{}").startswith("error:")


def test_tool_definitions_are_checked_with_a_one_line_error() -> None:
    from console.chat.tools import check_definitions

    assert check_definitions("") == []
    one = check_definitions(json.dumps({"name": "f", "parameters": {"type": "object", "properties": {}}}))
    assert one == [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {}}}}]
    for text, says in (
        ('[{"type": "function", "function": {"name": "f"}', "line 1"),
        ('{"type": "function", "function": {"name": "a b"}}', "name"),
        ('{"name": "f", "parameters": {"type": "array"}}', "type object"),
        ('[{"name": "f"}, {"name": "f"}]', "same name"),
    ):
        with pytest.raises(ValueError, match=says) as info:
            check_definitions(text)
        assert "\n" not in str(info.value)


def test_a_chat_tool_turn_is_kept_answered_and_read_back_in_order(tmp_path: Path) -> None:
    """The session without an engine: tools off by default; on, the request offers them; an answer
    with a call (as a server returns it) becomes a tool turn instead of a saved answer; the
    calculator answers it and the next request carries the call and the result, "auto" again."""
    from console.chat.session import ChatSession
    from console.sampling import SamplingSettings
    from console.chat.conversations import ConversationStore
    from console.engine.choices import Choice
    from console.engine.types import RequestFinished

    session = ChatSession(ConversationStore(tmp_path / "c.sqlite3"))
    sampling = SamplingSettings(temperature=0.0, max_tokens=8)
    assert session.send("hi", sampling).openai_fields is None  # off by default
    s = session.tools.settings(session.conversation_id)
    s.enabled, s.builtins, s.choice = True, {"calculator"}, "required"
    request = session.regenerate(sampling)
    assert request is not None and request.openai_fields is not None
    assert request.openai_fields["tool_choice"] == "required"
    assert [t["function"]["name"] for t in request.openai_fields["tools"]] == ["calculator"]
    call = {"id": "c1", "type": "function", "function": {"name": "calculator", "arguments": '{"expression": "6 * 7"}'}}
    done = RequestFinished(
        request.request_id, "", "tool_calls", 5, 5, 0.1, 0.2, choices=(Choice(0, "", tool_calls=(call,)),)
    )
    assert session.record_answer("", done) is None
    assert [m.role for m in session.messages] == ["user"] and session.pending_tool_calls() == [call]
    assert session.tools.answer_builtins(session.conversation_id)
    follow = session.regenerate(sampling)
    assert follow is not None and follow.openai_fields is not None and follow.openai_fields["tool_choice"] == "auto"
    assert follow.messages is not None
    assert [m["role"] for m in follow.messages] == ["user", "assistant", "tool"]
    assert follow.messages[1]["tool_calls"] == [call] and follow.messages[2] == {
        "role": "tool",
        "tool_call_id": "c1",
        "name": "calculator",
        "content": "42",
    }
    history, _ = session.shown("")
    assert [(m.role, m.model) for m in history] == [("user", None), ("assistant", None), ("tool", "calculator")]
    s.enabled = False
    assert session.regenerate(sampling).openai_fields is None  # type: ignore[union-attr]


def test_export_carries_the_familys_tool_parser_and_vllm_reads_it(tmp_path: Path) -> None:
    """``vllm serve`` YAML and command for a model whose template renders tools: vLLM's own parser
    reads ``--enable-auto-tool-choice --tool-call-parser hermes``, a parser vLLM registers; a
    template without tools gets neither."""
    import shlex

    from console.config import EngineConfig
    from console.engine.serve_options import ServeOptions
    from console.engine.serve_args import serve_command, serve_yaml
    from console.export.validate import check_yaml, parse_with_vllm

    for name, template in (("qwen3", families.QWEN3_TEMPLATE), ("gemma", families.GEMMA_TEMPLATE)):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "tokenizer_config.json").write_text(json.dumps({"chat_template": template}))
        config = EngineConfig(model=str(folder), served_model_name=name)
        path = tmp_path / f"{name}.yaml"
        path.write_text(serve_yaml(config, ServeOptions(usage_stats=False)))
        args, _ = parse_with_vllm(["--config", str(path)])
        assert check_yaml(path, config, ServeOptions(usage_stats=False)) == []  # the console's own check agrees
        tokens = shlex.split(serve_command(config, ServeOptions(usage_stats=False)))
        command_args, _ = parse_with_vllm(tokens[tokens.index("serve") + 1 :])
        for got in (args, command_args):
            if name == "qwen3":
                assert got.enable_auto_tool_choice is True and got.tool_call_parser == "hermes"
                assert vllm_compat.has_tool_parser(got.tool_call_parser)
            else:
                assert not got.enable_auto_tool_choice and got.tool_call_parser is None


def test_chat_tool_flags_are_read_and_a_bad_file_is_refused_in_one_line(tmp_path: Path) -> None:
    from console.cli.chat_tools import read_tools, wants_tools
    from console.cli.common import CliError
    from console.cli.main import build_parser

    good = tmp_path / "tools.json"
    good.write_text(json.dumps([TOOL]))
    args = build_parser().parse_args(
        ["chat", "q", "--tools", str(good), "--builtin-tool", "calculator", "--tool-choice", "required"]
    )
    assert wants_tools(args) and args.builtin_tool == ["calculator"] and args.tool_choice == "required"
    assert read_tools(args) == [TOOL]
    assert not wants_tools(build_parser().parse_args(["chat", "q"]))
    bad = tmp_path / "bad.json"
    bad.write_text('[{"name": "f", "parameters": {"type": "string"}}]')
    with pytest.raises(CliError, match="bad.json: tool 1 .*type object"):
        read_tools(build_parser().parse_args(["chat", "q", "--tools", str(bad)]))


def test_the_tools_editor_checks_definitions_as_they_are_typed(qtbot: Any, tmp_path: Path) -> None:
    """Off by default; on, each edit is checked and the error shown under the box (the last valid
    tools stay offered); the built-ins and the choice reach the conversation's request fields."""
    from console.chat.session import ChatSession
    from console.chat.conversations import ConversationStore
    from console.ui.chat.tools_editor import ToolsEditor

    session = ChatSession(ConversationStore(tmp_path / "c.sqlite3"))
    editor = ToolsEditor(session)
    qtbot.addWidget(editor)
    editor.show()
    assert not editor.enabled.isChecked() and not editor.definitions.isEnabled()
    assert session.tools.fields(None) == {} and not editor.reply.isVisible()
    editor.enabled.setChecked(True)
    editor.definitions.setPlainText(json.dumps(TOOL))
    assert editor.error_label.isHidden() and session.tools.fields(None)["tools"] == [TOOL]
    editor.definitions.setPlainText(json.dumps(TOOL)[:-2])  # typing: not JSON yet
    assert editor.error_label.isVisible() and "line 1" in editor.error_label.text()
    assert session.tools.fields(None)["tools"] == [TOOL]
    editor.calculator.setChecked(True)
    editor.choice.setCurrentIndex(editor.choice.findData("required"))
    fields = session.tools.fields(None)
    assert [t["function"]["name"] for t in fields["tools"]] == ["calculator", "add"]
    assert fields["tool_choice"] == "required"
