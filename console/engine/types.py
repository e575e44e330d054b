"""Requests, stream events and engine status: the vocabulary shared by every engine kind
(the in-process engine, a console-launched ``vllm serve`` and remote servers; see ``interface.py``).

Every request ends in exactly one terminal event: :class:`RequestFinished` (its
``finish_reason`` is ``"abort"`` when the user stopped it; the partial text is kept) or
:class:`RequestFailed` (the message says what went wrong and, where known, what to do).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Callable, Literal

from console.sampling import SamplingDefaults, SamplingSettings
from console.engine.choices import Choice
from console.engine.load_phases import LoadPhases, Phase
from console.models.family_table import Family


#: Where the engine runs (``--engine local|serve|URL``, :mod:`console.engine.factory`).
EngineKind = Literal["local", "serve", "remote"]


#: What answers at a server's URL: vLLM, TensorRT-LLM's ``trtllm-serve``, or "auto" (told apart by
#: the body of its ``/metrics``).
ServerKind = Literal["auto", "vllm", "trtllm"]


@dataclass(frozen=True)
class EngineChoice:
    kind: EngineKind
    url: str | None = None
    server: ServerKind = "auto"

    @property
    def needs_model(self) -> bool:
        """A remote server serves its own model; the other two load the one chosen here."""
        return self.kind != "remote"


@dataclass(frozen=True)
class WarmModel:
    """A model kept warm beside the one in use: loading it again is a switch, not a load."""

    name: str
    model_path: str
    device: str
    #: True: asleep on the GPU (vLLM's sleep mode level 1: weights copied to host RAM, KV cache
    #: dropped, GPU memory freed). False: the CPU engine, whose build ignores sleep -- the model
    #: keeps its RAM (weights and KV cache) while warm.
    asleep: bool
    cold_load_seconds: float


class EngineState(str, Enum):
    STOPPED = "stopped"
    LOADING = "loading"
    READY = "ready"
    STOPPING = "stopping"
    FAILED = "failed"


@dataclass(frozen=True)
class EngineInfo:
    model: str
    model_path: str
    device: str
    max_model_len: int
    num_kv_blocks: int | None
    block_size: int | None
    load_seconds: float
    vllm_version: str
    #: the dtype the weights run in, and where that choice came from (the CPU dtype check)
    dtype: str = ""
    dtype_note: str = ""
    #: what vLLM chose, read from its config after load (the quality gate reports them):
    #: e.g. "awq_marlin" for an AWQ checkpoint on a GPU, "fp8", or None for 16-bit weights
    quantization: str | None = None
    kv_cache_dtype: str = ""
    #: vLLM's speculative method as it built it ("ngram", "eagle3", ...), None when off
    speculative_method: str | None = None
    #: set when this model came back from being kept warm: seconds the switch took;
    #: ``load_seconds`` stays the cold load it once needed
    switch_seconds: float | None = None
    #: the loaded model's sampling defaults (its generation_config.json as vLLM reads it, ...);
    #: None for a server engine, whose defaults are the server's own
    sampling_defaults: SamplingDefaults | None = None
    #: the model takes images in its chat messages (vLLM's multimodal registry, or its config for
    #: a console-started server); None where the console cannot tell (a server someone else runs)
    takes_images: bool | None = None
    #: the model's chat-template family (``models/family_table.py``: its reasoning and tool-call
    #: parsers, its Think switch), recognised once where the engine starts; None when the template
    #: is no known family's or the console cannot read it (a server someone else runs)
    family: Family | None = None
    #: why the model cannot call tools (one line, a ``Message``: no tool-call parser for its family,
    #: or a template that never renders ``tools``); None when it can, or when the console cannot
    #: read its template (a server someone else runs)
    tools_refusal: str | None = None
    #: where the load's time went (``load_phases.py``: start-up, weights, compile, KV cache, CUDA
    #: graphs, warm-up, front end), the phases that happened, in order; () where the console could
    #: not read vLLM's log (logging turned off, a server, a warm switch)
    load_phases: tuple[Phase, ...] = ()

    @property
    def kv_cache_tokens(self) -> int | None:
        if self.num_kv_blocks is None or self.block_size is None:
            return None
        return self.num_kv_blocks * self.block_size

    @property
    def max_concurrency(self) -> float | None:
        """vLLM's "Maximum concurrency for max_model_len tokens per request": whole blocks per
        request, since a request holds ceil(max_model_len / block_size) blocks."""
        if self.num_kv_blocks is None or not self.block_size:
            return None
        blocks_per_request = -(-self.max_model_len // self.block_size)
        return self.num_kv_blocks / blocks_per_request


@dataclass(frozen=True)
class EngineStatus:
    state: EngineState
    model: str | None = None
    stage: str = ""
    error: str | None = None
    info: EngineInfo | None = None
    #: while loading: vLLM's phases passed so far and the one under way (None: not known)
    phases: LoadPhases | None = None


def new_request_id() -> str:
    return uuid.uuid4().hex[:16]


@dataclass
class GenerationRequest:
    """One generation. Give exactly one of ``messages`` (chat, the model's chat template is
    applied), ``prompt`` (raw text) or ``prompt_token_ids``."""

    messages: list[dict[str, Any]] | None = None
    prompt: str | None = None
    prompt_token_ids: list[int] | None = None
    sampling: SamplingSettings = field(default_factory=SamplingSettings)
    request_id: str = field(default_factory=new_request_id)
    want_prompt_logprobs: int | None = None  # used by the perplexity gate
    #: False: no TokenDelta events, only the terminal one (vLLM's FINAL_ONLY output). Batch and
    #: bench use it: at hundreds of concurrent streams, waking a coroutine per token costs
    #: measurable throughput (see benchmarks/gpu/README.md). TTFT then comes from vLLM's own
    #: per-request metrics.
    stream: bool = True
    #: OpenAI body fields beyond ``sampling``, as written and checked by vLLM's request model
    #: (without messages/prompt/model/stream): structured outputs, logprobs, n, penalties, tools,
    #: template fields. They win over ``sampling``'s values. Every engine reads the one body made
    #: of both (``openai_body.request_body``): a server is sent it, the in-process engine renders
    #: the chat and makes vLLM's params from it.
    openai_fields: dict[str, Any] | None = None
    #: The LoRA adapter (attached to the loaded model) that answers; None: the base model.
    adapter: str | None = None
    #: The last of ``messages`` is a partial assistant answer to go on with (the chat's Continue
    #: after an answer hit max tokens): no new assistant turn is opened.
    continue_final: bool = False

    def validate(self) -> None:
        given = [x is not None for x in (self.messages, self.prompt, self.prompt_token_ids)]
        if sum(given) != 1:
            raise ValueError("a request needs exactly one of messages, prompt or prompt_token_ids")
        # Text that is not valid Unicode (lone surrogates: bytes of a non-UTF-8 file decoded with
        # surrogateescape, or a bad JSON escape) fails deep inside vLLM as a bare
        # "EngineGenerateError"; refuse it here with a message that says what is wrong.
        texts = [self.prompt] if self.prompt is not None else [m.get("content", "") for m in self.messages or []]
        for text in texts:
            if isinstance(text, str) and any("\ud800" <= ch <= "\udfff" for ch in text):
                raise ValueError(
                    "The prompt contains bytes that are not valid UTF-8 text (was it read from a "
                    "file in another encoding?); save the text as UTF-8 and try again"
                )
        self.sampling.validate()


@dataclass(frozen=True)
class TokenDelta:
    request_id: str
    text: str
    num_tokens: int  # tokens carried by this delta
    token_ids: tuple[int, ...] = ()  # their ids where the engine has them (in-process), else ()
    #: thinking this delta carries apart from ``text``: a server that runs a reasoning parser
    #: splits it off itself (vLLM's ``reasoning``, formerly ``reasoning_content``); "" otherwise
    reasoning: str = ""


@dataclass(frozen=True)
class RequestFinished:
    request_id: str
    text: str
    finish_reason: str  # "stop", "length", "abort", ...
    prompt_tokens: int
    output_tokens: int
    ttft_s: float | None
    e2e_s: float
    prompt_logprobs: list[Any] | None = None
    #: Every answer of the request (``n`` of them), with log-probabilities when asked for;
    #: ``text`` above is choice 0's.
    choices: tuple[Choice, ...] = ()
    #: When the engine first scheduled the request (vLLM's engine-core clock, monotonic seconds;
    #: in-process engine only): requests started together share it.
    engine_scheduled_ts: float | None = None
    #: When the engine core queued the request and when it made its first token (the same clock)
    engine_queued_ts: float | None = None
    engine_first_token_ts: float | None = None
    #: The prompt's token ids as the engine received them (the in-process engine; empty where
    #: the engine does not say, e.g. a server)
    prompt_token_ids: tuple[int, ...] = ()

    @property
    def reasoning(self) -> str | None:
        """Choice 0's thinking as the family's reasoning parser split it off (``text`` is then the
        answer alone): the in-process engine's, or a server's that runs one; None when none was
        split (no thinking, no parser, or a server without one)."""
        return self.choices[0].reasoning if self.choices else None

    @property
    def engine_ttft_s(self) -> float | None:
        """Time to first token in the engine: from the engine core queuing the request to its first
        token (vLLM's own timestamps), without the console's front end or any queue before the engine."""
        if self.engine_queued_ts is None or self.engine_first_token_ts is None:
            return None
        return self.engine_first_token_ts - self.engine_queued_ts

    @property
    def tokens_per_s(self) -> float | None:
        if self.ttft_s is None or self.output_tokens < 2:
            return None
        decode = self.e2e_s - self.ttft_s
        return (self.output_tokens - 1) / decode if decode > 0 else None


@dataclass(frozen=True)
class RequestFailed:
    request_id: str
    message: str
    partial_text: str = ""


StreamEvent = TokenDelta | RequestFinished | RequestFailed
EventSink = Callable[[StreamEvent], None]
StatusListener = Callable[[EngineStatus], None]


def failure_text(event: object) -> str:
    """What went wrong, for an error message about an event that is not the answer expected:
    a :class:`RequestFailed`'s message, else the event itself."""
    return event.message if isinstance(event, RequestFailed) else str(event)


class EngineError(RuntimeError):
    """An engine failure explained for the user (what happened, what to do)."""


class EngineBusy(EngineError):
    pass


class EngineNotReady(EngineError):
    pass
