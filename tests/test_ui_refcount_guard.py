"""PySide6 6.12 on CPython 3.11 drops a reference to ``None`` on every void Qt call; without
``pin_singletons`` a process making a few hundred thousand such calls (minutes of the Monitor
redrawing) aborts with "none_dealloc". Run in a child process: an abort must not take pytest down."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = """
import sys
{pin}
from PySide6.QtWidgets import QApplication, QGraphicsRectItem, QLabel
app = QApplication([])
item, label = QGraphicsRectItem(), QLabel()
for i in range(300_000):  # far more than None's initial reference count (~20,000 here)
    item.update()
    label.setText("x")
    item.isVisible()
print("survived")
"""


def run_child(pin: bool) -> subprocess.CompletedProcess[str]:
    code = CHILD.format(pin="from console.ui.refcount_guard import pin_singletons; pin_singletons()" if pin else "")
    env = dict(os.environ, PYTHONPATH=str(ROOT), QT_QPA_PLATFORM="offscreen")
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)


def test_pinned_singletons_survive_many_void_qt_calls() -> None:
    proc = run_child(pin=True)
    assert proc.returncode == 0 and "survived" in proc.stdout, proc.stderr[-2000:]


def test_the_guard_is_still_needed_or_harmless() -> None:
    """Informative: says whether this PySide6/Python pair still has the bug (either outcome passes;
    when it stops aborting, the guard can go)."""
    proc = run_child(pin=False)
    if proc.returncode != 0:
        assert "dealloc" in proc.stderr, proc.stderr[-2000:]
