"""FP8 needs no job: vLLM quantizes the weights on load (``quantization="fp8"``, Ada and Hopper)
and stores the KV cache in FP8 (``kv_cache_dtype="fp8"``). What the user needs to see is the memory
won, which the planner computes: the same model and GPU planned with and without the FP8 knobs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from console.messages import Message
from console.planner import plan, request_from_engine

FP8_KEYS = {"quantization": "fp8", "kv_cache_dtype": "fp8"}


def is_fp8(engine: dict[str, Any]) -> bool:
    return any(str(engine.get(k, "")).startswith(v) for k, v in FP8_KEYS.items())


@dataclass(frozen=True)
class MemoryWon:
    weights_bytes: tuple[int, int]  # (16-bit, with the preset)
    kv_bytes_per_token: tuple[int, int]
    kv_tokens: tuple[int, int]  # tokens the KV cache holds on this GPU

    def rows(self) -> list[tuple[str, str, str]]:
        g = 2**30
        return [
            (Message("weights"), f"{self.weights_bytes[0] / g:.1f} GiB", f"{self.weights_bytes[1] / g:.1f} GiB"),
            (
                Message("KV bytes per token"),
                f"{self.kv_bytes_per_token[0] // 1024} KiB",
                f"{self.kv_bytes_per_token[1] // 1024} KiB",
            ),
            (Message("KV cache tokens"), f"{self.kv_tokens[0]:,}", f"{self.kv_tokens[1]:,}"),
        ]


def memory_won(engine: dict[str, Any], model: str = "Llama-3.1-8B", gpu: str = "rtx-4090") -> MemoryWon:
    """Plan ``engine`` and the same engine without its FP8 settings, for ``model`` on ``gpu``."""

    baseline = {k: v for k, v in engine.items() if k not in FP8_KEYS}
    gpu = gpu if gpu and gpu != "any" else "rtx-4090"
    a = plan(request_from_engine(model, gpu, baseline))
    b = plan(request_from_engine(model, gpu, engine))
    return MemoryWon(
        (a.weights_bytes, b.weights_bytes), (a.kv_bytes_per_token, b.kv_bytes_per_token), (a.kv_tokens, b.kv_tokens)
    )
