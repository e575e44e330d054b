"""Which dtype the CPU engine runs models in: chosen by a check on this machine, not hard-coded.

vLLM's CPU kernels differ by CPU: on an AMD EPYC with ``avx512_bf16`` bfloat16 ran 7x faster
than float16 (fp16 is emulated without ``avx512_fp16``), while on an Intel Xeon with AMX-BF16
bfloat16 gave gibberish. So :mod:`console.bench.cpu_dtype_check` runs a known-answer, agreement
and speed check once per (CPU model and relevant flags, vLLM version) and this module keeps its
verdict in ``<data home>/cpu_dtype.json``.

:func:`resolve` is what the engine uses for ``dtype="auto"`` on CPU: the cached choice, or
float32 (correct everywhere it was tried) with a note asking for ``inference-console doctor``.
A dtype other than ``"auto"`` in a config or preset is never replaced.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import platform
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from console.messages import Message
from console.paths import data_home
from console.atomic import atomic_write_json
from console.vllm_compat import vllm_distribution

log = logging.getLogger(__name__)

CANDIDATES = ("bfloat16", "float16", "float32")
#: The dtype every other candidate is compared with (full precision).
REFERENCE = "float32"
#: Used when no check has run on this machine: slower than bf16 where bf16 is right, but it
#: answered correctly on every CPU measured (AMD EPYC, Xeon with AMX, Xeon without).
FALLBACK = "float32"
#: The flags that change which CPU kernels vLLM and torch use for 16-bit floats.
RELEVANT_FLAGS = (
    "avx2",
    "fma",
    "f16c",
    "avx512f",
    "avx512bw",
    "avx512vl",
    "avx512_vnni",
    "avx512_bf16",
    "avx512_fp16",
    "avx_vnni",
    "amx_tile",
    "amx_bf16",
    "amx_fp16",
    "amx_int8",
    # ARM (cpuinfo "Features"): half and bf16 arithmetic, SVE
    "asimd",
    "fphp",
    "asimdhp",
    "bf16",
    "sve",
    "sve2",
)
CACHE_FILE = "cpu_dtype.json"


@dataclass(frozen=True)
class Fingerprint:
    """What decides the CPU engine's numerics: the CPU model, its relevant flags, vLLM's build."""

    cpu: str
    flags: tuple[str, ...]
    vllm: str

    @property
    def key(self) -> str:
        text = json.dumps([self.cpu, sorted(self.flags), self.vllm])
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def describe(self) -> str:
        return f"{self.cpu} [{' '.join(self.flags) or 'no relevant flags'}], {self.vllm}"


def read_cpu(cpuinfo: Path = Path("/proc/cpuinfo")) -> tuple[str, tuple[str, ...]]:
    """The CPU model name and which of :data:`RELEVANT_FLAGS` it has."""
    name = platform.processor() or platform.machine()
    flags: set[str] = set()
    try:
        for line in cpuinfo.read_text(errors="replace").splitlines():
            key, _, value = line.partition(":")
            key = key.strip().lower()
            if key in ("model name", "hardware", "cpu model") and value.strip():
                name = value.strip()
            elif key in ("flags", "features"):
                flags.update(value.split())
    except OSError:
        pass
    return name, tuple(f for f in RELEVANT_FLAGS if f in flags)


def fingerprint() -> Fingerprint:
    """This machine's fingerprint (reads /proc/cpuinfo and package metadata; imports no vLLM)."""

    cpu, flags = read_cpu()
    dist = vllm_distribution()
    return Fingerprint(cpu, flags, f"{dist[0]} {dist[1]}" if dist else "no vLLM")


@dataclass
class DtypeResult:
    """One candidate's measurements and verdict."""

    dtype: str
    answer: str = ""
    answer_ok: bool = False
    #: share of held-out positions whose most likely next token equals float32's
    top1_agreement: float | None = None
    #: mean |log p(next token)| difference from float32 over the held-out positions, in nats
    mean_abs_logprob_delta: float | None = None
    output_tokens_per_s: float | None = None
    error: str | None = None
    ok: bool = False
    reason: str = ""


@dataclass
class CheckResult:
    fingerprint: Fingerprint
    model: str
    results: list[DtypeResult]
    choice: str | None
    message: str
    measured_at: str = ""
    seconds: float = 0.0
    tolerance: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["fingerprint"]["flags"] = list(self.fingerprint.flags)
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "CheckResult":
        fp = d["fingerprint"]
        return cls(
            fingerprint=Fingerprint(str(fp["cpu"]), tuple(fp["flags"]), str(fp["vllm"])),
            model=str(d["model"]),
            results=[DtypeResult(**r) for r in d.get("results", [])],
            choice=d.get("choice"),
            message=str(d.get("message", "")),
            measured_at=str(d.get("measured_at", "")),
            seconds=float(d.get("seconds", 0.0)),
            tolerance={k: float(v) for k, v in (d.get("tolerance") or {}).items()},
        )


# -- the verdict ---------------------------------------------------------------------------------
#: Agreement with float32 a candidate must reach on the held-out lines. bf16 keeps 8 mantissa
#: bits, so small log-probability differences are expected; a broken kernel (the AMX case) moves
#: whole distributions and fails both by far.
MAX_MEAN_ABS_LOGPROB_DELTA = 0.15
MIN_TOP1_AGREEMENT = 0.90


def judge(result: DtypeResult, reference: DtypeResult | None) -> DtypeResult:
    """Fill ``ok`` and ``reason`` from the measurements (``reference``: float32's result)."""
    if result.answer and not result.answer_ok:  # before the error: the likelier cause of it
        result.ok, result.reason = False, Message("wrong answer to the known question: {0}", repr(result.answer[:80]))
    elif result.error:
        result.ok, result.reason = False, Message("failed to run: {0}", result.error)
    elif not result.answer_ok:
        result.ok, result.reason = False, Message("no answer to the known question")
    elif result.dtype == REFERENCE:
        result.ok, result.reason = True, Message("reference")
    elif reference is None or not reference.ok:
        result.ok, result.reason = False, Message("no correct {0} reference to compare with", REFERENCE)
    elif result.top1_agreement is None or result.mean_abs_logprob_delta is None:
        result.ok, result.reason = False, Message("no log-probabilities to compare")
    elif result.top1_agreement < MIN_TOP1_AGREEMENT:
        result.ok, result.reason = (
            False,
            Message(
                "next-token choice agrees with {0} on only {1}% of positions",
                REFERENCE,
                f"{100 * result.top1_agreement:.0f}",
            ),
        )
    elif result.mean_abs_logprob_delta > MAX_MEAN_ABS_LOGPROB_DELTA:
        result.ok, result.reason = (
            False,
            Message(
                "log-probabilities differ from {0} by {1} nats on average",
                REFERENCE,
                f"{result.mean_abs_logprob_delta:.3f}",
            ),
        )
    else:
        result.ok, result.reason = True, Message("agrees with float32")
    return result


def decide(results: list[DtypeResult], model: str) -> tuple[str | None, str]:
    """The fastest correct dtype and a sentence for the user; ``None`` when none is correct."""
    good = [r for r in results if r.ok and r.output_tokens_per_s]
    if not good:
        why = "; ".join(f"{r.dtype}: {r.reason}" for r in results)
        return None, (
            f"{model} gave wrong results in every dtype on this CPU ({why}). The CPU engine "
            f"will use {FALLBACK}, but its answers may be wrong: check the model, or report "
            "this CPU and vLLM version."
        )
    best = max(good, key=lambda r: r.output_tokens_per_s or 0.0)
    others = ", ".join(
        f"{r.dtype} {r.output_tokens_per_s:.0f}" if r.ok and r.output_tokens_per_s else f"{r.dtype} rejected"
        for r in results
        if r is not best
    )
    return best.dtype, f"{best.dtype}: fastest correct ({best.output_tokens_per_s:.0f} tok/s; {others})"


# -- the cache -----------------------------------------------------------------------------------
def cache_path() -> Path:
    return data_home() / CACHE_FILE


def _read_cache() -> dict[str, Any]:
    path = cache_path()
    try:
        data = json.loads(path.read_text())
        return data if isinstance(data, dict) else {}
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        log.warning("ignoring unreadable %s: %s", path, exc)
        return {}


def cached(fp: Fingerprint | None = None) -> CheckResult | None:
    """The check's result for this machine (``fp``), or None when it has not run here (a new
    CPU, different flags, another vLLM version) or the file is unreadable."""
    fp = fp or fingerprint()
    entry = _read_cache().get(fp.key)
    if entry is None:
        return None
    try:
        return CheckResult.from_json(entry)
    except (KeyError, TypeError, ValueError) as exc:
        log.warning("ignoring a damaged entry in %s: %s", cache_path(), exc)
        return None


def save(result: CheckResult) -> Path:
    data = _read_cache()
    data[result.fingerprint.key] = result.to_json()
    path = cache_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_json(path, data)
    return path


@dataclass(frozen=True)
class Resolved:
    dtype: str
    #: "checked" (this machine's cached choice), "fallback" (no check yet, or none passed)
    source: str
    note: str


SIXTEEN_BIT = ("bfloat16", "float16")


def resolve(fp: Fingerprint | None = None, sixteen_bit: bool = False) -> Resolved:
    """The dtype for ``dtype="auto"`` on the CPU engine. ``sixteen_bit``: the model needs a 16-bit
    dtype (vLLM's AWQ/GPTQ kernels refuse float32): the fastest 16-bit one that passed the check,
    else float16."""
    result = cached(fp)
    if sixteen_bit:
        good = [
            r for r in (result.results if result else []) if r.ok and r.output_tokens_per_s and r.dtype in SIXTEEN_BIT
        ]
        if good:
            best = max(good, key=lambda r: r.output_tokens_per_s or 0.0)
            return Resolved(
                best.dtype,
                "checked",
                f"{best.dtype} (fastest 16-bit dtype that passed the CPU check; quantized weights need 16 bits)",
            )
        return Resolved(
            "float16", "fallback", "float16 (quantized weights need a 16-bit dtype; none was checked on this CPU)"
        )
    if result is None:
        return Resolved(
            FALLBACK,
            "fallback",
            f"{FALLBACK} (CPU dtype not checked on this machine yet: "
            "run `inference-console doctor` to pick the fastest correct one)",
        )
    if result.choice is None:
        return Resolved(FALLBACK, "fallback", f"{FALLBACK} (no dtype passed the CPU check: {result.message})")
    when = result.measured_at[:10]
    return Resolved(result.choice, "checked", f"{result.choice} (checked on this CPU {when})".replace(" )", ")"))


__all__ = [
    "CANDIDATES",
    "REFERENCE",
    "FALLBACK",
    "Fingerprint",
    "DtypeResult",
    "CheckResult",
    "Resolved",
    "fingerprint",
    "read_cpu",
    "judge",
    "decide",
    "cached",
    "save",
    "resolve",
    "cache_path",
]
