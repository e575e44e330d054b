"""Words that follow the state: the chat's "No model is loaded" line goes once a model is (and
with a new chat), the Bench tab's hint does not ask for a load while a model is loaded, and an
answer stopped mid-way can be continued like one cut at max tokens.

On the session's tiny CPU engine; the load itself is its real READY status as the bridge
brings it (the panels' words are under test, not a load)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from console.engine.types import EngineState, EngineStatus

pytestmark = pytest.mark.engine


def _chat(ctx: Any, qtbot: Any) -> Any:
    from console.ui.chat.panel import ChatPanel

    panel = ChatPanel(ctx)
    qtbot.addWidget(panel)
    panel.resize(1100, 700)
    panel.show()
    return panel


def test_the_no_model_line_goes_once_a_model_is_loaded_and_with_a_new_chat(
    tiny_engine: Any, home: Path, qtbot: Any, connections: Any
) -> None:
    chat = _chat(connections.context(), qtbot)  # the window's engine, nothing loaded
    chat.input.setPlainText("Hello")
    assert not chat.send() and chat.error_label.text().startswith("No model is loaded")
    chat.ctx.bridge.statusChanged.emit(tiny_engine.status)
    assert chat.error_label.isHidden() and chat.error_label.text() == ""

    assert not chat.send() and chat.error_label.text().startswith("No model is loaded")
    chat.new_conversation()
    assert chat.error_label.isHidden()


def test_bench_hint_follows_the_engine(tiny_engine: Any, home: Path, qtbot: Any, connections: Any) -> None:
    from console.ui.bench.panel import BenchPanel

    panel = BenchPanel(connections.context(engine=tiny_engine))
    qtbot.addWidget(panel)
    assert "Load a model" not in panel.status_label.text()  # loaded before the tab was made
    panel.ctx.bridge.statusChanged.emit(EngineStatus(EngineState.STOPPED))
    assert panel.status_label.text() == "Load a model to run a bench on it."
    panel.ctx.bridge.statusChanged.emit(tiny_engine.status)
    assert "Load a model" not in panel.status_label.text() and panel.run_button.isEnabled()


def test_continue_is_offered_after_stop(tiny_engine: Any, home: Path, qtbot: Any, connections: Any) -> None:
    chat = _chat(connections.context(engine=tiny_engine), qtbot)
    assert tiny_engine.status.state == EngineState.READY
    chat.max_tokens.setValue(400)
    chat.input.setPlainText("Tell me a long story")
    assert chat.send()
    qtbot.waitUntil(lambda: len(chat._stream_text) > 0, timeout=60_000)
    chat.stop()
    qtbot.waitUntil(lambda: chat.active_id is None, timeout=60_000)
    last = chat.messages[-1]
    assert last.finish_reason == "abort" and last.content
    assert chat.continue_button.isEnabled()
    assert chat.continue_answer()
    qtbot.waitUntil(lambda: chat.active_id is None, timeout=60_000)
    assert chat.messages[-1].content.startswith(last.content) and len(chat.messages) == 2
