"""The chat's model picker and load banner tied to the application state and to the Models panel's
intents: the window's one call, :func:`connect_models`. The picker's list is the store's models as
the state lists them; a choice selects the model in the Models panel and loads it through the panel's
own path; the banner's fix is the planner's first suggestion for the model whose load failed. The
window hands over the panel's intents, so nothing here imports a panel."""

from __future__ import annotations

from typing import Any, Callable

from console.planner.core import Plan
from console.ui.chat.model_combo import ChatModelPicker
from console.ui.context import AppContext
from console.ui.core_text import translate_core_text
from console.ui.chat.load_banner import LoadBanner
from console.ui.state_signals import StateSignals


def planner_fix(plan: Plan | None, selected: str | None, name: str) -> tuple[str, dict[str, Any]] | None:
    """The first settings suggestion of ``plan`` (the plan of the ``selected`` model) when it is the
    plan of ``name``: its text as the Planner box shows it, and its changes; else None."""
    if plan is None or selected != name:
        return None
    for s in plan.suggestions:
        if s.kind == "settings" and s.changes:
            return translate_core_text(s.summary), dict(s.changes)
    return None


def connect_models(
    ctx: AppContext,
    picker: ChatModelPicker,
    banner: LoadBanner,
    *,
    select: Callable[[str], bool],
    load: Callable[[], bool],
    apply_change: Callable[[dict[str, Any]], None],
    plan: Callable[[], Plan | None],
) -> None:
    """Tie the chat's picker and load banner to the state (the window calls this once), with the
    Models panel's intents: ``select`` a model there (False when its table has no such model),
    ``load`` the selected one as the panel does (False when refused or not confirmed),
    ``apply_change``: set the knobs a planner suggestion names; ``plan``: the plan of the selection."""
    state = ctx.state

    def pick(name: str) -> None:
        if not (select(name) and load()):
            picker.revert()  # refused or not confirmed: the combo says what is loaded

    signals = StateSignals(state, picker)  # observes as long as the picker exists
    signals.modelsChanged.connect(picker.set_models)
    picker.chosen.connect(pick)
    ctx.bridge.statusChanged.connect(picker.follow_status)  # the bridge outlives a closed window
    banner.set_fix_source(lambda failed: planner_fix(plan(), state.selection.model, failed))
    banner.applyRequested.connect(apply_change)
    banner.retryRequested.connect(load)
    picker.set_models(state.models)
    picker.follow_status(ctx.engine.status)


__all__ = ["connect_models", "planner_fix"]
