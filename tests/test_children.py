"""The one child-process runner (console/children.py) with real child processes: messages on
stdout, a chatty stderr that cannot deadlock it, the log's tail in the error, cancel that ends the
whole group, and no orphan when the console is killed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import psutil
import pytest

from console.children import Child, child_env
from console.jobs import Cancelled, TaskState


def _py(code: str) -> list[str]:
    return [sys.executable, "-c", textwrap.dedent(code)]


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def _wait_gone(pids: list[int], timeout: float) -> list[int]:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if all(_gone(p) for p in pids):
            return []
        time.sleep(0.1)
    return [p for p in pids if not _gone(p)]


def test_env_is_ours_plus_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONSOLE_TEST_MARK", "ours")
    env = child_env({"EXTRA": "1"})
    assert env["CONSOLE_TEST_MARK"] == "ours" and env["EXTRA"] == "1" and env["PYTHONUNBUFFERED"] == "1"
    assert "EXTRA" not in os.environ


def test_megabytes_of_stderr_do_not_deadlock_and_messages_arrive(tmp_path: Path) -> None:
    # 4 MB of stderr, far over a pipe's 64 KiB buffer, interleaved with JSON progress on stdout:
    # a runner that reads only stdout (or reads stderr only after exit) hangs here for ever.
    code = """
        import json, sys
        line = "x" * 1023 + "\\n"
        for i in range(4):
            sys.stderr.write(line * 1024)
            print(json.dumps({"type": "progress", "fraction": (i + 1) / 4}), flush=True)
        print("not json, a log line", flush=True)
        sys.stderr.write("the last stderr line\\n")
    """
    messages: list[dict[str, Any]] = []
    child = Child(_py(code), log_path=tmp_path / "child.log", on_message=messages.append)
    with child.start():
        assert child.wait(timeout=60) == 0
    assert [m["fraction"] for m in messages] == [0.25, 0.5, 0.75, 1.0]
    assert (tmp_path / "child.log").stat().st_size > 4 * 1024 * 1024
    # stdout's and stderr's lines are read by two threads: their order across streams is free.
    assert "the last stderr line" in child.log_tail(2)
    log_lines = (tmp_path / "child.log").read_text().splitlines()
    assert "not json, a log line" in log_lines and len(log_lines) == 4 * 1024 + 2


def test_a_failure_names_the_exit_and_the_tail_of_the_log() -> None:
    code = """
        import sys
        for i in range(100):
            print(f"loading part {i}", file=sys.stderr)
        print("RuntimeError: the model folder has no weights", file=sys.stderr)
        sys.exit(3)
    """
    child = Child(_py(code))
    with child.start():
        assert child.wait(timeout=60) == 3
    message = child.error_message("The converter", n=2)
    assert (
        message == "The converter exited with code 3: loading part 99 | RuntimeError: the model folder has no weights"
    )


def test_cancel_ends_the_whole_group_even_a_child_that_ignores_sigterm() -> None:
    code = """
        import signal, subprocess, sys, time
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        grandchild = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        print(grandchild.pid, flush=True)
        time.sleep(600)
    """
    lines: list[str] = []
    printed = threading.Event()
    task = TaskState()
    child = Child(_py(code), on_line=lambda line: (lines.append(line), printed.set()))
    child.start()
    try:
        assert printed.wait(60), "the child never printed its grandchild's pid"
        grandchild = int(lines[0])
        task.cancel()
        with pytest.raises(Cancelled):
            child.wait(task=task)
        # SIGTERM is ignored by the child: SIGKILL after the grace (5 s) ended it.
        assert child.returncode == -signal.SIGKILL
        assert _wait_gone([grandchild], 10) == []
    finally:
        child.stop()


LAUNCHER = """
import sys, threading
from console.children import Child

if __name__ == "__main__":
    code = ("import subprocess, sys, time; "
            "g = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)']); "
            "print(g.pid, flush=True); time.sleep(600)")
    lines = []
    printed = threading.Event()
    child = Child([sys.executable, "-c", code], on_line=lambda line: (lines.append(line), printed.set())).start()
    printed.wait(60)
    print(child.pid, lines[0], child._watcher.pid, flush=True)
    threading.Event().wait()  # until killed
"""


def test_the_child_dies_when_the_parent_is_sigkilled() -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", LAUNCHER],
        stdout=subprocess.PIPE,
        text=True,
        env=child_env({"PYTHONPATH": os.pathsep.join(sys.path)}),
    )
    try:
        assert parent.stdout is not None
        child, grandchild, watcher = (int(x) for x in parent.stdout.readline().split())
        assert not _gone(child) and not _gone(grandchild)
        os.kill(parent.pid, signal.SIGKILL)  # no clean-up code runs in the parent
        parent.wait(10)
        assert _wait_gone([child, grandchild, watcher], 30) == []
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()


def test_a_normal_stop_releases_the_watcher_without_leftovers() -> None:
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    child = Child(_py('print(\'{"type": "done"}\')'), on_message=lambda m: None)
    with child.start():
        child.wait(timeout=60)
    left = [
        p
        for p in psutil.Process().children(recursive=True)
        if p.pid not in before and p.is_running() and p.status() != psutil.STATUS_ZOMBIE
    ]
    assert left == []


def test_json_messages_can_be_turned_off() -> None:
    lines: list[str] = []
    child = Child(
        _py("print(json.dumps({'a': 1}))".replace("json.dumps({'a': 1})", "'{\"a\": 1}'")),
        on_line=lines.append,
        json_lines=False,
    )
    with child.start():
        child.wait(timeout=60)
    assert [json.loads(line) for line in lines] == [{"a": 1}]
