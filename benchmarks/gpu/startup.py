#!/usr/bin/env python3
"""Startup, measured: the seconds from Load to the first token for the console's engine against
plain ``LLM(...)`` and ``vllm serve``, the same configuration, with a cold and a warm compile cache.

On the GPU machine (vLLM on ``PYTHONPATH``, no network), one call:

    PYTHONPATH=/tmp/site python3 benchmarks/gpu/startup.py $OUT/startup --tokenizer DIR [--util U]

* the model: the Llama-3.1-8B shape with dummy weights and the bundled SmolLM2 tokenizer in ``DIR``
  (``tune_8b.py --write-tokenizer DIR`` writes it), context 8,192 tokens, the emulated 24 GB card
  (``gpu_memory_utilization`` U, by default 22.9 GiB of the device), 256 sequences, 8,192 batched
  tokens, prefix caching, CUDA graphs and torch.compile as vLLM defaults them: the same engine
  arguments for all three (``vllm serve`` would otherwise take the server's own batch defaults);
* each start in a fresh process (``console``: ``InProcessEngine.load`` then one chat request;
  ``llm``: ``LLM(**args)`` then ``LLM.chat``; ``serve``: vLLM's OpenAI server, polled on ``/health``,
  then one ``/v1/chat/completions`` request): one chat message, one token of output (the first
  token's time is the request's end), then the same again (``second_request_s``: what the first
  one paid once);
* cold: vLLM's, inductor's and Triton's caches in a new empty folder; warm: the same start again
  on the folder the cold one filled;
* measured: ``import_s`` (the process's imports of the console or vLLM), ``load_s`` (Load, or
  ``LLM()``, or the server's start, until ready), ``first_token_s`` (the request), ``total_s`` from
  the process's start; vLLM's own phase lines from each log (weights, torch.compile, CUDA graphs,
  KV cache); the console's ``load_phases``. Written to ``OUT/startup.json`` after every start, the
  logs beside it.

``--dry-run``: the same on the CPU engine (eager, bf16, 1 GiB of KV cache set for all three) with
the tiny random Llama, or ``--cpu-model DIR`` (the store's SmolLM2: a CPU figure of its own).
Figures and reading: ``README-startup.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
KINDS = ("console", "llm", "serve")

#: One start, run as ``python -c CHILD KIND ARGS_JSON PORT``; prints ``STARTUP {json}``.
CHILD = r"""
import json, os, sys, time
t_proc = float(os.environ["STARTUP_T0"])
kind, args, port = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3])
out = {}
t0 = time.time()
if kind == "console":
    from console.config import EngineConfig
    from console.engine.in_process import InProcessEngine
    from console.engine.types import GenerationRequest, RequestFinished
    from console.sampling import SamplingSettings
    t1 = time.time()
    engine = InProcessEngine()
    info = engine.load(EngineConfig(**args)).result(1800)
    t2 = time.time()
    req = GenerationRequest(messages=[{"role": "user", "content": "Hello"}], stream=False,
                            sampling=SamplingSettings(temperature=0.0, max_tokens=1))
    ev = engine.submit(req).result(600)
    t3 = time.time()
    out["finished"] = isinstance(ev, RequestFinished)
    engine.submit(req).result(600)
    out["second_request_s"] = time.time() - t3
    phases = getattr(info, "load_phases", None) or ()
    out["load_phases"] = [p.to_dict() for p in phases]
    out["engine_kwargs"] = EngineConfig(**args).engine_kwargs()
elif kind == "llm":
    from vllm import LLM, SamplingParams
    t1 = time.time()
    llm = LLM(**args)
    t2 = time.time()
    chat = [{"role": "user", "content": "Hello"}]
    res = llm.chat(chat, SamplingParams(temperature=0.0, max_tokens=1), use_tqdm=False)
    t3 = time.time()
    out["finished"] = bool(res and res[0].outputs)
    llm.chat(chat, SamplingParams(temperature=0.0, max_tokens=1), use_tqdm=False)
    out["second_request_s"] = time.time() - t3
print("STARTUP " + json.dumps({**out, "import_s": t1 - t0, "load_s": t2 - t1, "first_token_s": t3 - t2,
                               "total_s": t3 - t_proc, "spawn_s": t0 - t_proc}), flush=True)
os._exit(0)
"""


def engine_args(model: Path, util: float, device: str, dry_run: bool) -> dict[str, Any]:
    """The engine arguments all three starts share (vLLM's names). On the CPU everything the console
    would otherwise fill in for that device (eager, bf16, the KV cache's size) is set for all three."""
    if device == "cpu":
        return {
            "model": str(model),
            "max_model_len": 2048,
            "max_num_seqs": 8,
            "max_num_batched_tokens": 2048,
            "enable_prefix_caching": True,
            "enforce_eager": True,
            "dtype": "bfloat16",
            "kv_cache_memory_bytes": 2**30,
        }
    return {
        "model": str(model),
        "load_format": "dummy",
        "max_model_len": 8192,
        "gpu_memory_utilization": util,
        "max_num_seqs": 256,
        "max_num_batched_tokens": 8192,
        "enable_prefix_caching": True,
    }


def serve_argv(args: dict[str, Any], port: int) -> list[str]:
    argv = [sys.executable, "-m", "vllm.entrypoints.openai.api_server", "--port", str(port), "--host", "127.0.0.1"]
    for k, v in args.items():
        flag = "--" + k.replace("_", "-")
        if v is True:
            argv.append(flag)
        elif v is not False:
            argv += [flag, str(v)]
    return argv


def cache_env(cache: Path) -> dict[str, str]:
    """Every compile cache of a start in ``cache`` (vLLM's, inductor's, Triton's)."""
    return {
        "VLLM_CACHE_ROOT": str(cache / "vllm"),
        "TORCHINDUCTOR_CACHE_DIR": str(cache / "inductor"),
        "TRITON_CACHE_DIR": str(cache / "triton"),
    }


def phases_of(text: str) -> dict[str, float | str | None]:
    """vLLM's own seconds for each phase its log names (the console's patterns, every release's
    wording: ``console/engine/load_phases.py``); a phase without a figure is None, a detail is kept."""
    from console.engine.load_phases import parse_line

    out: dict[str, float | str | None] = {}
    for line in text.splitlines():
        ended = parse_line(line)
        if ended is not None:
            name, seconds, detail = ended
            out[name] = seconds if seconds is None or out.get(name) is None else float(out[name] or 0) + seconds
            if detail:
                out[f"{name}_detail"] = detail
    return out


#: Fields of vLLM's "Initializing a V1 LLM engine ... with config:" line that tell whether two
#: starts ran the same configuration.
CONFIG_FIELDS = ("dtype", "max_seq_len", "enforce_eager", "kv_cache_dtype", "enable_prefix_caching", "quantization")
_MODE = re.compile(r"'mode': <CompilationMode\.(\w+)")
_GRAPHS = re.compile(r"'cudagraph_mode': <CUDAGraphMode\.(\w+)")


def config_of(text: str) -> dict[str, str]:
    """What vLLM says it was started with (the first engine config line of a log)."""
    line = next((ln for ln in text.splitlines() if "Initializing a V1 LLM engine" in ln), "")
    out = {k: m.group(1) for k in CONFIG_FIELDS if (m := re.search(rf"\b{k}=([^,]+)", line))}
    for key, pattern in (("compilation_mode", _MODE), ("cudagraph_mode", _GRAPHS)):
        if m := pattern.search(line):
            out[key] = m.group(1)
    return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _post(url: str, body: dict[str, Any], timeout: float) -> dict[str, Any]:
    req = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return dict(json.loads(r.read()))


def run_serve(args: dict[str, Any], env: dict[str, str], log_path: Path, timeout: float) -> dict[str, Any]:
    """vLLM's OpenAI server: process start to /health 200, then one 1-token completion."""
    port = free_port()
    t0 = time.time()
    with open(log_path, "w", encoding="utf-8") as log:
        proc = subprocess.Popen(
            serve_argv(args, port), stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True
        )
        try:
            ready = None
            while time.time() - t0 < timeout and proc.poll() is None:
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as r:
                        if r.status == 200:
                            ready = time.time()
                            break
                except OSError:
                    pass
                time.sleep(0.2)
            if ready is None:
                return {"error": f"not ready (exit {proc.poll()})"}
            chat = [{"role": "user", "content": "Hello"}]
            body = {"model": args["model"], "messages": chat, "max_tokens": 1, "temperature": 0.0}
            res = _post(f"http://127.0.0.1:{port}/v1/chat/completions", body, 600)
            done = time.time()
            _post(f"http://127.0.0.1:{port}/v1/chat/completions", body, 600)
            return {
                "second_request_s": time.time() - done,
                "finished": bool(res.get("choices")),
                "load_s": ready - t0,  # imports included: the server's start is one command
                "first_token_s": done - ready,
                "total_s": done - t0,
            }
        finally:
            os.killpg(proc.pid, 9)
            proc.wait()


def run_child(kind: str, args: dict[str, Any], env: dict[str, str], log_path: Path, timeout: float) -> dict[str, Any]:
    env = {**env, "STARTUP_T0": repr(time.time())}
    with open(log_path, "w", encoding="utf-8") as log:
        proc = subprocess.Popen(
            [sys.executable, "-u", "-c", CHILD, kind, json.dumps(args), "0"],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait()
            return {"error": "timeout"}
        finally:
            try:
                os.killpg(proc.pid, 9)
            except ProcessLookupError:
                pass
    text = log_path.read_text(encoding="utf-8", errors="replace")
    found = re.search(r"STARTUP (\{.*\})", text)
    if not found:
        tail = [ln for ln in text.splitlines() if ln.strip()][-3:]
        return {"error": f"exit {proc.returncode}: {' | '.join(tail)[-400:]}"}
    return dict(json.loads(found.group(1)))


def wait_card_empty(timeout: float = 60.0) -> None:
    """Until no process of ours holds the GPU (the previous start's engine child is gone)."""
    try:
        import pynvml

        pynvml.nvmlInit()
        h = pynvml.nvmlDeviceGetHandleByIndex(0)
        t0 = time.time()
        while pynvml.nvmlDeviceGetComputeRunningProcesses(h) and time.time() - t0 < timeout:
            time.sleep(0.5)
    except Exception:  # no NVML (the CPU dry run): the children are killed, nothing to wait for
        time.sleep(1)


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--tokenizer", type=Path, help="the bundled SmolLM2 tokenizer (tune_8b.py --write-tokenizer)")
    ap.add_argument("--util", type=float, help="gpu_memory_utilization (default: 22.9 GiB of the device)")
    ap.add_argument("--kinds", default=",".join(KINDS))
    ap.add_argument("--work", type=Path, default=Path("/tmp/console-startup"))
    ap.add_argument("--timeout-s", type=float, default=400)
    ap.add_argument("--dry-run", action="store_true", help="the CPU engine and the tiny random Llama")
    ap.add_argument("--cpu-model", type=Path, help="with --dry-run: this model folder (e.g. the store's smollm2)")
    a = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(HERE))
    a.out.mkdir(parents=True, exist_ok=True)
    a.work.mkdir(parents=True, exist_ok=True)
    device = "cpu" if a.dry_run else "cuda"
    if a.dry_run:
        from tests.fixtures.synthetic import make_llama

        model = a.cpu_model or make_llama(a.work / "tiny-llama")
        util = 0.0
    else:
        import tune_8b

        if a.tokenizer is None:
            raise SystemExit("--tokenizer DIR is needed")
        model = tune_8b.shape_8b(a.tokenizer, a.work / "llama-8b-shape")
        import torch

        util = a.util or round(22.9 * 2**30 / torch.cuda.mem_get_info()[1], 4)
    args = engine_args(model, util, device, a.dry_run)
    base_env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        "VLLM_NO_USAGE_STATS": "1",
        "DO_NOT_TRACK": "1",
        "HF_HUB_OFFLINE": "1",
        "INFERENCE_CONSOLE_HOME": str(a.work / "home"),
        "INFERENCE_CONSOLE_RECORD_LOADS": "0",
    }
    record: dict[str, Any] = {"device": device, "engine_args": args, "starts": []}
    try:
        from console.metrics import nvml

        record["gpu"] = nvml.gpu_name(0) if not a.dry_run else None
    except Exception as exc:  # the record says so; the starts are what matters
        record["gpu"] = f"? ({exc})"
    for kind in [k for k in a.kinds.split(",") if k]:
        cache = a.work / f"cache-{kind}"
        shutil.rmtree(cache, ignore_errors=True)
        for state in ("cold", "warm"):
            wait_card_empty()
            env = {**base_env, **cache_env(cache)}
            log_path = a.out / f"{kind}-{state}.log"
            print(f"[startup] {kind} {state} ...", flush=True)
            if kind == "serve":
                res = run_serve(args, env, log_path, a.timeout_s)
            else:
                kargs = {**args, "device": device} if kind == "console" else args
                res = run_child(kind, kargs, env, log_path, a.timeout_s)
            text = log_path.read_text(errors="replace")
            res.update(kind=kind, cache=state, vllm_phases=phases_of(text), vllm_config=config_of(text))
            record["starts"].append(res)
            (a.out / "startup.json").write_text(json.dumps(record, indent=1))
            print(
                f"[startup] {kind} {state}: " + json.dumps({k: v for k, v in res.items() if k != "engine_kwargs"}),
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
