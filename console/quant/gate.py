"""The quality and speed gate every quantization result goes through.

Each model (the original and the quantized one) is loaded in the engine in turn and measured the
same way: perplexity on the shipped held-out text (through the engine's prompt logprobs, so it is
the model exactly as vLLM runs it), greedy answers to a fixed question set, size on disk, weights
memory, and generation tokens/s on one fixed batch. :func:`judge` then accepts or rejects the
result: an AWQ int4 model whose perplexity rises more than 15% is rejected, with the figures.
"""

from __future__ import annotations

import json
import math
import struct
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

from console.config import EngineConfig, SamplingSettings
from console.engine.interface import Loader, require_loader
from console.paths import resources_dir

# Largest perplexity rise accepted per method (0.15 = +15%).
MAX_PPL_RISE: dict[str, float] = {"awq": 0.15, "fp8": 0.05}

QUESTIONS: tuple[str, ...] = (
    "What is the capital of France?",
    "How many days are there in a week?",
    "What colour is the sky on a clear day?",
    "Name a fruit that is yellow.",
)


def heldout_path() -> Path:
    return resources_dir() / "quant" / "heldout.txt"


def calibration_path() -> Path:
    return resources_dir() / "quant" / "calibration.txt"


@dataclass
class ModelReport:
    name: str
    path: str
    perplexity: float
    heldout_tokens: int
    answers: list[str]
    size_bytes: int
    weights_bytes: int
    tokens_per_s: float
    load_s: float


@dataclass
class GateResult:
    method: str
    original: ModelReport
    quantized: ModelReport
    max_rise: float
    questions: list[str] = field(default_factory=lambda: list(QUESTIONS))

    @property
    def rise(self) -> float:
        return self.quantized.perplexity / self.original.perplexity - 1.0

    @property
    def passed(self) -> bool:
        return math.isfinite(self.quantized.perplexity) and self.rise <= self.max_rise

    @property
    def message(self) -> str:
        figures = (f"perplexity {self.original.perplexity:.2f} -> {self.quantized.perplexity:.2f} "
                   f"({100 * self.rise:+.1f}%, limit +{100 * self.max_rise:.0f}% for {self.method})")
        if self.passed:
            return f"Accepted: {figures}"
        return f"Rejected: {figures}. The quantized model loses too much quality; it was not kept."

    def to_dict(self) -> dict[str, Any]:
        return {"method": self.method, "passed": self.passed, "rise": self.rise, "max_rise": self.max_rise,
                "message": self.message, "questions": self.questions,
                "original": asdict(self.original), "quantized": asdict(self.quantized)}

    def table(self) -> list[tuple[str, str, str]]:
        """Rows (label, original, quantized) for the CLI and the GUI's comparison table."""
        o, q = self.original, self.quantized
        rows = [("perplexity (held-out)", f"{o.perplexity:.2f}", f"{q.perplexity:.2f}"),
                ("size on disk", _mib(o.size_bytes), _mib(q.size_bytes)),
                ("weights memory", _mib(o.weights_bytes), _mib(q.weights_bytes)),
                ("generation tok/s", f"{o.tokens_per_s:.1f}", f"{q.tokens_per_s:.1f}")]
        for question, a, b in zip(self.questions, o.answers, q.answers):
            rows.append((question, a, b))
        return rows


def _mib(n: int) -> str:
    return f"{n / 2**20:.1f} MiB"


def folder_size(folder: Path) -> int:
    return sum(p.stat().st_size for p in Path(folder).rglob("*") if p.is_file())


def weights_bytes(folder: Path) -> int:
    """Bytes of tensor data in the folder's safetensors files (read from their headers)."""
    total = 0
    for f in Path(folder).glob("*.safetensors"):
        with open(f, "rb") as fh:
            (n,) = struct.unpack("<Q", fh.read(8))
            header = json.loads(fh.read(n))
        total += sum(v["data_offsets"][1] - v["data_offsets"][0] for k, v in header.items() if k != "__metadata__")
    return total


def perplexity(host: Any, text: str, window: int = 512) -> tuple[float, int]:
    """exp(mean negative log-likelihood) of ``text``, in windows of ``window`` tokens."""
    from console.engine.types import GenerationRequest, RequestFailed

    ids = host.tokenizer.encode(text, add_special_tokens=False)
    nll, count = 0.0, 0
    for start in range(0, len(ids), window):
        chunk = ids[start:start + window]
        if len(chunk) < 2:
            continue
        req = GenerationRequest(prompt_token_ids=chunk, want_prompt_logprobs=0, stream=False,
                                sampling=SamplingSettings(temperature=0.0, max_tokens=1))
        ev = host.generate(req, timeout=600)
        if isinstance(ev, RequestFailed) or ev.prompt_logprobs is None:
            raise RuntimeError(f"the engine returned no prompt logprobs: {getattr(ev, 'message', ev)}")
        for tok, entry in zip(chunk[1:], ev.prompt_logprobs[1:]):
            lp = entry[tok].logprob if entry and tok in entry else -math.inf
            nll -= lp
            count += 1
    return (math.exp(nll / count) if count and math.isfinite(nll) else math.inf), count


def greedy_answers(host: Any, questions: tuple[str, ...] | list[str], max_tokens: int = 40) -> list[str]:
    from console.engine.types import GenerationRequest, RequestFailed

    out = []
    for q in questions:
        req = GenerationRequest(messages=[{"role": "user", "content": q}], stream=False,
                                sampling=SamplingSettings(temperature=0.0, max_tokens=max_tokens))
        ev = host.generate(req, timeout=600)
        out.append(ev.message if isinstance(ev, RequestFailed) else ev.text.strip())
    return out


def generation_speed(host: Any, batch: int = 8, new_tokens: int = 64) -> float:
    """Generated tokens per second over one batch of ``batch`` identical-length requests."""
    from console.engine.types import GenerationRequest, RequestFinished

    sampling = SamplingSettings(temperature=0.0, max_tokens=new_tokens, ignore_eos=True)
    t0 = time.perf_counter()
    handles = [host.submit(GenerationRequest(prompt=f"Story number {i}: once upon a time", stream=False,
                                             sampling=sampling)) for i in range(batch)]
    events = [h.result(600) for h in handles]
    wall = time.perf_counter() - t0
    tokens = sum(e.output_tokens for e in events if isinstance(e, RequestFinished))
    return tokens / wall if wall > 0 else 0.0


def measure(host: Loader, name: str, base: EngineConfig, *, heldout: str | None = None,
            questions: tuple[str, ...] | list[str] = QUESTIONS,
            on_stage: Callable[[str], None] | None = None) -> ModelReport:
    """Load ``base.model`` in ``host`` and take every figure of the gate."""
    say = on_stage or (lambda _s: None)
    say(f"{name}: loading in the engine")
    info = host.load(base, name).result(timeout=900)
    text = heldout if heldout is not None else heldout_path().read_text(encoding="utf-8")
    say(f"{name}: perplexity on the held-out text")
    ppl, n = perplexity(host, text)
    say(f"{name}: greedy answers")
    answers = greedy_answers(host, questions)
    say(f"{name}: generation speed")
    speed = generation_speed(host)
    folder = Path(base.model)
    return ModelReport(name=name, path=str(folder), perplexity=ppl, heldout_tokens=n, answers=answers,
                       size_bytes=folder_size(folder), weights_bytes=weights_bytes(folder),
                       tokens_per_s=speed, load_s=info.load_seconds)


def judge(method: str, original: ModelReport, quantized: ModelReport) -> GateResult:
    return GateResult(method=method, original=original, quantized=quantized,
                      max_rise=MAX_PPL_RISE.get(method, 0.15))


def compare(host: Loader, method: str, original: EngineConfig, quantized: EngineConfig, *,
            names: tuple[str, str] = ("original", "quantized"), heldout: str | None = None,
            on_stage: Callable[[str], None] | None = None) -> GateResult:
    """Measure both models in the same engine host, one after the other, and judge."""
    host = require_loader(host, "The quality gate")  # a remote server would be measured twice
    a = measure(host, names[0], original, heldout=heldout, on_stage=on_stage)
    b = measure(host, names[1], quantized, heldout=heldout, on_stage=on_stage)
    return judge(method, a, b)
