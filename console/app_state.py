"""What the window's panels share besides the engine, without Qt: the store's models as listed, the
model and preset chosen, and the engine configuration Load would use for them.

The Models panel is where the user picks, and the state's one writer: it writes the list
(:meth:`AppState.list_models`), the selection (:meth:`AppState.select`) and, at each change of
the selection, the preset or a knob, the configuration that follows from them
(:meth:`AppState.set_config`: the panel's knobs are in it; or why there is none). The other views
-- the Server tab, the Export tab, the chat's model picker, the status bar -- read
:attr:`AppState.selection`, :attr:`AppState.models` and :meth:`AppState.engine_config` and follow
changes through :meth:`AppState.observe`, :meth:`AppState.observe_models` and
:meth:`AppState.observe_config`, instead of importing the Models panel. A choice made elsewhere (the
chat picker's) is an intent the window hands to the panel, which then writes it here.

What is loaded is not kept here: the engine's status (its model, its state) is the engine's own,
delivered to the window by its bridge.

Observers are plain callables, called on the thread that made the change (the GUI thread in the
window; the window adapts them to Qt signals, :mod:`console.ui.state_signals`). Each observe returns
the call that stops it. A change made by an observer is the last word: observers not yet called hear
only the newer value.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Callable, Generic, TypeVar

from console.config import EngineConfig

log = logging.getLogger(__name__)

#: Why there is no configuration yet (the Models panel's own words for it).
NO_MODEL = "Select a model in the table first"

T = TypeVar("T")


@dataclass(frozen=True)
class Selection:
    """The model chosen in the store (its name) and the preset (None: none chosen)."""

    model: str | None = None
    preset: str | None = None


SelectionObserver = Callable[[Selection], None]
ModelsObserver = Callable[[tuple[str, ...]], None]
ConfigObserver = Callable[["EngineConfig | None"], None]


class Observable(Generic[T]):
    """One value and the callables that follow it."""

    def __init__(self, value: T) -> None:
        self.value = value
        self._observers: list[Callable[[T], None]] = []
        self._version = 0  # a change made while observers are called supersedes the one being told

    def set(self, value: T) -> None:
        """Set the value; the observers hear of it when it changed (a failing one is logged)."""
        if value == self.value:
            return
        self.value = value
        self._version += 1
        version = self._version
        for observer in list(self._observers):
            if self._version != version:
                return  # an observer changed it again: the rest heard the newer value already
            try:
                observer(value)
            except Exception:
                log.exception("application state observer failed")

    def observe(self, observer: Callable[[T], None]) -> Callable[[], None]:
        """Call ``observer`` with each new value; returns what stops it."""
        self._observers.append(observer)

        def stop() -> None:
            if observer in self._observers:
                self._observers.remove(observer)

        return stop

    def observer_count(self) -> int:
        return len(self._observers)


class AppState:
    def __init__(self) -> None:
        self._selection: Observable[Selection] = Observable(Selection())
        self._models: Observable[tuple[str, ...]] = Observable(())
        self._config: Observable[EngineConfig | None] = Observable(None)
        self._no_config: Exception = ValueError(NO_MODEL)  # why there is none

    @property
    def selection(self) -> Selection:
        return self._selection.value

    @property
    def models(self) -> tuple[str, ...]:
        """The store's models, by name, in the Models panel's order."""
        return self._models.value

    def select(self, model: str | None, preset: str | None) -> None:
        """Set the selection ("" is None); the observers hear of it when it changed."""
        self._selection.set(Selection(model or None, preset or None))

    def list_models(self, names: list[str] | tuple[str, ...]) -> None:
        """Set the store's models as listed; the observers hear of it when the list changed."""
        self._models.set(tuple(names))

    def observe(self, observer: SelectionObserver) -> Callable[[], None]:
        """Call ``observer`` with each new selection; returns what stops it."""
        return self._selection.observe(observer)

    def observe_models(self, observer: ModelsObserver) -> Callable[[], None]:
        """Call ``observer`` with each new list of the store's models; returns what stops it."""
        return self._models.observe(observer)

    def observer_count(self) -> int:
        """How many observers follow the state (a view that is gone must have stopped its own)."""
        return self._selection.observer_count() + self._models.observer_count() + self._config.observer_count()

    def set_config(self, config: EngineConfig | None, why_none: Exception | None = None) -> None:
        """Set the configuration Load would use now for the selection (the Models panel's, with its
        knobs), or None and the error that says why there is none (a user-facing message); the
        observers hear of it when it changed."""
        self._no_config = why_none or ValueError(NO_MODEL)
        self._config.set(config)

    def engine_config(self) -> EngineConfig:
        """The configuration for the selection; raises why there is none (:data:`NO_MODEL` before
        one is set)."""
        config = self._config.value
        if config is None:
            raise self._no_config
        return config

    def observe_config(self, observer: ConfigObserver) -> Callable[[], None]:
        """Call ``observer`` with each new configuration (None: there is none); returns what stops it."""
        return self._config.observe(observer)


__all__ = ["AppState", "ConfigObserver", "ModelsObserver", "NO_MODEL", "Observable", "Selection", "SelectionObserver"]
