"""The chat's model picker and load banner tied to the Models panel: the window's one
call, :func:`connect_models`. The picker's list follows the panel's table, a choice selects and
loads there, and the banner's fix is the planner's first suggestion for the model whose load
failed. Above both panels (the chat's widgets know nothing of the Models panel)."""

from __future__ import annotations

from typing import Any

from console.ui.chat_panel import ChatPanel
from console.ui.core_text import translate_core_text
from console.ui.models_panel import ModelsPanel


def planner_fix(models: ModelsPanel, name: str) -> tuple[str, dict[str, Any]] | None:
    """The planner's first settings suggestion for ``name`` as the Models panel plans it now (its
    text as the Planner box shows it, and its changes), or None."""
    plan = models.plan_view.plan
    if plan is None or models.selected_name() != name:
        return None
    for s in plan.suggestions:
        if s.kind == "settings" and s.changes:
            return translate_core_text(s.summary), dict(s.changes)
    return None


def connect_models(chat: ChatPanel, models: ModelsPanel) -> None:
    """Tie the chat's picker and load banner to the Models panel (the window calls this once)."""
    picker, banner, bridge = chat.model_picker, chat.load_banner, models.ctx.bridge

    def refresh() -> None:
        picker.set_models([e.name for e in models.table_model.entries])

    def pick(name: str) -> None:
        if not (models.select_model(name) and models.load_selected()):
            picker.revert()  # refused or not confirmed: the combo says what is loaded

    models.table_model.modelReset.connect(refresh)
    picker.chosen.connect(pick)
    bridge.statusChanged.connect(picker.follow_status)  # the bridge outlives a closed window
    banner.set_fix_source(lambda failed: planner_fix(models, failed))
    banner.applyRequested.connect(models.apply_change)
    banner.retryRequested.connect(models.load_selected)
    refresh()
    picker.follow_status(models.ctx.host.status)


__all__ = ["connect_models", "planner_fix"]
