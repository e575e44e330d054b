"""Where a group's front-end time goes: N chat requests handed to the in-process engine at once.

Run from a checkout's root (its ``console`` package is the one measured), under the engine lock:

    flock /tmp/engine.lock .venv/bin/python benchmarks/front_end_profile.py --model DIR [--requests 128]

It builds one engine, then runs the group twice: on an idle engine, and while a long request is
running (the case the scheduler hold is for). For each it reports, from the engine's own
timestamps and from timers wrapped around vLLM's calls (no console internals, so it measures any
version of the console): the time from ``submit_many`` to every request in the engine's queue (the
last one scheduled), how long the scheduler was held (engine core pause to resume), what the
chat render + tokenize and vLLM's input processing cost per request, and the steps the group was
scheduled over. ``--cprofile FILE`` also profiles the engine loop's thread during the group.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's console, not the installed one

from console.config import EngineConfig  # noqa: E402
from console.sampling import SamplingSettings  # noqa: E402
from console.engine.in_process import InProcessEngine  # noqa: E402
from console.engine.types import GenerationRequest, RequestFinished, TokenDelta  # noqa: E402


class Timers:
    """Wall time of every call of some async/sync callables, by name."""

    def __init__(self) -> None:
        self.calls: dict[str, list[tuple[float, float]]] = {}

    def wrap_async(self, owner: Any, attr: str, name: str) -> None:
        fn = getattr(owner, attr)

        async def timed(*args: Any, **kwargs: Any) -> Any:
            t = time.perf_counter()
            try:
                return await fn(*args, **kwargs)
            finally:
                self.calls.setdefault(name, []).append((t, time.perf_counter()))

        setattr(owner, attr, timed)

    def wrap_sync(self, owner: Any, attr: str, name: str) -> None:
        fn: Callable[..., Any] = getattr(owner, attr)

        def timed(*args: Any, **kwargs: Any) -> Any:
            t = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.calls.setdefault(name, []).append((t, time.perf_counter()))

        setattr(owner, attr, timed)

    def reset(self) -> None:
        self.calls.clear()


def request(i: int, max_tokens: int, tokens: bool) -> GenerationRequest:
    """A chat (rendered with the model's template), or 64 random token ids (bench's synthetic prompts)."""
    sampling = SamplingSettings(max_tokens=max_tokens, temperature=0.0, ignore_eos=True)
    if tokens:
        ids = [(i * 7919 + k * 104729) % 30000 + 100 for k in range(64)]
        return GenerationRequest(prompt_token_ids=ids, sampling=sampling)
    text = f"Question {i}: in two sentences, why is the sky blue and what makes sunsets red? Answer briefly."
    return GenerationRequest(messages=[{"role": "user", "content": text}], sampling=sampling)


def run_group(
    engine: InProcessEngine, timers: Timers, n: int, max_tokens: int, busy: bool, prof: Any, tokens: bool
) -> dict[str, Any]:
    long = None
    if busy:
        started = threading.Event()
        long = engine.submit(
            GenerationRequest(
                messages=[{"role": "user", "content": "Tell a long story."}],
                stream=True,
                sampling=SamplingSettings(max_tokens=1500, temperature=0.0, ignore_eos=True),
            ),
            lambda ev: started.set() if isinstance(ev, TokenDelta) else None,
        )
        assert started.wait(300)
    timers.reset()
    group = [request(i, max_tokens, tokens) for i in range(n)]
    if prof is not None:
        engine.run_coroutine(_call(prof.enable)).result()
    t_submit = time.perf_counter()
    m_submit = time.monotonic()
    handles = engine.submit_many(group)
    results = [h.result(900) for h in handles]
    t_end = time.perf_counter()
    if prof is not None:
        engine.run_coroutine(_call(prof.disable)).result()
    if long is not None:
        long.cancel()
        long.result(120)
    assert all(isinstance(r, RequestFinished) for r in results), results[:3]
    sched = [r.engine_scheduled_ts for r in results if isinstance(r, RequestFinished)]
    calls = timers.calls

    def total(name: str) -> float:
        return sum(b - a for a, b in calls.get(name, []))

    def span(name: str) -> list[float]:
        return [round(a - t_submit, 4) for a, _ in calls.get(name, [])]

    pauses = calls.get("pause", [])
    resumes = calls.get("resume", [])
    held = resumes[-1][1] - pauses[0][0] if pauses and resumes else 0.0
    adds = calls.get("add_request", [])
    return {
        "prompts": "token ids" if tokens else "chat",
        "busy": busy,
        "requests": n,
        "submit_to_last_added_s": round(max(b for _a, b in adds) - t_submit, 4) if adds else None,
        "submit_to_first_scheduled_s": round(min(s for s in sched if s) - m_submit, 4) if all(sched) else None,
        "submit_to_last_scheduled_s": round(max(s for s in sched if s) - m_submit, 4) if all(sched) else None,
        "scheduled_steps": len(set(sched)),
        "held_s": round(held, 4),
        "pause_started_s": span("pause")[:1],
        "render_per_request_ms": round(1000 * total("render") / max(1, len(calls.get("render", []))), 3),
        "render_total_s": round(total("render"), 4),
        "first_render_start_s": min(span("render"), default=None),
        "last_render_end_s": round(max((b for _a, b in calls.get("render", [])), default=t_submit) - t_submit, 4),
        "process_inputs_per_request_ms": round(
            1000 * total("process_inputs") / max(1, len(calls.get("process_inputs", []))), 3
        ),
        "add_request_total_s": round(total("add_request"), 4),
        "group_wall_s": round(t_end - t_submit, 4),
    }


async def _call(fn: Callable[[], None]) -> None:
    fn()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--requests", type=int, default=128)
    ap.add_argument("--max-tokens", type=int, default=4)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--cprofile", default=None)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    engine = InProcessEngine()
    cfg = EngineConfig(model=args.model, kv_cache_memory_bytes=2 << 30, max_model_len=2048, device="cpu")
    engine.load(cfg, "profiled").result(900)
    async_llm = engine._engine
    timers = Timers()
    timers.wrap_async(engine._prompts, "engine_input", "render")
    timers.wrap_async(async_llm.engine_core, "pause_scheduler_async", "pause")
    timers.wrap_async(async_llm, "resume_generation", "resume")
    timers.wrap_async(async_llm, "add_request", "add_request")
    timers.wrap_sync(async_llm.input_processor, "process_inputs", "process_inputs")
    if hasattr(async_llm.input_processor, "process_inputs_async"):
        timers.wrap_async(async_llm.input_processor, "process_inputs_async", "process_inputs")
    prof = cProfile.Profile() if args.cprofile else None
    out = []
    from console.engine import grouped

    variants = [(False, False, False), (True, False, False), (False, False, True), (True, False, True)]
    if hasattr(grouped, "SKIP_HOLD_WHEN_IDLE"):  # a console that can skip the hold on an idle engine
        variants.append((False, True, False))
    try:
        for r in range(args.repeat):
            for busy, skip_idle, tokens in variants:
                if skip_idle:
                    grouped.SKIP_HOLD_WHEN_IDLE = True
                engine.reset_prefix_cache().result(60)
                try:
                    profile = prof if r == 0 and not tokens and not skip_idle else None
                    row = run_group(engine, timers, args.requests, args.max_tokens, busy, profile, tokens)
                finally:
                    if skip_idle:
                        grouped.SKIP_HOLD_WHEN_IDLE = False
                row["repeat"] = r
                group = getattr(engine, "last_group", None)  # the console's own record, where it has one
                row["group"] = group.report() if group is not None and row["held_s"] else None
                row["skip_hold_when_idle"] = skip_idle
                print(json.dumps(row), flush=True)
                out.append(row)
    finally:
        engine.close()
    if prof is not None and args.cprofile:
        prof.dump_stats(args.cprofile)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
