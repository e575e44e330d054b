"""The window fits a 1366 x 768 laptop at default font sizes: opened offscreen with no
engine, its minimum size (every tab built, the Models dock shown) is at most 1366 x 768 and a
resize to it takes; the Advisor dock is hidden until asked and listed in the View menu."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from console.models.store import ModelStore
from console.settings import load_settings
from console.ui.context import AppContext

LAPTOP = (1366, 768)


def test_window_fits_a_laptop_screen(home: Path, tiny_model: Path, qtbot: Any) -> None:
    from console.ui.main_window import MainWindow

    store = ModelStore()
    store.add_reference("tiny", tiny_model)
    ctx = AppContext.create(store=store)
    w = MainWindow(ctx, load_settings(), owns_engine=False)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitUntil(lambda: w._panels_built, timeout=10_000)
    w.models.select_model("tiny")
    qtbot.waitUntil(lambda: "context" in w.models.plan_label.text(), timeout=10_000)  # the plan is shown
    for i in range(w.tabs.count()):  # the widest tab decides: look at each
        w.tabs.setCurrentIndex(i)
        qtbot.wait(10)
        hint = w.minimumSizeHint().expandedTo(w.minimumSize())
        assert hint.width() <= LAPTOP[0] and hint.height() <= LAPTOP[1], (w.tabs.tabText(i), hint)
    w.tabs.setCurrentIndex(0)
    assert w.dock.isVisible()

    w.resize(*LAPTOP)
    qtbot.waitUntil(lambda: (w.width(), w.height()) == LAPTOP, timeout=5000)

    advisor = w.advisor.dock
    assert advisor is not None and not advisor.isVisible()
    view = next(a.menu() for a in w.menuBar().actions() if a.text() == "&View")
    toggle = advisor.toggleViewAction()
    assert toggle in view.actions() and toggle.text() == "Advisor"
    toggle.trigger()
    qtbot.waitUntil(advisor.isVisible, timeout=5000)
    ctx.sampler.stop()
