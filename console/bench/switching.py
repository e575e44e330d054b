"""Switching between two models kept warm, against loading one again.

:func:`measure` loads model A, then model B keeping A warm, then switches back and forth
``rounds`` times (each switch wakes the warm model instead of building it), and finally unloads
everything and loads A once more from nothing: that reload is the honest figure a switch is
compared with (vLLM is imported by then, so it is not counted against the reload). Each model
answers one greedy prompt after its cold load and after every switch: a switch that returned a
different engine, or a broken one, shows there.

On the GPU the warm model sleeps (vLLM's sleep mode, level 1): its weights wait in host RAM and
its GPU memory is free for the other model. The CPU build ignores sleep, so there a warm model
keeps its RAM; the report gives the engine processes' resident memory with one and with both
loaded, so the cost is visible.
"""

from __future__ import annotations

import statistics
from typing import Any, Callable

import psutil

from console.config import EngineConfig
from console.sampling import SamplingSettings
from console.engine.types import GenerationRequest, RequestFinished, failure_text
from console.jobs import TaskState
from console.metrics import nvml

PROMPT = "The capital of France is"
LOAD_TIMEOUT_S = 1800.0


def _engine_rss() -> int:
    """Resident memory of this process's children (the engine cores), in bytes."""
    total = 0
    for child in psutil.Process().children(recursive=True):
        try:
            total += child.memory_info().rss
        except psutil.Error:
            pass
    return total


def _answer(engine: Any, max_tokens: int) -> str:
    end = engine.generate(
        GenerationRequest(prompt=PROMPT, sampling=SamplingSettings(temperature=0.0, max_tokens=max_tokens)), timeout=600
    )
    if not isinstance(end, RequestFinished):
        raise RuntimeError(f"the model did not answer: {failure_text(end)}")
    return end.text


def measure(
    a: tuple[str, EngineConfig],
    b: tuple[str, EngineConfig],
    engine_factory: Callable[[], Any],
    *,
    rounds: int = 2,
    max_tokens: int = 16,
    task: TaskState | None = None,
) -> dict[str, Any]:
    """Cold loads, warm switches and a reload of ``a`` and ``b`` (``(name, config)`` each)."""
    task = task or TaskState()
    (name_a, cfg_a), (name_b, cfg_b) = a, b
    if name_a == name_b:
        raise ValueError("give two different model names (the same model twice is one model)")
    steps = 4 + 2 * rounds
    done = 0

    def step(what: str) -> None:
        nonlocal done
        task.check()
        task.report(what, done / steps)
        done += 1

    engine = engine_factory()
    try:
        step(f"loading {name_a}")
        info_a = engine.load(cfg_a, name_a).result(LOAD_TIMEOUT_S)
        answers = {name_a: _answer(engine, max_tokens)}
        rss_one = _engine_rss()
        step(f"loading {name_b}, keeping {name_a} warm")
        info_b = engine.load(cfg_b, name_b, keep_warm=True).result(LOAD_TIMEOUT_S)
        answers[name_b] = _answer(engine, max_tokens)
        warm = engine.warm_models()
        rss_both, gpu_both = _engine_rss(), nvml.memory_used_bytes()  # None without a GPU
        switches: list[dict[str, Any]] = []
        for _ in range(rounds):
            for name, cfg in ((name_a, cfg_a), (name_b, cfg_b)):
                step(f"switching to {name}")
                info = engine.load(cfg, name, keep_warm=True).result(LOAD_TIMEOUT_S)
                switches.append(
                    {
                        "to": name,
                        "switch_s": info.switch_seconds,
                        "woken": info.switch_seconds is not None,
                        "same_answer": _answer(engine, max_tokens) == answers[name],
                    }
                )
        step("unloading both")
        engine.unload().result(LOAD_TIMEOUT_S)
        step(f"loading {name_a} again from nothing (the reload a switch saves)")
        reload_a = engine.load(cfg_a, name_a).result(LOAD_TIMEOUT_S)
        reload_same = _answer(engine, max_tokens) == answers[name_a]
        task.report("done", 1.0)
    finally:
        engine.close()
    times = [s["switch_s"] for s in switches if s["switch_s"] is not None]
    median_switch = statistics.median(times) if times else None
    return {
        "device": info_a.device,
        "vllm_version": info_a.vllm_version,
        "models": {
            name_a: {"path": cfg_a.model, "first_load_s": info_a.load_seconds},
            name_b: {"path": cfg_b.model, "first_load_s": info_b.load_seconds},
        },
        "warm_while_b_loaded": [{"name": w.name, "asleep": w.asleep} for w in warm],
        "switches": switches,
        "switch_s_median": median_switch,
        "reload_s": reload_a.load_seconds,
        "reload_same_answer": reload_same,
        "speedup_vs_reload": (reload_a.load_seconds / median_switch) if median_switch else None,
        "engine_rss_one_loaded": rss_one,
        "engine_rss_both_loaded": rss_both,
        "gpu_used_both_loaded": gpu_both,
        "answers": answers,
        "note": (
            "the warm model slept: its weights waited in host RAM and its GPU memory was free"
            if any(w.asleep for w in warm)
            else "CPU engine: vLLM's CPU build ignores sleep, so the warm model kept its RAM "
            "(engine_rss_both_loaded against engine_rss_one_loaded)"
        ),
    }


__all__ = ["measure", "PROMPT"]
