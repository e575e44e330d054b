"""The chat window shows a reasoning model's thinking apart from its answer, on the
real CPU engine with the family fixtures (``family`` in conftest.py: the same engines as
tests/test_families.py): the split is the one vLLM's reasoning parser gives for the same text,
collapsed with its tokens and time, expanded on a click, saved apart and not sent back to the
model; the Think switch shows for Qwen3's template only and switches the thinking off.

The weights are random, so the answers are made deterministic: greedy, and a regular expression
(the chat's structured output) that makes the model write a thinking block and then an answer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QUrl

from console.chat.conversations import ConversationStore
from console.engine.openai_body import request_fields
from console.engine.types import EngineState, GenerationRequest, RequestFinished
from console.ui.chat.output_control import REGEX

pytestmark = pytest.mark.engine

#: A thinking block, then an answer (R1's template opens the block itself; Qwen3's model writes it).
THINK_THEN_ANSWER = {
    "qwen3": r"<think>\n[a-z]{3,12}\n</think>\n\n[a-z]{3,12}",
    "r1": r"[a-z]{3,12}\n</think>\n\n[a-z]{3,12}",
}
PARSER = {"qwen3": "qwen3", "r1": "deepseek_r1"}


def _panel(engine: Any, qtbot: Any, connections: Any) -> Any:
    from console.ui.chat.panel import ChatPanel

    assert engine.status.state == EngineState.READY, engine.status
    panel = ChatPanel(connections.context(engine=engine))
    qtbot.addWidget(panel)
    panel.resize(1000, 700)
    panel.show()
    panel.temperature.setValue(0.0)
    panel.max_tokens.setValue(24)
    return panel


def _send(panel: Any, qtbot: Any, connections: Any, text: str) -> RequestFinished:
    finished: list[RequestFinished] = []
    connections.connect(
        panel.ctx.bridge.requestEvents,
        lambda batch: finished.extend(e for e in batch if isinstance(e, RequestFinished)),
    )
    panel.input.setPlainText(text)
    assert panel.send(), panel.error_label.text()
    qtbot.waitUntil(lambda: panel.active_id is None, timeout=120_000)
    assert finished, "no answer finished"
    return finished[-1]


def _raw(engine: Any, finished: RequestFinished, sampling: Any, fields: dict[str, Any]) -> str:
    """The raw text of ``finished``'s answer: its prompt ids again as a completion (greedy), which
    no reasoning parser reads."""
    again = engine.generate(
        GenerationRequest(
            prompt_token_ids=list(finished.prompt_token_ids), sampling=sampling, **request_fields(fields, sampling)
        ),
        timeout=120,
    )
    assert again.output_tokens == finished.output_tokens
    return str(again.text)


def _vllm_split(name: str, engine: Any, text: str, kwargs: dict[str, Any]) -> tuple[str | None, str | None]:
    """vLLM's own reasoning parser on ``text`` (what ``vllm serve --reasoning-parser`` returns)."""
    from vllm.reasoning import ReasoningParserManager

    from console import vllm_compat

    parser = ReasoningParserManager.get_reasoning_parser(PARSER[name])(engine.tokenizer, chat_template_kwargs=kwargs)
    body = vllm_compat.chat_completion_request_class().model_validate(
        {"messages": [{"role": "user", "content": "?"}], "chat_template_kwargs": kwargs or None}
    )
    return parser.extract_reasoning(text, body)


@pytest.mark.parametrize("family", ["qwen3", "r1"], indirect=True)
def test_thinking_is_split_by_vllms_parser_shown_collapsed_and_saved_apart(
    family: tuple[str, Any], qtbot: Any, home: Path, connections: Any
) -> None:
    name, engine = family
    panel = _panel(engine, qtbot, connections)
    assert panel.think_box.isVisibleTo(panel) == (name == "qwen3")  # only Qwen3's template has a switch
    panel.output.set_mode(REGEX, THINK_THEN_ANSWER[name])
    final = _send(panel, qtbot, connections, "What is the capital of France?")

    # the same request straight to the engine: the raw text, split by vLLM's parser
    kwargs = {"enable_thinking": True} if name == "qwen3" else {}
    fields = {
        "structured_outputs": {"regex": THINK_THEN_ANSWER[name]},
        **({"chat_template_kwargs": kwargs} if kwargs else {}),
    }
    chat = engine.generate(
        GenerationRequest(
            messages=[{"role": "user", "content": "What is the capital of France?"}],
            sampling=panel.sampling(),
            **request_fields(fields, panel.sampling()),
        ),
        timeout=120,
    )
    assert (chat.text, chat.reasoning) == (final.text, final.reasoning)
    # the engine reads a chat answer as vLLM's server does: its raw text (the same prompt ids as a
    # completion, which no parser reads) split by vLLM's own parser
    raw = _raw(engine, final, panel.sampling(), {"structured_outputs": {"regex": THINK_THEN_ANSWER[name]}})
    assert "</think>" in raw, raw
    reasoning, content = _vllm_split(name, engine, raw, kwargs)
    assert reasoning and content, (reasoning, content)
    assert (final.reasoning, final.text) == (reasoning, content)

    answer = panel.messages[-1]
    assert (answer.role, answer.reasoning, answer.content) == ("assistant", reasoning, content)
    assert answer.reasoning_tokens is not None and 0 < answer.reasoning_tokens < final.output_tokens
    assert answer.output_tokens == final.output_tokens and answer.reasoning_s is not None

    # collapsed: the header with its tokens, the answer, not the thinking (random letters may also
    # occur in the question, hence counts)
    thought = reasoning.strip()
    shown = panel.transcript_text()
    assert "Thinking" in shown and f"{answer.reasoning_tokens} tokens" in shown and content.strip() in shown
    panel.transcript.anchorClicked.emit(QUrl(f"think:{answer.id}"))  # a click on the header opens it
    opened = panel.transcript_text()
    assert opened.count(thought) == shown.count(thought) + 1 and content.strip() in opened
    panel.transcript.anchorClicked.emit(QUrl(f"think:{answer.id}"))
    assert panel.transcript_text() == shown

    # the next turn sends the answer back without its thinking, as vLLM's server does
    sent = panel.chat_messages("And of Italy?")
    assert sent[-2] == {"role": "assistant", "content": content} and all(reasoning not in m["content"] for m in sent)

    # saved apart: a new panel on the same history shows it again, collapsed
    again = _panel(engine, qtbot, connections)
    assert again.open_conversation(panel.conversation_id)
    kept = again.messages[-1]
    assert (kept.reasoning, kept.content, kept.reasoning_tokens) == (reasoning, content, answer.reasoning_tokens)
    assert again.transcript_text() == shown
    exported = ConversationStore().export_json(panel.conversation_id)
    assert '"reasoning":' in exported


@pytest.mark.parametrize("family", ["qwen3"], indirect=True)
def test_the_think_switch_reaches_the_template_and_the_split(
    family: tuple[str, Any], qtbot: Any, home: Path, connections: Any
) -> None:
    """Qwen3: thinking on (the default), the answer without a closing tag is all thinking (vLLM's
    qwen3 parser); switched off, the template closes an empty thinking block in the prompt and
    the whole answer is the answer."""
    name, engine = family
    panel = _panel(engine, qtbot, connections)
    assert panel.think_box.isVisibleTo(panel) and panel.think_box.isChecked()
    on = _send(panel, qtbot, connections, "Capital of France?")
    m = panel.messages[-1]
    raw = _raw(engine, on, panel.sampling(), {})
    assert (m.reasoning, m.content or None) == _vllm_split(name, engine, raw, {"enable_thinking": True})
    assert m.reasoning_tokens == on.output_tokens  # never closed: every token was thinking

    panel.think_box.setChecked(False)
    off = _send(panel, qtbot, connections, "Capital of Italy?")
    closed = engine.tokenizer.encode("<think>\n\n</think>\n\n", add_special_tokens=False)
    assert list(off.prompt_token_ids[-len(closed) :]) == closed
    assert list(on.prompt_token_ids[-len(closed) :]) != closed
    m = panel.messages[-1]
    assert (m.reasoning, m.content) == (None, off.text) and off.text
    assert _vllm_split(name, engine, off.text, {"enable_thinking": False}) == (None, off.text)
    assert "Thinking" not in panel.transcript_text().split(panel.messages[-2].content)[-1]


def test_a_model_without_a_reasoning_parser_streams_as_before(
    tiny_engine: Any, qtbot: Any, home: Path, connections: Any
) -> None:
    """ChatML (the session's tiny model): no Think switch, no thinking block, the answer whole."""
    panel = _panel(tiny_engine, qtbot, connections)
    assert not panel.think_box.isVisibleTo(panel)
    final = _send(panel, qtbot, connections, "Hello")
    m = panel.messages[-1]
    assert (m.reasoning, m.content, m.reasoning_tokens) == (None, final.text, None)
    assert "Thinking" not in panel.transcript_text()
