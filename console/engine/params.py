"""vLLM ``SamplingParams`` for one of the console's requests, as the in-process engine sends it."""

from __future__ import annotations

from typing import Any

from pathlib import Path

from console.sampling import (
    FROM_FAMILY,
    FROM_GENERATION_CONFIG,
    MODEL_DEFAULT_FIELDS,
    SamplingDefaults,
    SamplingSettings,
)
from console import vllm_compat
from console.engine.openai_body import body_params
from console.engine.types import GenerationRequest
from console.models.family_table import family_of_folder

#: What a model's defaults may set beyond the chat's controls: passed to vLLM as they are.
EXTRA_DEFAULT_FIELDS = ("min_p", "presence_penalty", "frequency_penalty")


def model_defaults(model_config: Any, folder: str | Path) -> SamplingDefaults:
    """A loaded model's sampling defaults: its generation config as vLLM reads it, else its
    family's preset (``family_table.py``, recognised from the chat template in ``folder``), else
    vLLM's own. ``max_new_tokens`` is not taken: the chat's answers run to the context's end."""
    read = vllm_compat.model_sampling_defaults(model_config)
    values = {k: v for k, v in read.items() if k in (*MODEL_DEFAULT_FIELDS, *EXTRA_DEFAULT_FIELDS)}
    if values:
        return SamplingDefaults(values, FROM_GENERATION_CONFIG)
    family = family_of_folder(folder)
    if family is not None and family.sampling:
        return SamplingDefaults(dict(family.sampling), FROM_FAMILY, family.label)
    return SamplingDefaults()


def sampling_params(
    s: SamplingSettings, prompt_logprobs: int | None, stream: bool = True, defaults: SamplingDefaults | None = None
) -> Any:
    """vLLM's params from the console's sampling settings, the fields left to the model filled
    from its ``defaults``: deltas when the request streams, the final output only when nothing
    reads the tokens as they come (batch, bench)."""
    kind = vllm_compat.request_output_kind()
    extra = {k: v for k, v in (defaults.values if defaults else {}).items() if k in EXTRA_DEFAULT_FIELDS}
    r = s.resolved(defaults)
    assert r.temperature is not None and r.top_p is not None and r.top_k is not None
    return vllm_compat.sampling_params_class()(
        **extra,
        temperature=r.temperature,
        top_p=r.top_p,
        top_k=r.top_k if r.top_k > 0 else 0,
        max_tokens=s.engine_max_tokens(),
        repetition_penalty=r.repetition_penalty,
        seed=s.seed,
        stop=list(s.stop) or None,
        ignore_eos=s.ignore_eos,
        min_tokens=s.min_tokens,
        prompt_logprobs=prompt_logprobs,
        output_kind=kind.DELTA if stream else kind.FINAL_ONLY,
    )


def request_params(request: GenerationRequest, defaults: SamplingDefaults | None = None) -> Any:
    """vLLM's params for ``request``: for a request with OpenAI fields, vLLM's own conversion of
    its body (:func:`console.engine.openai_body.body_params`), with the output kind this request
    streams in; else the console's sampling settings; both over the loaded model's ``defaults``."""
    if not request.openai_fields:
        return sampling_params(request.sampling, request.want_prompt_logprobs, request.stream, defaults)
    kind = vllm_compat.request_output_kind()
    params = body_params(request, defaults)
    params.output_kind = kind.DELTA if request.stream else kind.FINAL_ONLY
    if request.want_prompt_logprobs is not None:
        params.prompt_logprobs = request.want_prompt_logprobs
    return params


__all__ = ["model_defaults", "request_params", "sampling_params"]
