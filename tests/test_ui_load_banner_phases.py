"""The load banner names vLLM's phases as they pass, each with its seconds, and the one under way;
the finished load's summary (the status bar's tooltip) keeps them. The real banner fed the
EngineStatus updates an engine sends while loading, through the bridge's signal (no engine: the
phases are those of a GPU load as vLLM 0.26 logged it, and of the real CPU load in
tests/test_load_phases.py)."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtWidgets import QWidget

from console.engine.load_phases import LoadPhases, Phase
from console.engine.types import EngineState, EngineStatus
from console.messages import Message
from console.models.store import ModelStore
from console.ui.context import AppContext

pytest.importorskip("pytestqt")

BUILDING = Message("building the engine (weights, KV cache)")


def _loading(phases: LoadPhases | None) -> EngineStatus:
    return EngineStatus(EngineState.LOADING, "llama-8b", BUILDING, phases=phases)


def test_the_banner_shows_the_phases_as_they_pass(home: Any, qtbot: Any) -> None:
    from console.ui.chat.load_banner import LoadBanner

    ctx = AppContext.create(store=ModelStore())
    parent = QWidget()
    qtbot.addWidget(parent)
    banner = LoadBanner(ctx, parent)
    emit = ctx.bridge.statusChanged.emit

    emit(_loading(None))  # before vLLM has said anything: the stage, as before
    assert banner.state == "loading" and banner.text().startswith("Loading llama-8b: building the engine")
    assert banner.phases_label.isHidden()

    start = Phase("start", 21.04)
    emit(_loading(LoadPhases((start,), "weights", 0.4)))
    assert "Start-up 21.0 s · now: Weights 0 s…" in banner.text()
    assert banner.phases_label.isVisibleTo(banner)

    weights = Phase("weights", 3.14, 1.84, "15.0 GiB")
    compile_ = Phase("compile", 12.4, 12.31)
    kv = Phase("kv_cache", 0.4, None, "53,792 tokens")
    emit(_loading(LoadPhases((start, weights, compile_, kv), "cuda_graphs", 5.2)))
    text = banner.text()
    assert "Start-up 21.0 s · Weights 3.1 s · Compile 12.4 s · KV cache 0.4 s · now: CUDA graphs 5 s…" in text, text

    emit(EngineStatus(EngineState.READY, "llama-8b"))
    assert banner.state == "" and banner.isHidden()

    # a CPU load: no compile, no CUDA graphs -- only the phases that happened are named
    emit(_loading(LoadPhases((Phase("start", 30.2), Phase("weights", 0.13, 0.0)), "kv_cache", 1.0)))
    text = banner.text()
    assert "Start-up 30.2 s · Weights 0.1 s · now: KV cache 1 s…" in text, text
    assert "CUDA graphs" not in text and "Compile" not in text


def test_the_finished_loads_summary_names_each_phase(qapp: Any) -> None:
    from console.ui.load_phases_text import phases_summary

    done = (
        Phase("start", 30.2),
        Phase("weights", 0.129, 0.0),
        Phase("kv_cache", 2.433, None, "65,536 tokens"),
        Phase("warmup", 0.047, 0.05),
        Phase("front_end", 0.572),
    )
    summary = phases_summary(done, 33.38)
    lines = summary.splitlines()
    assert lines[0] == "Loaded in 33.4 s:"
    assert (
        lines[2].startswith("Weights 0.1 s — building the model and reading its weights")
        and "[vLLM: 0.00 s]" in lines[2]
    )
    assert lines[3].startswith("KV cache 2.4 s") and "(65,536 tokens)" in lines[3]
    assert len(lines) == 6 and "CUDA graphs" not in summary
    assert phases_summary((), 10.0) == ""  # nothing read (logging off, a server): no summary


def test_the_phase_names_are_translated(qapp: Any) -> None:
    from console.engine.load_phases import PHASE_HELP, PHASE_LABELS
    from tests.test_i18n_core_text import _check_catalogue

    for message in (*PHASE_LABELS.values(), *PHASE_HELP.values()):
        _check_catalogue(message)
