"""Sizes and counts as plain English text (the CLI, log lines and error messages of the core).
The GUI formats figures in the user's locale instead (``console.ui.formatting``)."""

from __future__ import annotations


def human_bytes(n: float) -> str:
    """``512 B``, ``1.5 KiB`` ... ``2.0 TiB`` (binary units, as the planner counts them)."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"


def human_count(n: float) -> str:
    """``950``, ``1.2K``, ``3.4M``, ``7.0B`` (parameter counts and the like)."""
    for unit, div in (("B", 1e9), ("M", 1e6), ("K", 1e3)):
        if n >= div:
            return f"{n / div:.1f}{unit}"
    return str(int(n))
