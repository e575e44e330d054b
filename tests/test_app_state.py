"""console/app_state.py: the selection the Models panel writes and the Server tab reads, Qt-free."""

from __future__ import annotations

import pytest

from console.app_state import NO_MODEL, AppState, Selection
from console.config import EngineConfig


def test_observers_hear_each_change_once_until_stopped() -> None:
    state = AppState()
    heard: list[Selection] = []
    stop = state.observe(heard.append)
    state.select("qwen", "balanced")
    state.select("qwen", "balanced")  # no change: no call
    state.select("", None)  # "" is no model
    assert heard == [Selection("qwen", "balanced"), Selection(None, None)]
    stop()
    state.select("llama", None)
    assert len(heard) == 2 and state.selection == Selection("llama", None)


def test_a_failing_observer_does_not_stop_the_others() -> None:
    state, heard = AppState(), []

    def broken(_s: Selection) -> None:
        raise RuntimeError("boom")

    state.observe(broken)
    state.observe(heard.append)
    state.select("qwen", None)
    assert heard == [Selection("qwen", None)]


def test_the_configuration_comes_from_the_provider() -> None:
    state = AppState()
    with pytest.raises(ValueError, match=NO_MODEL):
        state.engine_config()
    config = EngineConfig(model="/models/qwen")
    state.provide_config(lambda: config)
    assert state.engine_config() is config
