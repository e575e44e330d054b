"""Baselines on the same prompts and sampling, each in a fresh Python process:

- ``vllm``: plain ``vllm.LLM(**engine_kwargs).generate(prompts, SamplingParams(...))``;
- ``hf``: Hugging Face transformers ``generate`` with static batching (left-padded batches of
  ``batch_size``, greedy, fixed ``max_new_tokens``).

Both run one short warm-up request first (the console path is measured on a warm engine too) and
time only the generation. ``python -m console.bench.baselines KIND SPEC.json OUT.json`` is the
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

from console.bench.workload import Workload
from console.children import Child, python_module
from console.jobs import TaskState
from console import vllm_compat


def run_baseline(
    kind: str,
    engine_kwargs: dict[str, Any],
    workload: Workload,
    *,
    hf_batch_size: int = 16,
    timeout_s: float = 1800,
    task: TaskState | None = None,
) -> dict[str, Any]:
    """Run baseline ``kind`` ("vllm", "asyncllm" or "hf") in a child process; its figures, or
    ``{"error": ...}`` when it failed (the message names the cause)."""
    with tempfile.TemporaryDirectory(prefix="bench-") as d:
        spec, out = Path(d) / "spec.json", Path(d) / "out.json"
        spec.write_text(
            json.dumps({"engine_kwargs": engine_kwargs, "workload": workload.to_dict(), "hf_batch_size": hf_batch_size})
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
    llm.generate([prompts[0]], SamplingParams(max_tokens=4), use_tqdm=False)  # warm-up
    t0 = time.perf_counter()
    outs = llm.generate(prompts, params, use_tqdm=False)
    dt = time.perf_counter() - t0
    out_tok = sum(len(o.outputs[0].token_ids) for o in outs)
    in_tok = sum(len(o.prompt_token_ids or []) for o in outs)
    return {
        "duration_s": dt,
        "load_s": load_s,
        "requests": len(outs),
        "output_tokens": out_tok,
        "prompt_tokens": in_tok,
        "output_tokens_per_s": out_tok / dt,
        "total_tokens_per_s": (out_tok + in_tok) / dt,
        "requests_per_s": len(outs) / dt,
        "vllm_version": vllm_compat.vllm_version(),
    }


def _asyncllm(spec: dict[str, Any]) -> dict[str, Any]:
    """vLLM's own AsyncLLM front end driven directly, without the console (no stat loggers, final
    outputs only, every request in flight at once): separates what the async front end costs
    against ``LLM.generate`` from what the console adds on top of it."""
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

    async def run() -> dict[str, Any]:
        t_load = time.perf_counter()
        args = vllm_compat.async_engine_args_class()(**vllm_compat.engine_args_kwargs(kwargs), disable_log_stats=True)
        engine = vllm_compat.async_llm_class().from_engine_args(args)
        load_s = time.perf_counter() - t_load

        async def one(i: int, prompt: Any, p: Any) -> Any:
            final = None
            async for out in engine.generate(prompt, p, f"b{i}"):
                final = out
            return final

        try:
            await one(-1, prompts[0], sp(max_tokens=4, output_kind=kind.FINAL_ONLY))  # warm-up
            t0 = time.perf_counter()
            outs = await asyncio.gather(*(one(i, pr, params) for i, pr in enumerate(prompts)))
            dt = time.perf_counter() - t0
        finally:
            engine.shutdown()
        out_tok = sum(len(o.outputs[0].token_ids) for o in outs)
        in_tok = sum(len(o.prompt_token_ids or []) for o in outs)
        return {
            "duration_s": dt,
            "load_s": load_s,
            "requests": len(outs),
            "output_tokens": out_tok,
            "prompt_tokens": in_tok,
            "output_tokens_per_s": out_tok / dt,
            "total_tokens_per_s": (out_tok + in_tok) / dt,
            "requests_per_s": len(outs) / dt,
        }

    return asyncio.run(run())


def _hf(spec: dict[str, Any]) -> dict[str, Any]:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    w = Workload.from_dict(spec["workload"])
    model_path = spec["engine_kwargs"]["model"]
    bs = int(spec["hf_batch_size"])
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
        "duration_s": dt,
        "load_s": load_s,
        "requests": len(seqs),
        "output_tokens": out_tok,
        "prompt_tokens": in_tok,
        "output_tokens_per_s": out_tok / dt,
        "total_tokens_per_s": (out_tok + in_tok) / dt,
        "requests_per_s": len(seqs) / dt,
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
