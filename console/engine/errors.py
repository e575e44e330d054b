"""Turn vLLM's exceptions into messages that say what happened and what to do."""

from __future__ import annotations

import re

from console.config import EngineConfig

_RULES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"(no available memory for the cache blocks|insufficient memory|not enough (kv )?cache|"
                r"larger than the available KV cache memory|to store at least one request|KV cache memory)", re.I),
     "The KV cache does not fit: lower max_model_len or max_num_seqs, use kv_cache_dtype=fp8, "
     "raise gpu_memory_utilization (or the KV-cache size on CPU), or choose a smaller/quantized model. "
     "`inference-console plan` shows what fits."),
    (re.compile(r"(out of memory|CUDA error: out of memory|OutOfMemoryError|Cannot allocate memory)", re.I),
     "The device ran out of memory while loading: pick a smaller or quantized model, lower "
     "gpu_memory_utilization to leave room for other processes, or shorten max_model_len."),
    (re.compile(r"max_model_len.*(greater|exceed|larger)|(greater|exceed|larger).*max_position_embeddings", re.I),
     "max_model_len is longer than the model supports: lower it to the model's context length."),
    (re.compile(r"(not supported|unsupported|is not a supported).*architecture|Model architectures? .* (are|is) not supported", re.I),
     "This model's architecture is not supported by the installed vLLM."),
    (re.compile(r"(No such file or directory|does not appear to have a file|not a valid model|Can't load|config\.json)", re.I),
     "The model's files are missing or unreadable: check the folder still exists (`inference-console models info NAME`)."),
    (re.compile(r"trust_remote_code", re.I),
     "This model needs custom code (trust_remote_code). Enable it for this model only if you trust its source."),
]


def explain(exc: BaseException, config: EngineConfig | None = None) -> str:
    """A one-paragraph message: the cause in vLLM's words plus a hint when one is known."""
    text = f"{type(exc).__name__}: {exc}".strip()
    # vLLM wraps the child's failure; the useful line is usually the last non-empty one.
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    cause = lines[-1] if lines else type(exc).__name__
    if len(cause) > 400:
        cause = cause[:400] + "…"
    for pattern, hint in _RULES:
        if pattern.search(text):
            return f"{cause}\n{hint}"
    if "Engine core initialization failed" in text:
        return (f"{cause}\nThe engine process failed while starting; its log above names the cause "
                "(most often memory: see `inference-console plan`).")
    return cause
