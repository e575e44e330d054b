"""Bench workloads: fixed-length synthetic token-id prompts or a prompt file, and the arrival
schedule (all at once, Poisson at R req/s; ``max_concurrency`` is applied by the runner).

A workload is plain data (JSON-able) so the same prompts go to the baselines in other processes.
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from console.batch.formats import read_batch_file


@dataclass
class Workload:
    """Prompts as token ids (synthetic) or as chat messages (prompt file)."""

    name: str
    output_len: int
    prompt_token_ids: list[list[int]] = field(default_factory=list)
    messages: list[list[dict[str, str]]] = field(default_factory=list)
    ignore_eos: bool = True  # fixed output length, as vllm bench does
    #: OpenAI body fields every request carries (e.g. a ``response_format`` JSON schema), read by
    #: vLLM's own request model: what a structured output costs in tok/s (``structured``).
    openai_fields: dict[str, Any] = field(default_factory=dict)
    #: LoRA adapters the requests cycle through ("" = the base model): what adapters cost, one or
    #: several mixed in one batch; empty: every request to the base model
    adapters: list[str] = field(default_factory=list)
    #: each request's own output length (the user's prompts and conversations); empty: ``output_len`` for all
    output_lens: list[int] = field(default_factory=list)
    #: where the prompts come from: "synthetic", "file" (a prompt file), "your prompts" (a batch file
    #: of the user's) or "your conversations" (saved chats replayed turn by turn)
    source: str = "synthetic"

    @property
    def num_prompts(self) -> int:
        return len(self.prompt_token_ids) or len(self.messages)

    def output_len_of(self, i: int) -> int:
        """Request ``i``'s output length."""
        return self.output_lens[i] if i < len(self.output_lens) else self.output_len

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Workload":
        return cls(**d)


def synthetic(num_prompts: int, input_len: int, output_len: int, vocab_size: int, seed: int = 0) -> Workload:
    """Random token-id prompts of exactly ``input_len`` tokens (ids kept clear of the special
    tokens at both ends of the vocabulary)."""
    if num_prompts < 1 or input_len < 1 or output_len < 1:
        raise ValueError("--num-prompts, --input-len and --output-len must be at least 1")
    rng = random.Random(seed)
    lo, hi = min(100, vocab_size // 4), max(101, vocab_size - 100)
    ids = [[rng.randrange(lo, hi) for _ in range(input_len)] for _ in range(num_prompts)]
    return Workload(f"synthetic {num_prompts}x{input_len}->{output_len}", output_len, prompt_token_ids=ids)


def from_file(path: Path | str, output_len: int, num_prompts: int | None = None) -> Workload:
    """The prompts of a batch file (JSONL/CSV/OpenAI batch), cycled or cut to ``num_prompts``."""

    parsed = read_batch_file(path)
    if not parsed.requests:
        raise ValueError(f"{path} has no usable prompts" + (f" ({parsed.errors[0]})" if parsed.errors else ""))
    msgs = [r.messages or [] for r in parsed.requests]
    if num_prompts:
        msgs = [msgs[i % len(msgs)] for i in range(num_prompts)]
    return Workload(f"file {Path(path).name} x{len(msgs)}->{output_len}", output_len, messages=msgs, source="file")


def structured(workload: Workload, json_schema: dict[str, Any]) -> Workload:
    """The same prompts, each answer constrained to ``json_schema``. EOS is honoured (a finished
    JSON document ends the answer), so compare tok/s, not token counts, with the free workload."""
    return Workload(
        f"{workload.name} + JSON schema",
        workload.output_len,
        workload.prompt_token_ids,
        workload.messages,
        ignore_eos=False,
        openai_fields={
            "response_format": {"type": "json_schema", "json_schema": {"name": "bench", "schema": json_schema}}
        },
    )


def arrival_offsets(n: int, request_rate: float | None, seed: int = 0) -> list[float]:
    """Send times in seconds: all at 0 for an infinite rate, else Poisson (exponential gaps)."""
    if request_rate is None or request_rate == float("inf") or request_rate <= 0:
        return [0.0] * n
    rng = random.Random(seed)
    t, out = 0.0, []
    for _ in range(n):
        out.append(t)
        t += rng.expovariate(request_rate)
    return out
