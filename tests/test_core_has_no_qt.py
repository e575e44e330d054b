"""The layers of the package, by importing them.

- The core (console/ minus console/ui and console/cli) runs headless: it imports no Qt, directly or
  through anything it imports.
- The core never imports the CLI or the window (``console.cli``, ``console.ui``).
- The window never imports the CLI. Only ``console/__main__.py`` and ``console.cli`` itself may.

The import statements themselves (every one, function-level ones included) are checked by the
contracts in pyproject.toml's ``[tool.importlinter]`` (``lint-imports``, run by packaging/lint.sh).
What they cannot see is checked here: importing the modules of a layer in a fresh interpreter loads
no module of a layer it must not use, through third-party packages included, and importing the CLI
(whose ``gui`` command reaches the window inside a function) loads no Qt."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import console

QT_MODULES = ("PySide6", "PyQt5", "PyQt6", "qtpy", "pyqtgraph", "qasync", "shiboken6")
PKG = Path(console.__file__).parent
#: Modules that start a process of their own (importing them runs it).
_ENTRY_POINTS = ("__main__", "gguf_worker")


def layer(module: str) -> str:
    """``core``, ``ui``, ``cli`` or ``main`` (console/__main__.py) for a dotted module name."""
    parts = module.split(".")
    if parts[1:2] == ["__main__"]:
        return "main"
    return parts[1] if parts[1:2] in (["ui"], ["cli"]) else "core"


def module_name(path: Path) -> str:
    name = ".".join(path.relative_to(PKG.parent).with_suffix("").parts)
    return name[: -len(".__init__")] if name.endswith(".__init__") else name


def modules_of(*layers: str) -> list[str]:
    mods = [module_name(p) for p in sorted(PKG.rglob("*.py"))]
    return [m for m in mods if layer(m) in layers and m.rsplit(".", 1)[-1] not in _ENTRY_POINTS]


def _loaded_after_importing(mods: list[str], prefixes: tuple[str, ...]) -> list[str]:
    code = (
        "import importlib, sys\n"
        f"for m in {mods!r}:\n"
        "    importlib.import_module(m)\n"
        f"bad = sorted(m for m in sys.modules if m.startswith({prefixes!r}))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return [m for m in out.stdout.strip().split(",") if m]


def test_importing_every_core_module_loads_no_qt_no_ui_no_cli() -> None:
    mods = modules_of("core")
    assert "console.engine.in_process" in mods and "console.chat.conversations" in mods
    bad = _loaded_after_importing(mods, QT_MODULES + ("console.ui", "console.cli"))
    assert bad == [], f"loaded by the core: {bad}"


@pytest.mark.parametrize("which", ["ui", "cli"])
def test_importing_the_window_or_the_cli_stays_in_its_layer(which: str) -> None:
    mods = modules_of(which)
    assert mods, which
    forbidden_prefixes = ("console.cli",) if which == "ui" else QT_MODULES
    bad = _loaded_after_importing(mods, forbidden_prefixes)
    assert bad == [], f"loaded by console.{which}: {bad}"
