"""What the in-process engine is given for a request: the prompt vLLM's OpenAI server would build.

A chat request (``messages``) goes through vLLM's own chat preprocessing, the renderer that
``vllm serve`` runs for ``/v1/chat/completions`` (``vllm_compat.chat_renderer``): the same
``ChatCompletionRequest`` model, the chat template rendered with every template field the request
carries (``chat_template_kwargs`` such as Qwen3's ``enable_thinking``, ``add_generation_prompt``,
``continue_final_message``, ``chat_template``, ``documents``, ``reasoning_effort``) and the
rendered text tokenized *without* the tokenizer's special tokens, since the template writes its
own start token (Llama-3, Gemma, Mistral, the R1 distills). The engine is then given token ids,
so nothing is tokenized twice. Chat, batch, bench and the quality gate all reach this through the
engine's ``submit``; the context meter counts the same ids (``InProcessEngine.count_prompt_tokens``).

Raw text (``prompt``) and token ids go to the engine as they are (text is tokenized by vLLM as
``/v1/completions`` does). A model without any chat template, asked for a chat without one in the
request, gets a plain ``role: content`` transcript: vLLM's server refuses such a request, the
console keeps base models usable in the chat.
"""

from __future__ import annotations

from typing import Any

from console.engine import image_parts, openai_body, tool_calls
from console import vllm_compat
from console.engine.types import EngineNotReady, GenerationRequest

#: Request fields that change the rendered prompt (the rest only change sampling).
TEMPLATE_FIELDS = (
    "chat_template",
    "chat_template_kwargs",
    "add_generation_prompt",
    "continue_final_message",
    "documents",
    "reasoning_effort",
    "add_special_tokens",
)


class PromptError(ValueError):
    """vLLM's chat preprocessing refused the request; the message is vLLM's."""


def transcript(messages: list[dict[str, Any]], continue_final: bool = False) -> str:
    """The prompt for a model with no chat template: a plain transcript it can continue (from its
    last message itself when ``continue_final``: the chat's Continue). A server engine counts a
    chat its server cannot tokenize as this text too (``HttpEngine.format_prompt``)."""
    text = "\n".join(f"{m['role']}: {image_parts.content_text(m['content'])}" for m in messages)
    return text if continue_final else text + "\nassistant:"


def chat_body(request: GenerationRequest) -> dict[str, Any]:
    """The ``/v1/chat/completions`` body of a chat request, as vLLM's server would receive it: the
    one body a server engine is sent too (``openai_body.request_body``, without model and stream),
    its output limit spelled ``max_completion_tokens`` (vLLM warns when it reads the older
    ``max_tokens``; the server checks the limit against the context length)."""
    assert request.messages is not None
    _, body = openai_body.request_body(request)
    max_tokens = body.pop("max_tokens", None)
    if max_tokens is not None:
        body.setdefault("max_completion_tokens", max_tokens)
    return body


def _has_template(request: GenerationRequest, tokenizer: Any) -> bool:
    return bool(tool_calls.request_template(request.openai_fields, tokenizer))


class ChatPrompts:
    """vLLM's chat renderer for the engine in use, made once per engine (it holds the engine's
    tokenizer and model config). Used on the engine's own loop only."""

    def __init__(self) -> None:
        self._engine: Any = None
        #: tool-call parser name ("" for none) -> vLLM's renderer for this engine
        self._renderers: dict[str, Any] = {}

    def _for(self, engine: Any, tool_parser: str | None = None) -> Any:
        if self._engine is not engine:
            self._renderers = {}
            self._engine = engine
        key = tool_parser or ""
        if key not in self._renderers:
            self._renderers[key] = vllm_compat.chat_renderer(engine, tool_parser)
        return self._renderers[key]

    def forget(self) -> None:
        self._engine = None
        self._renderers = {}

    async def engine_input(self, engine: Any, tokenizer: Any, request: GenerationRequest) -> Any:
        """What ``engine.generate`` is given for ``request``; raises :class:`PromptError` with
        vLLM's message when its preprocessing refuses the request (e.g. a template error, a
        prompt longer than the context)."""
        return (await self.engine_input_and_constraint(engine, tokenizer, request))[0]

    async def engine_input_and_constraint(
        self, engine: Any, tokenizer: Any, request: GenerationRequest
    ) -> tuple[Any, Any]:
        """(engine input, vLLM's ``StructuredOutputsParams`` its tool-call parser put on the request
        or None). A request with ``tools`` is rendered by the renderer of its family's tool-call
        parser (``tool_calls.py``), which constrains a forced call as ``vllm serve`` does."""
        if engine is None:
            raise EngineNotReady("no model is loaded")
        if request.prompt_token_ids is not None:
            return {"prompt_token_ids": list(request.prompt_token_ids)}, None
        if request.prompt is not None:
            return request.prompt, None
        assert request.messages is not None
        fields = request.openai_fields or {}
        parser = None
        if tool_calls.wants_tools(fields):
            try:
                parser = tool_calls.parser_for(tool_calls.request_template(fields, tokenizer))
            except tool_calls.ToolsRefused as exc:
                raise PromptError(str(exc)) from None
        if not _has_template(request, tokenizer):
            return transcript(request.messages, request.continue_final), None
        renderer = self._for(engine, parser)
        wire = chat_body(request)
        context = getattr(getattr(engine, "model_config", None), "max_model_len", None)
        own_limit = not ({"max_tokens", "max_completion_tokens"} & set(fields))
        if own_limit and isinstance(context, int) and wire.get("max_completion_tokens", 0) > context:
            # the chat's answer length on a shorter context: up to its end (vLLM stops there), where
            # vLLM's check of the body would refuse a limit the user never wrote into a request
            wire["max_completion_tokens"] = context
        try:
            body = vllm_compat.chat_completion_request_class().model_validate(wire)
        except Exception as exc:
            raise PromptError(_first_line(exc)) from None
        before = body.structured_outputs
        result = await renderer.render_chat(body)
        if isinstance(result, tuple):  # (conversation, [engine input])
            after = body.structured_outputs
            constraint = after if parser and after is not before else None
            return result[1][0], (tool_calls.bounded_whitespace(constraint) if constraint is not None else None)
        error = getattr(result, "error", result)  # vLLM's ErrorResponse, as the server would answer
        raise PromptError(str(getattr(error, "message", error)))


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def prompt_token_ids(engine_input: Any, tokenizer: Any) -> list[int]:
    """The token ids of what :meth:`ChatPrompts.engine_input` returned (text is counted as vLLM
    tokenizes a completion prompt: with the tokenizer's special tokens)."""
    if isinstance(engine_input, dict) and engine_input.get("prompt_token_ids") is not None:
        return list(engine_input["prompt_token_ids"])
    if isinstance(engine_input, str):
        return list(tokenizer.encode(engine_input))
    raise TypeError(f"no token ids in {type(engine_input).__name__}")


__all__ = ["TEMPLATE_FIELDS", "ChatPrompts", "PromptError", "chat_body", "prompt_token_ids", "transcript"]
