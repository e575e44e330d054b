"""PySide6's per-import "does this module use PySide?" check, without reading sources."""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtCore")

from console.ui.import_hook import cheapen_feature_check, pyside_check, uses_pyside  # noqa: E402


def test_imports_no_longer_read_sources_and_answer_as_before(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    feature = sys.modules["shibokensupport.feature"]
    (tmp_path / "qt_user_mod.py").write_text("from PySide6.QtCore import QObject\nX = 1\n")
    (tmp_path / "plain_mod.py").write_text("import json\nX = 'not a Qt module'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    reads: list[str] = []
    real = inspect.getsource

    def spy(obj: object) -> str:
        reads.append(getattr(obj, "__name__", "?"))
        return real(obj)  # type: ignore[arg-type]

    monkeypatch.setattr(inspect, "getsource", spy)
    # PySide6's own check, also where a window built earlier in this process has replaced it already
    original = pyside_check() if feature._mod_uses_pyside is uses_pyside else feature._mod_uses_pyside
    assert original is not None and original is not uses_pyside
    monkeypatch.setattr(feature, "_mod_uses_pyside", original)  # restored after the test
    __import__("plain_mod")  # through builtins.__import__, which PySide6 hooks (importlib is not)
    assert "plain_mod" in reads  # the control: PySide6's own check reads the source
    assert cheapen_feature_check()
    reads.clear()
    qt_user, plain = __import__("qt_user_mod"), sys.modules["plain_mod"]
    assert reads == []
    assert feature.pyside_feature_dict["qt_user_mod"] == 0  # uses PySide: features switchable
    assert uses_pyside(qt_user) and not uses_pyside(plain)
    assert uses_pyside(qt_user) == original(qt_user) and uses_pyside(plain) == original(plain)
    for name in ("qt_user_mod", "plain_mod"):
        sys.modules.pop(name, None)
