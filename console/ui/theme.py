"""The console's light and dark themes, in one place: the application palette (on the Fusion
style, :func:`apply_theme`) and the named colours that stylesheets, item models and plots use.

Widgets do not ask which theme is chosen: they take :func:`colours` (the set that reads on the
application's palette now) and follow a change with :func:`follow_theme` (a callback run when a
theme is applied), :func:`set_themed_style` / :func:`text_colour` (a stylesheet remade from the
new colours) or :func:`style_plot` (a pyqtgraph plot's background, axes and title). The choice
(System / Light / Dark, ``Settings.theme``) and its View menu are in :mod:`console.ui.theme_switch`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QWidget

from console.engine.types import EngineState

_Role = QPalette.ColorRole


@dataclass(frozen=True)
class Colours:
    """The colours of one theme, by what they mean (``#rrggbb`` text, for stylesheets and Qt)."""

    ok: str  # text: ready, a passed check, a fitting plan
    warning: str  # text: loading, fits with changes, an edit under way, a LAN warning
    error: str  # text: failed, refused, an error line; the over-full context meter
    muted: str  # text: secondary notes under a control
    faint: str  # text: skipped or stopped trials, a refusal that is only information
    loading_banner: tuple[str, str]  # the chat's load banner while loading: (background, border)
    failed_banner: tuple[str, str]  # the load banner after a failed load: (background, border)
    badges: Mapping[str, tuple[str, str]]  # a fit verdict's badge: verdict -> (text, background)
    unknown_badge: tuple[str, str]  # a verdict not known yet: (text, background)
    plot_background: str
    plot_foreground: str  # axes, tick labels, titles
    series: tuple[str, ...]  # a plot's curves, in order
    marker: str  # red marks on a plot: throttling, the Pareto front
    point: str  # the other points of a scatter

    def badge(self, verdict: str) -> tuple[str, str]:
        return self.badges.get(verdict, self.unknown_badge)


LIGHT = Colours(
    ok="#1b7f2a",
    warning="#b26a00",
    error="#b00020",
    muted="#555555",
    faint="#777777",
    loading_banner=("#fff4e0", "#e0b060"),
    failed_banner=("#fdecee", "#d08090"),
    badges={
        "fits": ("#1b5e20", "#d8f0dc"),
        "fits-with-changes": ("#7a4a00", "#fdebc8"),
        "does-not-fit": ("#8e0019", "#f8d3d9"),
        "error": ("#8e0019", "#f8d3d9"),
        "files-missing": ("#555555", "#e6e6e6"),
    },
    unknown_badge=("#555555", "#e6e6e6"),
    plot_background="#ffffff",
    plot_foreground="#333333",
    series=("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#7f7f7f"),
    marker="#d62728",
    point="#888888",
)

DARK = Colours(
    ok="#6fcf7c",
    warning="#f0b45a",
    error="#ff7a85",
    muted="#a8a8a8",
    faint="#8f8f8f",
    loading_banner=("#3d3016", "#8a6a2a"),
    failed_banner=("#42202a", "#9a4a58"),
    badges={
        "fits": ("#b9f0c2", "#1f4a2a"),
        "fits-with-changes": ("#ffd9a0", "#4d3810"),
        "does-not-fit": ("#ffc2ca", "#5a1f2a"),
        "error": ("#ffc2ca", "#5a1f2a"),
        "files-missing": ("#c8c8c8", "#3a3a3a"),
    },
    unknown_badge=("#c8c8c8", "#3a3a3a"),
    plot_background="#1e1e1e",
    plot_foreground="#cfcfcf",
    series=("#4ea1f3", "#ff6b6b", "#5fd35f", "#ffa94d", "#c39bff", "#b0b0b0"),
    marker="#ff6b6b",
    point="#9a9a9a",
)

#: The status bar's engine state in the theme's colours: ready, failed, loading.
STATE_COLOURS: dict[EngineState, Callable[[Colours], str]] = {
    EngineState.READY: lambda c: c.ok,
    EngineState.FAILED: lambda c: c.error,
    EngineState.LOADING: lambda c: c.warning,
}

# role -> (normal, disabled): Fusion's own light palette, and a dark one of the same build.
_LIGHT_PALETTE: dict[_Role, tuple[str, str]] = {
    _Role.Window: ("#efefef", "#efefef"),
    _Role.WindowText: ("#000000", "#bebebe"),
    _Role.Base: ("#ffffff", "#efefef"),
    _Role.AlternateBase: ("#f7f7f7", "#f7f7f7"),
    _Role.ToolTipBase: ("#ffffdc", "#ffffdc"),
    _Role.ToolTipText: ("#000000", "#000000"),
    _Role.PlaceholderText: ("#808080", "#bebebe"),
    _Role.Text: ("#000000", "#bebebe"),
    _Role.Button: ("#efefef", "#efefef"),
    _Role.ButtonText: ("#000000", "#bebebe"),
    _Role.BrightText: ("#ffffff", "#ffffff"),
    _Role.Light: ("#ffffff", "#ffffff"),
    _Role.Midlight: ("#cacaca", "#cacaca"),
    _Role.Mid: ("#b8b8b8", "#b8b8b8"),
    _Role.Dark: ("#9f9f9f", "#bebebe"),
    _Role.Shadow: ("#767676", "#b1b1b1"),
    _Role.Highlight: ("#308cc6", "#919191"),
    _Role.HighlightedText: ("#ffffff", "#ffffff"),
    _Role.Link: ("#0000ff", "#0000ff"),
    _Role.LinkVisited: ("#ff00ff", "#ff00ff"),
    _Role.Accent: ("#308cc6", "#919191"),
}

_DARK_PALETTE: dict[_Role, tuple[str, str]] = {
    _Role.Window: ("#2b2b2b", "#2b2b2b"),
    _Role.WindowText: ("#e6e6e6", "#7a7a7a"),
    _Role.Base: ("#1e1e1e", "#262626"),
    _Role.AlternateBase: ("#262626", "#262626"),
    _Role.ToolTipBase: ("#3c3c3c", "#3c3c3c"),
    _Role.ToolTipText: ("#eeeeee", "#eeeeee"),
    _Role.PlaceholderText: ("#8a8a8a", "#666666"),
    _Role.Text: ("#e6e6e6", "#7a7a7a"),
    _Role.Button: ("#353535", "#2e2e2e"),
    _Role.ButtonText: ("#e6e6e6", "#7a7a7a"),
    _Role.BrightText: ("#ff6b6b", "#ff6b6b"),
    _Role.Light: ("#505050", "#2b2b2b"),  # disabled: no light etching under grey text
    _Role.Midlight: ("#424242", "#3a3a3a"),
    _Role.Mid: ("#5a5a5a", "#4a4a4a"),
    _Role.Dark: ("#1a1a1a", "#1a1a1a"),
    _Role.Shadow: ("#000000", "#000000"),
    _Role.Highlight: ("#2f7fc8", "#4a4a4a"),
    _Role.HighlightedText: ("#ffffff", "#bdbdbd"),
    _Role.Link: ("#6cb4ff", "#5a7fa8"),
    _Role.LinkVisited: ("#c39bff", "#8a76a8"),
    _Role.Accent: ("#2f7fc8", "#4a4a4a"),
}


def palette(dark: bool) -> QPalette:
    """The whole application palette of the light or the dark theme (every role, disabled too)."""
    p = QPalette()
    for role, (normal, disabled) in (_DARK_PALETTE if dark else _LIGHT_PALETTE).items():
        p.setColor(role, QColor(normal))
        p.setColor(QPalette.ColorGroup.Disabled, role, QColor(disabled))
    return p


def is_dark(p: QPalette | None = None) -> bool:
    """Whether ``p`` (the application's palette by default) has a dark window."""
    p = p if p is not None else QGuiApplication.palette()
    return p.color(_Role.Window).lightness() < 128


def colours(p: QPalette | None = None) -> Colours:
    """The named colours that read on ``p`` (the application's palette by default)."""
    return DARK if is_dark(p) else LIGHT


STYLE = "Fusion"  # the style that draws every widget from the palette, the dark one included


class _Notifier(QObject):
    """The application's one "a theme was applied" signal (a child of the QApplication)."""

    applied = Signal()


def _notifier() -> _Notifier:
    app = QCoreApplication.instance()
    found = app.findChild(_Notifier, "themeNotifier") if app is not None else None
    if isinstance(found, _Notifier):
        return found
    made = _Notifier(app)
    made.setObjectName("themeNotifier")
    return made


def apply_theme(dark: bool) -> None:
    """Make the application light or dark: the Fusion style with the theme's whole palette; then
    everything that follows the theme (:func:`follow_theme`) takes the new colours."""
    app = QCoreApplication.instance()
    if not isinstance(app, QApplication):
        return
    style = app.style()
    if style is None or style.name().lower() != STYLE.lower():
        app.setStyle(STYLE)
    app.setPalette(palette(dark))
    _notifier().applied.emit()


class _ThemeWatch(QObject):
    """Calls its callback when a theme is applied, while its widget lives (it is its child)."""

    def __init__(self, widget: QWidget, callback: Callable[[], None]) -> None:
        super().__init__(widget)
        self.callback = callback
        _notifier().applied.connect(self._on_notifier_applied)

    def _on_notifier_applied(self) -> None:
        self.callback()


def follow_theme(widget: QWidget, callback: Callable[[], None]) -> None:
    """Call ``callback`` whenever a theme is applied (chosen in View, or the system's colour scheme
    changed under "System") while ``widget`` lives; it should read :func:`colours`. A widget's own
    PaletteChange is no signal for it: a widget with a stylesheet gets none when the application's
    palette changes, the others get theirs later, from the event queue."""
    _ThemeWatch(widget, callback)


_STYLE_KEEPER = "themedStyle"


class _ThemedStyle(_ThemeWatch):
    """Keeps a widget's stylesheet made from the theme's colours (see :func:`set_themed_style`)."""

    def __init__(self, widget: QWidget, make: Callable[[Colours], str]) -> None:
        super().__init__(widget, self.restyle)
        self.setObjectName(_STYLE_KEEPER)
        self.widget = widget
        self.make = make

    def restyle(self) -> None:
        style = self.make(colours())
        if self.widget.styleSheet() != style:  # setting one re-polishes the widget
            self.widget.setStyleSheet(style)


def set_themed_style(widget: QWidget, make: Callable[[Colours], str]) -> None:
    """Give ``widget`` the stylesheet ``make(colours())``, and make it again from the new colours
    whenever a theme is applied. Calling it again replaces ``make``."""
    keeper = widget.findChild(QObject, _STYLE_KEEPER, Qt.FindChildOption.FindDirectChildrenOnly)
    if isinstance(keeper, _ThemedStyle):
        keeper.make = make
    else:
        keeper = _ThemedStyle(widget, make)
    keeper.restyle()


def text_colour(widget: QWidget, pick: Callable[[Colours], str]) -> None:
    """``widget``'s text in the colour ``pick`` names (``lambda c: c.error``), following the theme."""
    set_themed_style(widget, lambda c: f"color: {pick(c)};")


def style_plot(view: Any, plot: Any, c: Colours) -> None:
    """A pyqtgraph plot in the theme's colours: ``view`` (the GraphicsView that holds it: a
    PlotWidget, a GraphicsLayoutWidget; None to leave its background) and ``plot`` (a PlotItem):
    its background, axes (lines, tick labels, axis labels, grid), title and legend text."""
    if view is not None:
        view.setBackground(c.plot_background)
    for name in ("left", "bottom"):
        axis = plot.getAxis(name)
        axis.setPen(c.plot_foreground)
        axis.setTextPen(c.plot_foreground)
    title = plot.titleLabel
    if title.text:
        title.setText(title.text, color=c.plot_foreground)
    if plot.legend is not None:
        plot.legend.setLabelTextColor(c.plot_foreground)
