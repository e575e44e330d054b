"""The remote engine's side of the OpenAI wire format: a request as the JSON body a vLLM (or any
OpenAI-compatible) server takes, and what its answers and event streams carry
(:class:`console.engine.remote.HttpEngine` sends and reads them)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx

from console.engine import openai_body
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
    """(path, JSON body) of ``request`` for an OpenAI-compatible server serving ``served``: the
    one body of a request (``openai_body.request_body``: only the sampling values the user set, so
    the server keeps its own defaults) with the model and the streaming fields."""
    endpoint, fields = openai_body.request_body(request)
    body: dict[str, Any] = {"model": request.adapter or served, "stream": request.stream, **fields}
    if request.stream:
        body["stream_options"] = {"include_usage": True, "continuous_usage_stats": True}
    return (openai_body.CHAT_URL if endpoint == "chat" else openai_body.COMPLETIONS_URL), body


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
