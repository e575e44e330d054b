"""PySide6's per-import check, made cheap.

PySide6 (6.12) hooks every import in the process for its ``__feature__`` switches
(``snake_case``, ``true_property``): after a module is imported it asks whether the module uses
PySide by reading the module's whole source (``inspect.getsource``) and searching it for
"PySide6". A model load imports thousands of modules (vLLM, torch, transformers) on the engine
thread, and those reads hold the GIL while the window's GUI thread waits for it (most of a second
per load; measured: benchmarks/README-gui.md, "PySide6's import check").

:func:`cheapen_feature_check` swaps in a check with the same answer for what a module imported:
whether any module, class or function in its namespace comes from PySide6 or shiboken6. It reads
no file. The console selects no ``__feature__`` anywhere, so an answer that differed (a module
that names PySide6 only in a string) would change nothing either.
"""

from __future__ import annotations

import logging
import sys
import types
from collections.abc import Callable

log = logging.getLogger(__name__)

_PREFIXES = ("PySide6", "shiboken6")
#: PySide6's own check, kept when :func:`cheapen_feature_check` replaces it
_REPLACED: dict[str, Callable[[types.ModuleType], bool]] = {}


def uses_pyside(module: types.ModuleType) -> bool:
    """Whether ``module``'s namespace holds a PySide6 (or shiboken6) module, class or function."""
    try:
        values = list(vars(module).values())
    except TypeError:
        return False
    for value in values:
        if isinstance(value, types.ModuleType):
            name = value.__name__
        elif isinstance(value, (type, types.FunctionType, types.BuiltinFunctionType)):
            name = value.__module__
        else:
            continue
        if isinstance(name, str) and name.startswith(_PREFIXES):
            return True
    return False


def cheapen_feature_check() -> bool:
    """Replace PySide6's source-reading check; False (nothing changed) where this PySide6 has no
    such check, as later versions may not."""
    feature = sys.modules.get("shibokensupport.feature")
    if feature is None or not callable(getattr(feature, "_mod_uses_pyside", None)):
        log.debug("PySide6 has no per-import source check here; nothing to replace")
        return False
    if feature._mod_uses_pyside is not uses_pyside:
        _REPLACED.setdefault("pyside", feature._mod_uses_pyside)
    feature._mod_uses_pyside = uses_pyside  # type: ignore[attr-defined]  # PySide6's internal module, untyped
    return True


def pyside_check() -> Callable[[types.ModuleType], bool] | None:
    """PySide6's own check as it was before :func:`cheapen_feature_check` replaced it (None: not
    replaced in this process)."""
    return _REPLACED.get("pyside")


__all__ = ["cheapen_feature_check", "pyside_check", "uses_pyside"]
