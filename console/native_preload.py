"""Load torch's native library without holding the GIL, so the window keeps drawing while a
model loads.

``import torch`` loads ``libtorch_cpu.so`` (hundreds of MB, thousands of operator registrations
run by its static initializers) inside one ``dlopen`` that Python's import makes while holding
the GIL: a few hundred milliseconds during which no other thread runs Python, the GUI thread
included (measured: benchmarks/README-gui.md) -- the longest stall of a model load once the
collector no longer walks the load's objects (``console/ui/gc_guard.py``). A foreign-function
call through ctypes releases the GIL for its duration, so calling the C library's own ``dlopen``
on that file first does the same work while the window keeps drawing; the ``import torch`` that
follows finds the library already loaded.

``RTLD_NOW | RTLD_LOCAL``: what the import itself would use for it (it is a dependency of
``torch._C``), so no symbol becomes visible that would not have been. Linux only; anything
unexpected (another OS, no torch, a library that does not load) leaves the import to do it.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import sys
from pathlib import Path

#: the big one first; only files that exist are loaded
LIBRARIES = ("libtorch_cpu.so",)

_done = False


def torch_library_dir() -> Path | None:
    """torch's ``lib`` folder, found without importing torch (None: no torch)."""
    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin:
        return None
    folder = Path(spec.origin).parent / "lib"
    return folder if folder.is_dir() else None


def preload_torch() -> list[str]:
    """Load torch's native libraries with the GIL released, once per process, before torch is
    imported; returns the files loaded ([] when there was nothing to do)."""
    global _done
    if _done or "torch" in sys.modules or not sys.platform.startswith("linux"):
        return []
    _done = True
    folder = torch_library_dir()
    if folder is None:
        return []
    try:
        libc = ctypes.CDLL(None)  # the process's own symbols: libc's dlopen
        dlopen = libc.dlopen
    except (OSError, AttributeError):
        return []
    dlopen.restype = ctypes.c_void_p
    dlopen.argtypes = [ctypes.c_char_p, ctypes.c_int]
    loaded = []
    for name in LIBRARIES:
        path = folder / name
        if path.is_file() and dlopen(os.fsencode(path), os.RTLD_NOW | os.RTLD_LOCAL):  # GIL released
            loaded.append(str(path))
    return loaded
