#!/usr/bin/env python3
"""Where vLLM's "Model loading took X GiB" goes: every CUDA tensor the worker holds right after a
load, grouped, against the planner's parameter count.

Why: on vLLM 0.26 (H200, 2026-12-05) Phi-4 with online FP8 reported 15.22 GiB of weights where its
parameters at their width (linears FP8, embeddings, lm_head and norms 16-bit) come to 14.61 GiB;
Llama-3.1-8B through the same path (``Fp8PerTensorOnlineLinearMethod``, layerwise quantization)
reported 8.54 against 8.49. The 0.61 GiB makes the planner 12% optimistic on that load, the one
held-out load of the fit matrix above the issue's 3% limit. Reading vLLM's source (dummy loader,
layerwise reload, the Cutlass kernel's post-processing) found nothing that keeps it; this looks.

Usage on the GPU machine (vLLM importable), one child process per load:

    python3 benchmarks/gpu/weights_probe.py OUTDIR [--only ID,ID] [--util 0.1638]

The loads are ``fit_matrix.py``'s (default: Phi-4 online FP8; Phi-3-medium, its family's shape
with a 32k vocabulary; StableLM-2-12B and Gemma-3-4B through the same path), run eager (the weights
do not depend on the mode). After ``LLM()`` returns, the worker lists its CUDA tensors (``gc``):
the model's parameters and buffers by dtype and the largest of them, then whatever else is alive
(the KV cache among it), with ``torch.cuda.memory_allocated``, what the caching allocator reserves
(freed blocks it keeps count in a figure measured from the device's free memory) and the device's use.
Writes ``OUTDIR/weights-probe.jsonl``, one line per load.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))

import fit_check  # noqa: E402
import fit_matrix  # noqa: E402
from console.planner.loadlog import parse_vllm_log  # noqa: E402

DEFAULT = (
    "phi-4-fp8-online-default-compiled-16384",
    "phi-3-medium-fp8-online-default-eager-4096",
    "stablelm-2-12b-fp8-online-default-eager-4096",
    "gemma-3-4b-fp8-online-default-eager-8192",
)

PROBE_SCRIPT = r"""
import json, sys
args = json.loads(sys.argv[1])
from vllm import LLM

def census(worker):
    import gc, torch
    model = worker.model_runner.model
    dev = next(model.parameters()).device.type  # "cuda" (the CPU engine: "cpu", a dry run of this script)
    owned = {}
    for kind, items in (("param", model.named_parameters()), ("buffer", model.named_buffers())):
        for name, t in items:
            if t.device.type == dev:
                owned[t.untyped_storage().data_ptr()] = (kind, name, t)
    by_dtype, largest = {}, []
    for ptr, (kind, name, t) in owned.items():
        n = t.untyped_storage().nbytes()
        key = f"{kind}:{t.dtype}"
        by_dtype[key] = by_dtype.get(key, 0) + n
        largest.append((n, kind, name, list(t.shape), str(t.dtype), list(t.stride())))
    largest.sort(reverse=True)
    other, seen = {}, set(owned)
    for obj in gc.get_objects():
        try:
            if not (isinstance(obj, torch.Tensor) and obj.device.type == dev):
                continue
            st = obj.untyped_storage()
        except Exception:
            continue
        ptr = st.data_ptr()
        if ptr in seen:
            continue
        seen.add(ptr)
        key = f"{list(obj.shape)} {obj.dtype}"
        n, c = other.get(key, (0, 0))
        other[key] = (n + st.nbytes(), c + 1)
    top_other = sorted(((v[0], v[1], k) for k, v in other.items()), reverse=True)[:25]
    return {
        "allocated": torch.cuda.memory_allocated() if dev == "cuda" else None,
        # what the caching allocator holds beyond the live tensors (freed blocks kept, split blocks)
        "reserved": torch.cuda.memory_reserved() if dev == "cuda" else None,
        "inactive_split": torch.cuda.memory_stats().get("inactive_split_bytes.all.current") if dev == "cuda" else None,
        "device_used": (lambda f: f[1] - f[0])(torch.cuda.mem_get_info()) if dev == "cuda" else None,
        "model_runner_weights": getattr(worker.model_runner, "model_memory_usage", None),
        "owned_bytes": sum(by_dtype.values()),
        "owned_by_dtype": by_dtype,
        "largest_owned": largest[:12],
        "owned_count": len(owned),
        "other_top": top_other,
        "other_bytes": sum(v[0] for v in other.values()),
    }

llm = LLM(**args)
out = llm.collective_rpc(census)
print("PROBE " + json.dumps(out[0]), flush=True)
"""


def loads(only: list[str]) -> list[Any]:
    by_id = {x.load_id: x for x in fit_matrix._matrix()}
    missing = [i for i in only if i not in by_id]
    if missing:
        raise SystemExit(f"not in fit_matrix.py: {', '.join(missing)}")
    return [by_id[i] for i in only]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir", type=Path)
    ap.add_argument("--only", default=",".join(DEFAULT))
    ap.add_argument("--util", type=float, default=fit_matrix.UTIL)
    ap.add_argument("--timeout-s", type=float, default=240)
    a = ap.parse_args(argv)
    a.outdir.mkdir(parents=True, exist_ok=True)
    # the fit matrix's environment (the engine core in the load's own process, as Phi-4 was measured),
    # and a callable allowed through collective_rpc
    env = {**os.environ, **fit_check.ENV, "VLLM_ALLOW_INSECURE_SERIALIZATION": "1", "VLLM_LOGGING_LEVEL": "DEBUG"}
    for load in loads([x for x in a.only.split(",") if x]):
        folder = fit_matrix.write_folder(load, a.outdir / "models")
        args = {**fit_matrix.engine_args(load, folder, a.util), "enforce_eager": True}
        log = a.outdir / f"{load.load_id}.probe.log"
        rc: int | str
        proc = subprocess.Popen(
            [sys.executable, "-c", PROBE_SCRIPT, json.dumps(args)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
            env=env,
            start_new_session=True,
        )
        try:
            text, _ = proc.communicate(timeout=a.timeout_s)
            rc = proc.returncode
        except subprocess.TimeoutExpired:
            fit_matrix._kill_group(proc.pid)
            text, _ = proc.communicate()
            rc = "timeout"
        fit_matrix._kill_group(proc.pid)  # whatever is left of the group, so the next load finds the card free
        log.write_text(text, encoding="utf-8")
        probe = next((json.loads(x[6:]) for x in text.splitlines() if x.startswith("PROBE ")), None)
        report = parse_vllm_log(text).to_dict()
        line = {"load_id": load.load_id, "rc": rc, "engine_args": args, "probe": probe, "report": report}
        with (a.outdir / "weights-probe.jsonl").open("a", encoding="utf-8") as f:
            f.write(json.dumps(line, default=str) + "\n")
        keys = ("allocated", "reserved", "owned_bytes", "other_bytes")
        print(load.load_id, rc, probe and {k: probe[k] for k in keys})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
