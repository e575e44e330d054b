"""Run a bench workload through the console's own path: ``Engine.submit`` (in-process, a
console-launched server or a remote one; engine-side figures come from its metrics store).

``run_console(engine, workload, request_rate=None, max_concurrency=None, task=None)`` sends the
prompts on their schedule (all at once, or Poisson arrivals), keeps at most ``max_concurrency``
in flight, and returns :func:`console.metrics.timings.summarize`'s figures plus what the engine's
metrics store saw during the run (peak KV-cache usage, preemptions, engine-measured TTFT/ITL)
and the peak device memory (NVML on a GPU, process RSS on CPU). Blocks; call it from a worker
thread in the GUI.

vLLM's prefix cache survives between runs on one engine: a second run of the same prompts skips
their prefill (measured on an H200: 13,984 then 22,815 tok/s). So each run first asks the engine
to reset it (``reset_prefix_cache=True``, the default) and the figures say whether that happened
(``prefix_cache``) and how many prompt tokens were still served from the cache.

A reasoning model's output tokens are split into thinking and answer: each chat
answer is split by the family's vLLM reasoning parser, as ``vllm serve --reasoning-parser`` does,
and its thinking tokens counted on the engine's token ids (``console/engine/thinking.py``); the figures'
``thinking`` says how many of the output tokens were thinking (absent for a family without one).
"""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from typing import Any

from console.metrics.timings import RequestTiming, pcts, summarize
from console.bench.workload import Workload, arrival_offsets
from console.config import SamplingSettings
from console.engine.interface import Engine
from console.engine.many import ManyRequests
from console.engine.types import GenerationRequest, RequestFinished
from console.jobs import Cancelled, TaskState
from console.engine.thinking import ReasoningSplitter, splitter_for
from console.engine.openai_body import parse_body
from console.metrics.device import open_source


#: What ``ttft_s`` measures (the report says which). ``engine_ttft_s`` is the same for both: from
#: the engine core queuing the request to its first token, vLLM's engine-core timestamps (in-process
#: engine only): the engine's own, without the console's front end or a queue before the engine.
TTFT_STREAMED = "client: from the request's submit to its first streamed token"
TTFT_FINAL = "vLLM's first-token latency: from the request's arrival in vLLM's input processor to its first token"


class PeakMemory:
    """Samples device memory in a thread; ``peak`` in bytes (GPU memory, or RSS on CPU)."""

    def __init__(self, interval_s: float = 0.2) -> None:
        self.source, self.reason = open_source()
        self.kind = self.source.kind
        self.peak = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, args=(interval_s,), daemon=True)

    def _loop(self, interval_s: float) -> None:
        key = "mem_used_bytes" if self.kind == "nvml" else "rss_bytes"
        while not self._stop.is_set():
            try:
                self.peak = max(self.peak, float(self.source.sample().get(key, 0.0)))
            except Exception:
                pass
            self._stop.wait(interval_s)

    def __enter__(self) -> "PeakMemory":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


def sampling_for(workload: Workload) -> SamplingSettings:
    """Greedy, fixed output length: the same settings every baseline uses."""
    return SamplingSettings(
        temperature=0.0, top_p=1.0, top_k=0, max_tokens=workload.output_len, ignore_eos=workload.ignore_eos
    )


def _requests(workload: Workload, stream: bool = False) -> list[GenerationRequest]:
    """Bench requests are not streamed by default (no per-token events, as in ``vllm bench
    throughput``); ``stream=True`` measures what per-token delivery to a chat window costs."""
    s = sampling_for(workload)
    if workload.openai_fields:
        out = [_openai_request(workload, ids, None, s, stream) for ids in workload.prompt_token_ids] + [
            _openai_request(workload, None, m, s, stream) for m in workload.messages
        ]
    elif workload.prompt_token_ids:
        out = [GenerationRequest(prompt_token_ids=ids, sampling=s, stream=stream) for ids in workload.prompt_token_ids]
    else:
        out = [GenerationRequest(messages=m, sampling=s, stream=stream) for m in workload.messages]
    if workload.output_lens:  # the user's own prompts: each answer as long as it was
        out = [
            replace(r, sampling=replace(r.sampling, max_tokens=workload.output_len_of(i))) for i, r in enumerate(out)
        ]
    mix = workload.adapters
    return [replace(r, adapter=mix[i % len(mix)] or None) for i, r in enumerate(out)] if mix else out


def prefix_cache_before_run(engine: Engine, wanted: bool = True) -> str:
    """Reset the engine's prefix cache before a run; what the report should say about it."""
    if not wanted:
        return "kept (not reset: repeated prompts may be served from cache)"
    try:
        done = bool(engine.reset_prefix_cache().result(timeout=60))
    except Exception:
        done = False
    if done:
        return "reset before the run"
    return "could not be reset (a server engine, or requests still running): repeated prompts may be served from cache"


def _openai_request(
    workload: Workload, ids: list[int] | None, messages: list[dict[str, str]] | None, s: SamplingSettings, stream: bool
) -> GenerationRequest:
    """A request carrying the workload's OpenAI fields, converted by vLLM's own request model."""

    if ids is not None:
        b = parse_body("completion", {"prompt": ids, **workload.openai_fields}, s)
    else:
        b = parse_body("chat", {"messages": messages, **workload.openai_fields}, s)
    return GenerationRequest(
        messages=b.messages,
        prompt_token_ids=b.prompt_token_ids,
        sampling=b.sampling,
        stream=stream,
        openai_fields=b.fields,
    )


def _splitter(engine: Engine, workload: Workload) -> ReasoningSplitter | None:
    """The loaded model's reasoning parser, with the workload's thinking switch; None without one."""
    try:
        tokenizer = engine.tokenizer
    except Exception:  # a server engine that knows no tokenizer
        return None
    info = engine.status.info
    family = info.family if info is not None else None
    return splitter_for(tokenizer, (workload.openai_fields or {}).get("chat_template_kwargs"), family)


class ThinkingCount:
    """Output tokens of chat answers, split into thinking and answer by the model's parser."""

    def __init__(self, splitter: ReasoningSplitter | None) -> None:
        self.splitter = splitter
        self.thinking = self.output = self.answers = 0

    def add(self, request: GenerationRequest, ev: RequestFinished) -> None:
        if self.splitter is None or request.messages is None:  # completions are not parsed, as on vLLM's server
            return
        ids = ev.choices[0].token_ids if ev.choices else ()
        # the engine split a chat answer's thinking off its text (its reasoning parser) where it could
        count = (
            self.splitter.count_split(ids, ev.reasoning, ev.text)
            if ev.reasoning is not None
            else self.splitter.count(ids, ev.text)
        )
        self.thinking += min(count, ev.output_tokens)
        self.output += ev.output_tokens
        self.answers += 1

    def figures(self) -> dict[str, Any] | None:
        if self.splitter is None:
            return None
        return {
            "reasoning_parser": self.splitter.family.reasoning_parser,
            "chat_answers": self.answers,
            "output_tokens": self.output,
            "reasoning_tokens": self.thinking,
            "answer_tokens": self.output - self.thinking,
        }


def run_console(
    engine: Engine,
    workload: Workload,
    *,
    request_rate: float | None = None,
    max_concurrency: int | None = None,
    seed: int = 0,
    task: TaskState | None = None,
    stream: bool = False,
    reset_prefix_cache: bool = True,
) -> dict[str, Any]:
    task = task or TaskState()
    prefix_cache = prefix_cache_before_run(engine, reset_prefix_cache)
    requests = _requests(workload, stream)
    offsets = arrival_offsets(len(requests), request_rate, seed)
    timings: list[RequestTiming | None] = [None] * len(requests)
    ends: list[float] = []
    wall0 = time.time()
    totals0 = dict(engine.metrics.totals)
    thinking = ThinkingCount(_splitter(engine, workload))
    with PeakMemory() as mem:
        many = ManyRequests(engine, list(enumerate(requests)), concurrency=max_concurrency, offsets=offsets, task=task)
        for done in many:
            ev = done.event
            if isinstance(ev, RequestFinished) and ev.finish_reason != "abort":
                timings[done.key] = RequestTiming(
                    ev.prompt_tokens, ev.output_tokens, done.sent_s, ev.ttft_s, ev.e2e_s, True, ev.engine_ttft_s
                )
                thinking.add(requests[done.key], ev)
            else:
                timings[done.key] = RequestTiming(0, 0, done.sent_s, None, done.done_s - done.sent_s, False)
            ends.append(done.done_s)
            task.report("bench", len(ends) / len(requests), f"{len(ends)}/{len(requests)} requests")
        if many.cancelled:
            raise Cancelled()
        if many.submit_error is not None:
            raise many.submit_error
    duration = max(ends) if ends else 0.0
    out = summarize([t for t in timings if t is not None], duration)
    m = engine.metrics
    bins = m.bins(since=wall0 - m.resolution_s)
    out["engine"] = {
        "peak_kv_cache_usage": max((b.kv_usage for b in bins), default=0.0),
        "preemptions": int(m.totals["preemptions"] - totals0.get("preemptions", 0)),
        "prefix_cache_hit_tokens": int(m.totals.get("prefix_hits", 0) - totals0.get("prefix_hits", 0)),
        "prefix_cache_query_tokens": int(m.totals.get("prefix_queries", 0) - totals0.get("prefix_queries", 0)),
        "ttft_s": {f"p{int(q)}": v for q, v in m.latency_percentiles("ttft", (50, 90, 99), since=wall0).items()},
        "itl_s": {f"p{int(q)}": v for q, v in m.latency_percentiles("itl", (50, 90, 99), since=wall0).items()},
    }
    out["ttft_measured"] = TTFT_STREAMED if stream else TTFT_FINAL
    split = thinking.figures()
    if split is not None:
        out["thinking"] = split
    out["peak_memory_bytes"] = mem.peak
    out["peak_memory_kind"] = "GPU memory used (NVML)" if mem.kind == "nvml" else "process + engine RSS (no GPU)"
    out["prefix_cache"] = prefix_cache
    out["request_rate"] = request_rate
    out["max_concurrency"] = max_concurrency
    return out


__all__ = ["PeakMemory", "ThinkingCount", "prefix_cache_before_run", "run_console", "sampling_for", "pcts"]
