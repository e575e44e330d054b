"""vLLM's own ``run_batch`` on a batch file, the reference the console's batch is held to
(tests/test_batch_vllm_parity.py, tests/test_vision_batch.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent


def run_vllm_batch(
    inp: Path, out: Path, model: Path, dtype: str, max_model_len: int, kv_bytes: int, cwd: Path, *extra: str
) -> None:
    """``python -m vllm.entrypoints.openai.run_batch`` on ``inp`` into ``out`` with the engine
    settings of the console's engine (eager, the same dtype, context and KV size) and ``extra``."""
    env = dict(os.environ, VLLM_LOGGING_LEVEL="WARNING", PYTHONPATH=str(REPO))
    args = ["-i", str(inp), "-o", str(out), "--model", str(model), "--dtype", dtype, "--enforce-eager"]
    args += ["--max-model-len", str(max_model_len), "--kv-cache-memory-bytes", str(kv_bytes), *extra]
    r = subprocess.run(
        [sys.executable, "-m", "vllm.entrypoints.openai.run_batch", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr[-3000:]


def bodies(path: Path) -> dict[str, dict[str, Any]]:
    """A batch output file's response bodies by custom_id (every line answered, none an error)."""
    rows = [json.loads(ln) for ln in path.read_text(encoding="utf-8").split("\n") if ln.strip()]
    assert all(r["error"] is None for r in rows), rows
    return {r["custom_id"]: r["response"]["body"] for r in rows}
