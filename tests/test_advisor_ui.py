"""The Advisor dock: findings listed from the store, Apply moves the Models panel's knobs, a
recording replays, and a broken file is a message, not a traceback."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from console.engine.in_process import InProcessEngine
from console.metrics.store import MetricsStore
from console.settings import Knobs
from console.ui.advisor.panel import AdvisorPanel, knobs_with_change

ROOT = Path(__file__).resolve().parents[1]


class _Ctx:
    """The two things the panel reads from the app context: the engine's config and the store."""

    def __init__(self) -> None:
        self.engine = InProcessEngine()  # not loaded: config is None, no engine is started
        self.metrics = MetricsStore()


@pytest.fixture()
def panel(qtbot: Any) -> AdvisorPanel:
    p = AdvisorPanel(_Ctx())  # type: ignore[arg-type]
    qtbot.addWidget(p)
    return p


def test_live_findings_and_apply(panel: AdvisorPanel, qtbot: Any) -> None:
    assert panel.list.count() == 0 and not panel.apply_button.isEnabled()
    assert "no rule fired" in panel.header.text()
    import time

    now = time.time()
    for i in range(16):  # 8 s of a full KV cache, just now
        panel.ctx.metrics.record_step(t=now - 8 + i * 0.5, running=4, kv_usage=0.97)
    panel.refresh()
    assert panel.list.count() == 1 and "KV cache" in panel.list.item(0).text()
    assert "kv_cache_dtype = fp8" in panel.detail.text()
    with qtbot.waitSignal(panel.applyRequested, timeout=2000) as blocker:
        panel.apply_button.click()
    assert blocker.args == [{"kv_cache_dtype": "fp8"}]


def test_replaying_a_recording_and_back_to_live(panel: AdvisorPanel, tmp_path: Path) -> None:
    assert panel.open_recording(str(ROOT / "benchmarks/gpu/results/series_8b_bf16.json.gz"))
    titles = [panel.list.item(i).text() for i in range(panel.list.count())]
    assert len(titles) == 4  # KV, preemptions, queue wait, power cap (as `advise` says)
    assert "vram-foreign" in panel.header.text()  # its budget is unknown: said, not hidden
    assert "emulated 24 GB" in panel.header.text() and panel.live_button.isVisibleTo(panel)
    panel.list.setCurrentRow(titles.index(next(t for t in titles if "preempted" in t)))
    assert "max_num_seqs = 192" in panel.detail.text()
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    assert not panel.open_recording(str(bad))
    assert "Cannot open the recording" in panel.header.text()
    panel._on_live_clicked()
    assert panel.replay is None and panel.list.count() == 0


def test_knobs_with_change_keeps_what_the_panel_has_no_knob_for() -> None:
    knobs, skipped = knobs_with_change(Knobs(max_num_seqs=32), {"max_num_seqs": 64, "block_size": 32})
    assert knobs.max_num_seqs == 64 and skipped == ["block_size"]
    knobs, skipped = knobs_with_change(knobs, {"max_num_batched_tokens": 8192, "enforce_eager": True})
    assert (knobs.max_num_batched_tokens, knobs.enforce_eager, skipped) == (8192, True, [])  # Advanced knobs


def test_window_has_the_advisor_dock_and_apply_moves_the_models_knobs(home: Path, qtbot: Any) -> None:
    from console.models.store import ModelStore
    from console.settings import load_settings
    from console.ui.context import AppContext
    from console.ui.main_window import MainWindow

    ctx = AppContext.create(store=ModelStore())
    w = MainWindow(ctx, load_settings(), owns_engine=False)
    qtbot.addWidget(w)
    w.models.set_knobs(Knobs(max_num_seqs=32, kv_cache_dtype=None))
    messages: list[str] = []
    w.models.message.connect(messages.append)
    w.advisor.applyRequested.emit(
        {"max_num_seqs": 64, "kv_cache_dtype": "fp8", "max_num_batched_tokens": 8192, "block_size": 32}
    )
    knobs = w.models.knobs()
    assert knobs.max_num_seqs == 64 and knobs.kv_cache_dtype == "fp8" and knobs.max_num_batched_tokens == 8192
    assert "reload" in messages[-1] and "block_size" in messages[-1]
    ctx.sampler.stop()


def test_save_recording_off_the_gui_thread_then_replay(panel: AdvisorPanel, qtbot: Any, tmp_path: Path) -> None:
    import time

    for i in range(16):
        panel.ctx.metrics.record_step(t=time.time() - 8 + i * 0.5, running=3, kv_usage=0.97, preemptions=1)
    path = tmp_path / "rec.json"
    with qtbot.waitSignal(panel.recordingSaved, timeout=10_000) as blocker:
        panel.save_recording(str(path))
    assert blocker.args == [str(path), ""] and "saved" in panel.header.text()
    assert panel.open_recording(str(path))
    assert {panel.report.findings[i].rule_id for i in range(panel.list.count())} == {  # type: ignore[union-attr]
        "kv-cache-saturation",
        "preemptions",
    }
    with qtbot.waitSignal(panel.recordingSaved, timeout=10_000) as blocker:
        panel.save_recording(str(path / "inside-a-file.json"))  # its "folder" is a file
    assert blocker.args[1] and "Cannot save" in panel.header.text() and panel.save_button.isEnabled()


def test_metrics_endpoint_toggle(panel: AdvisorPanel) -> None:
    import socket
    import urllib.request

    panel.METRICS_PORT = 0  # a free port
    assert panel.metrics_server is None  # off by default
    panel.ctx.metrics.record_step(running=5, waiting=2)
    panel.metrics_check.setChecked(True)
    server = panel.metrics_server
    assert server is not None and server.host == "127.0.0.1" and server.url in panel.header.text()
    text = urllib.request.urlopen(server.url, timeout=10).read().decode()
    assert 'vllm:num_requests_waiting{engine="0",model_name=""} 2.0' in text
    panel.metrics_check.setChecked(False)
    assert panel.metrics_server is None
    with pytest.raises(OSError):
        urllib.request.urlopen(server.url, timeout=2)
    with socket.socket() as busy:  # a taken port: a message, the box unticks
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        panel.METRICS_PORT = busy.getsockname()[1]
        panel.metrics_check.setChecked(True)
    assert not panel.metrics_check.isChecked() and "cannot serve metrics" in panel.header.text()


@pytest.mark.parametrize("owns_engine", [False, True])
def test_closing_the_window_stops_the_metrics_server_and_frees_its_port(
    home: Path, qtbot: Any, owns_engine: bool
) -> None:
    import socket
    import urllib.request

    from console.models.store import ModelStore
    from console.settings import load_settings
    from console.ui.context import AppContext
    from console.ui.main_window import MainWindow

    ctx = AppContext.create(store=ModelStore())  # no engine is loaded: closing needs none
    w = MainWindow(ctx, load_settings(), owns_engine=owns_engine)
    qtbot.addWidget(w)
    w.show()
    w.advisor.METRICS_PORT = 0
    w.advisor.metrics_check.setChecked(True)
    server = w.advisor.metrics_server
    assert server is not None
    port = server.port
    assert urllib.request.urlopen(server.url, timeout=10).status == 200
    if owns_engine:
        with qtbot.waitSignal(w.shutdownFinished, timeout=30_000):
            w.close()
    else:
        w.close()
    assert w.advisor.metrics_server is None and not server.running
    with pytest.raises(OSError):
        urllib.request.urlopen(server.url, timeout=2)
    with socket.socket() as again:  # the port is free: another server can listen on it
        again.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as http.server does (TIME_WAIT)
        again.bind(("127.0.0.1", port))
        again.listen()
    ctx.sampler.stop()
