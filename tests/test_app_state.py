"""console/app_state.py: the store's models and the selection the Models panel writes and the other
views follow, Qt-free."""

from __future__ import annotations

import subprocess
import sys

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


def test_the_state_holds_the_configuration_its_writer_sets() -> None:
    state, heard = AppState(), []
    with pytest.raises(ValueError, match=NO_MODEL):
        state.engine_config()
    state.observe_config(heard.append)
    config = EngineConfig(model="/models/qwen")
    state.set_config(config)
    assert state.engine_config() is config
    state.set_config(None, ValueError("max_model_len: 8 is below 16"))
    with pytest.raises(ValueError, match="below 16"):
        state.engine_config()
    assert heard == [config, None]


def test_the_models_list_is_observed_apart_from_the_selection() -> None:
    state, lists, selections = AppState(), [], []
    stop_lists = state.observe_models(lists.append)
    state.observe(selections.append)
    state.list_models(["a", "b"])
    state.list_models(("a", "b"))  # the same list: no call
    state.select("a", None)
    assert lists == [("a", "b")] and selections == [Selection("a", None)] and state.models == ("a", "b")
    assert state.observer_count() == 2
    stop_lists()
    stop_lists()  # stopping twice is harmless
    state.list_models([])
    assert lists == [("a", "b")] and state.models == () and state.observer_count() == 1


def test_a_change_made_by_an_observer_is_the_last_word() -> None:
    """The observers after the one that changed the state hear only the newer value, once."""
    state, later = AppState(), []

    def correct(s: Selection) -> None:
        if s.model == "missing":
            state.select("qwen", s.preset)

    state.observe(correct)
    state.observe(later.append)
    state.select("missing", "balanced")
    assert later == [Selection("qwen", "balanced")] and state.selection == Selection("qwen", "balanced")


def test_the_state_imports_no_qt() -> None:
    code = (
        "import sys, console.app_state; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6', 'PyQt5', 'PyQt6')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "[]", out.stdout
