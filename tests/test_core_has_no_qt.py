"""The layers of the package, enforced.

- The core (console/ minus console/ui and console/cli) runs headless: it imports no Qt, directly or
  through anything it imports.
- The core never imports the CLI or the window (``console.cli``, ``console.ui``).
- The window never imports the CLI. Only ``console/__main__.py`` and ``console.cli`` itself may.

Each rule is checked two ways: statically (every import statement of every module, function-level
ones included) and dynamically (importing the modules of a layer in a fresh interpreter loads no
module of a layer it must not use)."""

from __future__ import annotations

import ast
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


def imported_modules(path: Path) -> list[tuple[str, int]]:
    """(absolute module name, line) of every import in ``path``, relative ones resolved."""
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            out.append((base, node.lineno))
            out += [(f"{base}.{a.name}", node.lineno) for a in node.names]  # `from console import cli`
    return out


def forbidden(importer: str, imported: str) -> bool:
    """Whether a module of ``importer``'s layer may not import ``imported``."""
    if imported.split(".")[0] in QT_MODULES:
        return layer(importer) in ("core", "cli")
    if not imported.startswith("console.") or imported.count(".") < 1:
        return False
    target, source = layer(imported), layer(importer)
    if target == "cli":
        return source in ("core", "ui")
    if target == "ui":
        return source == "core"
    return False


def modules_of(*layers: str) -> list[str]:
    mods = [module_name(p) for p in sorted(PKG.rglob("*.py"))]
    return [m for m in mods if layer(m) in layers and m.rsplit(".", 1)[-1] not in _ENTRY_POINTS]


def test_the_rule_itself() -> None:
    """The checker can fail: these are the imports it must refuse (and some it must allow)."""
    assert forbidden("console.models.download", "console.cli.common")
    assert forbidden("console.ui.about", "console.cli.main")
    assert forbidden("console.engine.host", "console.ui.bridge")
    assert forbidden("console.engine.host", "PySide6.QtCore")
    assert forbidden("console.cli.gui", "PySide6")
    assert not forbidden("console.cli.gui", "console.ui.app")
    assert not forbidden("console.ui.chat_panel", "console.conversations")
    assert not forbidden("console.__main__", "console.cli.main")


def test_no_import_statement_crosses_a_layer() -> None:
    offenders = []
    for path in PKG.rglob("*.py"):
        importer = module_name(path)
        for imported, line in imported_modules(path):
            if forbidden(importer, imported):
                offenders.append(f"{path.relative_to(PKG.parent)}:{line} imports {imported}")
    assert not offenders, offenders


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
    assert "console.engine.host" in mods and "console.conversations" in mods
    bad = _loaded_after_importing(mods, QT_MODULES + ("console.ui", "console.cli"))
    assert bad == [], f"loaded by the core: {bad}"


@pytest.mark.parametrize("which", ["ui", "cli"])
def test_importing_the_window_or_the_cli_stays_in_its_layer(which: str) -> None:
    mods = modules_of(which)
    assert mods, which
    forbidden_prefixes = ("console.cli",) if which == "ui" else QT_MODULES
    bad = _loaded_after_importing(mods, forbidden_prefixes)
    assert bad == [], f"loaded by console.{which}: {bad}"
