"""What LoRA adapters cost on the console's engine path.

One engine with LoRA slots (max_loras 2, max_lora_rank 8) on a model folder (default: a tiny
random Llama written here; ``--model DIR`` for e.g. the SmolLM2 checkpoint), two random-weight
PEFT adapters made with peft, and the same greedy workload (N prompts x fixed output length, EOS
ignored, prefix cache reset before each run) sent four ways through ``InProcessEngine.submit``:

* ``plain``: the base model on an engine *without* LoRA (a second load; ``--no-plain`` skips it)
* ``base``: the base model on the LoRA engine (no adapter named)
* ``one``: every request through adapter ``a``
* ``mixed``: requests cycling base / ``a`` / ``b`` in one batch

    python benchmarks/lora_bench.py [--model DIR] [--prompts 32] [--output-len 64] [--json out.json]

Prints a table of output tok/s and the ratio to ``base``; figures are written down in
``benchmarks/lora.md`` with the machine's load.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("VLLM_LOGGING_LEVEL", "WARNING")

PROMPTS = [
    "The capital of France is",
    "Hello, how are you today?",
    "Tell me a story about a cat.",
    "A GPU with 24 GB of memory holds",
    "Quantization to int4 shrinks",
]


def run(engine: Any, adapters: list[str | None], prompts: int, output_len: int) -> dict[str, float]:
    from console.sampling import SamplingSettings
    from console.engine.types import GenerationRequest, RequestFinished

    engine.reset_prefix_cache().result(timeout=60)
    sampling = SamplingSettings(temperature=0.0, max_tokens=output_len, ignore_eos=True)
    t0 = time.perf_counter()
    handles = [
        engine.submit(
            GenerationRequest(
                prompt=f"{PROMPTS[i % len(PROMPTS)]} ({i})",
                sampling=sampling,
                adapter=adapters[i % len(adapters)],
                stream=False,
            )
        )
        for i in range(prompts)
    ]
    events = [h.result(timeout=1200) for h in handles]
    elapsed = time.perf_counter() - t0
    bad = [e for e in events if not isinstance(e, RequestFinished)]
    if bad:
        raise SystemExit(f"a request failed: {bad[0]}")
    tokens = sum(e.output_tokens for e in events)
    return {"seconds": elapsed, "output_tokens": tokens, "tok_s": tokens / elapsed}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", type=Path, help="a checkpoint folder (default: a tiny random Llama)")
    p.add_argument("--prompts", type=int, default=32)
    p.add_argument("--output-len", type=int, default=64)
    p.add_argument("--rank", type=int, default=8)
    p.add_argument("--no-plain", action="store_true", help="skip the engine without LoRA")
    p.add_argument("--json", type=Path)
    args = p.parse_args()

    from console.config import EngineConfig
    from console.engine.in_process import InProcessEngine
    from tests.fixtures.synthetic import make_llama, make_lora

    work = Path(tempfile.mkdtemp(prefix="lora-bench-"))
    model = args.model or make_llama(work / "tiny")
    every = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
    a = make_lora(model, work / "a", rank=args.rank, seed=1, target_modules=every)
    b = make_lora(model, work / "b", rank=args.rank, seed=2, target_modules=every)
    common: dict[str, Any] = dict(
        model=str(model),
        device="cpu",
        max_model_len=1024,
        kv_cache_memory_bytes=1024**3,
        max_num_seqs=max(args.prompts, 1),
    )
    results: dict[str, Any] = {}
    if not args.no_plain:
        engine = InProcessEngine()
        info = engine.load(EngineConfig(**common)).result(timeout=1200)
        results["plain"] = run(engine, [None], args.prompts, args.output_len)
        engine.close()
    engine = InProcessEngine()
    config = EngineConfig(
        **common, max_loras=2, max_lora_rank=max(8, args.rank), lora_modules={"a": str(a), "b": str(b)}
    )
    info = engine.load(config).result(timeout=1200)
    run(engine, ["a", "b", None], 6, 8)  # warm-up: vLLM loads each adapter's weights at its first request
    results["base"] = run(engine, [None], args.prompts, args.output_len)
    results["one"] = run(engine, ["a"], args.prompts, args.output_len)
    results["mixed"] = run(engine, [None, "a", "b"], args.prompts, args.output_len)
    engine.close()
    base = results["base"]["tok_s"]
    print(
        f"model {model} ({info.dtype}), {args.prompts} prompts x {args.output_len} tokens, rank {args.rank}, "
        f"adapters on all 7 projections; load average {os.getloadavg()[0]:.1f}"
    )
    print("| run | output tok/s | seconds | ratio vs base on the LoRA engine |\n|---|---|---|---|")
    for name, r in results.items():
        print(f"| {name} | {r['tok_s']:.1f} | {r['seconds']:.2f} | {r['tok_s'] / base:.3f} |")
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "model": str(model),
                    "dtype": info.dtype,
                    "prompts": args.prompts,
                    "output_len": args.output_len,
                    "rank": args.rank,
                    "results": results,
                    "loadavg": os.getloadavg(),
                },
                indent=2,
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
