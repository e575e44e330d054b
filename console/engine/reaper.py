"""Engine processes die with the console, even when the console is killed.

vLLM's AsyncLLM runs its engine core in a child process (and that may start workers). When the
console exits normally it shuts them down; when it is killed (SIGKILL, a segfault, the OOM
killer) nothing does, and the orphaned ``VLLM::EngineCore`` keeps its memory -- on a 24 GB card,
most of the VRAM -- until the user finds and kills it by hand.

:func:`start` gives the engine's process ids to the console's one parent-death watcher
(:class:`console.children.Watcher`, the same one every child process gets): once the console is
gone it terminates them and their children (SIGTERM, then SIGKILL after a grace period). A normal
unload calls :meth:`Reaper.stop`, and the watcher exits without touching anything.
"""

from __future__ import annotations

from typing import Sequence

from console.children import Watcher

GRACE_S = 5.0


class Reaper:
    def __init__(self, pids: Sequence[int]) -> None:
        self._watcher = Watcher(pids=pids, grace_s=GRACE_S)
        self.pids = self._watcher.pids

    @property
    def pid(self) -> int:
        return self._watcher.pid

    def alive(self) -> bool:
        """Whether every watched engine process still runs (a zombie does not)."""
        import psutil

        for pid in self.pids:
            try:
                if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                    return False
            except psutil.Error:
                return False
        return True

    def stop(self) -> None:
        """The engine was shut down normally: let the watcher go without killing anything."""
        self._watcher.release()


def start(pids: Sequence[int]) -> Reaper | None:
    """Watch ``pids`` (and their children) on behalf of this process; None when there is nothing
    to watch."""
    return Reaper(pids) if pids else None


def new_children(before: set[int]) -> list[int]:
    """Pids of this process's children (recursively) that were not in ``before``."""
    import psutil

    return [c.pid for c in psutil.Process().children(recursive=True) if c.pid not in before]


def children() -> set[int]:
    import psutil

    return {c.pid for c in psutil.Process().children(recursive=True)}
