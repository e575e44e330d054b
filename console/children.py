"""One way to run a child process: the GGUF converter, the AWQ job, the baselines, the local
``vllm serve`` -- and the watcher that outlives the console to clean up after it.

:class:`Child` starts a command in its own process group (``start_new_session``: a Ctrl-C meant for
the console does not reach it, and stopping it signals the whole group, grandchildren included).
Its stdout is read line by line on a thread: a JSON object is a message for ``on_message``
(progress, errors, results), anything else is a log line. Its stderr is drained on another thread
into the log (a file when ``log_path`` is given, and always the last lines in memory), so a chatty
child can never fill a pipe and deadlock. :meth:`Child.stop` ends the group: SIGTERM, then SIGKILL
after a grace period. :meth:`Child.error_message` puts the tail of the log into the message the
user sees.

Parent death: every child gets a watcher (``python -m console.children``, its own tiny process)
holding the read end of a pipe whose write end only the console holds. When the console dies --
even by SIGKILL -- the pipe reads EOF and the watcher ends the child's group. A normal stop tells
the watcher to leave. The in-process engine's reaper (``console/engine/reaper.py``) uses the same
watcher for vLLM's engine processes, given as process ids instead of a group.

Every child's environment is built by :func:`child_env`: one place to add what all children need.
"""

from __future__ import annotations

import collections
import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any, Callable, Mapping, Sequence

from console import privacy
from console.jobs import Cancelled, TaskState

log = logging.getLogger(__name__)

MessageSink = Callable[[dict[str, Any]], None]
LineSink = Callable[[str], None]
#: How long a group gets between SIGTERM and SIGKILL unless the caller says otherwise.
GRACE_S = 5.0
RELEASE = b"release\n"


#: Variables this process sets for a while for the vLLM processes one load starts (the load's log
#: capture), by name -> the value the user had (None: unset). Another child gets the user's value,
#: not a path that may be gone before it reads it.
_lent: dict[str, str | None] = {}
_lent_lock = threading.Lock()


def lend_env(name: str, value: str | None) -> None:
    """``os.environ[name]`` is about to hold a value for this process's own use; ``value`` is the
    user's (None: unset), what :func:`child_env` gives children meanwhile."""
    with _lent_lock:
        _lent[name] = value


def return_env(name: str) -> None:
    """``os.environ[name]`` holds the user's value again."""
    with _lent_lock:
        _lent.pop(name, None)


def child_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of every child the console starts: ours (with the user's values of the
    variables lent for a load), unbuffered output, then ``extra``."""
    env = dict(os.environ)
    with _lent_lock:
        for name, value in _lent.items():
            if value is None:
                env.pop(name, None)
            else:
                env[name] = value
    privacy.apply(env)  # telemetry off in every child unless the user opted in (console/privacy.py)
    env["PYTHONUNBUFFERED"] = "1"
    if extra:
        env.update(extra)
    return env


def python_module(module: str, *args: str) -> list[str]:
    """``python -m module args`` with this interpreter."""
    return [sys.executable, "-m", module, *args]


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


class Watcher:
    """A process that ends ``group`` (a process group id) and/or ``pids`` (with their children)
    when this process dies. :meth:`release` lets it go without touching anything."""

    def __init__(self, *, group: int | None = None, pids: Sequence[int] = (), grace_s: float = GRACE_S) -> None:
        self.pids = tuple(pids)
        args = [str(grace_s), str(group or 0), *map(str, self.pids)]
        self._proc = subprocess.Popen(
            python_module("console.children", *args),
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=child_env(),
            start_new_session=True,
        )

    @property
    def pid(self) -> int:
        return self._proc.pid

    def release(self, timeout: float = 5.0) -> None:
        """The watched processes were ended normally: the watcher exits without killing."""
        if self._proc.poll() is None:
            try:
                assert self._proc.stdin is not None
                if self._proc.stdin.closed:  # released before (a stop after a kill and restart)
                    raise OSError("the watcher's pipe is closed")
                self._proc.stdin.write(RELEASE)
                self._proc.stdin.close()
                self._proc.wait(timeout)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                self._proc.kill()
                self._proc.wait()


class Child:
    """A started child process (see the module docstring). Use :meth:`start`, then :meth:`wait`
    (or poll :attr:`returncode`), and always :meth:`stop` (or ``with``)."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        log_path: str | Path | None = None,
        on_message: MessageSink | None = None,
        on_line: LineSink | None = None,
        merge_stderr: bool = False,
        json_lines: bool = True,
        cwd: str | Path | None = None,
        tail_lines: int = 200,
    ) -> None:
        self.argv = list(argv)
        self.env = child_env(env)
        self.log_path = Path(log_path) if log_path else None
        self.on_message = on_message
        self.on_line = on_line
        self.merge_stderr = merge_stderr
        self.json_lines = json_lines
        self.cwd = cwd
        self._tail: collections.deque[str] = collections.deque(maxlen=tail_lines)
        self._log_lock = threading.Lock()
        self._log_file: IO[str] | None = None
        self._readers: list[threading.Thread] = []
        self._proc: subprocess.Popen[bytes] | None = None
        self._watcher: Watcher | None = None

    # -- start -----------------------------------------------------------------------------------
    def start(self) -> "Child":
        if self.log_path is not None:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            self._log_file = open(self.log_path, "w", encoding="utf-8")
        log.info("starting %s", " ".join(self.argv))
        self._proc = subprocess.Popen(
            self.argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT if self.merge_stderr else subprocess.PIPE,
            env=self.env,
            cwd=self.cwd,
            start_new_session=True,
        )
        self._watcher = Watcher(group=self._proc.pid)
        self._read(self._proc.stdout, self._on_stdout, "stdout")
        if not self.merge_stderr:
            self._read(self._proc.stderr, self._record, "stderr")
        return self

    def _read(self, stream: IO[bytes] | None, sink: LineSink, name: str) -> None:
        assert stream is not None

        def pump() -> None:
            for raw in iter(stream.readline, b""):
                try:
                    sink(raw.decode("utf-8", "replace").rstrip("\r\n"))
                except Exception:  # a broken callback must not stop the draining
                    log.exception("child output handler failed")
            stream.close()

        thread = threading.Thread(target=pump, name=f"child-{name}", daemon=True)
        thread.start()
        self._readers.append(thread)

    def _on_stdout(self, line: str) -> None:
        if self.json_lines and line.startswith("{"):
            try:
                msg = json.loads(line)
            except json.JSONDecodeError:
                msg = None
            if isinstance(msg, dict):
                if self.on_message is not None:
                    self.on_message(msg)
                return
        self._record(line)

    def _record(self, line: str) -> None:
        with self._log_lock:
            self._tail.append(line)
            if self._log_file is not None:
                self._log_file.write(line + "\n")
                self._log_file.flush()
        if self.on_line is not None:
            self.on_line(line)

    # -- state -----------------------------------------------------------------------------------
    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    @property
    def returncode(self) -> int | None:
        return self._proc.poll() if self._proc is not None else None

    def log_tail(self, n: int = 5) -> list[str]:
        with self._log_lock:
            lines = [ln for ln in self._tail if ln.strip()]
        return lines[-n:]

    def exit_text(self) -> str:
        code = self.returncode
        if code is None:
            return "is still running"
        return f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"

    def error_message(self, what: str, n: int = 5) -> str:
        """``"<what> <exit text>: <last log lines>"``, plus where the full log is."""
        tail = " | ".join(self.log_tail(n)) or "no output"
        where = f" (full log: {self.log_path})" if self.log_path else ""
        return f"{what} {self.exit_text()}: {tail}{where}"

    # -- wait / stop -------------------------------------------------------------------------------
    def wait(self, timeout: float | None = None, task: TaskState | None = None, poll_s: float = 0.1) -> int:
        """Wait for the child to exit and its output to be read. Raises :class:`Cancelled` when
        ``task`` is cancelled, :class:`TimeoutError` after ``timeout`` -- the group is stopped first."""
        proc = self._proc
        assert proc is not None, "start() first"
        end = None if timeout is None else time.monotonic() + timeout
        while True:
            try:
                proc.wait(poll_s)
                break
            except subprocess.TimeoutExpired:
                pass
            if task is not None and task.cancelled:
                self.stop()
                raise Cancelled()
            if end is not None and time.monotonic() > end:
                self.stop()
                raise TimeoutError(
                    f"{Path(self.argv[-1]).name if self.argv else 'the child'} took longer than {timeout:.0f} s"
                )
        self._join_readers()
        return int(proc.returncode)

    def stop(self, grace_s: float = GRACE_S) -> None:
        """End the child's whole group (SIGTERM, SIGKILL after ``grace_s``), reap it, let the
        watcher go. Safe to call more than once and after the child exited by itself."""
        proc = self._proc
        if proc is None:
            return
        pgid = proc.pid  # its own session: the group id is its pid
        if group_alive(pgid):
            _signal_group(pgid, signal.SIGTERM)
            end = time.monotonic() + grace_s
            while time.monotonic() < end:
                proc.poll()  # reap it, or the group stays "alive" as a zombie
                if not group_alive(pgid):
                    break
                time.sleep(0.05)
            if group_alive(pgid):
                log.warning("process group %d ignored SIGTERM for %.0f s: SIGKILL", pgid, grace_s)
                _signal_group(pgid, signal.SIGKILL)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            log.warning("child %d did not exit after SIGKILL", pgid)
        self._join_readers()
        if self._watcher is not None:
            self._watcher.release()
            self._watcher = None

    def _join_readers(self) -> None:
        for thread in self._readers:
            thread.join(timeout=5)
        with self._log_lock:
            if self._log_file is not None and not any(t.is_alive() for t in self._readers):
                self._log_file.close()
                self._log_file = None

    def __enter__(self) -> "Child":
        return self.start() if self._proc is None else self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        pass


# -- the watcher process (python -m console.children GRACE GROUP PID...) ------------------------
def _kill_tree(procs: list[Any], grace_s: float) -> None:
    """End ``procs`` (psutil processes) and their children. psutil remembers each start time, so
    a pid reused since the watcher started is never killed."""
    import psutil

    tree: list[Any] = []
    for p in procs:
        try:
            if p.is_running():
                tree.append(p)
                tree.extend(p.children(recursive=True))
        except psutil.Error:
            pass
    for p in tree:
        try:
            p.terminate()
        except psutil.Error:
            pass
    _, alive = psutil.wait_procs(tree, timeout=grace_s)
    for p in alive:
        try:
            p.kill()
        except psutil.Error:
            pass


def _kill_group(pgid: int, grace_s: float) -> None:
    if not group_alive(pgid):
        return
    _signal_group(pgid, signal.SIGTERM)
    end = time.monotonic() + grace_s
    while group_alive(pgid) and time.monotonic() < end:
        time.sleep(0.1)
    if group_alive(pgid):
        _signal_group(pgid, signal.SIGKILL)


def main(argv: list[str]) -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    grace_s, group, pids = float(argv[0]), int(argv[1]), [int(p) for p in argv[2:]]
    procs: list[Any] = []
    if pids:
        import psutil

        for pid in pids:  # remember them now, start time included
            try:
                procs.append(psutil.Process(pid))
            except psutil.Error:
                pass
    try:
        said = sys.stdin.buffer.read()  # until the console releases us or dies (EOF)
    except BaseException:
        said = b""
    if said.startswith(RELEASE):
        return 0
    if group:
        _kill_group(group, grace_s)
    if procs:
        _kill_tree(procs, grace_s)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
