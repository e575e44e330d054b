"""The chat's keys without an engine: the Chat menu's "Enter sends" setting is saved in
the settings and restored with the window, and the message box follows it; a fresh data home's
chat shows its default answer length as a number ("up to the context" one choice below it); the
settings of a version-2 file (the old 256-token cut) and of a version-4 one (0, "up to the
context", then the default) move to today's default."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from console.sampling import CHAT_MAX_TOKENS, FIT_CONTEXT, SamplingSettings
from console.models.store import ModelStore
from console.settings import load_settings, settings_path
from console.ui.context import AppContext


def _window(qtbot: Any) -> Any:
    from console.ui.main_window import MainWindow

    w = MainWindow(AppContext.create(store=ModelStore()), load_settings(), owns_engine=False)
    qtbot.addWidget(w)
    return w


def test_enter_sends_setting_is_saved_and_followed(home: Path, qtbot: Any) -> None:
    w = _window(qtbot)
    box = w.chat.input
    assert w.act_enter_sends.isChecked() and box.enter_sends and "Enter sends" in box.placeholderText()
    assert w.chat.send_button.toolTip() == "Send (Enter)"
    sent: list[bool] = []
    box.sendRequested.connect(lambda: sent.append(True))
    w.show()
    qtbot.keyClicks(box, "a")
    qtbot.keyClick(box, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    assert box.toPlainText() == "a\n" and not sent
    qtbot.keyClick(box, Qt.Key.Key_Enter, Qt.KeyboardModifier.KeypadModifier)  # the keypad's Enter too
    assert sent == [True]

    w.act_enter_sends.trigger()  # off: the Ctrl+Enter way
    assert not box.enter_sends and w.chat.send_button.toolTip() == "Send (Ctrl+Enter)"
    qtbot.keyClick(box, Qt.Key.Key_Return)
    assert box.toPlainText() == "a\n\n" and sent == [True]
    w.save_settings()
    w.ctx.sampler.stop()
    assert load_settings().enter_sends is False

    again = _window(qtbot)
    assert not again.act_enter_sends.isChecked() and not again.chat.input.enter_sends
    again.ctx.sampler.stop()


def test_one_sampling_default_for_window_and_cli(home: Path, qtbot: Any) -> None:
    import argparse

    from console.cli.engine_flags import add_sampling_args, sampling_from_args

    p = argparse.ArgumentParser()
    add_sampling_args(p)
    assert sampling_from_args(p.parse_args([])) == SamplingSettings()
    w = _window(qtbot)
    assert w.chat.sampling() == SamplingSettings() and SamplingSettings().max_tokens == CHAT_MAX_TOKENS
    assert w.chat.max_tokens.text() == str(CHAT_MAX_TOKENS) == "1024"  # the number, not hidden behind 0
    assert str(CHAT_MAX_TOKENS) in w.chat.max_tokens.toolTip()
    w.chat.max_tokens.setValue(FIT_CONTEXT)  # the explicit choice is still there
    assert w.chat.max_tokens.text() == "up to the context" and w.chat.sampling().max_tokens == FIT_CONTEXT
    w.ctx.sampler.stop()


def test_version_2_settings_drop_the_old_256_token_cut(home: Path) -> None:
    settings_path().parent.mkdir(parents=True)
    old = {"schema_version": 2, "sampling": {"temperature": 0.7, "max_tokens": 256}}
    settings_path().write_text(json.dumps(old))
    assert load_settings().sampling.max_tokens == CHAT_MAX_TOKENS  # 256 -> 0 (version 3) -> today's default
    old["sampling"]["max_tokens"] = 512  # the user's own choice stays
    settings_path().write_text(json.dumps(old))
    s = load_settings()
    assert s.sampling.max_tokens == 512 and s.enter_sends is True


def test_version_4_settings_move_from_up_to_the_context_to_the_default_length(home: Path) -> None:
    """Version 4 saved the chat's max tokens whatever it was, and its default was 0 ("up to the
    context"): a saved 0 follows today's default; another value stays."""
    settings_path().parent.mkdir(parents=True)
    settings_path().write_text(json.dumps({"schema_version": 4, "sampling": {"max_tokens": FIT_CONTEXT}}))
    assert load_settings().sampling.max_tokens == CHAT_MAX_TOKENS
    settings_path().write_text(json.dumps({"schema_version": 4, "sampling": {"max_tokens": 300}}))
    assert load_settings().sampling.max_tokens == 300
