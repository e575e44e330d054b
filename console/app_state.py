"""What the window's panels share besides the engine, without Qt: the model and preset chosen.

The Models panel writes the selection (:meth:`AppState.select`) and says how the selection becomes
the configuration Load would use (:meth:`AppState.provide_config`: the panel's knobs go into it);
other panels -- the Server tab -- read :attr:`AppState.selection` and :meth:`AppState.engine_config`
and follow changes through :meth:`AppState.observe`, instead of importing the Models panel.
Observers are called on the thread that calls ``select`` (the GUI thread in the window).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Callable

from console.config import EngineConfig

log = logging.getLogger(__name__)

#: Why there is no configuration yet (the Models panel's own words for it).
NO_MODEL = "Select a model in the table first"


@dataclass(frozen=True)
class Selection:
    """The model chosen in the store (its name) and the preset (None: none chosen)."""

    model: str | None = None
    preset: str | None = None


SelectionObserver = Callable[[Selection], None]


class AppState:
    def __init__(self) -> None:
        self._selection = Selection()
        self._observers: list[SelectionObserver] = []
        self._config: Callable[[], EngineConfig] | None = None

    @property
    def selection(self) -> Selection:
        return self._selection

    def select(self, model: str | None, preset: str | None) -> None:
        """Set the selection; the observers hear of it when it changed."""
        selection = Selection(model or None, preset or None)
        if selection == self._selection:
            return
        self._selection = selection
        for observer in list(self._observers):
            try:
                observer(selection)
            except Exception:
                log.exception("selection observer failed")

    def observe(self, observer: SelectionObserver) -> Callable[[], None]:
        """Call ``observer`` with each new selection; returns what stops it."""
        self._observers.append(observer)

        def stop() -> None:
            if observer in self._observers:
                self._observers.remove(observer)

        return stop

    def provide_config(self, build: Callable[[], EngineConfig]) -> None:
        """``build()`` is the configuration Load would use now for the selection (raising with a
        user-facing message when there is none): the Models panel's, with its knobs."""
        self._config = build

    def engine_config(self) -> EngineConfig:
        """The configuration for the selection; ValueError (:data:`NO_MODEL`) before one is provided."""
        if self._config is None:
            raise ValueError(NO_MODEL)
        return self._config()


__all__ = ["AppState", "NO_MODEL", "Selection", "SelectionObserver"]
