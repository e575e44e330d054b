"""Keep ``None``, ``True`` and ``False`` alive under PySide6 6.12 on CPython 3.11.

Measured here (PySide6-Essentials 6.12.0, Python 3.11.7): every call of a Qt method that returns
``void`` drops one reference to ``None`` that it never took (``QLabel.setText``,
``QGraphicsItem.update`` ...), and bool-returning ones do the same to ``True``/``False``. Since
Python 3.12 these objects are immortal and the missing reference is harmless; on 3.11 the count
runs down to zero and the interpreter aborts with "Fatal Python error: none_dealloc" (or
"bool_dealloc" at exit). One Monitor redraw makes about 300 such calls (pyqtgraph's ``setData``
alone makes ten), so a window showing the Monitor aborted after about a minute.

:func:`pin_singletons` adds a large number of references to each once, at start-up, which is
what immortality amounts to; it is a no-op on Python 3.12+.
"""

from __future__ import annotations

import ctypes
import sys

#: references added to each singleton; at ~10^4 lost references a second this lasts decades
PIN = 1 << 40


def pin_singletons() -> bool:
    """Add :data:`PIN` references to ``None``, ``True`` and ``False`` (once); True if it did."""
    if sys.version_info >= (3, 12) or getattr(sys, "_console_singletons_pinned", False):
        return False
    for obj in (None, True, False):
        ctypes.c_ssize_t.from_address(id(obj)).value += PIN  # ob_refcnt is the first field
    sys._console_singletons_pinned = True  # type: ignore[attr-defined]  # our flag on the sys module
    return True
