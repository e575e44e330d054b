"""One request shape: the in-process engine renders the same OpenAI body a server engine is sent,
with one output-limit rule, and makes vLLM's params from that body (no engine needed)."""

from __future__ import annotations

from typing import Any

import pytest

from console.sampling import FIT_CONTEXT, SamplingDefaults, SamplingSettings
from console.engine.chat_prompt import chat_body
from console.engine.openai_body import body_params, output_limit, request_body, request_fields
from console.engine.remote_wire import request_body as wire_body
from console.engine.types import GenerationRequest

MESSAGES = [{"role": "user", "content": "hi"}]
ROUTING = ("model", "stream", "stream_options")
LIMITS = ("max_tokens", "max_completion_tokens")

REQUESTS = {
    "fit the context": GenerationRequest(messages=MESSAGES, sampling=SamplingSettings(max_tokens=FIT_CONTEXT)),
    "a limit": GenerationRequest(messages=MESSAGES, sampling=SamplingSettings(max_tokens=12)),
    "the user's sampling": GenerationRequest(
        messages=MESSAGES,
        sampling=SamplingSettings(temperature=0.0, top_k=5, seed=3, stop=["x"], min_tokens=2, ignore_eos=True),
    ),
    "a limit in the fields": GenerationRequest(
        messages=MESSAGES, sampling=SamplingSettings(max_tokens=12), openai_fields={"max_tokens": 7}
    ),
    "the newer limit in the fields": GenerationRequest(
        messages=MESSAGES, openai_fields={"max_completion_tokens": 9, "logprobs": True, "top_logprobs": 2}
    ),
    "continue": GenerationRequest(messages=MESSAGES, sampling=SamplingSettings(max_tokens=4), continue_final=True),
    "template fields": GenerationRequest(
        messages=MESSAGES, openai_fields={"chat_template_kwargs": {"enable_thinking": False}}
    ),
    "prompt logprobs": GenerationRequest(messages=MESSAGES, want_prompt_logprobs=1),
}


def _without(body: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    return {k: v for k, v in body.items() if k not in keys}


@pytest.mark.parametrize("name", list(REQUESTS))
def test_local_and_remote_bodies_agree(name: str) -> None:
    request = REQUESTS[name]
    local = chat_body(request)
    path, remote = wire_body(request, "served")
    assert path == "/v1/chat/completions" and remote["model"] == "served"
    assert output_limit(local) == output_limit(remote), name
    assert _without(local, LIMITS) == _without(remote, ROUTING + LIMITS), name
    assert "max_tokens" not in local  # vLLM's spelling in process: no deprecation warning


def test_one_output_limit_rule() -> None:
    assert output_limit(request_body(REQUESTS["fit the context"])[1]) is None  # up to the context's end
    assert output_limit(request_body(REQUESTS["a limit"])[1]) == 12
    assert output_limit(request_body(REQUESTS["a limit in the fields"])[1]) == 7  # the fields win
    assert output_limit(request_body(REQUESTS["the newer limit in the fields"])[1]) == 9


def test_a_completion_body() -> None:
    unlimited = SamplingSettings(top_p=0.5, max_tokens=FIT_CONTEXT)
    endpoint, body = request_body(GenerationRequest(prompt_token_ids=[1, 2, 3], sampling=unlimited))
    assert endpoint == "completion" and body == {"top_p": 0.5, "prompt": [1, 2, 3]}
    assert wire_body(GenerationRequest(prompt="Once"), "m")[0] == "/v1/completions"


def test_the_request_carries_no_params() -> None:
    """vLLM's params are made by the engine from the request's body, not carried beside it."""
    assert "params" not in GenerationRequest.__dataclass_fields__
    assert set(request_fields({"n": 2, "temperature": 0.5}, SamplingSettings())) == {"openai_fields"}


def test_params_from_the_body_over_the_models_defaults() -> None:
    defaults = SamplingDefaults({"temperature": 0.25, "top_p": 0.8})
    no_limit = SamplingSettings(max_tokens=FIT_CONTEXT)  # the fields carry no limit: the request's sampling has it
    fields = request_fields({"logprobs": True, "top_logprobs": 3}, no_limit)["openai_fields"]
    request = GenerationRequest(
        messages=MESSAGES, sampling=SamplingSettings(top_p=0.5, max_tokens=6), openai_fields=fields
    )
    params = body_params(request, defaults)
    assert (params.temperature, params.top_p, params.max_tokens, params.logprobs) == (0.25, 0.5, 6, 3)
    params.max_tokens = 1  # a copy: the next request's params are its own
    assert body_params(request, defaults).max_tokens == 6
