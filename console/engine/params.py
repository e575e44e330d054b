"""vLLM ``SamplingParams`` for one of the console's requests, as the in-process engine host sends it."""

from __future__ import annotations

from typing import Any

from console.config import SamplingSettings
from console.engine import vllm_compat
from console.engine.types import GenerationRequest


def sampling_params(s: SamplingSettings, prompt_logprobs: int | None, stream: bool = True) -> Any:
    """vLLM's params from the console's sampling settings: deltas when the request streams, the
    final output only when nothing reads the tokens as they come (batch, bench)."""
    kind = vllm_compat.request_output_kind()
    return vllm_compat.sampling_params_class()(
        temperature=s.temperature,
        top_p=s.top_p,
        top_k=s.top_k if s.top_k > 0 else 0,
        max_tokens=s.engine_max_tokens(),
        repetition_penalty=s.repetition_penalty,
        seed=s.seed,
        stop=list(s.stop) or None,
        ignore_eos=s.ignore_eos,
        min_tokens=s.min_tokens,
        prompt_logprobs=prompt_logprobs,
        output_kind=kind.DELTA if stream else kind.FINAL_ONLY,
    )


def request_params(request: GenerationRequest) -> Any:
    """vLLM's own params for an OpenAI request (a copy: one request may be retried), with the
    output kind this request streams in; else the console's sampling settings."""
    if request.params is None:
        return sampling_params(request.sampling, request.want_prompt_logprobs, request.stream)
    kind = vllm_compat.request_output_kind()
    params = request.params.clone()
    params.output_kind = kind.DELTA if request.stream else kind.FINAL_ONLY
    if request.want_prompt_logprobs is not None:
        params.prompt_logprobs = request.want_prompt_logprobs
    return params


__all__ = ["request_params", "sampling_params"]
