"""The engine core below the window (console/engine/priority.py): every thread of the engine's
processes, children included, gets the lower priority (Linux sets nice values per thread), and
only when the window asked for it (the CLI's engine keeps the console's priority)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from console.engine import priority

CHILD = """
import subprocess, sys, threading, time
threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
grandchild = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
print(grandchild.pid, flush=True)
time.sleep(60)
"""


def _nice_of_threads(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        stat = (task / "stat").read_text()
        out.append(int(stat.rsplit(")", 1)[1].split()[16]))  # field 19: nice
    return out


@pytest.mark.engine  # starts child processes (no engine)
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice values are Linux's")
def test_every_thread_of_the_engine_processes_is_lowered() -> None:
    child = subprocess.Popen([sys.executable, "-c", CHILD], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        grandchild = int(child.stdout.readline())
        deadline = time.monotonic() + 10
        while len(_nice_of_threads(child.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(_nice_of_threads(child.pid)) >= 2  # the main thread and the sleeping one
        assert min(_nice_of_threads(child.pid)) < priority.ENGINE_NICE
        assert priority.lower_engine([child.pid]) == 0  # the CLI: not asked for, nothing lowered
        assert min(_nice_of_threads(child.pid)) < priority.ENGINE_NICE
        priority.prefer_the_window()  # what the app does at start
        try:
            changed = priority.lower_engine([child.pid])  # what the engine does after a CPU load
        finally:
            priority.prefer_the_window(0)
        assert set(_nice_of_threads(child.pid)) == {priority.ENGINE_NICE}  # not only the main thread
        assert set(_nice_of_threads(grandchild)) == {priority.ENGINE_NICE}  # and its children
        assert changed >= 3
        assert priority.lower([child.pid]) == 0  # already there: nothing to change
        assert priority.lower([2**22 + 7]) == 0  # gone: skipped
    finally:
        for p in __import__("psutil").Process(child.pid).children(recursive=True):
            p.kill()
        child.kill()
        child.wait()


@pytest.mark.engine  # a real (failing) load, fast
@pytest.mark.parametrize("window", [True, False])
def test_the_window_gets_short_gil_slices_while_a_model_loads(tmp_path: Path, window: bool) -> None:
    """In the window a load runs with 1 ms GIL slices (the GUI thread waits less for the engine
    thread's imports), put back afterwards; the CLI keeps Python's. Observed from inside a real
    load (of a folder without config.json: it fails fast, after the slices were set)."""
    from console.config import EngineConfig
    from console.engine.in_process import InProcessEngine

    seen: list[float] = []
    default = sys.getswitchinterval()
    priority.prefer_the_window(priority.ENGINE_NICE if window else 0)
    engine = InProcessEngine()
    engine.add_status_listener(lambda status: seen.append(sys.getswitchinterval()))
    try:
        (tmp_path / "empty").mkdir()
        with pytest.raises(Exception, match="config.json"):
            engine.load(EngineConfig(model=str(tmp_path / "empty"), device="cpu"), "empty").result(60)
    finally:
        priority.prefer_the_window(0)
        engine.close()
    assert seen, "no status change during the load"
    want = priority.LOAD_SWITCH_S if window else default
    assert any(v == pytest.approx(want) for v in seen), seen
    assert window or all(v == pytest.approx(default) for v in seen)
    assert sys.getswitchinterval() == pytest.approx(default)
