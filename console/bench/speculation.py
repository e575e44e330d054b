"""Single-stream speed-up of speculative decoding: the same preset with and without it.

Speculation pays off one stream at a time (a 4090 serving one user is bound by reading the
weights once per token); under load the verification work competes with other requests. So this
bench sends the user's prompts one after another, greedy, to an engine built from the preset,
then to one built from the same preset with the speculative fields cleared, and reports decode
tokens/s of each, the speed-up, vLLM's acceptance figures and whether the answers matched (greedy
speculative decoding should give the same tokens; a mismatch is reported, not hidden).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Callable

from console.config import SPECULATIVE_FIELDS, EngineConfig
from console.sampling import SamplingSettings
from console.engine.types import GenerationRequest, RequestFinished, failure_text
from console.jobs import TaskState
from console.metrics.store import SPEC_COUNTERS, spec_acceptance


@dataclass
class StreamRun:
    """One engine's pass over the prompts, one request at a time."""

    label: str
    output_tokens: int = 0
    decode_seconds: float = 0.0  # sum over requests of e2e - TTFT
    e2e_seconds: float = 0.0
    acceptance_rate: float | None = None
    tokens_per_step: float | None = None
    texts: list[str] = field(default_factory=list)

    @property
    def decode_tok_s(self) -> float | None:
        tokens = self.output_tokens - len(self.texts)  # the first token of each is prefill's
        return tokens / self.decode_seconds if self.decode_seconds > 0 else None

    @property
    def e2e_tok_s(self) -> float | None:
        return self.output_tokens / self.e2e_seconds if self.e2e_seconds > 0 else None

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "decode_tok_s": self.decode_tok_s, "e2e_tok_s": self.e2e_tok_s}


def without_speculation(config: EngineConfig) -> EngineConfig:
    """The same configuration with speculative decoding off (every speculative field cleared)."""
    return config.replace(**{name: None for name in SPECULATIVE_FIELDS})


def run_stream(
    engine: Any,
    messages: list[list[dict[str, str]]],
    max_tokens: int,
    label: str,
    task: TaskState | None = None,
    timeout: float = 600.0,
) -> StreamRun:
    """Send each chat in ``messages`` alone (greedy, ``max_tokens``) to a loaded ``engine``; one
    warm-up request first (the n-gram proposer compiles with numba on its first call)."""
    sampling = SamplingSettings(temperature=0.0, max_tokens=max_tokens)
    engine.generate(
        GenerationRequest(
            messages=[{"role": "user", "content": "Say hello."}],
            sampling=SamplingSettings(temperature=0.0, max_tokens=8),
        ),
        timeout=timeout,
    )
    before = dict(engine.metrics.totals_snapshot())
    run = StreamRun(label=label)
    for i, chat in enumerate(messages):
        if task is not None:
            task.report(label, i / max(1, len(messages)), f"{label}: prompt {i + 1}/{len(messages)}")
            task.check()
        event = engine.generate(GenerationRequest(messages=chat, sampling=sampling), timeout=timeout)
        if not isinstance(event, RequestFinished):
            raise RuntimeError(f"{label}: prompt {i + 1} failed: {failure_text(event)}")
        run.output_tokens += event.output_tokens
        run.e2e_seconds += event.e2e_s
        run.decode_seconds += max(0.0, event.e2e_s - (event.ttft_s or 0.0))
        run.texts.append(event.text)
    after = engine.metrics.totals_snapshot()
    delta = {key: after.get(key, 0) - before.get(key, 0) for key in SPEC_COUNTERS}
    run.acceptance_rate, run.tokens_per_step = spec_acceptance(delta)
    return run


def compare(
    config: EngineConfig,
    messages: list[list[dict[str, str]]],
    max_tokens: int,
    new_engine: Callable[[], Any],
    task: TaskState | None = None,
) -> dict[str, Any]:
    """Both runs (plain first, then speculative), each on a freshly loaded engine, and the ratio."""
    if config.speculative_config() is None:
        raise ValueError("the configuration has no speculative decoding to compare against")
    runs = {}
    for label, cfg in (("plain", without_speculation(config)), ("speculative", config)):
        engine = new_engine()
        try:
            info = engine.load(cfg, label).result()
            run = run_stream(engine, messages, max_tokens, label, task)
            runs[label] = (run, info)
        finally:
            engine.close()
    plain, spec = runs["plain"][0], runs["speculative"][0]
    speedup = (spec.decode_tok_s / plain.decode_tok_s) if spec.decode_tok_s and plain.decode_tok_s else None
    same = sum(a == b for a, b in zip(plain.texts, spec.texts))
    return {
        "speculative_config": config.speculative_config(),
        "max_tokens": max_tokens,
        "prompts": len(messages),
        **{
            label: {**run.to_dict(), "load_s": info.load_seconds, "engine_method": info.speculative_method}
            for label, (run, info) in runs.items()
        },
        "decode_speedup": speedup,
        "same_answers": same,
    }
