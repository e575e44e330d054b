"""torch's native library is loaded with the GIL released (console/native_preload.py):
the ``dlopen`` inside ``import torch`` held the GIL for 200-430 ms, the longest stall
of the window while a model loaded. A fresh interpreter (the library loads once per process)
times a thread that keeps waking while the preload runs: with the GIL held it cannot wake at all
until the load ends. Then ``import torch`` uses the library already loaded."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, sys, threading, time
sys.path.insert(0, sys.argv[1])
from console.native_preload import preload_torch
ticks, stop = [], []
def probe():
    while not stop:
        time.sleep(0.001)
        ticks.append(time.perf_counter())
t = threading.Thread(target=probe)
t.start()
time.sleep(0.05)
t0 = time.perf_counter()
loaded = preload_torch()
t1 = time.perf_counter()
stop.append(1)
t.join()
points = [t0] + [x for x in ticks if t0 < x < t1] + [t1]
gap = max(b - a for a, b in zip(points, points[1:]))
maps = open("/proc/self/maps").read()
imported_before = "torch" in sys.modules
import torch
print(json.dumps({"loaded": loaded, "seconds": t1 - t0, "gap": gap, "mapped": "libtorch_cpu.so" in maps,
                  "imported_before": imported_before, "again": preload_torch(),
                  "works": float(torch.ones(2).sum())}))
"""


@pytest.mark.engine  # a child process importing torch (no vLLM, no engine)
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the preload is Linux-only (dlopen)")
def test_torch_library_loads_while_other_threads_run() -> None:
    r = subprocess.run([sys.executable, "-c", CHILD, str(ROOT)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["loaded"] and out["loaded"][0].endswith("libtorch_cpu.so") and out["mapped"]
    assert not out["imported_before"]  # loaded, not imported: no torch module yet
    assert out["seconds"] > 0.05, out  # the real load happened here (hundreds of ms on these machines)
    # the probe thread kept waking during the load: its longest pause is a fraction of the load
    # (holding the GIL, as ctypes.CDLL or the import itself does, makes it the whole load)
    assert out["gap"] < 0.5 * out["seconds"], out
    assert out["again"] == [] and out["works"] == 2.0  # once per process; torch then imports and runs
