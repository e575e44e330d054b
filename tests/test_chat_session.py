"""The chat session (console/chat/session.py) over the real conversation store, answered by the
real CPU engine (tiny random Llama, the session-shared engine): send / regenerate / edit rewrite
the saved history the way the Chat tab shows it, answers are filed with their figures in the
conversation they belong to, and the terminal chat, built on the same session, is saved too and
can be continued."""

from __future__ import annotations

import builtins
from pathlib import Path
from typing import Any, Iterator

import pytest

from console.engine.chat_prompt import prompt_token_ids
from console.chat.session import ChatSession
from console.cli.chat import repl, turn
from console.sampling import FIT_CONTEXT, SamplingSettings
from console.chat.conversations import ConversationError, ConversationStore
from console.engine.types import EngineState, GenerationRequest, RequestFinished

pytestmark = pytest.mark.engine

GREEDY = SamplingSettings(temperature=0.0, max_tokens=8)


@pytest.fixture()
def engine(tiny_engine: Any) -> Any:
    if tiny_engine.status.state != EngineState.READY:
        pytest.fail(f"shared engine is not ready: {tiny_engine.status}")
    return tiny_engine


def _answer(engine: Any, request: GenerationRequest) -> RequestFinished:
    events = list(engine.stream(request))
    assert isinstance(events[-1], RequestFinished), events[-1]
    return events[-1]


def test_send_regenerate_edit_are_saved_as_the_chat_tab_shows_them(engine: Any, tmp_path: Path) -> None:
    db = tmp_path / "chats.sqlite3"
    session = ChatSession(ConversationStore(db))
    session.system_prompt = "Be brief."
    request = session.send("  Hello there, tiny model  ", GREEDY)
    assert request.messages == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Hello there, tiny model"},
    ]
    first = _answer(engine, request)
    session.record_answer(first.text, first, model="tiny")

    reopened = ConversationStore(db)  # what a restart (or the window) reads
    [conv] = reopened.list()
    assert conv.title == "Hello there, tiny model" and conv.system_prompt == "Be brief."
    user, answer = reopened.messages(conv.id)
    assert (user.role, user.content) == ("user", "Hello there, tiny model")
    assert answer.role == "assistant" and answer.content == first.text and answer.model == "tiny"
    assert answer.output_tokens == first.output_tokens and answer.finish_reason == first.finish_reason

    again = session.regenerate(GREEDY)  # the answer goes; the same question is asked again
    assert again is not None and again.messages == request.messages
    assert [m.role for m in reopened.messages(conv.id)] == ["user"]
    second = _answer(engine, again)
    session.record_answer(second.text, second, model="tiny", reason="abort")
    assert [(m.role, m.finish_reason) for m in reopened.messages(conv.id)] == [("user", None), ("assistant", "abort")]

    edited = session.start_edit()
    assert edited is not None and edited.content == "Hello there, tiny model"
    request = session.send("A different question", GREEDY)  # replaces the question and its answer
    assert [m.content for m in reopened.messages(conv.id)] == ["A different question"]
    assert request.messages[-1] == {"role": "user", "content": "A different question"}
    assert session.regenerate(GREEDY) is not None  # no answer yet: asks the same again


def test_continue_goes_on_with_the_answer_max_tokens_cut(engine: Any, tmp_path: Path) -> None:
    """Continue: the model goes on with the same assistant message (no new turn in the
    prompt) and what comes is appended to the saved answer."""
    store = ConversationStore(tmp_path / "chats.sqlite3")
    session = ChatSession(store)
    first = _answer(engine, session.send("Tell me a long story", GREEDY))
    assert first.finish_reason == "length" and first.output_tokens == 8
    session.record_answer(first.text, first, model="tiny")
    assert session.can_continue()

    request = session.continue_answer(GREEDY)
    assert request is not None and request.continue_final
    assert request.messages == [
        {"role": "user", "content": "Tell me a long story"},
        {"role": "assistant", "content": first.text},
    ]
    # what the engine is given (vLLM's chat preprocessing, token ids): the template left open after the cut answer
    ids = prompt_token_ids(engine.format_prompt(request), engine.tokenizer)
    prompt = engine.tokenizer.decode(ids)
    assert prompt.rstrip().endswith(first.text.strip()) and prompt.count("<|im_start|>assistant") == 1
    second = _answer(engine, request)
    saved = session.record_answer(second.text, second, model="tiny")
    [user, answer] = store.messages(session.conversation_id)
    assert saved is not None and saved.id == answer.id
    assert answer.content == first.text + second.text and answer.output_tokens == 16
    assert answer.finish_reason == "length" and session.messages[-1].content == answer.content

    assert session.regenerate(GREEDY) is not None and session.continuing is None  # a new answer again


def test_max_tokens_0_answers_up_to_the_end_of_the_context(engine: Any) -> None:
    """Max tokens FIT_CONTEXT (0, the chat's "up to the context") lets an answer run to
    max_model_len, not to a fixed length."""
    max_len = engine.status.info.max_model_len
    prompt = [5] * (max_len - 6)
    sampling = SamplingSettings(temperature=0.0, ignore_eos=True, max_tokens=FIT_CONTEXT)
    assert FIT_CONTEXT == 0
    end = _answer(engine, GenerationRequest(prompt_token_ids=prompt, sampling=sampling))
    assert end.finish_reason == "length" and end.output_tokens == 6


def test_an_answer_is_filed_in_its_own_conversation_after_switching(engine: Any, tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "chats.sqlite3")
    session = ChatSession(store)
    request = session.send("First chat", GREEDY)
    first_id = session.conversation_id
    session.new()  # the user starts another chat while the answer streams
    done = _answer(engine, request)
    session.record_answer(done.text, done)
    assert session.messages == [] and session.conversation_id is None
    assert [m.role for m in store.messages(first_id)] == ["user", "assistant"]  # type: ignore[arg-type]
    assert session.regenerate(GREEDY) is None  # nothing to regenerate in the new chat
    with pytest.raises(ValueError):
        session.send("   ", GREEDY)
    with pytest.raises(ConversationError):
        session.open(12345)
    with pytest.raises(ConversationError):
        session.export(tmp_path / "none.md")
    session.open(first_id)  # type: ignore[arg-type]
    session.export(tmp_path / "chat.md")
    assert (tmp_path / "chat.md").read_text().startswith("# First chat")


def _typing(monkeypatch: pytest.MonkeyPatch, lines: list[str]) -> None:
    feed: Iterator[str] = iter(lines)

    def fake_input(prompt: str = "") -> str:
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    monkeypatch.setattr(builtins, "input", fake_input)


def test_the_terminal_chat_is_saved_and_can_be_continued(
    engine: Any, home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The user types at the terminal: two turns (one regenerated), /new, a third; Ctrl-D."""
    _typing(monkeypatch, ["Hello there", "/regenerate", "/new", "Second chat"])
    assert repl(engine, ChatSession(ConversationStore()), GREEDY) == 0
    out = capsys.readouterr()

    store = ConversationStore()  # the data home's history: the one the window lists
    chats = {c.title: c.id for c in store.list()}
    assert set(chats) == {"Hello there", "Second chat"}
    first = store.messages(chats["Hello there"])
    assert [m.role for m in first] == ["user", "assistant"]  # regenerated: one answer, not two
    assert first[1].output_tokens is not None and first[1].content in out.out
    second = store.messages(chats["Second chat"])
    assert [m.content for m in second][0] == "Second chat" and second[1].content in out.out
    assert f"--conversation {chats['Second chat']}" in out.err

    session = ChatSession(store)  # `inference-console chat --conversation ID "..."`
    session.open(chats["Hello there"])
    turn(engine, session, GREEDY, "And a follow-up")
    assert [m.role for m in store.messages(chats["Hello there"])] == ["user", "assistant", "user", "assistant"]


def test_the_terminal_chat_says_where_max_tokens_cut_and_continues(
    engine: Any, home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An answer cut at max tokens: one line says so and how to go on; /continue grows it."""
    _typing(monkeypatch, ["Tell me a long story", "/continue"])
    session = ChatSession(ConversationStore())
    assert repl(engine, session, GREEDY) == 0
    err = capsys.readouterr().err
    assert "[stopped at max tokens (8): /continue goes on" in err and "/continue goes on with an answer" in err
    [_, answer] = ConversationStore().messages(session.conversation_id)  # type: ignore[arg-type]
    assert answer.finish_reason == "length" and answer.output_tokens == 16  # 8 and 8 more, one answer
