"""The front end's start work beside the engine core's (console/engine/front_prep.py): the tokenizer
is loaded on its own thread once the engine core's process exists, handed over when the build is
done, and loaded as before on the caller's thread where that thread never ran or failed. The
engine core here is a real child process (``sleep``); the tokenizer load is a stand-in that records
where it ran: this is about the threads. The real load is in tests/test_in_process_engine.py."""

from __future__ import annotations

import subprocess
import sys
import threading
from typing import Any

import pytest

from console.engine import reaper
from console.engine.front_prep import FrontEndPrep
from tests.conftest import wait_for


class Recorder:
    def __init__(self, fail_on: set[str] | None = None) -> None:
        self.loads: list[tuple[str, str]] = []  # (model, thread name)
        self.warmed: list[str] = []
        self.fail_on = fail_on or set()

    def load(self, model: str, trust: bool) -> Any:
        where = threading.current_thread().name
        self.loads.append((model, where))
        if where in self.fail_on or "any" in self.fail_on:
            raise OSError(f"no tokenizer in {model}")
        return f"tokenizer of {model} ({where})"

    def warm(self) -> None:
        self.warmed.append(threading.current_thread().name)


def _child() -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])


def test_the_tokenizer_is_loaded_beside_the_engine_core_once_its_process_exists() -> None:
    rec = Recorder()
    prep = FrontEndPrep("m", False, reaper.children(), load=rec.load, warm=rec.warm, wait_s=30)
    assert not rec.loads  # no engine core yet: the build's own imports run alone
    child = _child()
    try:
        wait_for(lambda: rec.loads, 10, "the thread to see the child")  # a build takes seconds
        tok = prep.tokenizer()
    finally:
        child.kill()
        child.wait()
    assert tok == "tokenizer of m (console-front-end-prep)"
    assert rec.loads == [("m", "console-front-end-prep")] and rec.warmed == ["console-front-end-prep"]
    assert prep.seconds is not None and prep.seconds >= 0


def test_without_an_engine_core_process_the_caller_loads_it() -> None:
    rec = Recorder()
    prep = FrontEndPrep("m", True, reaper.children(), load=rec.load, warm=rec.warm, wait_s=30)
    assert prep.tokenizer() == f"tokenizer of m ({threading.current_thread().name})"
    assert rec.loads == [("m", threading.current_thread().name)] and not rec.warmed


def test_a_failure_on_the_thread_is_not_the_loads_the_caller_loads_it_again() -> None:
    rec = Recorder(fail_on={"console-front-end-prep"})
    child = _child()
    try:
        prep = FrontEndPrep("m", False, reaper.children() - {child.pid}, load=rec.load, warm=rec.warm, wait_s=30)
        wait_for(lambda: rec.loads, 10, "the thread to see the child")
        tok = prep.tokenizer()
    finally:
        child.kill()
        child.wait()
    assert [w for _, w in rec.loads] == ["console-front-end-prep", threading.current_thread().name]
    assert tok == f"tokenizer of m ({threading.current_thread().name})"
    failing = Recorder(fail_on={"any"})  # where it fails here too, the error is the load's
    with pytest.raises(OSError, match="no tokenizer in m"):
        FrontEndPrep("m", False, reaper.children(), load=failing.load, warm=failing.warm, wait_s=30).tokenizer()


def test_a_failed_build_cancels_a_waiting_thread() -> None:
    rec = Recorder()
    prep = FrontEndPrep("m", False, reaper.children(), load=rec.load, warm=rec.warm, wait_s=30)
    prep.cancel()
    prep._thread.join(5)
    assert not prep._thread.is_alive() and not rec.loads
