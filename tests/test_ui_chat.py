"""The Chat panel against the real CPU engine (tiny random Llama, the session-shared engine):
streamed text arrives in pieces, Stop ends an answer mid-stream and keeps its text, Regenerate
and edit-and-resend rewrite the history, figures and the context meter show, and everything
survives a restart of the panel."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from console.chat.conversations import ConversationStore
from console.engine.types import EngineState, TokenDelta
from console.ui.context import AppContext

pytestmark = pytest.mark.engine


@pytest.fixture()
def chat(tiny_engine: Any, home: Path, qtbot: Any, connections: Any) -> Any:
    from console.ui.chat.panel import ChatPanel

    if tiny_engine.status.state != EngineState.READY:
        pytest.fail(f"shared engine is not ready: {tiny_engine.status}")
    ctx = connections.context(engine=tiny_engine)
    panel = ChatPanel(ctx)
    qtbot.addWidget(panel)
    panel.resize(1100, 700)
    panel.show()
    panel.temperature.setValue(0.8)
    panel.seed.setValue(7)
    return panel


def _deltas(panel: Any, connections: Any) -> list[int]:
    """Record, per bridge batch, how many deltas of the panel's active request it carried."""
    seen: list[int] = []
    connections.connect(
        panel.ctx.bridge.requestEvents,
        lambda batch: seen.append(sum(isinstance(e, TokenDelta) and e.request_id == panel.active_id for e in batch)),
    )
    return seen


def test_send_streams_and_saves_with_figures(chat: Any, qtbot: Any, connections: Any) -> None:
    chat.max_tokens.setValue(48)
    chat.system_prompt.setPlainText("You are terse.")
    chat.input.setPlainText("Hello there, tiny model")
    batches = _deltas(chat, connections)
    partial: list[str] = []
    connections.connect(chat.ctx.bridge.requestEvents, lambda _b: partial.append(chat._stream_text))
    renders0, t0 = chat.render_count, time.monotonic()
    assert chat.send()
    assert chat.active_id is not None and chat.stop_button.isEnabled() and not chat.send_button.isEnabled()
    qtbot.waitUntil(lambda: chat.active_id is None, timeout=60_000)
    # the transcript re-renders on its 100 ms throttle, not once per token batch
    elapsed = time.monotonic() - t0
    assert chat.render_count - renders0 <= elapsed / 0.1 + 4

    assert sum(1 for n in batches if n) >= 2, "the answer should arrive in several batches"
    assert any(p and p != partial[-1] for p in partial), "text should be visible before the end"
    msgs = chat.store.messages(chat.conversation_id)
    assert [m.role for m in msgs] == ["user", "assistant"]
    answer = msgs[1]
    assert answer.content and 1 <= (answer.output_tokens or 0) <= 48
    assert answer.ttft_s is not None and answer.ttft_s > 0 and answer.model
    assert chat.store.get(chat.conversation_id).system_prompt == "You are terse."
    assert chat.store.get(chat.conversation_id).title == "Hello there, tiny model"
    text = chat.transcript_text()
    assert "Hello there, tiny model" in text and "TTFT" in text and "tokens" in text
    assert answer.content.split()[0] in text
    # the context meter counts the conversation with the engine's tokenizer
    qtbot.waitUntil(lambda: chat.used_tokens is not None, timeout=5000)
    assert chat.used_tokens > 5
    assert "1,024" in chat.context_bar.format() or "/" in chat.context_bar.format()
    assert chat.input.toPlainText() == "" and chat.send_button.isEnabled()


def test_stop_mid_stream_regenerate_edit_and_restart(chat: Any, qtbot: Any, home: Path, tmp_path: Path) -> None:
    chat.max_tokens.setValue(900)
    chat.input.setPlainText("Write forever")
    assert chat.send()
    qtbot.waitUntil(lambda: len(chat._stream_text) > 0, timeout=60_000)
    chat.stop()
    qtbot.waitUntil(lambda: chat.active_id is None, timeout=30_000)
    stopped = chat.store.messages(chat.conversation_id)[-1]
    assert stopped.role == "assistant" and stopped.finish_reason == "abort"
    assert (stopped.output_tokens or 0) < 900 and stopped.content
    assert "stopped" in chat.transcript_text()

    # Regenerate replaces the last answer (still two messages, a fresh answer)
    chat.max_tokens.setValue(16)
    assert chat.regenerate()
    qtbot.waitUntil(lambda: chat.active_id is None, timeout=60_000)
    msgs = chat.store.messages(chat.conversation_id)
    assert [m.role for m in msgs] == ["user", "assistant"]
    assert msgs[1].finish_reason != "abort" and msgs[1].id != stopped.id

    # Edit-and-resend: the last user message comes back; sending replaces it and its answer
    assert chat.edit_last() and chat.input.toPlainText() == "Write forever" and chat.edit_label.isVisibleTo(chat)
    chat.input.setPlainText("Write briefly")
    assert chat.send()
    qtbot.waitUntil(lambda: chat.active_id is None, timeout=60_000)
    msgs = chat.store.messages(chat.conversation_id)
    assert [(m.role, m.content) for m in msgs][0] == ("user", "Write briefly")
    assert len(msgs) == 2 and "Write forever" not in chat.transcript_text()

    # Rename, export, and a restart of the panel sees the same history
    chat.rename_conversation("Renamed chat")
    out = chat.export_conversation(str(tmp_path / "chat.json"))
    data = json.loads(Path(out).read_text())
    assert data["title"] == "Renamed chat" and len(data["messages"]) == 2
    md = chat.export_conversation(str(tmp_path / "chat.md"))
    assert Path(md).read_text().startswith("# Renamed chat")
    cid = chat.conversation_id

    from console.ui.chat.panel import ChatPanel

    again = ChatPanel(chat.ctx, conversations=ConversationStore())
    qtbot.addWidget(again)
    assert again.conversation_list.count() == 1
    assert again.conversation_list.item(0).text() == "Renamed chat"
    again.open_conversation(cid)
    assert "Write briefly" in again.transcript_text() and "TTFT" in again.transcript_text()
    again.delete_conversation(confirm=False)
    assert again.conversation_list.count() == 0 and again.conversation_id is None


def test_send_without_a_model_explains(home: Path, qtbot: Any) -> None:
    """No engine loaded (a fresh, unloaded engine: nothing is started): a clear message, text kept."""
    from console.ui.chat.panel import ChatPanel

    ctx = AppContext.create()
    panel = ChatPanel(ctx)
    qtbot.addWidget(panel)
    panel.input.setPlainText("anyone there?")
    assert not panel.send()
    assert "No model is loaded" in panel.error_label.text()
    assert panel.input.toPlainText() == "anyone there?"
    assert panel.store.list() == []
    panel.top_p.setValue(0.5)
    panel.stop_strings.setPlainText("###\nEND")
    s = panel.sampling()
    assert s.top_p == 0.5 and s.stop == ["###", "END"] and s.seed is None


def test_streaming_re_renders_only_the_answer_not_the_history(chat: Any, qtbot: Any) -> None:
    """While an answer streams, the render timer replaces only the answer's text; the whole
    transcript (history included) is rendered as markdown at the start and the end of it."""
    chat.max_tokens.setValue(24)
    chat.input.setPlainText("First question, for the history")
    assert chat.send()
    qtbot.waitUntil(lambda: chat.active_id is None, timeout=60_000)
    full_renders: list[int] = []
    original = chat.transcript.setMarkdown
    chat.transcript.setMarkdown = lambda text: (full_renders.append(len(text)), original(text))[1]
    tails: list[str] = []
    original_tail = chat._render_stream_tail
    chat._render_stream_tail = lambda: (original_tail(), tails.append(chat.transcript_text()))[0]
    chat.max_tokens.setValue(200)
    chat.input.setPlainText("Second question")
    assert chat.send()
    qtbot.waitUntil(lambda: chat.active_id is None, timeout=60_000)
    assert len(tails) >= 2, "the streaming answer should have been re-rendered several times"
    assert len(full_renders) <= 3  # the start, the end (and a conversation-list refresh at most)
    assert all("First question, for the history" in t and "Second question" in t for t in tails)
    assert len(tails[-1]) > len(tails[0])  # the answer grew in place
    final = chat.transcript_text()
    assert final.count("First question, for the history") == 1 and "TTFT" in final


def test_a_token_count_that_ends_after_the_panel_is_deleted_is_dropped(
    tiny_engine: Any, home: Path, qtbot: Any, connections: Any
) -> None:
    """The context meter's token count runs in a worker; closing the window (or a test's teardown)
    can delete the panel before it returns. Its result must be dropped, not written into a
    deleted QProgressBar (a RuntimeError in a slot, seen in a loaded full test run)."""
    import threading

    import shiboken6

    from console.ui.chat.panel import ChatPanel

    release = threading.Event()
    real_count = tiny_engine.count_prompt_tokens
    ctx = connections.context(engine=tiny_engine)
    panel = ChatPanel(ctx)
    bar = panel.context_bar
    finished: list[int] = []

    def slow_count(request: Any) -> int:
        release.wait(30)
        n = real_count(request)
        finished.append(n)
        return n

    tiny_engine.count_prompt_tokens = slow_count  # type: ignore[method-assign]
    try:
        panel.input.setPlainText("How long is this prompt?")
        panel.context_bar.count_now()
        panel.deleteLater()
        qtbot.waitUntil(lambda: not shiboken6.isValid(bar), timeout=5000)
        release.set()
        qtbot.waitUntil(lambda: bool(finished), timeout=30000)
        qtbot.wait(200)  # the queued outcome is delivered (and must be dropped) here
    finally:
        tiny_engine.count_prompt_tokens = real_count  # type: ignore[method-assign]
    assert finished and finished[0] > 0


def test_an_empty_chat_counts_nothing_without_asking_the_engine(
    tiny_engine: Any, home: Path, qtbot: Any, connections: Any
) -> None:
    """An empty chat (no system prompt, no history, nothing typed) shows 0 tokens without asking the
    engine: vLLM refuses to render an empty conversation (a server logged a 400 from /tokenize for
    every new window); something typed is counted by the engine."""
    from console.ui.chat.panel import ChatPanel

    asked: list[Any] = []
    real_count = tiny_engine.count_prompt_tokens

    def spy(request: Any) -> int:
        asked.append(request)
        return int(real_count(request))

    panel = ChatPanel(connections.context(engine=tiny_engine))
    tiny_engine.count_prompt_tokens = spy  # type: ignore[method-assign]
    try:
        panel.input.setPlainText("")
        panel.context_bar.count_now()
        qtbot.wait(300)
        assert asked == [] and panel.context_bar.used_tokens == 0
        panel.input.setPlainText("How long is this prompt?")
        panel.context_bar.count_now()
        qtbot.waitUntil(lambda: (panel.context_bar.used_tokens or 0) > 0, timeout=30000)
        assert len(asked) >= 1
    finally:
        tiny_engine.count_prompt_tokens = real_count  # type: ignore[method-assign]
        panel.deleteLater()


def test_enter_sends_continue_grows_the_cut_answer_and_the_model_is_named(
    chat: Any, qtbot: Any, connections: Any
) -> None:
    """Enter sends and Shift+Enter breaks the line (Ctrl+Enter in the other way); an
    answer cut at max tokens says so, with the way on, and is continued in place by Continue;
    answers carry the model's name."""
    from PySide6.QtCore import Qt

    said: list[str] = []
    connections.connect(chat.message, said.append)
    chat.temperature.setValue(0.0)
    chat.max_tokens.setValue(8)
    qtbot.keyClicks(chat.input, "Tell me")
    qtbot.keyClick(chat.input, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClicks(chat.input, "a story")
    assert chat.input.toPlainText() == "Tell me\na story" and chat.active_id is None
    assert not chat.continue_button.isEnabled()
    qtbot.keyClick(chat.input, Qt.Key.Key_Return)
    assert chat.active_id is not None and chat.input.toPlainText() == ""
    qtbot.waitUntil(lambda: chat.active_id is None, timeout=60_000)
    user, answer = chat.store.messages(chat.conversation_id)
    assert user.content == "Tell me\na story"
    assert (answer.finish_reason, answer.output_tokens, answer.model) == ("length", 8, "tiny")
    assert "tiny" in chat.transcript_text() and "Assistant" not in chat.transcript_text()
    assert said == ["The answer stopped at max tokens (8): Continue goes on, or raise Max tokens."]
    assert "stopped at max tokens: Continue goes on" in chat.transcript_text()  # under the answer

    assert chat.continue_button.isEnabled()
    qtbot.mouseClick(chat.continue_button, Qt.MouseButton.LeftButton)
    assert chat.active_id is not None and not chat.continue_button.isEnabled()
    qtbot.waitUntil(lambda: chat.active_id is None, timeout=60_000)
    [_, grown] = chat.store.messages(chat.conversation_id)
    assert grown.id == answer.id and grown.output_tokens == 16
    assert grown.content.startswith(answer.content) and len(grown.content) > len(answer.content)
    assert grown.content.strip().split()[-1] in chat.transcript_text()

    chat.set_enter_sends(False)  # the Ctrl+Enter way
    qtbot.keyClicks(chat.input, "one")
    qtbot.keyClick(chat.input, Qt.Key.Key_Return)
    qtbot.keyClicks(chat.input, "two")
    assert chat.input.toPlainText() == "one\ntwo" and chat.active_id is None
    qtbot.keyClick(chat.input, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert chat.active_id is not None
    qtbot.waitUntil(lambda: chat.active_id is None, timeout=60_000)
    assert [m.content for m in chat.store.messages(chat.conversation_id)][2] == "one\ntwo"
