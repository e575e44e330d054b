"""The console-launched server leaves nothing behind when the console is killed: a small python
process starts a ChildServer (api_server + vLLM's EngineCore child), is killed with SIGKILL, and
then no process of the server remains and its port is free."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import psutil
import pytest

from console.engine.child_server import free_port, port_free
from tests.conftest import wait_for

pytestmark = pytest.mark.engine

LAUNCHER = r"""
import sys, threading
from console.config import EngineConfig
from console.engine.child_server import ChildServer

if __name__ == "__main__":
    server = ChildServer(port=int(sys.argv[2]))
    server.load(EngineConfig(model=sys.argv[1], kv_cache_memory_bytes=64 * 1024**2, max_model_len=512,
                             device="cpu"), "tiny").result(timeout=600)  # healthy: answers /health
    print(server.pid, flush=True)
    threading.Event().wait()  # the console keeps running until it is killed
"""


def _alive(procs: list[psutil.Process]) -> list[psutil.Process]:
    out = []
    for p in procs:
        try:
            if p.is_running() and p.status() != psutil.STATUS_ZOMBIE:
                out.append(p)
        except psutil.NoSuchProcess:
            pass
    return out


def test_server_and_engine_core_die_with_a_killed_console(tiny_model: Path) -> None:
    port = free_port()
    launcher = subprocess.Popen(
        [sys.executable, "-c", LAUNCHER, str(tiny_model), str(port)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "VLLM_LOGGING_LEVEL": "ERROR"},
    )
    try:
        assert launcher.stdout is not None
        # The launcher prints the server's pid once the server is healthy (the api_server, its
        # EngineCore child and the port all exist): that line is the event to wait for.
        line = launcher.stdout.readline()
        assert line.strip().isdigit(), f"the launcher died before its server was healthy ({launcher.wait()})"
        server_pid = int(line)
        assert httpx.get(f"http://127.0.0.1:{port}/health", timeout=30).status_code == 200
        server = psutil.Process(server_pid)
        tree = [server, *server.children(recursive=True)]
        assert len(tree) >= 2, "expected the EngineCore child of the api_server"
        helpers = [p for p in psutil.Process(launcher.pid).children() if p.pid != server_pid]  # the watcher
        assert not port_free(port)

        os.kill(launcher.pid, signal.SIGKILL)
        launcher.wait(10)
        wait_for(lambda: not _alive(tree + helpers), 60, "the server's processes to die (zombies count as gone)")
        assert port_free(port)
    finally:
        if launcher.poll() is None:
            launcher.kill()
