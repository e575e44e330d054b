"""Engines by capability: only the in-process engine and a console-launched server can *load* a
configuration. Work that reloads the engine with other settings (Auto-tune, the quantization
gate, baselines) is refused on a remote server -- in the core, the CLI and the GUI -- with one
message, instead of measuring the same server twice and saving knobs that were never applied.

No engine is built here: the refusal depends on the engine's kind, not on a model.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from console.bench.workload import synthetic
from console.config import EngineConfig
from console.engine.factory import EngineChoice
from console.engine.in_process import InProcessEngine
from console.engine.interface import NEEDS_LOADER, CannotLoad, Loader, as_loader, require_loader
from console.engine.child_server import ChildServer
from console.engine.remote import RemoteEngine
from console.engine.switch import EngineSwitch
from console.engine.types import EngineState, EngineStatus
from console.models.store import ModelStore

URL = "http://127.0.0.1:9"  # never contacted: nothing here connects


def test_only_the_engines_the_console_configures_are_loaders() -> None:
    in_process, server, remote = InProcessEngine(), ChildServer(), RemoteEngine(URL)
    try:
        assert isinstance(in_process, Loader) and isinstance(server, Loader)
        assert not isinstance(remote, Loader) and not hasattr(remote, "load")
        assert as_loader(in_process) is in_process and as_loader(server) is server and as_loader(remote) is None
        with pytest.raises(CannotLoad, match="needs an engine the console can load"):
            require_loader(remote, "Auto-tune")
    finally:
        for engine in (in_process, server, remote):
            engine.close()


def test_the_switch_answers_with_its_current_backend() -> None:
    switch = EngineSwitch()
    try:
        assert isinstance(switch.current_loader(), InProcessEngine)
        assert require_loader(switch) is switch.backend
        switch.use(EngineChoice("remote", URL))
        assert switch.current_loader() is None
        with pytest.raises(CannotLoad, match=NEEDS_LOADER[:40]):
            require_loader(switch, "The quality gate")
        with pytest.raises(CannotLoad):  # the bug: this used to "connect" and ignore the config
            switch.load(EngineConfig(model="/nowhere"), "x")
    finally:
        switch.close()


def test_tune_and_gate_refuse_a_remote_engine_before_any_trial(home: Path) -> None:
    from console.bench.tune import tune
    from console.quant.gate import compare
    from console.quant.pipeline import quantize_and_gate

    remote = RemoteEngine(URL)
    try:
        # Before this change the sweep recorded each trial as failed (or, connected, measured the
        # server with knobs it never applied); now it refuses before the first trial.
        with pytest.raises(CannotLoad, match="Auto-tune needs an engine the console can load"):
            tune(remote, EngineConfig(model="/m"), {"max_num_seqs": [8, 16]}, synthetic(2, 8, 4, 512))
        with pytest.raises(CannotLoad, match="The quality gate needs an engine the console can load"):
            compare(remote, "awq", EngineConfig(model="/a"), EngineConfig(model="/b"))
        # Refused before minutes of quantizing ("nosuch" is not in the store: reaching the job
        # would raise a store error instead).
        with pytest.raises(CannotLoad):
            quantize_and_gate(ModelStore(), "nosuch", engine=remote)
    finally:
        remote.close()


def test_cli_refuses_tuning_a_remote_url(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from console.cli.main import main

    assert main(["bench", "--tune", "--engine", URL]) != 0  # in this process: refused before connecting
    err = capsys.readouterr().err
    assert "--tune needs an engine the console can load" in err
    assert "Traceback" not in err


@pytest.fixture
def remote_ctx(home: Path) -> Any:
    pytest.importorskip("pytestqt")
    from console.ui.context import AppContext

    ctx = AppContext.create(store=ModelStore())
    ctx.sampler.stop()
    yield ctx
    ctx.engine.close()


def test_gui_disables_tuning_gating_and_baselines_on_a_remote_engine(qtbot: Any, remote_ctx: Any) -> None:
    """Widget-state test: the engine's status is set by hand (no model is loaded); the engines are
    real, and what differs between the two halves is only their kind."""
    from console.ui.bench.panel import BenchPanel
    from console.ui.models.quantize_dialog import QuantizeDialog
    from console.ui.widgets import needs_loader_tip

    ctx = remote_ctx
    ready = EngineStatus(EngineState.READY, "served")

    def widgets() -> tuple[Any, Any]:
        panel = BenchPanel(ctx)
        qtbot.addWidget(panel)
        panel._on_bridge_status_changed(ready)
        dialog = QuantizeDialog(ctx, "smollm2", runner=lambda *a, **k: pytest.fail("the job must not start"))
        qtbot.addWidget(dialog)
        return panel, dialog

    panel, dialog = widgets()  # in-process engine: everything offered
    assert panel.tune.run_button.isEnabled() and panel.vllm_check.isEnabled()
    assert dialog.start_button.isEnabled() and not dialog.start_button.toolTip()

    ctx.engine.use(EngineChoice("remote", URL))
    panel, dialog = widgets()
    tip = needs_loader_tip()
    assert "needs an engine the console can load" in tip
    assert not panel.tune.run_button.isEnabled() and panel.tune.run_button.toolTip() == tip
    assert not panel.vllm_check.isEnabled() and panel.hf_check.toolTip() == tip
    assert not dialog.start_button.isEnabled() and dialog.start_button.toolTip() == tip
    # Asked anyway (a shortcut, a script): refused with the message, nothing started.
    assert panel.tune.run() is False and tip in panel.tune.error.text()
    assert dialog.start() is None
