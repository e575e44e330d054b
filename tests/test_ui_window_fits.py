"""The window fits the screen it opens on, and every button of every tab can be reached on a
1366 x 768 laptop; the Chat tab is the chat (the transcript in front), its settings in a side panel
that folds away and stays folded across restarts; the Models sidebar's Load row stays in view. Offscreen,
no engine (nothing stands in for it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QRect
from PySide6.QtWidgets import QAbstractButton, QScrollArea, QWidget

from console.models.store import ModelStore
from console.settings import load_settings
from console.ui.context import AppContext
from console.ui.window_fit import FRAME_ALLOWANCE, initial_size

LAPTOP = (1366, 768)


def _window(qtbot: Any, size: tuple[int, int] | None = None, model: Path | None = None) -> Any:
    from console.ui.main_window import MainWindow

    store = ModelStore()
    if model is not None:
        store.add_reference("tiny", model)
    ctx = AppContext.create(store=store)
    w = MainWindow(ctx, load_settings(), owns_engine=False)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitUntil(lambda: w._panels_built, timeout=10_000)
    if size is not None:
        w.resize(*size)
        qtbot.waitUntil(lambda: (w.width(), w.height()) == size, timeout=5000)
    return w


def test_initial_size_is_within_the_screen() -> None:
    for avail in ((1366, 768), (1600, 900), (1920, 1080), (3840, 2160)):
        w, h = initial_size(avail)
        assert w + FRAME_ALLOWANCE[0] <= avail[0] and h + FRAME_ALLOWANCE[1] <= avail[1], (avail, w, h)
        assert w >= 0.8 * (avail[0] - FRAME_ALLOWANCE[0]) or w >= 1400, (avail, w)  # uses the screen
    assert initial_size((1600, 900))[1] < 900 - 30  # the status bar above the screen's edge
    big = initial_size((3840, 2160))
    assert big[0] <= 1800 and big[1] <= 1100  # not a wall of empty space on a 4K screen


def test_window_opens_and_restores_within_the_screen(home: Path, qtbot: Any) -> None:
    w = _window(qtbot)
    avail = w.screen().availableGeometry()
    floor = w.minimumSizeHint()  # the offscreen screen is 800 x 800: the window's minimum decides
    assert w.width() <= max(avail.width(), floor.width()) and w.height() <= max(avail.height(), floor.height())
    w.resize(avail.width() + 900, avail.height() + 700)  # a bigger screen's saved geometry
    qtbot.waitUntil(lambda: w.width() > avail.width(), timeout=5000)
    w.save_settings()
    w.close()
    again = _window(qtbot)
    assert again.width() <= max(avail.width(), floor.width()) and again.height() <= max(avail.height(), floor.height())
    again.ctx.sampler.stop()


def _clipped(button: QWidget, window: QWidget) -> QRect:
    """The part of ``button`` its ancestors (up to the window) let be seen, in window coordinates."""
    rect = QRect(button.mapTo(window, button.rect().topLeft()), button.size())
    parent = button.parentWidget()
    while parent is not None and parent is not window:
        rect = rect.intersected(QRect(parent.mapTo(window, parent.rect().topLeft()), parent.size()))
        parent = parent.parentWidget()
    return rect.intersected(window.rect())


def _reachable(button: QAbstractButton, window: QWidget) -> bool:
    scrolls = []
    parent = button.parentWidget()
    while parent is not None and parent is not window:
        if isinstance(parent, QScrollArea):
            scrolls.append(parent)
        parent = parent.parentWidget()
    for area in scrolls:  # innermost first; each brings the button into its viewport
        area.ensureWidgetVisible(button, 0, 0)
    seen = _clipped(button, window)
    return seen.width() >= button.width() - 2 and seen.height() >= button.height() - 2


def test_every_button_of_every_tab_is_reachable_on_a_laptop(home: Path, qtbot: Any) -> None:
    w = _window(qtbot, LAPTOP)
    w.chat.set_settings_shown(True)  # the chat's side panel unfolded: its buttons too
    qtbot.wait(20)
    assert (w.width(), w.height()) == LAPTOP  # unfolding it does not widen the window past the screen
    cut: list[str] = []
    for i in range(w.tabs.count()):
        w.tabs.setCurrentIndex(i)
        qtbot.wait(20)
        for b in w.findChildren(QAbstractButton):
            if b.isVisible() and b.isEnabled() and not _reachable(b, w):
                name = b.text() or b.accessibleName() or b.toolTip() or b.objectName() or type(b).__name__
                cut.append(f"{w.tabs.tabText(i)}: {name!r} ({b.parentWidget().__class__.__name__})")
    assert not cut, cut
    w.ctx.sampler.stop()


def test_models_load_row_stays_in_view_on_a_laptop(home: Path, tiny_model: Path, qtbot: Any) -> None:
    w = _window(qtbot, LAPTOP, tiny_model)
    models = w.models
    assert models.select_model("tiny")
    qtbot.waitUntil(lambda: "context" in models.plan_label.text(), timeout=10_000)  # the plan is shown
    models.knobs_box.advanced_button.click()  # Advanced open: the sidebar at its longest
    qtbot.wait(20)
    for b in (models.load_button, models.unload_button, models.reload_button, models.keep_warm_check):
        seen = _clipped(b, w)  # in view as it is, no scrolling
        assert seen.size() == b.size(), (b.text(), seen, b.size())
    assert models.load_button.isEnabled()
    w.ctx.sampler.stop()


def test_chat_settings_fold_and_the_state_survives_a_restart(home: Path, qtbot: Any) -> None:
    w = _window(qtbot, (1600, 900))
    chat, action = w.chat, w.act_chat_settings
    assert action.isCheckable() and action.shortcut().toString() == "Ctrl+Shift+S"
    assert action in next(a.menu() for a in w.menuBar().actions() if a.text() == "&View").actions()
    # the offscreen screen is 800 px wide: narrower than 1200, so the first start shows it folded
    assert not chat.side_panel.isVisible() and not action.isChecked() and not chat.settings_button.isChecked()
    chat.settings_button.click()
    qtbot.waitUntil(chat.side_panel.isVisible, timeout=5000)
    assert action.isChecked()
    assert chat.temperature.isVisible() and chat.max_tokens.isVisible()
    w.save_settings()
    w.close()

    w = _window(qtbot, (1600, 900))  # the restart: unfolded as it was left
    chat = w.chat
    assert chat.side_panel.isVisible() and w.act_chat_settings.isChecked() and chat.settings_button.isChecked()
    transcript = chat.transcript.width()
    ancestors = {id(p) for p in _ancestors(chat.transcript, chat)}
    wider = [
        type(x).__name__
        for x in chat.findChildren(QWidget)
        if x.isVisible() and id(x) not in ancestors and x.width() > transcript and not chat.transcript.isAncestorOf(x)
    ]
    assert not wider, (transcript, wider)  # the transcript is the page's widest widget
    w.act_chat_settings.trigger()
    qtbot.waitUntil(lambda: not chat.side_panel.isVisible(), timeout=5000)
    assert not chat.settings_button.isChecked()
    qtbot.waitUntil(lambda: chat.transcript.width() > transcript, timeout=5000)  # it takes the panel's room
    w.save_settings()
    w.close()

    w = _window(qtbot)
    assert not w.chat.side_panel.isVisible() and not w.act_chat_settings.isChecked()
    assert load_settings().chat_settings_shown is False
    w.ctx.sampler.stop()


def _ancestors(widget: QWidget, top: QWidget) -> list[QWidget]:
    out = []
    parent = widget.parentWidget()
    while parent is not None and parent is not top:
        out.append(parent)
        parent = parent.parentWidget()
    return out
