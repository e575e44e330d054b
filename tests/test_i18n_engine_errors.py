"""An engine error the window shows carries its message: raised in the core (the engine's refusal,
vLLM's failure explained), passed on by the engine bridge as the message itself, and shown in
Chinese under zh_CN, vLLM's own words kept as written. No engine."""

from __future__ import annotations

from typing import Any

import pytest

from console.config import EngineConfig
from console.engine.errors import explain
from console.engine.types import EngineState, EngineStatus
from console.messages import Message
from tests.test_i18n_core_text import CJK, _check_catalogue, zh_cn  # noqa: F401  # zh_cn: a fixture

pytest.importorskip("pytestqt")


class _RemoteOnly:
    """An engine that cannot load (a remote server's place in the bridge): the bridge refuses."""

    status = EngineStatus(EngineState.STOPPED)

    def add_status_listener(self, _listener: Any) -> None:
        pass

    def remove_status_listener(self, _listener: Any) -> None:
        pass


def test_a_refused_load_reaches_the_window_translated(qtbot: Any, zh_cn: None) -> None:
    from console.ui.bridge import EngineBridge
    from console.ui.core_text import translate_core_text

    bridge = EngineBridge(_RemoteOnly())  # type: ignore[arg-type]
    outcomes: list[object] = []
    bridge.loadFinished.connect(outcomes.append)
    bridge.load(EngineConfig(model="/models/qwen"), "qwen")
    bridge.flush()
    bridge.close()
    [said] = outcomes
    assert isinstance(said, Message) and said.startswith("Loading a model needs an engine")
    _check_catalogue(said)
    shown = translate_core_text(said)
    assert CJK.search(shown) and "in-process" not in shown


def test_a_failed_load_is_explained_in_chinese(zh_cn: None) -> None:
    from console.ui.core_text import translate_error

    from console.engine.types import EngineError

    cause = "torch.OutOfMemoryError: CUDA error: out of memory"
    error = EngineError(explain(RuntimeError(cause), None))
    _check_catalogue(error.args[0])
    shown = translate_error(error)
    assert cause in shown and CJK.search(shown.replace(cause, ""))  # vLLM's words as written, the hint translated
    assert "smaller or quantized model" in str(error)  # the CLI and the logs keep the English


class _FailingLoader(_RemoteOnly):
    """An engine whose load fails in the core with vLLM's out-of-memory error explained."""

    CAUSE = "torch.OutOfMemoryError: CUDA error: out of memory"
    config = None

    def __init__(self) -> None:
        from console.metrics.store import MetricsStore

        self.metrics = MetricsStore()

    def load(self, config: EngineConfig, name: str | None = None) -> Any:
        import concurrent.futures as cf

        from console.engine.types import EngineError

        future: cf.Future[Any] = cf.Future()
        future.set_exception(EngineError(explain(RuntimeError(self.CAUSE), config)))
        return future

    def unload(self) -> Any:
        raise AssertionError("nothing was loaded")


def test_a_core_error_reaches_the_models_panels_error_line_in_chinese(
    qtbot: Any, zh_cn: None, home: Any, connections: Any
) -> None:
    """The path a user sees: Load in the Models panel, the engine's error raised in the core, the
    bridge's ``loadFinished``, the panel's error line, with the message's translation and vLLM's
    own words as written."""
    from console.models.store import ModelStore
    from console.ui.models.panel import ModelsPanel

    ctx = connections.context(engine=_FailingLoader(), store=ModelStore())
    panel = ModelsPanel(ctx)
    qtbot.addWidget(panel)
    ctx.bridge.load(EngineConfig(model="/models/qwen"), "qwen")
    qtbot.waitUntil(lambda: _FailingLoader.CAUSE in panel.error_label.text(), timeout=5_000)  # bridge: 30 ms
    shown = panel.error_label.text()
    assert not panel.error_label.isHidden()
    assert _FailingLoader.CAUSE in shown
    assert CJK.search(shown.replace(_FailingLoader.CAUSE, ""))  # the hint and "Load failed" translated
