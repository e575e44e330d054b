"""Model switching without a reload: "keep warm" in the Models panel and the in-process engine,
and ``bench --switch-to`` (switch time against a reload). Real engines on two tiny random-weight
models of different seeds (their greedy answers differ, so an answer shows which model replied).

On the CPU, vLLM's build ignores sleep, so a warm model keeps its memory; the GPU path (sleep
level 1, wake) is the same code with ``asleep`` True, refused up front without sleep mode."""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import psutil
import pytest
from PySide6.QtCore import Qt

from console.config import EngineConfig
from console.sampling import SamplingSettings
from console.engine.in_process import InProcessEngine, keep_warm_refusal
from console.engine.types import EngineInfo, EngineState, GenerationRequest, RequestFinished
from tests.conftest import TEST_KV_BYTES, wait_for


@pytest.fixture(scope="module")
def second_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.fixtures.synthetic import make_llama

    return make_llama(tmp_path_factory.mktemp("models") / "tiny-llama-b", seed=1)


def _children() -> set[int]:
    """This process's children, less multiprocessing's resource tracker (it lives as long as we do)."""
    pids = set()
    for p in psutil.Process().children(recursive=True):
        try:
            if "resource_tracker" not in " ".join(p.cmdline()):
                pids.add(p.pid)
        except psutil.Error:
            pass
    return pids


def _answer(engine: Any) -> str:
    end = engine.generate(
        GenerationRequest(
            prompt="Once upon a time", sampling=SamplingSettings(temperature=0.0, max_tokens=12, ignore_eos=True)
        ),
        timeout=120,
    )
    assert isinstance(end, RequestFinished), end
    return end.text


def test_keeping_warm_on_the_gpu_needs_sleep_mode() -> None:
    cfg = EngineConfig(model="/m")
    assert "sleep mode" in (keep_warm_refusal(cfg, "cuda") or "")
    assert keep_warm_refusal(cfg.replace(enable_sleep_mode=True), "cuda") is None
    assert keep_warm_refusal(cfg, "cpu") is None  # the CPU build ignores sleep: the model keeps its RAM


def test_the_window_engine_offers_keep_warm_only_in_process(tiny_model: Path) -> None:
    """The window's EngineSwitch forwards keep-warm to the in-process engine and refuses it, with the
    reason, for a console-launched server (nothing is started: the refusal comes first)."""
    from console.engine.factory import EngineChoice
    from console.engine.interface import CannotLoad
    from console.engine.switch import EngineSwitch

    switch = EngineSwitch()
    try:
        assert isinstance(switch.backend, InProcessEngine) and switch.warm_models() == []
        assert switch.drop_warm("nothing").result(5) is False
        switch.use(EngineChoice("serve"))
        with pytest.raises(CannotLoad, match="needs the in-process engine"):
            switch.load(EngineConfig(model=str(tiny_model), device="cpu"), "tiny", keep_warm=True)
        assert switch.warm_models() == [] and switch.drop_warm("tiny").result(5) is False
        assert switch.status.state == EngineState.STOPPED
    finally:
        switch.close()


@pytest.mark.engine
def test_the_panel_keeps_a_model_warm_switches_back_and_rebuilds_a_dead_one(
    tiny_model: Path, second_model: Path, home: Path, qtbot: Any
) -> None:
    """Models panel with "Keep the loaded model warm": load a, then b (a stays, its engine processes
    alive), then a again -- woken, not built: the same processes answer the same greedy text and
    the panel says how long the switch took against the cold load. A warm model whose engine was
    killed is built again. Unload frees the warm one too."""
    from console.models.store import ModelStore
    from console.ui.context import AppContext
    from console.ui.models.panel import ModelsPanel

    store = ModelStore()
    store.add_reference("a", tiny_model)
    store.add_reference("b", second_model)
    engine = InProcessEngine()
    ctx = AppContext.create(engine=engine, store=store)
    panel = ModelsPanel(ctx)
    qtbot.addWidget(panel)
    outcomes: list[object] = []
    ctx.bridge.loadFinished.connect(outcomes.append)
    messages: list[str] = []
    panel.message.connect(messages.append)

    def load(name: str) -> EngineInfo:
        panel.select_model(name)
        panel.context_spin.setValue(1024)
        panel.kv_gib_spin.setValue(TEST_KV_BYTES / 1024**3)
        outcomes.clear()
        assert panel.load_selected()
        qtbot.waitUntil(lambda: bool(outcomes), timeout=600_000)
        assert isinstance(outcomes[0], EngineInfo), outcomes
        qtbot.waitUntil(lambda: engine.status.state == EngineState.READY, timeout=5000)
        return outcomes[0]

    try:
        before = _children()
        first_a = load("a")
        a_procs = _children() - before
        answer_a = _answer(engine)
        panel.keep_warm_check.setChecked(True)
        load("b")
        b_procs = _children() - before - a_procs
        answer_b = _answer(engine)
        assert answer_a != answer_b  # the control: the two models answer differently
        warm = engine.warm_models()
        assert [(w.name, w.asleep, w.device) for w in warm] == [("a", False, "cpu")]
        assert all(psutil.pid_exists(p) for p in a_procs)  # kept, not shut down
        qtbot.waitUntil(lambda: "Kept warm: a (keeps its memory)." in panel.warm_label.text(), timeout=5000)
        assert not panel.drop_warm_button.isHidden()

        switched = load("a")  # woken
        assert switched.switch_seconds is not None and switched.load_seconds == first_a.load_seconds
        assert _children() - before == a_procs | b_procs  # no engine was built
        assert _answer(engine) == answer_a
        assert [w.name for w in engine.warm_models()] == ["b"]
        assert any(m.startswith("Switched to a in ") and "cold load took" in m for m in messages), messages
        assert "Kept warm: b (keeps its memory)." in panel.warm_label.text()

        for pid in b_procs:  # b's engine dies while it waits warm
            psutil.Process(pid).send_signal(signal.SIGKILL)
        wait_for(
            lambda: (
                not any(psutil.pid_exists(p) and psutil.Process(p).status() != psutil.STATUS_ZOMBIE for p in b_procs)
            ),
            20,
            "b's engine processes to die",
        )
        rebuilt = load("b")
        assert rebuilt.switch_seconds is None  # built again, not woken
        assert _answer(engine) == answer_b
        assert not any(m.startswith("Switched to b") for m in messages)
        assert [w.name for w in engine.warm_models()] == ["a"]
        assert "Kept warm: a (keeps its memory)." in panel.warm_label.text()

        qtbot.mouseClick(panel.drop_warm_button, Qt.MouseButton.LeftButton)  # b stays loaded
        qtbot.waitUntil(lambda: engine.warm_models() == [] and not panel.warm_label.isVisibleTo(panel), timeout=60_000)
        assert panel.drop_warm_button.isHidden() and engine.status.state == EngineState.READY
        wait_for(
            lambda: (
                not any(psutil.pid_exists(p) and psutil.Process(p).status() != psutil.STATUS_ZOMBIE for p in a_procs)
            ),
            30,
            "a's engine processes to be gone",
        )
        assert _answer(engine) == answer_b

        panel.unload()
        qtbot.waitUntil(lambda: engine.status.state == EngineState.STOPPED, timeout=60_000)
        assert engine.warm_models() == []
        wait_for(
            lambda: (
                not any(
                    psutil.pid_exists(p) and psutil.Process(p).status() != psutil.STATUS_ZOMBIE
                    for p in _children() - before
                )
            ),
            30,
            "every engine process to be gone",
        )
        qtbot.waitUntil(lambda: not panel.warm_label.text().startswith("Kept warm"), timeout=5000)
    finally:
        engine.close()


@pytest.mark.engine
def test_bench_switch_to_reports_switches_against_a_reload(
    home: Path, tiny_model: Path, second_model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No speed is asserted (benchmarks/speculative-cpu.md has the figures): that each switch woke the warm
    model and it answered as before, that the reload answered the same, and that on the CPU the
    warm model's memory is reported as kept."""
    from console.cli.main import main

    out = tmp_path / "switch.json"
    rc = main(
        [
            "bench",
            "--model",
            str(tiny_model),
            "--switch-to",
            str(second_model),
            "--rounds",
            "1",
            "--preset",
            "cpu-default",
            "--device",
            "cpu",
            "--kv-cache-memory-bytes",
            str(TEST_KV_BYTES),
            "--max-model-len",
            "1024",
            "--report",
            str(out),
        ]
    )
    assert rc == 0
    r = json.loads(out.read_text())
    a, b = str(tiny_model), str(second_model)
    assert [s["to"] for s in r["switches"]] == [a, b]
    assert all(s["woken"] and s["same_answer"] for s in r["switches"]), r["switches"]
    assert r["answers"][a] != r["answers"][b] and r["reload_same_answer"]
    assert r["warm_while_b_loaded"] == [{"name": a, "asleep": False}]
    assert r["engine_rss_both_loaded"] > r["engine_rss_one_loaded"] > 0  # the CPU keeps the warm one's RAM
    assert r["speedup_vs_reload"] == pytest.approx(r["reload_s"] / r["switch_s_median"])
    text = capsys.readouterr().out
    assert "woken in" in text and "kept its RAM" in text
    # a refused pair: the same model twice
    assert main(["bench", "--model", str(tiny_model), "--switch-to", str(tiny_model), "--device", "cpu"]) == 2
