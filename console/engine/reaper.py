"""Engine processes die with the console, even when the console is killed.

vLLM's AsyncLLM runs its engine core in a child process (and that may start workers). When the
console exits normally it shuts them down; when it is killed (SIGKILL, a segfault, the OOM
killer) nothing does, and the orphaned ``VLLM::EngineCore`` keeps its memory -- on a 24 GB card,
most of the VRAM -- until the user finds and kills it by hand.

:func:`start` launches a tiny watcher process (``python -m console.engine.reaper``) that holds
the engine's process ids. It polls its parent; once the console is gone it terminates the engine
processes and their children (SIGTERM, then SIGKILL after a grace period) and exits. A normal
unload calls :meth:`Reaper.stop`, and the watcher exits without touching anything. psutil's
process objects remember each process's start time, so a reused pid is never killed.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from typing import Sequence

POLL_S = 0.5
GRACE_S = 5.0


class Reaper:
    def __init__(self, proc: subprocess.Popen[bytes], pids: Sequence[int]) -> None:
        self._proc = proc
        self.pids = tuple(pids)

    @property
    def pid(self) -> int:
        return self._proc.pid

    def stop(self) -> None:
        """The engine was shut down normally: let the watcher go without killing anything."""
        if self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()


def start(pids: Sequence[int]) -> Reaper | None:
    """Watch ``pids`` (and their children) on behalf of this process; None when there is nothing
    to watch."""
    if not pids:
        return None
    proc = subprocess.Popen(
        [sys.executable, "-m", "console.engine.reaper", str(os.getpid()), *map(str, pids)],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,  # a Ctrl-C meant for the console's terminal does not reach it
    )
    return Reaper(proc, pids)


def new_children(before: set[int]) -> list[int]:
    """Pids of this process's children (recursively) that were not in ``before``."""
    import psutil

    return [c.pid for c in psutil.Process().children(recursive=True) if c.pid not in before]


def children() -> set[int]:
    import psutil

    return {c.pid for c in psutil.Process().children(recursive=True)}


def _kill_tree(procs: list["object"]) -> None:
    import psutil

    tree: list[psutil.Process] = []
    for p in procs:
        assert isinstance(p, psutil.Process)
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
    _, alive = psutil.wait_procs(tree, timeout=GRACE_S)
    for p in alive:
        try:
            p.kill()
        except psutil.Error:
            pass


def main(argv: list[str]) -> int:
    import psutil

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    stopped = False

    def on_term(signum: int, frame: object) -> None:
        nonlocal stopped
        stopped = True

    signal.signal(signal.SIGTERM, on_term)
    parent = int(argv[0])
    procs: list[object] = []
    for pid in argv[1:]:
        try:
            procs.append(psutil.Process(int(pid)))
        except psutil.Error:
            pass
    while not stopped:
        if os.getppid() != parent:  # the console is gone: we were re-parented
            _kill_tree(procs)
            return 0
        if not any(p.is_running() for p in procs if isinstance(p, psutil.Process)):
            return 0  # nothing left to guard
        time.sleep(POLL_S)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
