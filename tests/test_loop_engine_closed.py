"""A closed engine refuses new work on its loop, and the coroutine it was handed is closed unrun
(not left to Python's "coroutine ... was never awaited" warning when it is collected)."""

from __future__ import annotations

import gc
import warnings

import pytest

from console.engine.loop_engine import LoopEngine
from console.engine.types import EngineError


def test_run_coroutine_on_a_closed_engine_raises_and_closes_the_coroutine() -> None:
    engine = LoopEngine()
    assert engine.run_coroutine(_answer()).result(10) == 42  # the control: an open engine runs it
    engine.close()
    coro = _answer()
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(EngineError, match="closed"):
            engine.run_coroutine(coro)
        assert coro.cr_frame is None  # closed: it can never run
        del coro
        gc.collect()


async def _answer() -> int:
    return 42
