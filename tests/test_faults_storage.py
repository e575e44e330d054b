"""Storage faults: a full disk, a file-size limit, kill -9 in the middle of an atomic
write and of a model import. Each is a real fault (the kernel's errors, a real SIGKILL of a child
process); only the ENOSPC-at-fsync case uses an injected writer, since no full disk is at hand."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from console.atomic import DiskFullError, atomic_write_bytes, atomic_write_json
from console.batch.results import BatchResult, ResultWriter
from console.models.importers import import_hf_folder
from console.models.store import ModelStore

ROOT = Path(__file__).resolve().parents[1]


def _python(code: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        cwd=ROOT,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_enospc_at_fsync_gives_disk_full_and_keeps_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "registry.json"
    atomic_write_json(target, {"models": ["old"]})
    real_fsync = os.fsync

    def full(fd: int) -> None:  # what ext4/NFS report when delayed allocation finds no space
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(DiskFullError, match="No space left on the disk") as info:
        atomic_write_json(target, {"models": ["new"] * 1000})
    monkeypatch.setattr(os, "fsync", real_fsync)
    assert str(tmp_path) in str(info.value) and "free some space" in str(info.value)
    assert json.loads(target.read_text()) == {"models": ["old"]}
    assert _leftovers(tmp_path) == []


def test_file_size_limit_in_a_child_gives_disk_full_and_keeps_the_old_file(tmp_path: Path) -> None:
    """RLIMIT_FSIZE makes the kernel refuse the write (EFBIG). Before the fix in atomic.py this
    surfaced as a bare OSError 'File too large'."""
    target = tmp_path / "conversation.json"
    target.write_bytes(b"old contents\n")
    proc = _python(
        """
        import json, resource, signal, sys
        from pathlib import Path
        from console.atomic import DiskFullError, atomic_write_bytes
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # get EFBIG instead of being killed
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
        try:
            atomic_write_bytes(Path(sys.argv[1]), b"x" * 100_000)
            print(json.dumps({"raised": None}))
        except Exception as exc:
            print(json.dumps({"raised": type(exc).__name__, "message": str(exc)}))
    """,
        str(target),
    )
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    result = json.loads(out.strip().splitlines()[-1])
    assert result["raised"] == "DiskFullError", result
    assert "file size limit" in result["message"] and "conversation.json" in result["message"]
    assert target.read_bytes() == b"old contents\n"
    assert _leftovers(tmp_path) == []


def test_batch_results_on_a_full_device_say_so(tmp_path: Path) -> None:
    """/dev/full answers every write with a real ENOSPC."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    # Leaving the `with` flushes the failed bytes again: before the fix in results.py that second
    # ENOSPC replaced the explained error with a bare OSError.
    with pytest.raises(DiskFullError, match="No space left .* written so far are kept"):
        with ResultWriter(Path("/dev/full")) as writer:
            writer.write(BatchResult("a", 1, "hi", ok=True, text="answer"))


def test_kill_9_during_atomic_writes_never_leaves_a_torn_file(tmp_path: Path) -> None:
    target = tmp_path / "results.json"
    size = 2 * 1024 * 1024
    atomic_write_bytes(target, b"A" * size)
    for round_ in range(4):
        proc = _python(
            """
            import sys
            from pathlib import Path
            from console.atomic import atomic_write_bytes
            size = int(sys.argv[2])
            i = 0
            print("go", flush=True)
            while True:
                atomic_write_bytes(Path(sys.argv[1]), bytes([66 + i % 20]) * size)
                i += 1
        """,
            str(target),
            str(size),
        )
        assert proc.stdout is not None and proc.stdout.readline().strip() == "go"
        time.sleep(0.3 + 0.37 * round_)  # land at different points of the write/fsync/rename cycle
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        assert proc.returncode == -signal.SIGKILL
        data = target.read_bytes()
        assert len(data) == size and data == data[:1] * size, f"torn file after kill -9 (round {round_})"


def test_kill_9_during_an_import_never_lists_a_half_model(tmp_path: Path, tiny_model: Path) -> None:
    """The real importer in a child process, slowed by its progress callback, killed mid-copy."""
    root = tmp_path / "store"
    ModelStore(root)
    proc = _python(
        """
        import sys, time
        from pathlib import Path
        from console.jobs import TaskState
        from console.models.importers import import_hf_folder
        from console.models.store import ModelStore

        class Slow(TaskState):
            def report(self, stage, fraction=None, message=""):
                print("progress", stage, flush=True)
                time.sleep(60)

        import_hf_folder(ModelStore(Path(sys.argv[1])), Path(sys.argv[2]), "half", Slow())
    """,
        str(root),
        str(tiny_model),
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.startswith("progress copying"), (line, proc.stderr.read() if proc.poll() is not None else "")
    staged = list((root / ".staging").iterdir())
    assert staged and any(staged[0].rglob("*")), "the child should be mid-copy in its staging folder"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)

    store = ModelStore(root)  # a restart: opening the store sweeps the dead child's staging
    assert store.list() == [] and "half" not in store
    assert not (root / "half").exists()
    assert not any((root / ".staging").iterdir())
    entry = import_hf_folder(store, tiny_model, "half")  # the name is free again
    assert entry.available and [e.name for e in store.list()] == ["half"]


_HISTORY_ON_FULL_DISK = """
    import json, resource, signal, sys
    from pathlib import Path
    from console.chat.conversations import ConversationStore
    db = Path(sys.argv[1])
    s = ConversationStore(db)
    cid = s.create("t").id
    s.append(cid, "user", "kept question")
    s.messages(cid)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of death: the disk is "full"
    size = max(p.stat().st_size for p in db.parent.iterdir())
    resource.setrlimit(resource.RLIMIT_FSIZE, (size + 4096, resource.RLIM_INFINITY))
    try:
        s.append(cid, "assistant", "x" * 200_000)
        out = {"raised": None}
    except Exception as exc:
        out = {"raised": type(exc).__name__, "module": type(exc).__module__, "message": str(exc)}
    resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    s.close()
    out["messages"] = [m.content for m in ConversationStore(db).messages(cid)]
    print(json.dumps(out))
"""


def _history_on_full_disk(tmp_path: Path) -> dict[str, object]:
    proc = _python(_HISTORY_ON_FULL_DISK, str(tmp_path / "history.db"))
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    return dict(json.loads(out.strip().splitlines()[-1]))


def test_chat_history_on_a_full_disk_keeps_what_was_saved(tmp_path: Path) -> None:
    result = _history_on_full_disk(tmp_path)
    assert result["raised"] is not None  # the failed append is not silently dropped
    assert result["messages"] == ["kept question"]  # and the history is intact afterwards


def test_chat_history_on_a_full_disk_says_so(tmp_path: Path) -> None:
    result = _history_on_full_disk(tmp_path)
    assert result["module"] == "console.chat.conversations" and "space" in str(result["message"]).lower()
