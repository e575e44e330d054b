"""The remote engine's side of the OpenAI wire format: a request as the JSON body a vLLM (or any
OpenAI-compatible) server takes, and what its answers and event streams carry
(:class:`console.engine.remote.ServerEngine` sends and reads them)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx

from console.config import SamplingSettings
from console.engine.choices import message_reasoning
from console.engine.remote_errors import ServerError, server_message
from console.engine.types import GenerationRequest


#: Chat fields vLLM's ``/tokenize`` renders with, as ``/v1/chat/completions`` does.
TOKENIZE_FIELDS = (
    "add_generation_prompt",
    "continue_final_message",
    "add_special_tokens",
    "chat_template",
    "chat_template_kwargs",
)


def split_model_cards(data: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, str]]:
    """(the base model's card, its LoRA adapters name -> path) from ``/v1/models``: vLLM lists each
    ``--lora-modules`` adapter as a card whose ``parent`` is the base model's id."""
    bases = [c for c in data if not c.get("parent")]
    base = bases[0] if bases else data[0]
    adapters = {str(c.get("id")): str(c.get("root") or "") for c in data if c.get("parent") == base.get("id")}
    return base, adapters


def request_body(request: GenerationRequest, served: str) -> tuple[str, dict[str, Any]]:
    """(path, JSON body) of ``request`` for an OpenAI-compatible server serving ``served``."""
    s: SamplingSettings = request.sampling
    body: dict[str, Any] = {
        "model": request.adapter or served,
        "stream": request.stream,
    }
    if s.engine_max_tokens() is not None:  # left out: the server allows what the context has left
        body["max_tokens"] = s.max_tokens
    if request.continue_final:  # vLLM's chat extension: go on with the last (assistant) message
        body.update(continue_final_message=True, add_generation_prompt=False)
    # Only the sampling values the user set: the others are the server's own defaults (vLLM's
    # serve applies its model's generation_config.json), and other servers may refuse vLLM's
    # extra fields (top_k, repetition_penalty) anyway.
    body.update(s.explicit())
    body.update(s.request_extras())
    if request.want_prompt_logprobs is not None:
        body["prompt_logprobs"] = request.want_prompt_logprobs
    if request.openai_fields:  # an OpenAI request as the user wrote it (validated by vLLM's models)
        body.update(request.openai_fields)
    if request.stream:
        body["stream_options"] = {"include_usage": True, "continuous_usage_stats": True}
    if request.messages is not None:
        body["messages"] = request.messages
        return "/v1/chat/completions", body
    body["prompt"] = request.prompt if request.prompt is not None else list(request.prompt_token_ids or [])
    return "/v1/completions", body


def choice_text(choice: dict[str, Any]) -> str:
    """The text of one choice: a streamed delta's, a chat message's or a completion's."""
    if "delta" in choice:
        return str((choice.get("delta") or {}).get("content") or "")
    if "message" in choice:
        return str((choice.get("message") or {}).get("content") or "")
    return str(choice.get("text") or "")


def choice_reasoning(choice: dict[str, Any]) -> str:
    """The thinking a streamed delta or a chat message carries apart from its text (a server
    running a reasoning parser splits it off); "" when none."""
    message = choice.get("delta") if "delta" in choice else choice.get("message")
    return message_reasoning(message or {}) or ""


async def stream_chunks(resp: httpx.Response) -> AsyncIterator[dict[str, Any] | None]:
    """The JSON events of a server-sent event stream, then None for ``[DONE]``; an error event
    raises :class:`ServerError` with the server's message."""
    async for line in resp.aiter_lines():
        if not line.startswith("data:"):
            continue
        payload = line[5:].strip()
        if payload == "[DONE]":
            yield None
            return
        chunk = json.loads(payload)
        if "error" in chunk:
            raise ServerError(
                server_message(payload),
                int(chunk["error"].get("code") or 0) if isinstance(chunk["error"], dict) else 0,
            )
        yield chunk
