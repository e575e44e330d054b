"""The theme choice: System (the OS colour scheme, followed live), Light or Dark, applied to the
whole application as a palette on the Fusion style (:mod:`console.ui.theme`), and its View menu.

The choice is ``Settings.theme``; the main window builds its :class:`ThemeSwitch` and the
View > Theme menu with :func:`add_theme_menu` at start: the menu applies a choice at once and saves it.
Under "system" the OS colour scheme is read from ``QStyleHints.colorScheme()`` (Qt 6.5 and later)
and followed through its ``colorSchemeChanged`` signal; an unknown scheme reads as light.
The environment variable ``INFERENCE_CONSOLE_THEME`` (system, light or dark) forces a theme at start
without changing the saved choice (``packaging/screenshots.py --theme`` uses it).
"""

from __future__ import annotations

import os
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, Qt
from PySide6.QtGui import QAction, QActionGroup, QGuiApplication

from console.settings import THEMES
from console.ui.theme import apply_theme

#: Forces a theme at start: "system", "light" or "dark" (anything else: the saved choice).
THEME_ENV = "INFERENCE_CONSOLE_THEME"


def start_choice(saved: str) -> str:
    """The theme to apply at start: :data:`THEME_ENV` when it names one, else ``saved``."""
    forced = os.environ.get(THEME_ENV, "").strip().lower()
    return forced if forced in THEMES else saved


class ThemeSwitch(QObject):
    """Applies the theme choice, and under "system" follows the OS colour scheme."""

    def __init__(self, choice: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.choice = choice if choice in THEMES else "system"
        self.dark = False
        QGuiApplication.styleHints().colorSchemeChanged.connect(self._on_hints_color_scheme_changed)
        self._request(self.choice)
        self.apply()

    def set_choice(self, choice: str) -> None:
        """Apply ``choice`` ("system", "light" or "dark") now."""
        self.choice = choice if choice in THEMES else "system"
        self._request(self.choice)
        self.apply()

    def apply(self, scheme: Qt.ColorScheme | None = None) -> None:
        """Set the application's style and palette for the choice; ``scheme``: the OS colour scheme
        (read from the style hints when not given), used under "system"."""
        if self.choice == "system":
            scheme = scheme if scheme is not None else QGuiApplication.styleHints().colorScheme()
            dark = scheme == Qt.ColorScheme.Dark
        else:
            dark = self.choice == "dark"
        apply_theme(dark)
        self.dark = dark

    @staticmethod
    def _request(choice: str) -> None:
        """Tell Qt (6.8 and later) which scheme the application wants, so the platform's own parts
        (a title bar) follow a Light or Dark choice; "system" takes the OS's back."""
        hints = QGuiApplication.styleHints()
        if not hasattr(hints, "setColorScheme"):
            return
        if choice == "system":
            hints.unsetColorScheme()
        else:
            hints.setColorScheme(Qt.ColorScheme.Dark if choice == "dark" else Qt.ColorScheme.Light)

    def _on_hints_color_scheme_changed(self, scheme: Qt.ColorScheme) -> None:
        if self.choice == "system":
            self.apply(scheme)


def theme_label(choice: str) -> str:
    tr = QCoreApplication.translate
    return {
        "system": tr("Theme", "&System"),
        "light": tr("Theme", "&Light"),
        "dark": tr("Theme", "&Dark"),
    }[choice]


def add_theme_menu(window: Any) -> tuple[ThemeSwitch, dict[str, QAction]]:
    """The theme of ``window`` (a MainWindow: its ``settings.theme``, applied now) and a Theme
    submenu in its View menu, one checkable action per choice; a choice is applied at once and
    saved with the window's settings. A theme forced by :data:`THEME_ENV` is applied, not saved."""
    switch = ThemeSwitch(start_choice(window.settings.theme), window)
    tr = QCoreApplication.translate
    bar = window.menuBar()
    view = next(a.menu() for a in bar.actions() if window.dock.toggleViewAction() in a.menu().actions())
    sub = view.addMenu(tr("Theme", "&Theme"))
    group = QActionGroup(sub)
    actions: dict[str, QAction] = {}
    for choice in THEMES:
        act = QAction(theme_label(choice), sub, checkable=True)
        act.setChecked(choice == switch.choice)
        act.setData(choice)
        if choice == "system":
            act.setStatusTip(tr("Theme", "Follow the colour scheme of the system"))
        group.addAction(act)
        sub.addAction(act)
        actions[choice] = act

    def chosen(act: QAction) -> None:
        switch.set_choice(str(act.data()))
        window.settings.theme = switch.choice
        window.save_settings()

    group.triggered.connect(chosen)
    return switch, actions
