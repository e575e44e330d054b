#!/usr/bin/env python3
"""Batch on a GPU: does the console's batch answer what plain vLLM answers, and as fast?

Usage (vLLM importable, an NVIDIA GPU; ``--emulate-gib 23`` on a card bigger than 24 GB):

    python benchmarks/gpu/batch_parity.py OUTDIR --gguf FILE [--emulate-gib 23]
           [--parts consistency,speed,8b,offload]

One process, engines kept between the parts that share them; every part lands in
``OUTDIR/batch-parity.json`` as soon as it ends (a part that fails records its error):

- ``consistency``: the acceptance batch (32 lines, 8 of them the same greedy capital question) on
  SmolLM2 (real weights, imported from the bundled GGUF) through the console's in-process engine, each
  submission mode twice with the prefix cache reset: ``window16`` (the old default: 16 in flight,
  refilled one by one), ``one_by_one`` (every request submitted separately: the old bench path),
  ``grouped_no_hold`` (one hop, scheduler not held), ``grouped`` (the new default: one hop, the
  scheduler held while the group is added). Controls: plain ``LLM.chat`` with the same 32
  conversations; the same modes with CUDA graphs off (eager) and with vLLM's batch-invariant mode.
  Each row: how many of the 8 say Paris, how many distinct answers, over how many engine steps the
  32 were first scheduled.
- ``speed``: SmolLM2, random token prompts 128 x 256 -> 128 and 1,024 x 256 -> 128: the console's
  bench path (``run_console``) against plain ``LLM.generate`` on the same engine settings, alternated
  twice, prefix cache reset before each run.
- ``8b``: the Llama-3.1-8B shape (dummy weights, SmolLM2's tokenizer, vocabulary matched), bf16,
  256 x 512 -> 256, console against plain vLLM.
- ``offload``: the 8B shape at the emulated budget with and without ``kv_offloading_size``: KV
  tokens, the context that serves 4 users, throughput of 4 users at that context and at twice it,
  the planner's host-RAM figure against the engine processes' RSS growth.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
for key, value in (
    ("VLLM_USE_FLASHINFER_SAMPLER", "0"),
    ("VLLM_WORKER_MULTIPROC_METHOD", "spawn"),
    ("HF_HUB_OFFLINE", "1"),
    ("VLLM_NO_USAGE_STATS", "1"),
    ("DO_NOT_TRACK", "1"),
    ("HF_HUB_DISABLE_TELEMETRY", "1"),
    ("NCCL_NVLS_ENABLE", "0"),
    ("TOKENIZERS_PARALLELISM", "false"),
):
    os.environ.setdefault(key, value)

from acceptance import LLAMA_8B  # noqa: E402  (this folder: the one 8B shape both scripts use)

GiB = 1 << 30
CAPITAL = "What is the capital of France?"
QUESTIONS = [CAPITAL, "How many days are there in a week?", "Name a fruit that is yellow.", "What is 2 + 3?"] * 8


def say(msg: str) -> None:
    print(f"[parity {time.strftime('%H:%M:%S')}] {msg}", flush=True)


class Run:
    def __init__(self, out: Path, work: Path, emulate_gib: float | None) -> None:
        self.out, self.work = out, work
        self.report: dict[str, Any] = {"started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "parts": {}}
        import torch
        import vllm

        total = torch.cuda.get_device_properties(0).total_memory
        self.util = round(emulate_gib * GiB / total, 4) if emulate_gib else 0.9
        self.report.update(
            gpu=torch.cuda.get_device_name(0),
            vllm=vllm.__version__,
            emulate_gib=emulate_gib,
            gpu_memory_utilization=self.util,
        )
        os.environ["INFERENCE_CONSOLE_HOME"] = str(work / "home")
        self.smol: Path | None = None
        self.shape_dir: Path | None = None  # --shape DIR: config + tokenizer, weights made up (load_format dummy)
        self.engines: dict[str, Any] = {}
        self.sizes = [(128, 2), (1024, 2)]  # speed: (requests, runs of each kind)
        self.pyspy = ""  # --pyspy BIN: profile one console run per workload

    def save(self) -> None:
        (self.out / "batch-parity.json").write_text(json.dumps(self.report, indent=1, default=str))

    def part(self, key: str, fn: Callable[[], dict[str, Any]]) -> None:
        say(f"=== {key}")
        t0 = time.time()
        try:
            res = fn()
        except Exception as exc:
            res = {"error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()[-3000:]}
            say(f"{key} FAILED: {res['error']}")
        res["seconds"] = round(time.time() - t0, 1)
        self.report["parts"][key] = res
        self.save()
        say(f"{key} done in {res['seconds']} s")

    # -- engines ---------------------------------------------------------------------------------
    def smollm2(self, gguf: str) -> Path:
        if self.smol is None and self.shape_dir is not None:  # SmolLM2's shape, random weights
            self.smol = self.shape_dir
        if self.smol is None:
            from console.models.importers import import_gguf
            from console.models.store import ModelStore

            store = ModelStore(self.work / "store")
            try:
                self.smol = Path(store.get("smollm2").path)
            except Exception:
                self.smol = Path(import_gguf(store, Path(gguf), "smollm2").path)
        return self.smol

    def dummy(self, cfg: dict[str, Any]) -> dict[str, Any]:
        if self.shape_dir is not None and cfg.get("model") == str(self.shape_dir):
            return {**cfg, "load_format": "dummy"}
        return cfg

    def console(self, tag: str, **cfg: Any) -> Any:
        from console.config import EngineConfig
        from console.engine.in_process import InProcessEngine

        cfg = self.dummy(cfg)
        if tag not in self.engines:
            engine = InProcessEngine()
            t0 = time.time()
            info = engine.load(EngineConfig(device="cuda", gpu_memory_utilization=self.util, **cfg), tag).result(1200)
            say(f"console engine {tag} loaded in {time.time() - t0:.0f} s ({info.num_kv_blocks} KV blocks)")
            self.engines[tag] = engine
        return self.engines[tag]

    def plain(self, tag: str, **kwargs: Any) -> Any:
        from vllm import LLM

        kwargs = self.dummy(kwargs)
        if tag not in self.engines:
            t0 = time.time()
            self.engines[tag] = LLM(gpu_memory_utilization=self.util, **kwargs)
            say(f"plain vLLM {tag} loaded in {time.time() - t0:.0f} s")
        return self.engines[tag]

    def drop(self, *tags: str) -> None:
        import gc

        for tag in tags:
            engine = self.engines.pop(tag, None)
            if engine is None:
                continue
            if hasattr(engine, "close"):
                engine.close()
            else:
                shutdown = getattr(getattr(engine, "llm_engine", None), "engine_core", None)
                if shutdown is not None:
                    shutdown.shutdown()
            del engine
        gc.collect()
        time.sleep(2)

    # -- parts -----------------------------------------------------------------------------------
    def consistency(self, gguf: str) -> dict[str, Any]:
        model = str(self.smollm2(gguf))
        res: dict[str, Any] = {"lines": len(QUESTIONS), "capital_lines": QUESTIONS.count(CAPITAL)}
        base = dict(model=model, max_model_len=2048)
        res["graphs"] = self._modes(self.console("smol", **base))
        llm = self.plain("smol-plain", model=model, max_model_len=2048)
        from vllm import SamplingParams

        plain_rows = []
        for _ in range(2):
            llm.reset_prefix_cache()
            outs = llm.chat(
                [[{"role": "user", "content": q}] for q in QUESTIONS],
                SamplingParams(temperature=0.0, max_tokens=32),
                use_tqdm=False,
            )
            plain_rows.append(_judge([o.outputs[0].text for o in outs], None))
        res["plain_llm_chat"] = plain_rows
        self.save()
        res["eager"] = self._modes(self.console("smol-eager", enforce_eager=True, **base), ("one_by_one", "grouped"))
        self.drop("smol-eager")
        os.environ["VLLM_BATCH_INVARIANT"] = "1"
        try:
            res["batch_invariant"] = self._modes(self.console("smol-bi", **base), ("one_by_one", "grouped"))
        except Exception as exc:
            res["batch_invariant"] = {"error": f"{type(exc).__name__}: {exc}"}
        finally:
            os.environ.pop("VLLM_BATCH_INVARIANT", None)
            self.drop("smol-bi")
        return res

    def _modes(
        self, engine: Any, modes: tuple[str, ...] = ("window16", "one_by_one", "grouped_no_hold", "grouped")
    ) -> dict[str, Any]:
        from console.batch.formats import parse_jsonl
        from console.batch.runner import run_batch
        from console.engine import grouped
        from console.engine.types import RequestFinished

        lines = "\n".join(
            json.dumps(
                {
                    "custom_id": f"q{i}",
                    "method": "POST",
                    "url": "/v1/chat/completions",
                    "body": {"messages": [{"role": "user", "content": q}], "max_tokens": 32, "temperature": 0},
                }
            )
            for i, q in enumerate(QUESTIONS)
        )
        parsed = parse_jsonl(lines)
        out: dict[str, Any] = {}
        for mode in modes:
            rows = []
            for rep in range(2):
                engine.reset_prefix_cache().result(60)
                grouped.HOLD_SCHEDULER = mode != "grouped_no_hold"
                try:
                    if mode in ("window16", "grouped"):
                        path = self.work / f"batch-{mode}-{rep}.jsonl"
                        summary = run_batch(
                            engine, parsed.requests, path, resume=False, concurrency=16 if mode == "window16" else None
                        )
                        by_id = {r.custom_id: r for r in summary.results}
                        texts = [by_id[f"q{i}"].text for i in range(len(QUESTIONS))]
                        rows.append(_judge(texts, None))
                        continue
                    reqs = [_request(q) for q in QUESTIONS]
                    if mode == "one_by_one":
                        handles = [engine.submit(r) for r in reqs]
                    else:
                        handles = engine.submit_many(reqs)
                    events = [h.result(300) for h in handles]
                    texts = [e.text if isinstance(e, RequestFinished) else f"FAILED {e}" for e in events]
                    rows.append(_judge(texts, [getattr(e, "engine_scheduled_ts", None) for e in events]))
                finally:
                    grouped.HOLD_SCHEDULER = True
            out[mode] = rows
            say(
                f"  {mode}: "
                + "; ".join(
                    f"paris {r['paris']}/8, {r['distinct_capital_answers']} answers, {r.get('scheduled_steps')} steps"
                    for r in rows
                )
            )
        return out

    def stress(self, gguf: str) -> dict[str, Any]:
        """Identical greedy lines where numerics decide: 64 copies of one question among 192 others,
        64 tokens each; with random weights the logits sit close together, so any difference in how
        a copy was computed shows as another answer. Per mode: how many distinct answers the copies got."""
        from vllm import SamplingParams

        from console.engine import grouped
        from console.engine.types import RequestFinished

        model = str(self.smollm2(gguf))
        engine = self.console("smol", model=model, max_model_len=2048)
        llm = self.plain("smol-plain", model=model, max_model_len=2048)
        questions = [
            CAPITAL if i % 4 == 0 else f"Question {i}: say something about the number {i}." for i in range(256)
        ]
        res: dict[str, Any] = {"lines": len(questions), "copies": questions.count(CAPITAL)}

        def distinct(texts: list[str]) -> int:
            return len({t for t, q in zip(texts, questions) if q == CAPITAL})

        for mode in ("one_by_one", "grouped_no_hold", "grouped"):
            rows = []
            for _ in range(2):
                engine.reset_prefix_cache().result(60)
                reqs = [_request(q, 64) for q in questions]
                grouped.HOLD_SCHEDULER = mode != "grouped_no_hold"
                try:
                    handles = [engine.submit(r) for r in reqs] if mode == "one_by_one" else engine.submit_many(reqs)
                    events = [h.result(600) for h in handles]
                finally:
                    grouped.HOLD_SCHEDULER = True
                texts = [e.text if isinstance(e, RequestFinished) else "FAILED" for e in events]
                steps = len({getattr(e, "engine_scheduled_ts", None) for e in events})
                rows.append({"distinct_copy_answers": distinct(texts), "scheduled_steps": steps})
            res[mode] = rows
            say(f"  stress {mode}: {rows}")
        plain = []
        for _ in range(2):
            llm.reset_prefix_cache()
            outs = llm.chat(
                [[{"role": "user", "content": q}] for q in questions],
                SamplingParams(temperature=0.0, max_tokens=64),
                use_tqdm=False,
            )
            plain.append({"distinct_copy_answers": distinct([o.outputs[0].text for o in outs])})
        res["plain_llm_chat"] = plain
        say(f"  stress plain: {plain}")
        return res

    def speed(self, gguf: str) -> dict[str, Any]:
        model = str(self.smollm2(gguf))
        engine = self.console("smol", model=model, max_model_len=2048)
        llm = self.plain("smol-plain", model=model, max_model_len=2048)
        bare = self.bare_async("smol-bare", model=model, max_model_len=2048)
        vocab = engine.tokenizer.vocab_size
        res: dict[str, Any] = {}
        for n, reps in self.sizes:
            res[str(n)] = self._compare(engine, llm, n, 256, 128, vocab, reps=reps, bare=bare)
        return res

    def bare_async(self, tag: str, **cfg: Any) -> Any:
        """Control: vLLM's ``AsyncLLM`` built with the console's engine arguments and offline usage
        context but without stat logging (as ``LLM`` has it), driven directly, no console code."""
        import asyncio
        import threading

        from console.config import EngineConfig
        from console import vllm_compat

        if tag in self.engines:
            return self.engines[tag]
        cfg = self.dummy(cfg)
        kwargs = vllm_compat.engine_args_kwargs(
            EngineConfig(device="cuda", gpu_memory_utilization=self.util, **cfg).engine_kwargs()
        )
        loop = asyncio.new_event_loop()
        threading.Thread(target=loop.run_forever, daemon=True, name="bare-asyncllm").start()
        args = vllm_compat.async_engine_args_class()(**kwargs, disable_log_stats=True)

        async def build() -> Any:
            ctx = vllm_compat.offline_usage_context()
            return vllm_compat.async_llm_class().from_engine_args(args, usage_context=ctx)

        t0 = time.time()
        engine = asyncio.run_coroutine_threadsafe(build(), loop).result(1200)
        say(f"bare AsyncLLM {tag} loaded in {time.time() - t0:.0f} s")

        class Bare:
            def __init__(self) -> None:
                self.engine, self.loop = engine, loop

            def close(self) -> None:
                engine.shutdown()

        self.engines[tag] = Bare()
        return self.engines[tag]

    @staticmethod
    def _direct(engine: Any, loop: Any, w: Any, outp: int) -> dict[str, Any]:
        """Every prompt through ``AsyncLLM.generate`` at once (asyncio.gather), final output only."""
        import asyncio
        import uuid

        from vllm import SamplingParams
        from vllm.sampling_params import RequestOutputKind

        params = SamplingParams(
            temperature=0.0, max_tokens=outp, ignore_eos=True, output_kind=RequestOutputKind.FINAL_ONLY
        )
        tag = uuid.uuid4().hex[:8]

        async def one(i: int, ids: list[int]) -> int:
            last = None
            async for out in engine.generate({"prompt_token_ids": ids}, params, f"direct-{tag}-{i}"):
                last = out
            return len(last.outputs[0].token_ids) if last is not None else 0

        async def run_all() -> tuple[int, float]:
            await engine.reset_prefix_cache()
            t0 = time.perf_counter()
            toks = await asyncio.gather(*(one(i, ids) for i, ids in enumerate(w.prompt_token_ids)))
            return sum(toks), time.perf_counter() - t0

        toks, dt = asyncio.run_coroutine_threadsafe(run_all(), loop).result(1200)
        return {"output_tokens_per_s": toks / dt, "duration_s": dt, "output_tokens": toks}

    def _compare(
        self, engine: Any, llm: Any, n: int, inp: int, outp: int, vocab: int, reps: int = 2, bare: Any = None
    ) -> dict[str, Any]:
        """The console's bench path against plain ``LLM.generate``, alternated ``reps`` times; with
        ``bare``, two controls beside them: ``AsyncLLM`` driven directly on the console's own engine
        (``direct``: its stat logging on) and on an engine without stat logging (``bare``)."""
        from vllm import SamplingParams

        from console.bench.runner import run_console
        from console.bench.workload import synthetic

        w = synthetic(n, inp, outp, vocab, seed=n)
        rows: dict[str, list[dict[str, Any]]] = {"console": [], "plain": []}
        # the controls: (engine, its loop) of vLLM's AsyncLLM driven directly
        controls = {} if bare is None else {"direct": (engine._engine, engine._loop), "bare": (bare.engine, bare.loop)}
        rows.update({key: [] for key in controls})
        params = SamplingParams(temperature=0.0, top_p=1.0, max_tokens=outp, ignore_eos=True)
        llm.generate([{"prompt_token_ids": w.prompt_token_ids[0]}], SamplingParams(max_tokens=4), use_tqdm=False)
        for async_llm, loop in controls.values():  # warm both direct paths once
            self._direct(async_llm, loop, synthetic(8, inp, 4, vocab, seed=1), 4)
        if self.pyspy:  # one profiled run of each first, not counted
            self._profiled(f"console-{n}", lambda: run_console(engine, w))
            if "bare" in controls:
                self._profiled(f"bare-{n}", lambda: self._direct(*controls["bare"], w, outp))
        for _ in range(reps):
            gc_quiet()
            r = run_console(engine, w)
            group = getattr(engine, "last_group", None)  # where the front end's time went
            rows["console"].append(
                {k: r.get(k) for k in ("output_tokens_per_s", "duration_s", "ttft_s", "e2e_s", "prefix_cache")}
                | {"engine_ttft_s": r["engine"]["ttft_s"], "group": group.report() if group else None}
            )
            rows["console"][-1]["gc_s"] = GC.take()
            for key, (async_llm, loop) in controls.items():
                gc_quiet()
                rows[key].append(self._direct(async_llm, loop, w, outp) | {"gc_s": GC.take()})
            llm.reset_prefix_cache()
            gc_quiet()
            t0 = time.perf_counter()
            outs = llm.generate([{"prompt_token_ids": ids} for ids in w.prompt_token_ids], params, use_tqdm=False)
            dt = time.perf_counter() - t0
            toks = sum(len(o.outputs[0].token_ids) for o in outs)
            rows["plain"].append(
                {"output_tokens_per_s": toks / dt, "duration_s": dt, "output_tokens": toks, "gc_s": GC.take()}
            )
            say(
                f"  {n}x{inp}->{outp}: "
                + ", ".join(f"{k} {v[-1]['output_tokens_per_s']:.0f}" for k, v in rows.items())
                + " tok/s"
            )
            # a call cut short (the GPU machine's time limit) keeps the rounds it measured
            self.report["parts"].setdefault("partial", {})[w.name] = {"runs": rows}
            self.save()

        def best(k: str) -> float:
            return max(float(r["output_tokens_per_s"]) for r in rows[k])

        def median(k: str) -> float:
            vals = sorted(float(r["output_tokens_per_s"]) for r in rows[k])
            return vals[len(vals) // 2]

        out: dict[str, Any] = {"workload": w.name, "runs": rows}
        for k in rows:
            if k != "plain":
                sfx = "" if k == "console" else f"_{k}"
                out[f"ratio_best{sfx}"] = best(k) / best("plain")
                out[f"ratio_median{sfx}"] = median(k) / median("plain")
        return out

    def _profiled(self, name: str, fn: Callable[[], Any]) -> None:
        """``fn`` under py-spy (every thread of this process, raw collapsed stacks in OUTDIR)."""
        import signal
        import subprocess

        dest = self.out / f"pyspy-{name}.txt"
        cmd = [self.pyspy, "record", "--pid", str(os.getpid()), "--rate", "400", "--threads", "--nonblocking"]
        spy = subprocess.Popen(
            [*cmd, "--format", "raw", "--output", str(dest)], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT
        )
        time.sleep(1.0)
        t0 = time.perf_counter()
        fn()
        say(f"  profiled {name}: {time.perf_counter() - t0:.2f} s")
        time.sleep(0.3)
        spy.send_signal(signal.SIGINT)  # py-spy writes what it has
        try:
            spy.wait(30)
        except subprocess.TimeoutExpired:
            spy.kill()

    def big(self, gguf: str) -> dict[str, Any]:
        self.drop("smol", "smol-plain")
        folder = self.shape_8b(gguf)
        kw = dict(max_model_len=8192, max_num_seqs=256, max_num_batched_tokens=8192, load_format="dummy")
        engine = self.console("8b", model=str(folder), **kw)
        llm = self.plain("8b-plain", model=str(folder), **kw)
        res = self._compare(engine, llm, 256, 512, 256, engine.tokenizer.vocab_size)
        self.drop("8b", "8b-plain")
        return res

    def shape_8b(self, gguf: str) -> Path:
        src = self.smollm2(gguf)
        folder = self.work / "llama-8b-shape"
        folder.mkdir(parents=True, exist_ok=True)
        import shutil

        for f in src.iterdir():
            if f.name.startswith(
                ("tokenizer", "special_tokens", "vocab", "merges", "generation_config", "chat_template")
            ):
                shutil.copy(f, folder / f.name)
        tok = json.loads((src / "config.json").read_text())
        (folder / "config.json").write_text(
            json.dumps(
                dict(
                    LLAMA_8B,
                    vocab_size=tok["vocab_size"],
                    bos_token_id=tok.get("bos_token_id"),
                    eos_token_id=tok.get("eos_token_id"),
                )
            )
        )
        return folder

    def offload(self, gguf: str) -> dict[str, Any]:
        import psutil

        from console.bench.runner import run_console
        from console.bench.workload import synthetic

        folder = self.shape_8b(gguf)
        res: dict[str, Any] = {}
        offload_gib = 32.0
        ctx4: int | None = None
        for tag, extra in (("no_offload", {}), ("offload", {"kv_offloading_size": offload_gib})):
            before = _tree_rss()
            try:
                engine = self.console(
                    tag, model=str(folder), max_model_len=32768, load_format="dummy", max_num_seqs=4, **extra
                )
            except Exception as exc:
                res[tag] = {"error": f"{type(exc).__name__}: {exc}"}
                continue
            info = engine.status.info
            kv_tokens = (info.num_kv_blocks or 0) * (info.block_size or 0)
            ctx4 = ctx4 or max(1024, (kv_tokens // 4) // 256 * 256)
            row: dict[str, Any] = {
                "kv_tokens_gpu": kv_tokens,
                "context_for_4_users": kv_tokens // 4,
                "rss_growth_bytes": _tree_rss() - before,
            }
            for ctx in (ctx4, min(2 * ctx4, 32768)):
                w = synthetic(4, ctx - 256, 256, engine.tokenizer.vocab_size, seed=ctx)
                r = run_console(engine, w)
                row[f"ctx_{ctx}"] = {
                    "output_tokens_per_s": r["output_tokens_per_s"],
                    "preemptions": r["engine"]["preemptions"],
                    "e2e_s": r.get("e2e_s"),
                }
                say(
                    f"  {tag} ctx {ctx}: {r['output_tokens_per_s']:.0f} tok/s, {r['engine']['preemptions']} preemptions"
                )
            res[tag] = row
            self.drop(tag)
            self.save()
        # The planner counts offload's host RAM as the offload size itself (console/planner/speed.py).
        res["planner_host_bytes"] = int(offload_gib * GiB)
        res["offload_gib"] = offload_gib
        res["host_ram_total_bytes"] = psutil.virtual_memory().total
        return res


class _GcClock:
    """Seconds this process spent in the garbage collector since the last :meth:`take`."""

    def __init__(self) -> None:
        import gc

        self.total = 0.0
        self._t0 = 0.0
        gc.callbacks.append(self._on)

    def _on(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._t0 = time.perf_counter()
        else:
            self.total += time.perf_counter() - self._t0

    def take(self) -> float:
        value, self.total = self.total, 0.0
        return round(value, 4)


GC = _GcClock()


def gc_quiet() -> None:
    """Collect now and freeze what survives, so that no run pays for the previous one's garbage
    (every kind of run gets the same; each run records its own collector time as ``gc_s``)."""
    import gc

    gc.collect()
    gc.freeze()
    GC.take()


def _tree_rss() -> int:
    import psutil

    me = psutil.Process()
    total = me.memory_info().rss
    for child in me.children(recursive=True):
        try:
            total += child.memory_info().rss
        except psutil.Error:
            pass
    return total


def _request(q: str, max_tokens: int = 32) -> Any:
    from console.sampling import SamplingSettings
    from console.engine.types import GenerationRequest

    return GenerationRequest(
        messages=[{"role": "user", "content": q}],
        stream=False,
        sampling=SamplingSettings(temperature=0.0, max_tokens=max_tokens),
    )


def _judge(texts: list[str], scheduled: list[float | None] | None) -> dict[str, Any]:
    capital = [t for t, q in zip(texts, QUESTIONS) if q == CAPITAL]
    row: dict[str, Any] = {
        "paris": sum("paris" in t.lower() for t in capital),
        "distinct_capital_answers": len(set(capital)),
        "distinct_answers_per_question": {
            q[:24]: len({t for t, q2 in zip(texts, QUESTIONS) if q2 == q}) for q in dict.fromkeys(QUESTIONS)
        },
        "capital_answers": sorted(set(capital))[:4],
    }
    if scheduled is not None:
        row["scheduled_steps"] = len({s for s in scheduled if s is not None})
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--gguf", default="", help="the bundled SmolLM2 GGUF (real weights)")
    ap.add_argument("--shape", type=Path, help="SmolLM2's config and tokenizer: its shape with random weights instead")
    ap.add_argument("--emulate-gib", type=float, default=None)
    ap.add_argument("--parts", default="consistency,stress,speed,8b,offload")
    ap.add_argument("--work", type=Path, default=Path("/tmp/console-parity"))
    ap.add_argument("--sizes", default="128:2,1024:2", help="speed: REQUESTS:RUNS,... (runs of each kind, alternated)")
    ap.add_argument("--pyspy", default="", help="speed: py-spy's binary; profiles one console run per workload")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    args.work.mkdir(parents=True, exist_ok=True)
    run = Run(args.out, args.work, args.emulate_gib)
    run.shape_dir = args.shape.resolve() if args.shape else None
    run.sizes = [(int(n), int(r)) for n, r in (x.split(":") for x in args.sizes.split(","))]
    run.pyspy = args.pyspy
    prev = args.out / "batch-parity.json"
    if prev.is_file():
        run.report["parts"].update(json.loads(prev.read_text()).get("parts", {}))
    parts: dict[str, Callable[[str], dict[str, Any]]] = {
        "consistency": run.consistency,
        "stress": run.stress,
        "speed": run.speed,
        "8b": run.big,
        "offload": run.offload,
    }

    def part_fn(key: str) -> Callable[[], dict[str, Any]]:
        return lambda: parts[key](args.gguf)  # an unknown key fails inside run.part, as a failed part

    for p in args.parts.split(","):
        run.part(p, part_fn(p))
    for tag in list(run.engines):
        run.drop(tag)
    run.report["finished_utc"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    run.save()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
