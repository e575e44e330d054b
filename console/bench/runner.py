"""Run a bench workload through the console's own path: ``Engine.submit`` (in-process, a
console-launched server or a remote one; engine-side figures come from its metrics store).

``run_console(host, workload, request_rate=None, max_concurrency=None, task=None)`` sends the
prompts on their schedule (all at once, or Poisson arrivals), keeps at most ``max_concurrency``
in flight, and returns :func:`console.bench.stats.summarize`'s figures plus what the engine's
metrics store saw during the run (peak KV-cache usage, preemptions, engine-measured TTFT/ITL)
and the peak device memory (NVML on a GPU, process RSS on CPU). Blocks; call it from a worker
thread in the GUI.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from console.bench.stats import RequestTiming, pcts, summarize
from console.bench.workload import Workload, arrival_offsets
from console.config import SamplingSettings
from console.engine.interface import Engine
from console.engine.types import GenerationRequest, RequestFinished
from console.jobs import Cancelled, TaskState


class PeakMemory:
    """Samples device memory in a thread; ``peak`` in bytes (GPU memory, or RSS on CPU)."""

    def __init__(self, interval_s: float = 0.2) -> None:
        from console.monitor.device import open_source

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
    return SamplingSettings(temperature=0.0, top_p=1.0, top_k=0, max_tokens=workload.output_len,
                            ignore_eos=workload.ignore_eos)


def _requests(workload: Workload, stream: bool = False) -> list[GenerationRequest]:
    """Bench requests are not streamed by default (no per-token events, as in ``vllm bench
    throughput``); ``stream=True`` measures what per-token delivery to a chat window costs."""
    s = sampling_for(workload)
    if workload.openai_fields:
        return [_openai_request(workload, ids, None, s, stream) for ids in workload.prompt_token_ids] + \
            [_openai_request(workload, None, m, s, stream) for m in workload.messages]
    if workload.prompt_token_ids:
        return [GenerationRequest(prompt_token_ids=ids, sampling=s, stream=stream) for ids in workload.prompt_token_ids]
    return [GenerationRequest(messages=m, sampling=s, stream=stream) for m in workload.messages]


def _openai_request(workload: Workload, ids: list[int] | None, messages: list[dict[str, str]] | None,
                    s: SamplingSettings, stream: bool) -> GenerationRequest:
    """A request carrying the workload's OpenAI fields, converted by vLLM's own request model."""
    from console.engine.openai_body import parse_body

    if ids is not None:
        b = parse_body("completion", {"prompt": ids, **workload.openai_fields}, s)
    else:
        b = parse_body("chat", {"messages": messages, **workload.openai_fields}, s)
    return GenerationRequest(messages=b.messages, prompt_token_ids=b.prompt_token_ids, sampling=b.sampling,
                             stream=stream, params=b.params, openai_fields=b.fields)


def run_console(host: Engine, workload: Workload, *, request_rate: float | None = None,
                max_concurrency: int | None = None, seed: int = 0,
                task: TaskState | None = None, stream: bool = False) -> dict[str, Any]:
    task = task or TaskState()
    requests = _requests(workload, stream)
    offsets = arrival_offsets(len(requests), request_rate, seed)
    slots = threading.Semaphore(max_concurrency) if max_concurrency else None
    timings: list[RequestTiming | None] = [None] * len(requests)
    ends: list[float] = []
    lock = threading.Lock()
    all_done = threading.Event()
    remaining = [len(requests)]
    handles = []
    wall0 = time.time()
    totals0 = dict(host.metrics.totals)
    with PeakMemory() as mem:
        t0 = time.perf_counter()
        for i, (req, offset) in enumerate(zip(requests, offsets)):
            delay = offset - (time.perf_counter() - t0)
            if delay > 0:
                time.sleep(delay)
            if slots is not None:
                while not slots.acquire(timeout=0.2):
                    if task.cancelled:
                        break
            if task.cancelled:
                for h in handles:
                    h.cancel()
                raise Cancelled()
            sent = time.perf_counter() - t0

            def done(fut: Any, i: int = i, sent: float = sent) -> None:
                ev = fut.result()
                now = time.perf_counter() - t0
                ok = isinstance(ev, RequestFinished) and ev.finish_reason != "abort"
                t = RequestTiming(ev.prompt_tokens if ok else 0, ev.output_tokens if ok else 0, sent,
                                  ev.ttft_s if ok else None, ev.e2e_s if ok else now - sent, ok)
                with lock:
                    timings[i] = t
                    ends.append(now)
                    remaining[0] -= 1
                    n_done = len(requests) - remaining[0]
                    if remaining[0] == 0:
                        all_done.set()
                if slots is not None:
                    slots.release()
                task.report("bench", n_done / len(requests), f"{n_done}/{len(requests)} requests")

            handle = host.submit(req)
            handle.future.add_done_callback(done)
            handles.append(handle)
        while not all_done.wait(0.2):
            if task.cancelled:
                for h in handles:
                    h.cancel()
                all_done.wait(30)
                raise Cancelled()
    duration = max(ends) if ends else 0.0
    out = summarize([t for t in timings if t is not None], duration)
    m = host.metrics
    bins = m.bins(since=wall0 - m.resolution_s)
    out["engine"] = {
        "peak_kv_cache_usage": max((b.kv_usage for b in bins), default=0.0),
        "preemptions": int(m.totals["preemptions"] - totals0.get("preemptions", 0)),
        "ttft_s": {f"p{int(q)}": v for q, v in m.latency_percentiles("ttft", (50, 90, 99), since=wall0).items()},
        "itl_s": {f"p{int(q)}": v for q, v in m.latency_percentiles("itl", (50, 90, 99), since=wall0).items()},
    }
    out["peak_memory_bytes"] = mem.peak
    out["peak_memory_kind"] = "GPU memory used (NVML)" if mem.kind == "nvml" else "process + engine RSS (no GPU)"
    out["request_rate"] = request_rate
    out["max_concurrency"] = max_concurrency
    return out


__all__ = ["PeakMemory", "run_console", "sampling_for", "pcts"]
