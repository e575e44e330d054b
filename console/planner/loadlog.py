"""vLLM's own memory report of one engine start, read from its log lines.

After sizing the KV cache, vLLM logs what it measured (0.26 .. 0.33 wordings; the worker and the
engine core each log their part, once per start)::

    Model loading took 15.0 GiB and 1.84 seconds                       (0.32+: "GiB memory and")
    Available KV cache memory: 6.57 GiB
    GPU KV cache size: 53,792 tokens                                   (0.32+: ", Maximum concurrency ...")
    Maximum concurrency for 8,192 tokens per request: 6.57x
    Graph capturing finished in 6 secs, took 0.59 GiB
    Free memory on device (139.29/139.8 GiB) on startup. Desired GPU memory utilization is
    (0.1638, 22.9 GiB). Actual usage is 15.0 GiB for weight, 1.1 GiB for peak activation,
    0.22 GiB for non-torch memory, and 0.59 GiB for CUDAGraph memory. ... Current kv cache
    memory in use is 6.57 GiB.
    (0.32+: "Actual usage is W GiB for consumed memory (weights + non-torch), A GiB for peak
    activation, and G GiB for CUDAGraph memory.")
    Explicitly set (2.0/23.45) GiB for KV cache on node 0.              (the CPU worker)

:func:`parse_vllm_log` turns any text holding such lines into a :class:`MemoryReport`; every
figure is optional, because a line may be missing (another vLLM version, logging turned down).
Figures stay in GiB as logged (vLLM rounds to 0.01 GiB).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, fields
from typing import Any

_NUM = r"([\d.]+)"
_INT = r"([\d,]+)"
_PATTERNS: dict[str, str] = {
    "vllm_version": r"Initializing a V1 LLM engine \(v([^)\s]+)\)",
    "weights_loaded_gib": rf"Model loading took {_NUM} GiB",
    "kv_available_gib": rf"Available KV cache memory: {_NUM} GiB",
    "kv_tokens": rf"(?:GPU|CPU|XPU|TPU)[^\]]*?KV cache size: {_INT} tokens",
    "max_concurrency_len": rf"Maximum concurrency for {_INT} tokens per request",
    "max_concurrency": rf"Maximum concurrency for [\d,]+ tokens per request: {_NUM}x",
    "graph_capture_gib": rf"Graph capturing finished in [\d.]+ secs?, took {_NUM} GiB",
    "device_free_gib": rf"Free memory on device \({_NUM}/[\d.]+ GiB\)",
    "device_total_gib": rf"Free memory on device \([\d.]+/{_NUM} GiB\)",
    "utilization": rf"Desired GPU memory utilization is \({_NUM}, [\d.]+ GiB\)",
    "requested_gib": rf"Desired GPU memory utilization is \([\d.]+, {_NUM} GiB\)",
    "weights_gib": rf"Actual usage is {_NUM} GiB for weight,",
    "consumed_gib": rf"Actual usage is {_NUM} GiB for consumed memory",
    "peak_activation_gib": rf"{_NUM} GiB for peak activation",
    "non_torch_gib": rf"{_NUM} GiB for non-torch memory",
    "cuda_graph_gib": rf"{_NUM} GiB for CUDAGraph memory",
    "kv_in_use_gib": rf"Current kv cache memory in use is {_NUM} GiB",
    "cpu_kv_gib": rf"(?:Explicitly|Auto) set \({_NUM}/[\d.]+\) GiB for KV cache",
    "cpu_total_gib": rf"(?:Explicitly|Auto) set \([\d.]+/{_NUM}\) GiB for KV cache",
}
_COMPILED = {k: re.compile(v) for k, v in _PATTERNS.items()}
_INTS = ("kv_tokens", "max_concurrency_len")


@dataclass(frozen=True)
class MemoryReport:
    """What vLLM logged about one engine start (None: the line was not there)."""

    vllm_version: str | None = None
    device_total_gib: float | None = None  # the total CUDA reports (NVML's is larger on some cards)
    device_free_gib: float | None = None
    utilization: float | None = None
    requested_gib: float | None = None  # total x gpu_memory_utilization
    weights_gib: float | None = None
    consumed_gib: float | None = None  # 0.32+: weights + non-torch in one figure
    peak_activation_gib: float | None = None
    non_torch_gib: float | None = None
    cuda_graph_gib: float | None = None
    kv_available_gib: float | None = None
    kv_tokens: int | None = None
    max_concurrency: float | None = None
    max_concurrency_len: int | None = None
    weights_loaded_gib: float | None = None
    graph_capture_gib: float | None = None
    kv_in_use_gib: float | None = None
    cpu_kv_gib: float | None = None
    cpu_total_gib: float | None = None

    @property
    def weights(self) -> float | None:
        """Weights in GiB: the 'Actual usage' figure, else what the load itself took."""
        return self.weights_gib if self.weights_gib is not None else self.weights_loaded_gib

    @property
    def kv_budget_gib(self) -> float | None:
        """The KV cache vLLM sized (GPU: its available memory; CPU: the size it was given)."""
        for value in (self.kv_available_gib, self.kv_in_use_gib, self.cpu_kv_gib):
            if value is not None:
                return value
        return None

    @property
    def outside_kv_gib(self) -> float | None:
        """Everything vLLM took from its budget beside the weights: peak activation + non-torch
        (+ the CUDA-graph estimate where the version counts it), as requested - weights - KV."""
        w, kv = self.weights, self.kv_budget_gib
        if self.requested_gib is None or w is None or kv is None:
            return None
        return self.requested_gib - w - kv

    @property
    def complete(self) -> bool:
        """Enough to calibrate a GPU: the budget split and the KV tokens."""
        return self.outside_kv_gib is not None and self.kv_tokens is not None and self.device_total_gib is not None

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "MemoryReport":
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


def parse_vllm_log(text: str) -> MemoryReport:
    """The first occurrence of each figure in ``text`` (one engine start's log)."""
    values: dict[str, Any] = {}
    for key, pattern in _COMPILED.items():
        match = pattern.search(text)
        if match is None:
            continue
        raw = match.group(1)
        if key == "vllm_version":
            values[key] = raw
        elif key in _INTS:
            values[key] = int(raw.replace(",", ""))
        else:
            try:
                values[key] = float(raw.rstrip("."))
            except ValueError:
                continue
    return MemoryReport(**values)


def split_engine_starts(text: str) -> list[str]:
    """A log holding several engine starts, cut before each "Initializing a V1 LLM engine"."""
    marks = [m.start() for m in re.finditer(r"[^\n]*Initializing a V1 LLM engine", text)]
    if not marks:
        return [text] if text.strip() else []
    return [text[a:b] for a, b in zip(marks, marks[1:] + [len(text)])]


__all__ = ["MemoryReport", "parse_vllm_log", "split_engine_starts"]
