"""A write killed mid-way (SIGKILL) leaves a temporary file; the next start sweeps it.

The writer is a real child process doing a real save through console.atomic; it is stopped at
the fsync, with the temporary file written but not yet renamed, and killed there.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from console.atomic import atomic_write_text, sweep_stale_tmp
from console.models.store import ModelStore
from console.settings import Settings, load_settings, save_settings

ROOT = Path(__file__).resolve().parent.parent

WRITER = """
import os, sys, time
from pathlib import Path

def stall(fd):  # the data is in the temporary file; the rename has not happened
    print("in the middle of the write", flush=True)
    time.sleep(600)

os.fsync = stall
kind, target = sys.argv[1], Path(sys.argv[2])
if kind == "settings":
    from console.settings import Settings, save_settings
    save_settings(Settings(system_prompt="new"), target)
else:
    from console.models.store import ModelStore
    ModelStore(target).add_reference("second", Path(sys.argv[3]))
"""


def kill_mid_write(*args: str) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-c", WRITER, *args], stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "in the middle of the write"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL


def tmp_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_settings_write_killed_then_restart(tmp_path: Path) -> None:
    path = tmp_path / "home" / "settings.json"
    save_settings(Settings(system_prompt="old"), path)
    kill_mid_write("settings", str(path))
    left = tmp_files(path.parent)
    assert len(left) == 1 and left[0].name.startswith(".settings.json.")  # the killed write's debris
    assert load_settings(path).system_prompt == "old"  # the restart reads the last complete save...
    assert tmp_files(path.parent) == []  # ...and sweeps the debris


def test_registry_write_killed_then_restart(tmp_path: Path, tiny_model: Path) -> None:
    root = tmp_path / "store"
    ModelStore(root).add_reference("first", tiny_model)
    kill_mid_write("registry", str(root), str(tiny_model))
    assert len(tmp_files(root)) == 1
    store = ModelStore(root)
    assert [e.name for e in store.list()] == ["first"]
    assert tmp_files(root) == []


def test_sweep_keeps_files_of_live_writers(tmp_path: Path) -> None:
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        live = tmp_path / f".a.json.{sleeper.pid}.abcd1234.tmp"
        mine = tmp_path / f".b.json.{os.getpid()}.abcd1234.tmp"
        fresh_unowned = tmp_path / ".c.json.abcd1234.tmp"
        old_unowned = tmp_path / ".d.json.efgh5678.tmp"
        for p in (live, mine, fresh_unowned, old_unowned):
            p.write_text("partial")
        hours_ago = time.time() - 2 * 3600
        os.utime(old_unowned, (hours_ago, hours_ago))
        atomic_write_text(tmp_path / "e.json", "{}")  # a complete write leaves nothing behind
        assert sweep_stale_tmp(tmp_path) == [old_unowned]
        assert tmp_files(tmp_path) == sorted([live, mine, fresh_unowned])
    finally:
        sleeper.kill()
        sleeper.wait()
    assert sweep_stale_tmp(tmp_path) == [live]  # its writer is gone now
