"""The model picker in "Get a model…" (console/ui/models/get_model_picker.py): the curated list with coloured
fit badges, search (Enter) against a local fake of the hubs' search APIs in a worker thread with
Cancel, errors as one line, offline mode, and a chosen result going through the dialog's existing
Check and Download path against the fake Hub of tests/test_download.py (never the internet)."""

from __future__ import annotations

import json
import threading
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

import pytest
from PySide6.QtCore import Qt

from console.models.curated import fit_badges, load_curated
from console.models.download import preview
from console.models.gguf_info import gguf_advice, gguf_names
from console.models.store import ModelStore
from console.ui.models.get_model_dialog import GetModelDialog
from console.ui.models.get_model_picker import COLUMNS, ModelPicker
from console.ui.models.table import VERDICT_COLOURS
from search_fakes import SearchHub, search_hub  # noqa: F401  (the fixture)
from test_download import REPO, Hub, _handler, hub  # noqa: F401  (the fake Hub fixture)

FITS = COLUMNS.index("fits")


def _wait(qtbot: Any, picker: ModelPicker) -> None:
    qtbot.waitUntil(lambda: not picker.busy, timeout=20_000)


def _column(picker: ModelPicker, key: str) -> list[str]:
    return [picker.table.item(r, COLUMNS.index(key)).text() for r in range(picker.table.rowCount())]


def test_the_curated_list_comes_first_with_coloured_badges(qtbot: Any) -> None:
    picker = ModelPicker("rtx-4080")  # a 16 GB card: some of the list does not fit as it is
    qtbot.addWidget(picker)
    _wait(qtbot, picker)
    models = load_curated().models
    assert _column(picker, "model") == [m.repo for m in models]
    for r, m in enumerate(models):
        badges = fit_badges(m.model_shape, m.quantization, "rtx-4080", knobs=m.engine_knobs)
        cell = picker.table.item(r, FITS)
        fg, bg = VERDICT_COLOURS[badges.verdict]
        assert cell.background().color().name() == bg and cell.foreground().color().name() == fg, m.repo
        assert cell.toolTip() == badges.detail
    verdicts = {fit_badges(m.model_shape, m.quantization, "rtx-4080", knobs=m.engine_knobs).verdict for m in models}
    assert {"fits"} < verdicts  # both colours on screen: the badges are not all the same
    assert "rtx-4080" in picker.caption.text()


def test_enter_searches_in_a_worker_and_shows_badged_results(qtbot: Any, search_hub: SearchHub) -> None:  # noqa: F811
    picker = ModelPicker(None)
    qtbot.addWidget(picker)
    _wait(qtbot, picker)
    assert search_hub.requests == []  # nothing leaves the machine until the user searches
    picker.search_edit.setText("qwen3 8b")
    qtbot.keyClick(picker.search_edit, Qt.Key.Key_Return)
    assert picker.busy and picker.cancel_button.isEnabled()  # the GUI thread is not waiting
    _wait(qtbot, picker)
    assert [p for p, _ in search_hub.requests] == ["/api/models"]  # one request, on Enter
    repos = _column(picker, "model")
    assert repos == [
        "Qwen/Qwen3-8B-AWQ",
        "Qwen/Qwen3-8B-FP8",
        "Qwen/Qwen3-8B-GGUF",
        "someone/qwen3-8b-abliterated-merge",
    ]
    fits = _column(picker, "fits")
    assert fits[0] == "fits" and fits[3] == "fits"  # the merge: Qwen3-8B's shape, 16-bit
    assert picker.table.item(0, FITS).background().color().name() == VERDICT_COLOURS["fits"][1]
    gguf_row = repos.index("Qwen/Qwen3-8B-GGUF")
    assert _column(picker, "weights")[gguf_row] == "GGUF → 16-bit"
    assert "Qwen/Qwen3-8B-AWQ" in _column(picker, "notes")[gguf_row]  # the checkpoint to take instead
    assert _column(picker, "notes")[3] == "Qwen3-8B"
    picker.search_edit.setText("mystery")
    qtbot.keyClick(picker.search_edit, Qt.Key.Key_Return)
    _wait(qtbot, picker)
    assert _column(picker, "fits") == ["unknown"] and _column(picker, "notes") == ["shape unknown until download"]
    assert picker.table.item(0, FITS).background().color().name() == "#e6e6e6"
    picker.source_combo.setCurrentIndex(picker.source_combo.findData("modelscope"))
    picker.search_button.click()
    _wait(qtbot, picker)
    assert search_hub.requests[-1][0] == "/openapi/v1/models" and "someone/Mystery-8B-Chat" in _column(picker, "model")


def test_cancel_drops_a_slow_answer_and_errors_are_one_line(
    qtbot: Any,
    search_hub: SearchHub,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    picker = ModelPicker(None)
    qtbot.addWidget(picker)
    _wait(qtbot, picker)
    curated = _column(picker, "model")
    search_hub.delay_s = 1.5
    picker.search_edit.setText("qwen3 8b")
    picker.search_button.click()
    picker.cancel_button.click()
    assert not picker.busy and "cancelled" in picker.caption.text()
    qtbot.wait(2500)  # the answer arrives and is dropped
    assert _column(picker, "model") == curated
    search_hub.delay_s = 0
    search_hub.status = 429
    picker.search_button.click()
    _wait(qtbot, picker)
    assert "HTTP 429" in picker.error_label.text() and "\n" not in picker.error_label.text()
    monkeypatch.setenv("INFERENCE_CONSOLE_OFFLINE", "1")
    requests = len(search_hub.requests)
    picker.search_button.click()
    _wait(qtbot, picker)
    assert "Offline mode is on" in picker.error_label.text() and len(search_hub.requests) == requests


class _SearchAndFiles:
    """The fake Hub of tests/test_download.py, answering a search (``/api/models``) too."""

    @staticmethod
    def handler(hub: Hub) -> type:
        base = _handler(hub)
        found = [{"id": REPO, "downloads": 3, "likes": 0, "tags": ["safetensors", "text-generation"]}]

        class H(base):  # type: ignore[misc, valid-type]
            def do_GET(self) -> None:
                if self.path.split("?")[0] == "/api/models":
                    body = json.dumps(found).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    return
                super().do_GET()

        return H


@pytest.fixture()
def files_hub(tiny_model: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Hub]:
    h = Hub({p.name: p.read_bytes() for p in tiny_model.iterdir() if p.is_file()})
    server = ThreadingHTTPServer(("127.0.0.1", 0), _SearchAndFiles.handler(h))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{server.server_address[1]}")
    monkeypatch.delenv("HF_TOKEN", raising=False)
    for key in ("INFERENCE_CONSOLE_OFFLINE", "HF_HUB_OFFLINE"):
        monkeypatch.delenv(key, raising=False)
    try:
        yield h
    finally:
        server.shutdown()
        server.server_close()


def test_a_chosen_result_is_checked_and_downloaded_through_the_existing_path(
    qtbot: Any, files_hub: Hub, home: Path
) -> None:
    dialog = GetModelDialog(ModelStore(), gpu="rtx-4090")
    qtbot.addWidget(dialog)
    dialog.show()
    _wait(qtbot, dialog.picker)
    dialog.picker.search_edit.setText("tiny")
    qtbot.keyClick(dialog.picker.search_edit, Qt.Key.Key_Return)
    _wait(qtbot, dialog.picker)
    assert _column(dialog.picker, "model") == [REPO]
    dialog.picker.table.selectRow(0)
    assert dialog.picker.use_button.isEnabled()
    dialog.picker.use_button.click()
    assert dialog.repo_edit.text() == REPO and dialog.busy  # Check started
    qtbot.waitUntil(lambda: not dialog.busy, timeout=20_000)
    assert dialog.preview is not None and "fits" in dialog.summary_label.text()
    with qtbot.waitSignal(dialog.downloaded, timeout=60_000) as blocker:
        dialog.download_button.click()
    assert blocker.args == ["tiny"] and "tiny" in dialog.store
    assert any("/resolve/" in line[1] and line[1].endswith(".safetensors") for line in files_hub.log)
    qtbot.waitUntil(lambda: not dialog.busy, timeout=60_000)


def test_gguf_advice_and_the_checkpoint_offered_instead(qtbot: Any, hub: Hub, home: Path) -> None:  # noqa: F811
    dialog = GetModelDialog(ModelStore(), gpu="rtx-4090")
    qtbot.addWidget(dialog)
    pv = preview(REPO)  # a real preview of the fake Hub's tiny model, given a GGUF's advice below
    advice = gguf_advice(4_920_000_000, 8_030_261_248, gguf_names("bartowski/Meta-Llama-3.1-8B-Instruct-GGUF"))
    gguf_pv = type(pv)(**{**pv.__dict__, "gguf": "Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf", "gguf_advice": advice})
    text = dialog._summary(gguf_pv)
    assert "Q4_K_M.gguf is a 4.6 GiB GGUF of a 8.0B-parameter model" in text, text
    assert "about 15.0 GiB" in text  # 16.06 GB
    assert dialog.instead_button.isVisibleTo(dialog)
    assert "hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4" in dialog.instead_button.text()
    dialog.instead_button.click()
    assert dialog.repo_edit.text() == "hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4"
    assert not dialog.instead_button.isVisibleTo(dialog)  # a new Check is on its way
    qtbot.waitUntil(lambda: not dialog.busy, timeout=20_000)
