"""The load banner answers vLLM's refusal to start for the card's free memory (other programs hold
some) with the largest gpu_memory_utilization that fits what is free, and an Apply that sets it,
as it answers vLLM's KV refusal. The real banner, tied as the window ties it; no engine."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtWidgets import QWidget

from console.engine.errors import explain
from console.models.store import ModelStore
from console.ui.context import AppContext
from tests.test_planner_free_memory import VLLM_REFUSAL

pytest.importorskip("pytestqt")


def test_the_banner_answers_a_refusal_for_free_memory(home: Any, qtbot: Any) -> None:
    from console.ui.chat.model_combo import ChatModelPicker
    from console.ui.chat.models_link import connect_models
    from console.ui.chat.load_banner import LoadBanner

    ctx = AppContext.create(store=ModelStore())
    engine = QWidget()
    qtbot.addWidget(engine)
    picker, banner = ChatModelPicker(engine), LoadBanner(ctx, engine)
    applied: list[dict[str, Any]] = []
    connect_models(
        ctx, picker, banner, select=lambda _n: True, load=lambda: False, apply_change=applied.append, plan=lambda: None
    )
    # what the engine reports: vLLM's sentence (from its engine process's log) and the way out
    error = explain(RuntimeError("Engine core initialization failed. See root cause above."), log_text=VLLM_REFUSAL)
    banner.show_failure("tiny", error)
    text = banner.text()
    assert banner.state == "failed" and text.startswith("Loading tiny failed: Free memory on device cuda:0"), text
    assert (
        "Other programs hold memory on the card; this fits what is free: gpu_memory_utilization 0.77 "
        "(the largest that fits the 18.25 GiB free)" in text
    )
    assert banner.apply_button.isVisibleTo(banner)
    banner.apply_button.click()
    assert applied == [{"gpu_memory_utilization": 0.77}] and banner.apply_button.isHidden()
    # another failure with no figures: no utilization offered
    banner.show_failure("tiny", "CUDA out of memory")
    assert "this fits what is free" not in banner.text() and not banner.apply_button.isVisibleTo(banner)


def test_the_answer_is_translated(qapp: Any) -> None:
    from tests.test_i18n_core_text import _check_catalogue
    from console.engine.errors import free_memory_fix
    from console.planner import PlanRequest, plan, shape_for
    from console.planner.gpus import GiB

    fix = free_memory_fix(VLLM_REFUSAL)
    assert fix is not None
    _check_catalogue(fix[0])
    p = plan(PlanRequest(shape_for("Qwen2.5-7B"), gpu="rtx-4090", max_model_len=8192, in_use_bytes=3 * GiB))
    _check_catalogue(p.problems[0])
    _check_catalogue(p.suggestions[0].summary)
    graphs = plan(
        PlanRequest(
            shape_for("Qwen2.5-7B"),
            gpu="rtx-4090",
            max_model_len=8192,
            in_use_bytes=int(1.5 * GiB),
            vllm_version="0.26.0",
        )
    )
    assert "the CUDA graphs vLLM captures outside it" in graphs.problems[0]  # 0.26: a dense model's, outside
    for problem in graphs.problems:
        _check_catalogue(problem)
    _check_catalogue(graphs.rules["vllm"])
