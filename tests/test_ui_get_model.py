"""The "Get a model…" dialog against the same local fake Hub as tests/test_download.py (never the
internet): check shows size and the planner's verdict before anything downloads; download with
progress lands the model in the store; cancel leaves nothing; errors are sentences."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from console.models.store import ModelStore
from console.ui.models.get_model_dialog import GetModelDialog
from test_download import REPO, Hub, hub  # noqa: F401  (the fake Hub server fixture, reused)


@pytest.fixture()
def dialog(qtbot: Any, hub: Hub, home: Path) -> GetModelDialog:  # noqa: F811
    dlg = GetModelDialog(ModelStore(), gpu="rtx-4090")
    qtbot.addWidget(dlg)
    dlg.show()
    return dlg


def _check(qtbot: Any, dlg: GetModelDialog, repo: str) -> None:
    dlg.repo_edit.setText(repo)
    dlg.check_button.click()
    qtbot.waitUntil(lambda: not dlg.busy, timeout=20_000)


def test_check_shows_size_and_verdict_then_download_lands_in_store(
    qtbot: Any, dialog: GetModelDialog, hub: Hub
) -> None:  # noqa: F811
    _check(qtbot, dialog, REPO)
    assert dialog.preview is not None and dialog.download_button.isEnabled()
    assert not [line for line in hub.log if "/resolve/" in line[1] and line[1].endswith(".safetensors")]
    summary = dialog.summary_label.text()
    assert "KiB" in summary and "fits" in summary, summary  # size and the planner, before downloading
    assert dialog.name_edit.text() == "tiny"
    progress: list[str] = []
    with qtbot.waitSignal(dialog.downloaded, timeout=60_000) as blocker:
        dialog.download_button.click()
        assert dialog.cancel_button.isEnabled() and not dialog.close_button.isEnabled()
        progress.append(dialog.status_label.text())
    assert blocker.args == ["tiny"]
    assert "tiny" in dialog.store
    assert dialog.progress_bar.value() == 1000
    qtbot.waitUntil(lambda: not dialog.busy, timeout=60_000)
    assert "'tiny'" in dialog.status_label.text()


def test_cancel_stops_and_adds_nothing(qtbot: Any, dialog: GetModelDialog, monkeypatch: pytest.MonkeyPatch) -> None:
    import console.models.download as dl

    original = dl._http_fetch

    def held_until_cancelled(*args: Any) -> None:  # a slow network: the user presses Cancel meanwhile
        task = args[4]
        deadline = time.monotonic() + 20
        while not task.cancelled and time.monotonic() < deadline:
            time.sleep(0.01)
        original(*args)

    monkeypatch.setattr(dl, "_http_fetch", held_until_cancelled)
    _check(qtbot, dialog, REPO)
    dialog.download_button.click()
    assert dialog.cancel_button.isEnabled()
    dialog.cancel_button.click()
    qtbot.waitUntil(lambda: not dialog.busy, timeout=30_000)
    assert "stopped" in dialog.status_label.text()
    assert "tiny" not in dialog.store
    assert dialog.download_button.isEnabled()  # Download again resumes


def test_errors_are_sentences_not_tracebacks(qtbot: Any, dialog: GetModelDialog, hub: Hub) -> None:  # noqa: F811
    _check(qtbot, dialog, "org/nope")
    text = dialog.error_label.text()
    assert "No repository 'org/nope'" in text and "Traceback" not in text
    assert not dialog.download_button.isEnabled()
    _check(qtbot, dialog, REPO)
    hub.missing.add(next(p for p in hub.files if p.endswith(".safetensors")))
    dialog.download_button.click()
    qtbot.waitUntil(lambda: not dialog.busy, timeout=30_000)
    assert "not in org/tiny" in dialog.error_label.text()
    assert "tiny" not in dialog.store


def test_models_panel_opens_it(qtbot: Any, home: Path) -> None:
    from console.ui.context import AppContext
    from console.ui.models.panel import ModelsPanel

    ctx = AppContext.create()
    panel = ModelsPanel(ctx)
    qtbot.addWidget(panel)
    panel.get_model_button.click()
    dialogs = panel.findChildren(GetModelDialog)
    assert len(dialogs) == 1 and dialogs[0].isVisible()
    dialogs[0].close()
    assert panel.open_get_model() is dialogs[0]  # reopened, not duplicated
    dialogs[0].close()
    ctx.sampler.stop()
