"""Quantize, then gate: the one call the CLI and the GUI make.

``quantize_and_gate`` runs the AWQ job, measures the original and the result in one engine host,
and removes the new model again when the gate rejects it (unless asked to keep it), so the store
only ever offers quantized models that passed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from console.jobs import TaskState
from console.models.store import ModelEntry, ModelStore
from console.quant.gate import GateResult, compare
from console.quant.job import AwqParams, LogSink, quantize_awq

#: KV cache for the gate's engines: small, the gate runs one short batch.
GATE_KV_BYTES = 256 * 1024**2


@dataclass
class QuantizeOutcome:
    entry: ModelEntry
    gate: GateResult | None
    kept: bool


def gate_configs(store: ModelStore, source: str, quantized: str, preset: str | None = None) -> tuple[Any, Any]:
    from console.launch import engine_config_for

    overrides: dict[str, Any] = {"kv_cache_memory_bytes": GATE_KV_BYTES, "max_model_len": 1024}
    return (engine_config_for(store, source, preset, **overrides),
            engine_config_for(store, quantized, preset, **overrides))


def run_gate(store: ModelStore, source: str, quantized: str, method: str = "awq", *,
             host: Any = None, preset: str | None = None,
             on_stage: Callable[[str], None] | None = None) -> GateResult:
    from console.engine.host import EngineHost
    from console.engine.interface import require_loader

    own = host is None
    host = EngineHost() if host is None else require_loader(host, "The quality gate")
    try:
        a, b = gate_configs(store, source, quantized, preset)
        return compare(host, method, a, b, names=(source, quantized), on_stage=on_stage)
    finally:
        if own:
            host.close()


def quantize_and_gate(store: ModelStore, source: str, out_name: str | None = None, *,
                      params: AwqParams | None = None, calib_file: Path | None = None,
                      task: TaskState | None = None, on_log: LogSink | None = None,
                      gate: bool = True, keep_rejected: bool = False, host: Any = None) -> QuantizeOutcome:
    task = task or TaskState()
    log = on_log or (lambda _l: None)
    if gate and host is not None:
        from console.engine.interface import require_loader

        require_loader(host, "The quality gate")  # refuse before minutes of quantizing, not after
    entry = quantize_awq(store, source, out_name, params=params, calib_file=calib_file, task=task, on_log=log)
    if not gate:
        return QuantizeOutcome(entry, None, True)

    def stage(s: str) -> None:
        task.report(f"quality gate: {s}", None)
        log(f"quality gate: {s}")

    result = run_gate(store, source, entry.name, "awq", host=host, on_stage=stage)
    lineage = dict(entry.lineage or {})
    lineage["gate"] = {"passed": result.passed, "perplexity_original": result.original.perplexity,
                       "perplexity_quantized": result.quantized.perplexity, "rise": result.rise}
    entry = store.update(entry.name, lineage=lineage)
    log(result.message)
    kept = result.passed or keep_rejected
    if not kept:
        store.remove(entry.name)
    return QuantizeOutcome(entry, result, kept)
