"""The Server tab's Stop gives back what the server took the place of: the in-process model that
was loaded before Start is loaded again, with its configuration, and the chat's sampling box
stops describing a server's defaults once that server is gone.

The in-process engines are real (the tiny model, loaded before Start and again at Stop); the
served server is a stand-in (no ``vllm serve`` process: its start and stop are not under test)."""

from __future__ import annotations

import concurrent.futures as cf
from pathlib import Path
from typing import Any

import pytest

from console.config import EngineConfig
from console.engine import serving
from console.engine.in_process import InProcessEngine
from console.engine.child_server import free_port
from console.engine.switch import EngineSwitch
from console.engine.types import EngineInfo, EngineState, EngineStatus

pytestmark = pytest.mark.engine


class _StandInServer(serving.SharedServer):
    """A served server that starts no process: READY at once, STOPPED at unload."""

    def load(self, config: EngineConfig, name: str | None = None) -> cf.Future[EngineInfo]:
        self._config = config
        info = EngineInfo(name or "", config.model, "cpu", 1024, None, None, 0.0, "?")
        self._set_status(EngineStatus(EngineState.READY, name, "", None, info))
        done: cf.Future[EngineInfo] = cf.Future()
        done.set_result(info)
        return done

    def unload(self) -> cf.Future[None]:
        self._set_status(EngineStatus(EngineState.STOPPED))
        done: cf.Future[None] = cf.Future()
        done.set_result(None)
        return done


def test_stop_loads_back_the_in_process_model_the_server_replaced(
    tiny_model: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(serving, "SharedServer", _StandInServer)
    config = EngineConfig(model=str(tiny_model), kv_cache_memory_bytes=32 * 1024**2, max_model_len=512, device="cpu")
    switch = EngineSwitch(InProcessEngine())
    try:
        switch.load(config, "tiny").result(timeout=600)
        controller = serving.SharingController(switch, log_dir=home / "logs")
        controller.start(config, "tiny", free_port()).result(60)
        assert isinstance(switch.backend, _StandInServer) and controller.before is not None
        restored = controller.stop()
        assert restored is not None, "nothing was loaded back"
        info = restored.result(timeout=600)
        assert isinstance(switch.backend, InProcessEngine) and switch.status.state == EngineState.READY
        assert info.model == "tiny" and switch.backend.requested_config == config
        assert controller.before is None and controller.stop() is None
    finally:
        switch.close()


def test_a_stop_with_nothing_loaded_before_loads_nothing(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(serving, "SharedServer", _StandInServer)
    switch = EngineSwitch(InProcessEngine())  # nothing loaded: nothing started
    try:
        controller = serving.SharingController(switch, log_dir=home / "logs")
        controller.start(EngineConfig(model=str(home)), "x", free_port()).result(60)
        assert controller.before is None
        assert controller.stop() is None and switch.status.state == EngineState.STOPPED
    finally:
        switch.close()


def test_the_sampling_box_forgets_a_stopped_servers_defaults(
    tiny_engine: Any, home: Path, qtbot: Any, connections: Any
) -> None:
    """Widget state: the server's READY status (no model defaults: a server's own) and then its
    STOPPED status, as the bridge brings them, on a chat over the tiny engine."""
    import dataclasses

    from console.ui.chat.panel import ChatPanel

    panel = ChatPanel(connections.context(engine=tiny_engine))
    qtbot.addWidget(panel)
    box = panel.sampling_box
    served = dataclasses.replace(
        tiny_engine.status, info=dataclasses.replace(tiny_engine.status.info, sampling_defaults=None)
    )
    panel.ctx.bridge.statusChanged.emit(served)
    assert "server's defaults" in box.defaults_source.text()
    panel.ctx.bridge.statusChanged.emit(EngineStatus(EngineState.STOPPED))
    assert "server's defaults" not in box.defaults_source.text()
    panel.ctx.bridge.statusChanged.emit(tiny_engine.status)
    assert "server's defaults" not in box.defaults_source.text()
