"""A test leaves nothing connected to what outlives it.

The session shares engines (conftest: ``tiny_engine``, SmolLM2's, the families', ``vllm_server``;
a module's own shared engines). A window or panel reaches an engine
through an :class:`~console.ui.bridge.EngineBridge`, which registers a status listener on it, and
a test hangs its own slots (lambdas over its widgets) on the bridge's signals. Left in place they
outlive the test: PySide keeps a connected lambda in C++, where the garbage collector cannot see
the cycle bridge -> lambda -> window -> context -> bridge, so the bridge lives on, its timer ticks,
the shared engine still feeds it, and a later test's load or cancel calls a lambda whose widgets
are gone (``RuntimeError: Internal C++ object already deleted`` in an unrelated test, or a pass
that depends on the order the files run in).

``connections`` (a fixture) undoes at the test's teardown what a test makes through it:

* ``connections.connect(signal, slot[, type])``: a Qt connection, disconnected;
* ``connections.context(engine=..., store=...)``: an AppContext whose bridge is closed
  (:meth:`EngineBridge.close`: the engine stops calling it, its timer stops);
* ``connections.bridge(engine)``: an EngineBridge, closed;
* ``connections.add(undo)``: any other undo step (run last-in, first-out).

``_shared_engines_keep_their_listeners`` (autouse) is the guard: a test that leaves status or log
listeners (the engines' signals) on an engine of a wider-scoped fixture than its own errors at its
teardown, naming them; they are removed there, so the tests after it run as if it had not leaked.
(The QApplication's receivers are not counted: Qt and pyqtgraph connect to its ``aboutToQuit`` and
``destroyed`` once per process, in whichever test first builds what needs them.)
"""

from __future__ import annotations

import warnings
from typing import Any, Callable, Iterator, TypeVar

import pytest

F = TypeVar("F", bound=Callable[..., Any])

#: The listener lists of the console's engines (LoopEngine and its servers).
LISTENER_LISTS = ("_listeners", "_log_listeners")


class Connections:
    """What a test connects to objects that may outlive it, undone at its teardown."""

    def __init__(self) -> None:
        self._undo: list[Callable[[], None]] = []

    def add(self, undo: Callable[[], None]) -> None:
        self._undo.append(undo)

    def connect(self, signal: Any, slot: F, *conn_type: Any) -> F:
        """``signal.connect(slot, *conn_type)``, disconnected at teardown; returns ``slot``."""
        signal.connect(slot, *conn_type)
        self.add(lambda: _disconnect(signal, slot))
        return slot

    def bridge(self, engine: Any) -> Any:
        from console.ui.bridge import EngineBridge

        bridge = EngineBridge(engine)
        self.add(bridge.close)
        return bridge

    def context(self, engine: Any = None, store: Any = None) -> Any:
        """``AppContext.create(engine, store)``, its bridge closed at teardown."""
        from console.ui.context import AppContext

        ctx = AppContext.create(engine=engine, store=store)
        self.add(ctx.bridge.close)
        return ctx

    def undo(self) -> None:
        errors: list[BaseException] = []
        while self._undo:
            step = self._undo.pop()
            try:
                step()
            except Exception as exc:  # every step runs; the first failure is reported
                errors.append(exc)
        if errors:
            raise errors[0]


def _disconnect(signal: Any, slot: Any) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # PySide warns when the connection is already gone
        try:
            signal.disconnect(slot)
        except (RuntimeError, TypeError):
            pass  # the sender was deleted with its widget, or the connection is already gone: nothing to undo


@pytest.fixture()
def connections() -> Iterator[Connections]:
    made = Connections()
    yield made
    made.undo()


# -- the guard -------------------------------------------------------------------------------------------


def _listener_lists(obj: Any) -> dict[str, list[Any]]:
    lists = {}
    for name in LISTENER_LISTS:
        value = getattr(obj, name, None)
        if isinstance(value, list):
            lists[name] = value
    return lists


def _shared(values: list[Any]) -> list[Any]:
    """The engines among fixture values (a ``family`` value is a (name, engine) tuple)."""
    found: list[Any] = []
    for value in values:
        for obj in value if isinstance(value, tuple) else (value,):
            if any(obj is seen for seen in found):
                continue
            if _listener_lists(obj):
                found.append(obj)
    return found


@pytest.fixture(autouse=True)
def _shared_engines_keep_their_listeners(request: pytest.FixtureRequest) -> Iterator[None]:
    # An autouse function fixture is set up after every wider-scoped fixture of the test (pytest
    # orders a test's fixtures by scope), so the values already filled in are the shared ones; and
    # it is torn down after the test's other function fixtures (qtbot's widgets, ``connections``).
    shared = _shared(list(getattr(request.node, "funcargs", {}).values()))
    before = [{name: list(now) for name, now in _listener_lists(obj).items()} for obj in shared]
    yield
    left: list[str] = []
    for obj, lists in zip(shared, before):
        for name, now in _listener_lists(obj).items():
            extra = [x for x in now if not any(x is y or x == y for y in lists.get(name, []))]
            if extra:
                left.append(f"{type(obj).__name__}.{name}: {extra}")
                for x in extra:  # the tests after this one run as if it had not leaked
                    now.remove(x)
    if left:
        pytest.fail(
            "the test left listeners on engines shared with later tests (build contexts and bridges "
            "on them, and connect to their signals, through the `connections` fixture):\n  " + "\n  ".join(left),
            pytrace=False,
        )
