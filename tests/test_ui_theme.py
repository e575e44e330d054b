"""View > Theme: System (the OS colour scheme, followed live), Light or Dark. Dark is a whole
palette on the Fusion style; the places with colours of their own (the load banner, the fit
badges, status and error lines, the Monitor's and Bench's plots) follow it; the choice is saved
and comes back at the next start. No engine is started."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette, QTextDocument
from PySide6.QtWidgets import QApplication

from console.engine.types import EngineState, EngineStatus
from console.models.store import ModelStore
from console.settings import Settings, load_settings, save_settings, settings_path
from console.ui.context import AppContext
from console.ui.theme import apply_theme


@pytest.fixture(autouse=True)
def _light_afterwards(qapp: QApplication) -> Iterator[None]:
    """The palette is the application's: the tests after these get the light one back."""
    yield
    apply_theme(False)


def _window(ctx: AppContext, qtbot: Any) -> Any:
    from console.ui.main_window import MainWindow

    w = MainWindow(ctx, load_settings(), owns_engine=False)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitUntil(lambda: w._panels_built, timeout=10_000)
    return w


def _theme_action(w: Any, choice: str) -> Any:
    """The View > Theme action for ``choice``, found through the menus as a user finds it."""
    view = next(a.menu() for a in w.menuBar().actions() if a.text() == "&View")
    theme = next(a.menu() for a in view.actions() if a.text() == "&Theme")
    return next(a for a in theme.actions() if a.data() == choice)


def _window_lightness() -> float:
    return float(QGuiApplication.palette().color(QPalette.ColorRole.Window).lightnessF())


def _stylesheet_colour(style: str, key: str) -> QColor:
    found = re.search(rf"(?<![-\w]){key}:\s*(#[0-9a-fA-F]{{6}})", style)
    assert found, f"no {key} in {style!r}"
    return QColor(found.group(1))


def _plot_lightness(view: Any) -> float:
    return float(view.backgroundBrush().color().lightnessF())


def test_dark_and_back_to_light_from_the_view_menu(home: Path, tiny_model: Path, qtbot: Any) -> None:
    store = ModelStore()
    store.add_reference("tiny", tiny_model)
    w = _window(AppContext.create(store=store), qtbot)
    assert _theme_action(w, "system").isChecked()  # the default
    assert _window_lightness() > 0.7  # offscreen the system's scheme is unknown: light
    table = w.models.table_model
    qtbot.waitUntil(lambda: table.index(0, 1).data() == "fits", timeout=10_000)
    banner = w.chat.load_banner
    banner.show_loading("tiny", "loading weights")
    monitor, bench = w.monitor, w.panels["bench"]
    assert _plot_lightness(monitor.graphs) > 0.9 and _plot_lightness(bench.plots.throughput) > 0.9

    _theme_action(w, "dark").trigger()
    assert _theme_action(w, "dark").isChecked() and _window_lightness() < 0.3
    p = QGuiApplication.palette()
    for role in (QPalette.ColorRole.Base, QPalette.ColorRole.Button, QPalette.ColorRole.ToolTipBase):
        assert p.color(role).lightnessF() < 0.3, role
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.WindowText, QPalette.ColorRole.ButtonText):
        assert p.color(role).lightnessF() > 0.8, role
    assert p.color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text).lightnessF() < 0.6  # greyed, still read
    assert QApplication.style().name().lower() == "fusion"
    qtbot.waitUntil(lambda: _stylesheet_colour(banner.styleSheet(), "background").lightnessF() < 0.3, timeout=5000)
    badge = table.index(0, 1)
    assert QColor(badge.data(Qt.ItemDataRole.BackgroundRole)).lightnessF() < 0.3
    assert QColor(badge.data(Qt.ItemDataRole.ForegroundRole)).lightnessF() > 0.6
    banner.show_failure("tiny", "out of memory")  # the failed banner is dark too
    assert _stylesheet_colour(banner.styleSheet(), "background").lightnessF() < 0.3
    w._refresh_status_bar()
    qtbot.waitUntil(lambda: _plot_lightness(monitor.graphs) < 0.3, timeout=5000)
    assert _plot_lightness(bench.plots.throughput) < 0.3 and _plot_lightness(bench.tune.pareto) < 0.3
    assert _plot_lightness(bench.tune.tradeoff.plot) < 0.3
    axis = monitor.plots["tokens"].getAxis("left")
    assert axis.textPen().color().lightnessF() > 0.6  # tick labels read on the dark plot

    _theme_action(w, "light").trigger()
    assert _window_lightness() > 0.7
    qtbot.waitUntil(lambda: _stylesheet_colour(banner.styleSheet(), "background").lightnessF() > 0.8, timeout=5000)
    assert QColor(badge.data(Qt.ItemDataRole.BackgroundRole)).lightnessF() > 0.7
    qtbot.waitUntil(lambda: _plot_lightness(monitor.graphs) > 0.9, timeout=5000)
    assert _plot_lightness(bench.plots.throughput) > 0.9
    assert axis.textPen().color().lightnessF() < 0.4


def test_the_choice_survives_a_restart(home: Path, qtbot: Any) -> None:
    w = _window(AppContext.create(), qtbot)
    _theme_action(w, "dark").trigger()
    assert load_settings().theme == "dark"  # saved when chosen, not only at close
    w.close()
    apply_theme(False)  # as a fresh process starts

    again = _window(AppContext.create(), qtbot)
    assert _theme_action(again, "dark").isChecked() and not _theme_action(again, "system").isChecked()
    assert _window_lightness() < 0.3


def test_system_follows_the_colour_scheme(home: Path, qtbot: Any) -> None:
    """Offscreen the OS scheme cannot change: the window's handler of the style hints'
    colorSchemeChanged is called with the new scheme, as Qt calls it."""
    w = _window(AppContext.create(), qtbot)
    follow = w.theme._on_hints_color_scheme_changed
    follow(Qt.ColorScheme.Dark)
    assert _window_lightness() < 0.3
    qtbot.waitUntil(lambda: _plot_lightness(w.monitor.graphs) < 0.3, timeout=5000)
    follow(Qt.ColorScheme.Light)
    assert _window_lightness() > 0.7
    _theme_action(w, "dark").trigger()  # a choice of its own: the OS scheme no longer matters
    follow(Qt.ColorScheme.Light)
    assert _window_lightness() < 0.3
    _theme_action(w, "system").trigger()
    assert load_settings().theme == "system"


def test_status_and_error_lines_follow_the_theme(home: Path, qtbot: Any) -> None:
    from console.ui.widgets import ErrorLabel

    w = _window(AppContext.create(), qtbot)
    error = ErrorLabel(w)
    error.show_text("no such file")
    assert _stylesheet_colour(error.styleSheet(), "color").lightnessF() < 0.5  # dark red on light
    _theme_action(w, "dark").trigger()
    qtbot.waitUntil(lambda: _stylesheet_colour(error.styleSheet(), "color").lightnessF() > 0.6, timeout=5000)
    w._on_bridge_status_changed(EngineStatus(EngineState.FAILED, error="boom"))
    assert _stylesheet_colour(w.state_label.styleSheet(), "color").lightnessF() > 0.6


def test_an_unknown_theme_in_the_file_is_the_default(home: Path) -> None:
    save_settings(Settings(theme="dark"))
    assert load_settings().theme == "dark"
    settings_path().write_text(settings_path().read_text().replace('"dark"', '"purple"'))
    assert load_settings().theme == "system"


def _code_background(chat: Any) -> QColor:
    """The background of the transcript's code block (the table around ``def greet``)."""
    doc = chat.transcript.document()
    cursor = doc.find("def greet", 0, QTextDocument.FindFlag.FindCaseSensitively)
    assert not cursor.isNull() and cursor.currentTable() is not None, chat.transcript_text()
    return QColor(cursor.currentTable().format().background().color())


def test_the_chat_code_blocks_and_banner_follow_the_theme(home: Path, qtbot: Any) -> None:
    """The chat page as the user reads it: a saved answer with a fenced code block (Pygments'
    light style on light, a dark style on dark) and the load banner, switched from the View menu."""
    w = _window(AppContext.create(), qtbot)
    chat = w.chat
    conv = chat.store.create("code")
    chat.store.append(conv.id, "user", "greet me")
    chat.store.append(conv.id, "assistant", "Here:\n\n```python\ndef greet(name):\n    return 'hi ' + name\n```\n")
    assert chat.open_conversation(conv.id)
    banner = chat.load_banner
    banner.show_loading("tiny", "loading weights")
    assert _code_background(chat).lightnessF() > 0.8
    assert _stylesheet_colour(banner.styleSheet(), "background").lightnessF() > 0.8

    _theme_action(w, "dark").trigger()
    qtbot.waitUntil(lambda: _code_background(chat).lightnessF() < 0.3, timeout=5000)
    assert _stylesheet_colour(banner.styleSheet(), "background").lightnessF() < 0.3
    assert "def greet" in chat.transcript_text() and "```" not in chat.transcript_text()

    _theme_action(w, "light").trigger()
    qtbot.waitUntil(lambda: _code_background(chat).lightnessF() > 0.8, timeout=5000)
    assert _stylesheet_colour(banner.styleSheet(), "background").lightnessF() > 0.8


def test_the_environment_forces_a_theme_at_start_without_saving_it(
    home: Path, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What packaging/screenshots.py --theme uses: the forced theme is shown, the saved choice kept."""
    from console.ui.theme_switch import THEME_ENV

    monkeypatch.setenv(THEME_ENV, "dark")
    w = _window(AppContext.create(), qtbot)
    assert _theme_action(w, "dark").isChecked() and _window_lightness() < 0.3
    w.close()
    assert load_settings().theme == "system"
    monkeypatch.setenv(THEME_ENV, "purple")  # not a theme: the saved choice
    again = _window(AppContext.create(), qtbot)
    assert _theme_action(again, "system").isChecked()


def test_the_bench_charts_light_colours_are_the_pngs() -> None:
    """The Bench tab's charts in the light theme draw their series in the CLI's PNG colours."""
    from console.bench.figures import COLORS
    from console.ui.bench.charts import SERIES
    from console.ui.theme import LIGHT

    assert tuple(LIGHT.series[i] for i in SERIES) == COLORS
