"""Where the console keeps its data.

One root holds the model store, conversations and settings. It is chosen, in order, by the
``--home`` CLI flag (which sets ``INFERENCE_CONSOLE_HOME`` for the process), the
``INFERENCE_CONSOLE_HOME`` environment variable, or ``$XDG_DATA_HOME/inference-console``
(``~/.local/share/inference-console``).
"""

from __future__ import annotations

import os
from pathlib import Path

HOME_ENV = "INFERENCE_CONSOLE_HOME"
STORE_ENV = "INFERENCE_CONSOLE_STORE"


def data_home() -> Path:
    explicit = os.environ.get(HOME_ENV)
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(xdg) / "inference-console"


def store_root() -> Path:
    """The model store: ``INFERENCE_CONSOLE_STORE`` or ``<data home>/models``."""
    explicit = os.environ.get(STORE_ENV)
    if explicit:
        return Path(explicit).expanduser()
    return data_home() / "models"


def package_root() -> Path:
    return Path(__file__).resolve().parent


def presets_dir() -> Path:
    """Shipped presets: ``presets/`` beside the package in a checkout, package data when installed."""
    in_package = package_root() / "_data" / "presets"
    if in_package.is_dir():
        return in_package
    return package_root().parent / "presets"


def resources_dir() -> Path:
    in_package = package_root() / "_data" / "resources"
    if in_package.is_dir():
        return in_package
    return package_root().parent / "resources"
