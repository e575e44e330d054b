"""A reasoning model's thinking counted and shown apart outside the window, on the
real CPU engine with the Qwen3 family fixture (``family`` in conftest.py, shared with
tests/test_families.py): bench splits the output tokens into thinking and answer, the terminal
chat prints the thinking apart on stderr (or hides it) and saves it apart.

The weights are random: greedy and a regular expression make the model write a thinking block
and then an answer, so the split is deterministic.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from console.sampling import SamplingSettings
from console.engine.openai_body import request_fields
from console.engine.types import GenerationRequest, RequestFinished

pytestmark = pytest.mark.engine

THINK_THEN_ANSWER = r"<think>\n[a-z]{3,12}\n</think>\n\n[a-z]{3,12}"
GREEDY = SamplingSettings(temperature=0.0, max_tokens=24)
QUESTIONS = ["Capital of France?", "Capital of Italy?", "Capital of Spain?"]


def _vllm(engine: Any, text: str) -> tuple[Any, str | None, str | None]:
    """vLLM's qwen3 reasoning parser and its split of ``text``."""
    from vllm.reasoning import ReasoningParserManager

    from console import vllm_compat

    parser = ReasoningParserManager.get_reasoning_parser("qwen3")(engine.tokenizer, chat_template_kwargs={})
    body = vllm_compat.chat_completion_request_class().model_validate({"messages": [{"role": "user", "content": "?"}]})
    reasoning, content = parser.extract_reasoning(text, body)
    return parser, reasoning, content


@pytest.mark.parametrize("family", ["qwen3"], indirect=True)
def test_bench_counts_thinking_tokens_apart(family: tuple[str, Any]) -> None:
    from console.bench.runner import run_console
    from console.bench.workload import Workload

    _, engine = family
    workload = Workload(
        name="think",
        output_len=24,
        messages=[[{"role": "user", "content": q}] for q in QUESTIONS],
        ignore_eos=False,
        openai_fields={"structured_outputs": {"regex": THINK_THEN_ANSWER}},
    )
    figures = run_console(engine, workload)
    t = figures["thinking"]
    # the same requests one by one: the thinking tokens end at the end-of-thinking token
    end = engine.tokenizer.convert_tokens_to_ids("</think>")
    expected = output = at_least = 0
    for q in QUESTIONS:
        fields = request_fields({"structured_outputs": {"regex": THINK_THEN_ANSWER}}, GREEDY)
        final = engine.generate(
            GenerationRequest(messages=[{"role": "user", "content": q}], sampling=GREEDY, **fields), timeout=120
        )
        assert isinstance(final, RequestFinished)
        ids = list(final.choices[0].token_ids)
        parser, reasoning, content = _vllm(engine, engine.tokenizer.decode(ids, skip_special_tokens=True))
        assert reasoning and content and end in ids, final.text
        assert (final.reasoning, final.text) == (reasoning, content)  # the engine split it, as vLLM's server
        expected += ids.index(end) + 1
        output += final.output_tokens
        at_least += parser.count_reasoning_tokens(ids)  # vLLM's count: between the markers, without them
    assert t["reasoning_parser"] == "qwen3" and t["chat_answers"] == len(QUESTIONS)
    assert (t["reasoning_tokens"], t["output_tokens"]) == (expected, output) == (expected, figures["output_tokens"])
    assert t["answer_tokens"] == output - expected > 0 and at_least <= expected


def test_bench_without_a_reasoning_parser_has_no_split(tiny_engine: Any) -> None:
    from console.bench.runner import run_console
    from console.bench.workload import Workload

    figures = run_console(
        tiny_engine, Workload(name="plain", output_len=4, messages=[[{"role": "user", "content": "Hi"}]])
    )
    assert "thinking" not in figures and figures["output_tokens"] == 4


@pytest.mark.parametrize("family", ["qwen3"], indirect=True)
@pytest.mark.parametrize("hide", [False, True])
def test_terminal_chat_prints_thinking_apart_and_saves_it_apart(
    family: tuple[str, Any], hide: bool, capsys: Any, home: Path
) -> None:
    from console.chat.session import ChatSession
    from console.cli.chat import turn
    from console.chat.conversations import ConversationStore

    _, engine = family
    session = ChatSession(ConversationStore())
    fields = request_fields({"structured_outputs": {"regex": THINK_THEN_ANSWER}}, GREEDY)
    turn(engine, session, GREEDY, QUESTIONS[0], fields, hide_thinking=hide)
    out, err = capsys.readouterr()
    saved = session.messages[-1]
    raw = engine.generate(
        GenerationRequest(messages=[{"role": "user", "content": QUESTIONS[0]}], sampling=GREEDY, **fields), timeout=120
    )
    _, reasoning, content = _vllm(engine, engine.tokenizer.decode(raw.choices[0].token_ids, skip_special_tokens=True))
    assert (raw.reasoning, raw.text) == (reasoning, content)  # the engine's answer comes split
    assert (saved.reasoning, saved.content) == (reasoning, content) and reasoning and content
    assert out == content + "\n"  # stdout: the answer alone
    summary = f"\n[thought {saved.reasoning_tokens} tokens, "  # stderr: the thinking (or not), then its figures
    assert err.startswith("[thinking…]" + summary if hide else "[thinking]\n" + reasoning + summary), err
    assert session.chat_messages()[-1] == {"role": "assistant", "content": content}


@pytest.mark.parametrize("family", ["qwen3"], indirect=True)
def test_the_thinking_count_does_not_depend_on_how_the_tokens_were_grouped(family: tuple[str, Any]) -> None:
    """A busy engine sends several tokens in one delta, and one delta may end the thinking and
    begin the answer: its thinking tokens are counted (CI once printed "thought 2 tokens" for a
    thinking of 10 when the engine grouped them)."""
    from console.cli.chat_thinking import chat_splitter
    from console.engine.thinking import ThinkingStream

    _, engine = family
    fields = request_fields({"structured_outputs": {"regex": THINK_THEN_ANSWER}}, GREEDY)
    raw = engine.generate(
        GenerationRequest(messages=[{"role": "user", "content": QUESTIONS[1]}], sampling=GREEDY, **fields), timeout=120
    )
    ids = list(raw.choices[0].token_ids)
    exact = ids.index(engine.tokenizer.convert_tokens_to_ids("</think>")) + 1
    assert 2 < exact < len(ids)
    splitter = chat_splitter(engine, {})
    assert splitter is not None
    for size in (1, 3, exact - 1, exact + 2, len(ids)):  # groups that straddle the end of thinking
        for with_ids in (True, False):
            stream = ThinkingStream(splitter)
            for i in range(0, len(ids), size):
                part = ids[i : i + size]
                text = engine.tokenizer.decode(ids[: i + size])[len(engine.tokenizer.decode(ids[:i])) :]
                stream.add(text, len(part), part if with_ids else ())
            assert stream.split()[1], (size, stream.text)
            if with_ids or size == 1:
                assert stream.thinking_tokens == exact, (size, with_ids)
            else:  # a server's stream has no ids: the answer's text re-tokenized, near the exact count
                assert abs(stream.thinking_tokens - exact) <= 2 and stream.thinking_tokens > exact - size, (size,)
