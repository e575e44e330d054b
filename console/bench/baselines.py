"""Baselines on the same prompts and sampling, each in a fresh Python process, under the console
run's concurrency (``max_concurrency``: at most that many requests in flight) and arrival schedule
(``request_rate``: Poisson arrivals drawn by :func:`console.bench.workload.arrival_offsets` with the
same seed):

- ``vllm``: plain vLLM. Every request at once with no cap: ``vllm.LLM(**engine_kwargs).generate``.
  With a cap or an arrival rate: the same ``LLM``'s own engine driven by hand
  (``llm.llm_engine.add_request`` / ``step``, the loop ``LLM.generate`` runs inside), admitting a
  request when it is due and fewer than ``max_concurrency`` are in flight, as the console's
  :class:`~console.engine.many.ManyRequests` does: a sliding window, not chunks of N (a chunk
  waits for its slowest request). ``max_num_seqs=N`` would also cap the running requests at N when
  all arrive at once, but it changes the engine's configuration (its scheduler budget and, on a
  GPU, the CUDA graphs captured) and cannot follow an arrival schedule, so the engine is built with
  the console's exact arguments and the cap is applied at admission instead;
- ``asyncllm``: vLLM's ``AsyncLLM`` driven directly, with the same cap (a semaphore) and schedule;
- ``hf``: Hugging Face transformers ``generate`` with static batching (left-padded batches of at
  most ``max_concurrency`` -- or ``hf_batch_size`` when given --, greedy, fixed
  ``max_new_tokens``). With fixed output lengths a batch's requests end together, so batches of N
  keep N in flight as the console's window does; static batches cannot follow an arrival rate, so
  with one the figures say they ran every request at once (and the report gives no ratio).

Each result records what it ran under (``max_concurrency``, ``request_rate``);
:func:`console.bench.report.compare` gives a ratio only between runs under the same ones.
Each runs one short warm-up request first (the console path is measured on a warm engine too) and
times only the generation. ``python -m console.bench.baselines KIND SPEC.json OUT.json`` is the
child's entry point; :func:`run_baseline` starts it and reads the figures back.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from console.bench.workload import Workload, arrival_offsets
from console.children import Child, python_module
from console.jobs import TaskState
from console import vllm_compat


def run_baseline(
    kind: str,
    engine_kwargs: dict[str, Any],
    workload: Workload,
    *,
    request_rate: float | None = None,
    max_concurrency: int | None = None,
    seed: int = 0,
    hf_batch_size: int | None = None,
    timeout_s: float = 1800,
    task: TaskState | None = None,
) -> dict[str, Any]:
    """Run baseline ``kind`` ("vllm", "asyncllm" or "hf") in a child process, under the console
    run's ``request_rate`` (None: all at once) and ``max_concurrency`` (None: no cap), arrivals
    drawn with ``seed``; its figures, or ``{"error": ...}`` when it failed (the message names the
    cause). ``hf_batch_size`` (None: the run's concurrency) is the HF baseline's batch size."""
    if request_rate is not None and (request_rate <= 0 or request_rate == float("inf")):
        request_rate = None
    with tempfile.TemporaryDirectory(prefix="bench-") as d:
        spec, out = Path(d) / "spec.json", Path(d) / "out.json"
        spec.write_text(
            json.dumps(
                {
                    "engine_kwargs": engine_kwargs,
                    "workload": workload.to_dict(),
                    "hf_batch_size": hf_batch_size,
                    "request_rate": request_rate,
                    "max_concurrency": max_concurrency,
                    "seed": seed,
                }
            )
        )
        env = {
            "VLLM_WORKER_MULTIPROC_METHOD": "spawn",
            "TQDM_DISABLE": "1",
            "VLLM_LOGGING_LEVEL": os.environ.get("VLLM_LOGGING_LEVEL", "WARNING"),
        }
        # Its log goes to a file as it is written (a full pipe would stall the child).
        child = Child(
            python_module("console.bench.baselines", kind, str(spec), str(out)),
            env=env,
            log_path=Path(d) / "baseline.log",
            json_lines=False,
        )
        with child.start():
            try:
                code = child.wait(timeout_s, task=task)
            except TimeoutError:
                raise TimeoutError(f"the {kind} baseline took longer than {timeout_s:.0f}s") from None
        if code != 0 or not out.is_file():
            tail = "\n".join(child.log_tail(5))
            return {"error": f"the {kind} baseline failed ({child.exit_text()}): {tail}"}
        return dict(json.loads(out.read_text()))


def _text_prompts(model: str, workload: Workload) -> list[dict[str, list[int]]]:
    """The workload's chats as token ids, tokenized as vLLM's chat path does (the template writes
    its own start token: no special tokens added), so the baselines see the console's prompts."""
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(model)
    texts = [tok.apply_chat_template(m, tokenize=False, add_generation_prompt=True) for m in workload.messages]
    return [{"prompt_token_ids": tok.encode(t, add_special_tokens=False)} for t in texts]


def _schedule(spec: dict[str, Any], n: int) -> tuple[int | None, float | None, list[float]]:
    """The run's cap on requests in flight, its arrival rate and each request's send time (seconds
    after the start): the same offsets the console's run drew (same rate, count and seed)."""
    cap = spec.get("max_concurrency")
    rate = spec.get("request_rate")
    return (int(cap) if cap else None), rate, arrival_offsets(n, rate, int(spec.get("seed") or 0))


def _throughput(
    requests: int, out_tok: int, in_tok: int, dt: float, load_s: float, cap: int | None, rate: float | None
) -> dict[str, Any]:
    """A baseline run's figures, with the concurrency and arrival rate it ran under."""
    return {
        "duration_s": dt,
        "load_s": load_s,
        "requests": requests,
        "output_tokens": out_tok,
        "prompt_tokens": in_tok,
        "output_tokens_per_s": out_tok / dt,
        "total_tokens_per_s": (out_tok + in_tok) / dt,
        "requests_per_s": requests / dt,
        "max_concurrency": cap,
        "request_rate": rate,
    }


def _figures(outs: list[Any], dt: float, load_s: float, cap: int | None, rate: float | None) -> dict[str, Any]:
    out_tok = sum(len(o.outputs[0].token_ids) for o in outs)
    in_tok = sum(len(o.prompt_token_ids or []) for o in outs)
    return _throughput(len(outs), out_tok, in_tok, dt, load_s, cap, rate)


def run_windowed(
    engine: Any, prompts: list[Any], params: Any, cap: int | None, offsets: list[float]
) -> tuple[list[Any], int]:
    """Drive a vLLM ``LLMEngine`` (``LLM.llm_engine``) as the console's run drives its engine: a
    request is added once its send time has come and fewer than ``cap`` are in flight (None: no
    cap), then the engine steps; a finished request frees its place before the next step. The
    finished outputs, in completion order, and the most requests that were in flight at once."""
    todo = list(range(len(prompts)))
    outs: list[Any] = []
    in_flight = peak = 0
    t0 = time.perf_counter()
    while todo or in_flight:
        now = time.perf_counter() - t0
        while todo and (cap is None or in_flight < cap) and offsets[todo[0]] <= now:
            i = todo.pop(0)
            engine.add_request(f"w{i}", prompts[i], params)
            in_flight += 1
        peak = max(peak, in_flight)
        if not in_flight:  # nothing running: wait for the next arrival
            time.sleep(max(0.0, offsets[todo[0]] - (time.perf_counter() - t0)))
            continue
        for o in engine.step():
            if o.finished:
                outs.append(o)
                in_flight -= 1
    return outs, peak


def _vllm(spec: dict[str, Any]) -> dict[str, Any]:
    LLM, SamplingParams = vllm_compat.llm_class(), vllm_compat.sampling_params_class()  # noqa: N806
    w = Workload.from_dict(spec["workload"])
    kwargs = vllm_compat.engine_args_kwargs(dict(spec["engine_kwargs"]))
    t_load = time.perf_counter()
    llm = LLM(**kwargs)
    load_s = time.perf_counter() - t_load
    params = SamplingParams(temperature=0.0, top_p=1.0, max_tokens=w.output_len, ignore_eos=w.ignore_eos)
    if w.prompt_token_ids:
        prompts: list[Any] = [{"prompt_token_ids": ids} for ids in w.prompt_token_ids]
    else:
        prompts = _text_prompts(kwargs.get("tokenizer") or kwargs["model"], w)
    cap, rate, offsets = _schedule(spec, len(prompts))
    llm.generate([prompts[0]], SamplingParams(max_tokens=4), use_tqdm=False)  # warm-up
    t0 = time.perf_counter()
    extra: dict[str, Any] = {"vllm_version": vllm_compat.vllm_version()}
    if cap is None and rate is None:
        outs = llm.generate(prompts, params, use_tqdm=False)
        extra["driven_by"] = "LLM.generate, every request at once"
    else:
        params.output_kind = vllm_compat.request_output_kind().FINAL_ONLY  # as LLM.generate asks
        outs, extra["peak_in_flight"] = run_windowed(llm.llm_engine, prompts, params, cap, offsets)
        extra["driven_by"] = "LLM's engine stepped by hand: requests admitted on the run's schedule and cap"
    dt = time.perf_counter() - t0
    return {**_figures(outs, dt, load_s, cap, rate), **extra}


def _asyncllm(spec: dict[str, Any]) -> dict[str, Any]:
    """vLLM's own AsyncLLM front end driven directly, without the console (no stat loggers, final
    outputs only, requests sent on the run's schedule, at most its cap in flight): separates what
    the async front end costs against ``LLM.generate`` from what the console adds on top of it."""
    import asyncio

    w = Workload.from_dict(spec["workload"])
    kwargs = dict(spec["engine_kwargs"])
    kind = vllm_compat.request_output_kind()
    sp = vllm_compat.sampling_params_class()
    params = sp(
        temperature=0.0, top_p=1.0, max_tokens=w.output_len, ignore_eos=w.ignore_eos, output_kind=kind.FINAL_ONLY
    )
    if w.prompt_token_ids:
        prompts: list[Any] = [{"prompt_token_ids": ids} for ids in w.prompt_token_ids]
    else:
        prompts = _text_prompts(kwargs.get("tokenizer") or kwargs["model"], w)
    cap, rate, offsets = _schedule(spec, len(prompts))

    async def run() -> dict[str, Any]:
        t_load = time.perf_counter()
        args = vllm_compat.async_engine_args_class()(**vllm_compat.engine_args_kwargs(kwargs), disable_log_stats=True)
        engine = vllm_compat.async_llm_class().from_engine_args(args)
        load_s = time.perf_counter() - t_load
        slots = asyncio.Semaphore(cap or len(prompts))

        async def one(i: int, prompt: Any, p: Any) -> Any:
            final = None
            async for out in engine.generate(prompt, p, f"b{i}"):
                final = out
            return final

        async def scheduled(i: int, t0: float) -> Any:
            await asyncio.sleep(max(0.0, offsets[i] - (time.perf_counter() - t0)))
            async with slots:
                return await one(i, prompts[i], params)

        try:
            await one(-1, prompts[0], sp(max_tokens=4, output_kind=kind.FINAL_ONLY))  # warm-up
            t0 = time.perf_counter()
            outs = await asyncio.gather(*(scheduled(i, t0) for i in range(len(prompts))))
            dt = time.perf_counter() - t0
        finally:
            engine.shutdown()
        return _figures(list(outs), dt, load_s, cap, rate)

    return asyncio.run(run())


def hf_batch_size(spec: dict[str, Any], n: int) -> int:
    """The HF baseline's static batch: ``hf_batch_size`` when given, else the run's cap on requests
    in flight, else every prompt (bounded by the engine's ``max_num_seqs``, as the console's run is)."""
    if spec.get("hf_batch_size"):
        return max(1, int(spec["hf_batch_size"]))
    bound = spec.get("max_concurrency") or n
    seqs = (spec.get("engine_kwargs") or {}).get("max_num_seqs")
    return max(1, min(int(bound), int(seqs or bound), n))


def _hf(spec: dict[str, Any]) -> dict[str, Any]:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    w = Workload.from_dict(spec["workload"])
    model_path = spec["engine_kwargs"]["model"]
    tok = AutoTokenizer.from_pretrained(spec["engine_kwargs"].get("tokenizer") or model_path)
    tok.padding_side = "left"
    if tok.pad_token_id is None:
        tok.pad_token = tok.eos_token
    t_load = time.perf_counter()
    model = AutoModelForCausalLM.from_pretrained(model_path, dtype="auto").eval()
    load_s = time.perf_counter() - t_load
    if w.prompt_token_ids:
        seqs = [list(ids) for ids in w.prompt_token_ids]
    else:
        seqs = [p["prompt_token_ids"] for p in _text_prompts(model_path, w)]
    bs = hf_batch_size(spec, len(seqs))

    def gen(batch: list[list[int]], n_new: int) -> int:
        width = max(len(s) for s in batch)
        ids = torch.tensor([[tok.pad_token_id] * (width - len(s)) + s for s in batch])
        mask = torch.tensor([[0] * (width - len(s)) + [1] * len(s) for s in batch])
        with torch.inference_mode():
            out = model.generate(
                input_ids=ids,
                attention_mask=mask,
                max_new_tokens=n_new,
                min_new_tokens=n_new if w.ignore_eos else 0,
                do_sample=False,
                pad_token_id=tok.pad_token_id,
            )
        return int((out.shape[1] - width) * len(batch))

    gen([seqs[0]], 4)  # warm-up
    t0 = time.perf_counter()
    out_tok = sum(gen(seqs[i : i + bs], w.output_len) for i in range(0, len(seqs), bs))
    dt = time.perf_counter() - t0
    in_tok = sum(len(s) for s in seqs)
    import transformers

    return {
        # static batches: at most bs in flight, every batch sent at once (no arrival schedule)
        **_throughput(len(seqs), out_tok, in_tok, dt, load_s, bs, None),
        "batch_size": bs,
        "dtype": str(model.dtype),
        "transformers_version": transformers.__version__,
        "torch_threads": torch.get_num_threads(),
    }


def main(argv: list[str]) -> int:
    kind, spec_path, out_path = argv
    spec = json.loads(Path(spec_path).read_text())
    result = {"vllm": _vllm, "asyncllm": _asyncllm, "hf": _hf}[kind](spec)
    Path(out_path).write_text(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
