"""The core (console/ minus console/ui) must run headless: it imports no Qt, directly or through
anything it imports. Checked two ways: statically (no Qt import statement outside console/ui) and
dynamically (importing every core module in a fresh interpreter loads no Qt module)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import console

QT_MODULES = ("PySide6", "PyQt5", "PyQt6", "qtpy", "pyqtgraph", "qasync", "shiboken6")
PKG = Path(console.__file__).parent


def core_modules() -> list[str]:
    mods = []
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG.parent).with_suffix("")
        if rel.parts[1:2] == ("ui",):
            continue
        name = ".".join(rel.parts)
        mods.append(name[: -len(".__init__")] if name.endswith(".__init__") else name)
    return mods


def test_no_qt_import_statement_outside_ui() -> None:
    offenders = []
    for path in PKG.rglob("*.py"):
        if "ui" in path.relative_to(PKG).parts[:1]:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            if any(n.split(".")[0] in QT_MODULES for n in names):
                offenders.append(f"{path.relative_to(PKG.parent)}:{node.lineno}")
    assert not offenders, offenders


def test_importing_every_core_module_loads_no_qt() -> None:
    mods = core_modules()
    assert "console.engine.host" in mods and "console.cli.main" in mods
    code = (
        "import importlib, sys\n"
        f"for m in {mods!r}:\n"
        "    if m.endswith('__main__') or m.endswith('gguf_worker'):\n"
        "        continue\n"
        "    importlib.import_module(m)\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {QT_MODULES!r})\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "", f"Qt modules loaded by the core: {out.stdout.strip()}"
