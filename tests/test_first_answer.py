"""The bundled model's first answers with the chat's defaults (benchmarks/README.md, "First answers
of the bundled model"): its generation_config.json gets the measured sampling (an earlier
console's greedy-only one is replaced, the user's own is kept); the long story the first hour
asked for ends by itself, without a repeated paragraph, inside the chat's default answer
length, and the France question still answers Paris; an answer that loops anyway is stopped by
the chat's loop guard and saved as such (the terminal chat and the window's, on the real engine)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from console.chat.conversations import ConversationStore
from console.chat.repetition import REPEATING, RepetitionGuard, most_repeated_paragraph
from console.chat.session import ChatSession
from console.sampling import CHAT_MAX_TOKENS, FIT_CONTEXT, SamplingSettings
from console.engine.types import GenerationRequest, RequestFinished
from console.models.bundled import BUNDLED_SAMPLING, write_generation_defaults

STORY = "Write a long story about a dragon and a knight."


def _config(folder: Path, **values: Any) -> None:
    (folder / "generation_config.json").write_text(json.dumps({"bos_token_id": 1, **values}))


def _sampling(folder: Path) -> dict[str, Any]:
    config = json.loads((folder / "generation_config.json").read_text())
    return {k: v for k, v in config.items() if k != "bos_token_id"}


def test_the_bundled_defaults_replace_an_earlier_consoles_but_not_the_users(tmp_path: Path) -> None:
    assert BUNDLED_SAMPLING == {"temperature": 0.0, "repetition_penalty": 1.1}
    _config(tmp_path)
    assert write_generation_defaults(tmp_path) and _sampling(tmp_path) == BUNDLED_SAMPLING
    assert not write_generation_defaults(tmp_path)  # already today's
    _config(tmp_path, temperature=0.0)  # what setup.sh wrote before
    assert write_generation_defaults(tmp_path) and _sampling(tmp_path) == BUNDLED_SAMPLING
    _config(tmp_path, temperature=0.0, top_p=0.9)  # the user's own
    assert not write_generation_defaults(tmp_path) and _sampling(tmp_path) == {"temperature": 0.0, "top_p": 0.9}


def test_the_chats_default_answer_length_is_a_number() -> None:
    assert SamplingSettings().max_tokens == CHAT_MAX_TOKENS != FIT_CONTEXT
    assert SamplingSettings().engine_max_tokens() == CHAT_MAX_TOKENS


def _answer(engine: Any, request: GenerationRequest) -> RequestFinished:
    ev = engine.generate(request, timeout=600)
    assert isinstance(ev, RequestFinished), ev
    return ev


@pytest.mark.e2e
def test_the_long_story_ends_by_itself_with_the_chats_defaults(smollm2_engine: Any) -> None:
    """Before, greedy alone repeated one paragraph until the context was full (29 copies in 1,500
    tokens); now the story ends by itself (539 tokens measured) inside the default length."""
    info = smollm2_engine.status.info
    assert info.sampling_defaults.values == BUNDLED_SAMPLING  # the fixture's folder, as setup.sh leaves it
    story = _answer(smollm2_engine, GenerationRequest(messages=[{"role": "user", "content": STORY}]))
    assert story.finish_reason == "stop", (story.output_tokens, story.text[-300:])
    assert story.output_tokens < CHAT_MAX_TOKENS and story.prompt_tokens + story.output_tokens < info.max_model_len
    assert most_repeated_paragraph(story.text) < 2 and not RepetitionGuard().feed(story.text + "\n")
    assert "dragon" in story.text.lower() and "knight" in story.text.lower()

    france = _answer(
        smollm2_engine, GenerationRequest(messages=[{"role": "user", "content": "What is the capital of France?"}])
    )
    assert "Paris" in france.text and france.finish_reason == "stop"


@pytest.mark.e2e
def test_the_loop_guard_stops_a_looping_answer(
    smollm2_engine: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Greedy without the penalty loops on the story (a paragraph again from about 280 tokens): the
    terminal chat stops it there, says so, and saves it as stopped for repeating."""
    from console.cli.chat import turn

    store = ConversationStore(tmp_path / "chats.sqlite3")
    session = ChatSession(store)
    looping = SamplingSettings(temperature=0.0, repetition_penalty=1.0)
    turn(smollm2_engine, session, looping, STORY)
    [_, answer] = store.messages(session.conversation_id)  # type: ignore[arg-type]
    assert answer.finish_reason == REPEATING
    assert answer.output_tokens is not None and answer.output_tokens < 500, answer.output_tokens
    assert most_repeated_paragraph(answer.content) >= 3 or RepetitionGuard().feed(answer.content + "\n")
    assert "stopped: the answer started repeating itself" in capsys.readouterr().err
    assert not session.can_continue()  # going on would only repeat it more


@pytest.mark.e2e
def test_the_window_chat_stops_a_looping_answer(smollm2_engine: Any, home: Path, qtbot: Any, connections: Any) -> None:
    """The Chat tab with the penalty set back to 1: its guard stops the story where it loops, the
    answer is saved as stopped for repeating, and the chat says so under it and in one line."""
    from console.ui.chat.panel import ChatPanel

    panel = ChatPanel(connections.context(engine=smollm2_engine))
    qtbot.addWidget(panel)
    said: list[str] = []
    connections.connect(panel.message, said.append)
    assert panel.max_tokens.value() == CHAT_MAX_TOKENS
    panel.repetition_penalty.setValue(1.0)
    panel.input.setPlainText(STORY)
    assert panel.send()
    qtbot.waitUntil(
        lambda: panel.active_id is None and panel.conversation_id is not None and len(panel.messages) == 2,
        timeout=300_000,
    )
    [_, answer] = panel.store.messages(panel.conversation_id)
    assert answer.finish_reason == REPEATING and (answer.output_tokens or 0) < 500, answer.output_tokens
    assert said and said[-1].startswith("Stopped: the answer started repeating itself")
    assert "stopped: the answer started repeating itself" in panel.transcript_text()
    assert not panel.continue_button.isEnabled()


def test_the_chats_line_about_an_answer_that_did_not_end_by_itself(qtbot: Any) -> None:
    from console.ui.chat.answer_end import AnswerGuard, answer_end_line

    assert answer_end_line("stop", CHAT_MAX_TOKENS) is None and answer_end_line("abort", CHAT_MAX_TOKENS) is None
    assert answer_end_line("length", CHAT_MAX_TOKENS) == (
        "The answer stopped at max tokens (1,024): Continue goes on, or raise Max tokens."  # en_US: suite_locale.py
    )
    full = "The answer filled the model's context."  # no room to go on: Continue would not help
    assert answer_end_line("length", FIT_CONTEXT) == answer_end_line("length", 300, context_full=True) == full
    assert (answer_end_line(REPEATING, 300) or "").startswith("Stopped: the answer started repeating itself.")
    guard = AnswerGuard()
    line = "The knight raised his shield as the dragon swept down over the village.\n"
    guard.start(300, before=line * 2)  # a continued answer: its saved part counts
    assert guard.feed(line) and guard.reason() == REPEATING and not guard.feed(line)  # True once
    guard.start(300)
    assert not guard.feed(line) and guard.reason() is None
