"""The window's panels share what is chosen through the application state (console/app_state.py),
not by importing each other: only the window that builds them (console/ui/main_window.py) and the
app that starts it (console/ui/app.py) import a panel module (console/ui/<tab>/panel.py). Every
import statement counts, function-level ones and those under TYPE_CHECKING included."""

from __future__ import annotations

import ast
from pathlib import Path

UI = Path(__file__).resolve().parents[1] / "console" / "ui"
#: The modules that build and wire the panels.
WIRING = {"main_window", "app"}


def ui_name(path: Path) -> str:
    """A module's dotted name under console.ui: ``chat.panel`` for console/ui/chat/panel.py."""
    return ".".join(path.relative_to(UI).with_suffix("").parts)


def panel_modules() -> set[str]:
    return {ui_name(p) for p in UI.glob("*/panel.py")}


def imported_ui_modules(path: Path) -> set[str]:
    """The console.ui modules ``path`` imports, by their name under console.ui (``from console.ui.chat
    import panel`` names chat and chat.panel)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module is not None and node.level == 0:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        else:
            continue
        found |= {n.removeprefix("console.ui.") for n in names if n.startswith("console.ui.")}
    return found


def test_the_scan_sees_the_windows_imports() -> None:
    """The scan can fail: it finds the panels the window imports (at the top and in functions)."""
    seen = imported_ui_modules(UI / "main_window.py")
    assert {"models.panel", "chat.panel", "server.panel", "export.panel"} <= seen, seen


def test_no_module_but_the_window_imports_a_panel() -> None:
    panels = panel_modules()
    assert {"models.panel", "chat.panel", "server.panel", "export.panel", "batch.panel"} <= panels
    wrong = {
        ui_name(path): sorted((imported_ui_modules(path) & panels) - {ui_name(path)})
        for path in sorted(UI.rglob("*.py"))
        if ui_name(path) not in WIRING
    }
    assert {k: v for k, v in wrong.items() if v} == {}
