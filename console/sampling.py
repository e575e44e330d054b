"""A request's sampling: what the chat's controls edit (:class:`SamplingSettings`, converted to
vLLM's ``SamplingParams`` by :mod:`console.engine.params`), the loaded model's own defaults
(:class:`SamplingDefaults`) and where they came from, and the chat's default answer length.
Fields left at ``None`` are the loaded model's defaults.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

#: ``SamplingSettings.max_tokens`` 0: as many tokens as the context has room for after the prompt.
FIT_CONTEXT = 0
#: The chat's first answer length (the window's and the terminal's default max tokens): long enough
#: for a story, a list or a function (the bundled model's finished answers were all shorter,
#: benchmarks/README.md "First answers of the bundled model"), short enough that an answer which
#: loops stops within a minute on a CPU instead of filling a 4,096-token context. A cut answer can
#: be continued; :data:`FIT_CONTEXT` is the explicit "up to the context".
CHAT_MAX_TOKENS = 1024


#: The sampling fields whose default is the loaded model's own (``None`` in
#: :class:`SamplingSettings`), by vLLM's ``SamplingParams`` names.
MODEL_DEFAULT_FIELDS = ("temperature", "top_p", "top_k", "repetition_penalty")
#: vLLM's own ``SamplingParams`` defaults for them: what a model whose generation_config.json
#: names none gets (tests/test_sampling_defaults.py checks them against the installed vLLM).
VLLM_SAMPLING_DEFAULTS: dict[str, Any] = {"temperature": 1.0, "top_p": 1.0, "top_k": 0, "repetition_penalty": 1.0}


@dataclass
class SamplingSettings:
    """What the chat panel's sampling controls edit; converted to vLLM ``SamplingParams``.

    ``temperature``, ``top_p``, ``top_k`` and ``repetition_penalty`` left at ``None`` are the
    loaded model's defaults (:class:`SamplingDefaults`: its generation_config.json as vLLM reads
    it, else its family's preset, else vLLM's own); a value is the user's choice and wins. A
    server engine is sent only the values set, so a server keeps its own defaults. The window's
    chat and the terminal chat share these defaults: answers up to :data:`CHAT_MAX_TOKENS`;
    ``max_tokens`` :data:`FIT_CONTEXT` is an answer as long as the context allows."""

    temperature: float | None = None
    top_p: float | None = None
    top_k: int | None = None  # 0 (or -1) disables top-k in vLLM
    max_tokens: int = CHAT_MAX_TOKENS  # FIT_CONTEXT (0): up to the context's end
    repetition_penalty: float | None = None
    seed: int | None = None
    stop: list[str] = field(default_factory=list)
    ignore_eos: bool = False
    min_tokens: int = 0

    def resolved(self, defaults: "SamplingDefaults | dict[str, Any] | None") -> "SamplingSettings":
        """These settings with each field left to the model (``None``) filled from ``defaults``
        (the loaded model's, by vLLM name), else from vLLM's own defaults."""
        values = defaults.values if isinstance(defaults, SamplingDefaults) else (defaults or {})
        base = {**VLLM_SAMPLING_DEFAULTS, **{k: v for k, v in values.items() if k in MODEL_DEFAULT_FIELDS}}
        return dataclasses.replace(
            self, **{k: base[k] for k in MODEL_DEFAULT_FIELDS if getattr(self, k) is None}, stop=list(self.stop)
        )

    def explicit(self) -> dict[str, Any]:
        """The model-default fields the user set (the others are left to the model)."""
        return {k: getattr(self, k) for k in MODEL_DEFAULT_FIELDS if getattr(self, k) is not None}

    def validate(self) -> None:
        if self.temperature is not None and self.temperature < 0:
            raise ValueError("temperature must be >= 0")
        if self.top_p is not None and not 0 < self.top_p <= 1:
            raise ValueError("top_p must be in (0, 1]")
        if self.max_tokens < 0:
            raise ValueError("max_tokens must be >= 0 (0: as many as the context has room for)")
        if self.repetition_penalty is not None and self.repetition_penalty <= 0:
            raise ValueError("repetition_penalty must be > 0")

    def request_extras(self) -> dict[str, Any]:
        """The OpenAI-request fields that say something only when set (seed, stop, ignore_eos,
        min_tokens): what a request body carries beyond the always-sent ones."""
        extras: dict[str, Any] = {}
        if self.seed is not None:
            extras["seed"] = self.seed
        if self.stop:
            extras["stop"] = list(self.stop)
        if self.ignore_eos:
            extras["ignore_eos"] = True
        if self.min_tokens:
            extras["min_tokens"] = self.min_tokens
        return extras

    def engine_max_tokens(self) -> int | None:
        """``max_tokens`` for vLLM: None for :data:`FIT_CONTEXT` (vLLM then allows what is left of
        ``max_model_len`` after the prompt)."""
        return self.max_tokens or None

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


#: Where a model's sampling defaults came from (:attr:`SamplingDefaults.source`).
FROM_GENERATION_CONFIG = "generation_config"
FROM_FAMILY = "family"
FROM_VLLM = "vllm"


@dataclass(frozen=True)
class SamplingDefaults:
    """The loaded model's sampling defaults: ``values`` by vLLM ``SamplingParams`` name (only
    what the source sets; the rest are vLLM's own) and where they came from."""

    values: dict[str, Any] = field(default_factory=dict)
    source: str = FROM_VLLM
    #: the family's label when ``source`` is :data:`FROM_FAMILY`
    family: str = ""

    def describe(self) -> str:
        """Where the defaults came from, as the window and the terminal chat say it."""
        if self.source == FROM_GENERATION_CONFIG:
            return "from the model's generation_config.json"
        if self.source == FROM_FAMILY:
            return f"from the {self.family} family's preset (the model's generation_config.json sets none)"
        return "vLLM defaults (the model's generation_config.json sets none)"

    def summary(self) -> str:
        """The four values the chat's controls show, e.g. ``temperature 0.2, top-p 0.9, top-k off,
        repetition penalty 1``."""
        return summary(SamplingSettings().resolved(self))


#: What a server engine's defaults are called: the console does not know them, so it sends none.
SERVER_DEFAULTS = "the server's defaults (sent only where you change them)"


def summary(s: SamplingSettings) -> str:
    """``s``'s model-default fields in words (None: "the server's")."""

    def word(v: Any, off: bool = False) -> str:
        if v is None:
            return "the server's"
        return "off" if off and v <= 0 else f"{v:g}"

    return (
        f"temperature {word(s.temperature)}, top-p {word(s.top_p)}, "
        f"top-k {word(s.top_k, off=True)}, repetition penalty {word(s.repetition_penalty)}"
    )
