"""What a trial costs auto-tune, and so how the search spends its budget: the CUDA-graph limit a
load needs, which loads share vLLM's torch.compile cache (one compile key), what the next load
is expected to take, and whether a short run should stop a trial at all. Plain arithmetic over
the trials measured so far, no engine, no Qt.

* A load captures CUDA graphs only up to the batch the workload runs, with its speculative draft
  tokens (``max_cudagraph_capture_size``): vLLM refuses a speculative load whose limit is below
  one decode step.
* Loads of one compile key read the graph vLLM compiled for the first from its cache: a point is
  expected to load as fast as earlier loads of its key did, else as slow as the slowest first load.
* A short run stops a trial only when the runs left would cost at least ``STOP_SAVES_SHARE`` of
  its load: where loads dominate (a compile on the GPU, ~100 s, against seconds of runs) stopping
  saves little and loses the trial's whole-workload figures.
"""

from __future__ import annotations

from functools import cache
from typing import Any, Collection, Protocol, Sequence

from console.config import NGRAM_DRAFT_TOKENS, EngineConfig
from console.vllm_compat import compile_cache_keys


class Trial(Protocol):
    """What the arithmetic reads of a trial (:class:`console.bench.tune_result.Trial`, which
    imports this module)."""

    status: str
    load_seconds: float | None
    first_load_of_key: bool | None
    runs: list[dict[str, Any]]


#: A short run stops a trial only when the runs left would cost at least this share of its load.
STOP_SAVES_SHARE = 0.5
#: vLLM's CUDA-graph capture sizes (0.26's ``VllmConfig._set_cudagraph_sizes``, up to its default limit).
CAPTURE_SIZES = (1, 2, 4, *range(8, 256, 8), *range(256, 513, 16))


def capture_tokens(seqs: int, draft: int = 0) -> int:
    """The ``max_cudagraph_capture_size`` that ``seqs`` requests in flight need, in tokens: each
    decode step runs one token per request plus the ``draft`` tokens speculation verifies. vLLM
    captures its sizes up to the limit and, with speculation, keeps only those rounded up to a
    multiple of ``1 + draft`` that stay under it (a limit below ``1 + draft`` refuses the load), so
    the limit is the capture size that holds the step, rounded up to that multiple; 512 at most."""
    step = 1 + draft
    n = seqs * step
    size = next((s for s in CAPTURE_SIZES if s >= n), CAPTURE_SIZES[-1])
    return int(min(CAPTURE_SIZES[-1], -(-size // step) * step))


def draft_tokens(method: str | None, tokens: int | None) -> int:
    """Draft tokens a decode step verifies: none without speculation; n-gram's default when unset."""
    if not method:
        return 0
    return int(tokens or (NGRAM_DRAFT_TOKENS if method == "ngram" else 1))


def capture_limit(config: EngineConfig, level: int) -> int:
    """The largest CUDA-graph batch, in tokens, a load of ``config`` runs at ``level`` requests in
    flight (under its max_num_seqs), with speculation's draft tokens (:func:`capture_tokens`)."""
    seqs = min(level, int(config.max_num_seqs or level))
    return capture_tokens(seqs, draft_tokens(config.speculative_method, config.num_speculative_tokens))


@cache
def _compile_knobs() -> tuple[str, ...]:
    return ("quantization", "kv_cache_dtype", "dtype", "max_cudagraph_capture_size", *compile_cache_keys())


def compile_key(config: EngineConfig, device: str) -> str:
    """What vLLM's torch.compile cache tells loads of ``config`` apart by (nothing on the CPU
    engine or in eager mode: nothing is compiled)."""
    if device == "cpu" or config.enforce_eager:
        return "eager (nothing compiled)"
    unset = {"kv_cache_dtype": "auto"}  # what vLLM takes for None: the same compiled graph
    return ", ".join(f"{k}={getattr(config, k) or unset.get(k)}" for k in _compile_knobs())


def expected_load(trials: Sequence[Trial], seen_keys: Collection[str], key: str | None) -> float:
    """A fresh load's expected seconds: for a compile key loaded before (vLLM reads what it
    compiled from its cache), the slowest such load so far; otherwise the slowest first load."""
    done = [t for t in trials if t.load_seconds is not None]
    first = [float(t.load_seconds or 0) for t in done if t.first_load_of_key is not False]
    again = [float(t.load_seconds or 0) for t in done if t.first_load_of_key is False]
    if key is not None and key in seen_keys and again:
        return max(again)
    return max(first or again or [0.0])


def need_for_a_trial(trials: Sequence[Trial], seen_keys: Collection[str], key: str | None = None) -> float:
    """What one more trial is expected to cost: its load (``key``: its compile key; None, a key
    never loaded) and the runs of the slowest trial that reached the whole workload."""
    runs = [sum(r["seconds"] for r in t.runs) for t in trials if t.status == "ok"]
    return expected_load(trials, seen_keys, key) + (max(runs) if runs else 0.0)


def cheap_to_finish(trial: Trial, rungs: Sequence[int], rung: int) -> bool:
    """Whether the runs after ``rung`` (``rungs``: the prompts each rung measures, at the short
    run's pace) would cost less than :data:`STOP_SAVES_SHARE` of the trial's load."""
    done = [r for r in trial.runs if r["rung"] == rung]
    if not trial.load_seconds or not done:
        return False
    per_prompt = float(sum(r["seconds"] for r in done)) / max(1, sum(int(r["prompts"]) for r in done))
    return per_prompt * sum(rungs[rung + 1 :]) < STOP_SAVES_SHARE * float(trial.load_seconds)


__all__ = [
    "CAPTURE_SIZES",
    "STOP_SAVES_SHARE",
    "capture_limit",
    "capture_tokens",
    "cheap_to_finish",
    "compile_key",
    "draft_tokens",
    "expected_load",
    "need_for_a_trial",
]
