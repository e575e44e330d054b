"""The chat's Output control and logprob view against the real CPU engine (tiny random Llama, the
session-shared engine): the schema editor says what is wrong as you type, a choice list constrains
the answer, logprobs come back coloured per token with the alternatives on hover, n answers show
side by side, and vLLM's refusal (n > 1 when greedy) is shown, not raised."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from console.engine.types import EngineState
from console.ui.chat.output_control import CHOICE, FREE, REGEX, SCHEMA
from console.ui.chat.logprob_view import alternatives_text, probability_colour


@pytest.fixture()
def chat(tiny_engine: Any, home: Path, qtbot: Any, connections: Any) -> Any:
    from console.ui.chat.panel import ChatPanel

    if tiny_engine.status.state != EngineState.READY:
        pytest.fail(f"shared engine is not ready: {tiny_engine.status}")
    panel = ChatPanel(connections.context(engine=tiny_engine))
    qtbot.addWidget(panel)
    panel.resize(1200, 760)
    panel.show()
    return panel


def test_schema_editor_checks_as_you_type(home: Path, qtbot: Any) -> None:
    from console.ui.chat.output_control import OutputControl

    out = OutputControl()
    qtbot.addWidget(out)
    assert out.fields() == {} and not out.editor.isVisible()
    out.set_mode(SCHEMA, '{"type": "object", "properties": {"a": {"type": "integer"}}}')
    assert out.check_label.text() == "Valid schema"
    assert out.fields()["response_format"]["json_schema"]["schema"]["properties"]["a"] == {"type": "integer"}
    out.editor.setPlainText('{"type": "object",')
    assert "not valid JSON" in out.check_label.text()
    out.editor.setPlainText('{"type": 5}')
    assert "not a valid JSON schema" in out.check_label.text()
    with pytest.raises(ValueError, match="not a valid JSON schema"):
        out.fields()
    out.set_mode(REGEX, "[a-")
    assert "not a valid regular expression" in out.check_label.text()
    out.set_mode(CHOICE, "yes\n\nno\n")
    assert out.fields() == {"structured_outputs": {"choice": ["yes", "no"]}}
    out.set_mode(SCHEMA)  # each mode keeps its own text
    assert out.editor.toPlainText() == '{"type": 5}'
    out.set_mode(FREE)
    out.logprobs.setValue(3)
    out.answers.setValue(2)
    assert out.fields() == {"logprobs": True, "top_logprobs": 3, "n": 2}


def test_probability_colours_and_hover_text() -> None:
    from console.engine.choices import TokenLogprob

    assert probability_colour(None) == "#e0e0e0"
    assert probability_colour(0.0) != probability_colour(-5.0)  # green-ish vs red-ish
    step = TokenLogprob("cat", -0.1, (("cat", -0.1), ("dog", -2.5)))
    text = alternatives_text(step)
    assert text.startswith("'cat': 90.5%") and "'dog': 8.2%" in text


@pytest.mark.engine
def test_choice_logprobs_and_n_answers_in_the_panel(chat: Any, qtbot: Any, tmp_path: Path) -> None:
    chat.temperature.setValue(0.9)
    chat.seed.setValue(3)
    chat.max_tokens.setValue(8)
    chat.output.set_mode(CHOICE, "positive\nnegative")
    chat.output.logprobs.setValue(2)
    chat.output.answers.setValue(2)
    chat.input.setPlainText("Was the film good?")
    assert chat.send()
    qtbot.waitUntil(lambda: chat.active_id is None, timeout=120_000)
    assert chat.error_label.text() == ""
    view = chat.choices_view
    assert view.isVisible() and len(view.views) == 2
    for v in view.views:  # the end-of-sequence token is one of the tokens, as vLLM reports it
        tokens = "".join(s.token for s in v.steps)
        assert tokens.startswith(("positive", "negative")) and tokens.removeprefix("positive").removeprefix(
            "negative"
        ) in ("", "<|im_end|>", "</s>"), tokens
        assert all(len(s.top) >= 2 for s in v.steps)
    assert chat.messages[-1].content in ("positive", "negative")
    # Hovering a token finds its step (what the tooltip shows).
    first = view.views[0]
    rect = first.cursorRect(first.textCursor())
    assert first.step_at(rect.x() + 2, rect.y() + rect.height() // 2) is first.steps[0]
    chat.grab().save(str(tmp_path / "chat-logprobs.png"))
    assert (tmp_path / "chat-logprobs.png").stat().st_size > 10_000

    # vLLM refuses n > 1 when greedy: the panel says so and sends nothing.
    chat.temperature.setValue(0.0)
    chat.input.setPlainText("again")
    assert not chat.send()
    assert "n must be 1 when using greedy sampling" in chat.error_label.text()
