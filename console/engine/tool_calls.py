"""Tool calling as ``vllm serve --enable-auto-tool-choice --tool-call-parser NAME`` does it.

A chat request may carry ``tools`` and ``tool_choice`` (vLLM's protocol checks them). The model's
family (``family_table``: recognised from its chat template) names vLLM's tool-call parser; the
in-process engine then renders the tools into the template with vLLM's renderer built for that
parser, which also puts vLLM's own constraint on a forced call (``tool_choice`` "required" or a
named function: a structural tag or the tools' JSON schema), so even a random-weight model answers
with a well-formed call. The answer is read back by the same vLLM parser (:func:`parse_answer`):
``tool_calls`` as the OpenAI API writes them, the rest as content. A family without a tool-call
parser, or a template that never renders ``tools``, is refused with one line saying so.

A server engine sends the fields on as they are; its answer already carries ``tool_calls``
(``choices.OpenAIChoiceCollector`` keeps them).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, replace
from typing import Any

from console import vllm_compat
from console.messages import Message
from console.models.family_table import Family, family_of, folder_chat_template
from console.engine.thinking import split_reasoning
from console.engine.types import GenerationRequest, RequestFinished

#: Families a tool call works on, for the refusal's way out.
TOOL_FAMILIES = "Qwen3, Llama 3, Mistral or ChatML (Qwen2.5, Hermes)"


class ToolsRefused(ValueError):
    """Tools were asked of a model the console cannot run them on; the message says why and what to do."""


def wants_tools(fields: dict[str, Any] | None) -> bool:
    """Whether a request with these OpenAI ``fields`` asks for tool calls (tools given and
    ``tool_choice`` not "none"; vLLM's default with tools is "auto")."""
    fields = fields or {}
    return bool(fields.get("tools")) and fields.get("tool_choice", "auto") not in (None, "none")


def forced(fields: dict[str, Any] | None) -> bool:
    """``tool_choice`` "required" or a named function: the answer is constrained to a call."""
    choice = (fields or {}).get("tool_choice")
    return choice == "required" or isinstance(choice, dict)


def tools_refusal(chat_template: str | None) -> Message | None:
    """Why a model with ``chat_template`` cannot call tools (one line, with what to do); None
    when it can. The engine reports it on load (``EngineInfo.tools_refusal``), so the window can
    say it before anything is sent."""
    family = family_of(chat_template)
    if family is None:
        return Message(
            "Tools are not supported for this model: its chat template is not one of a family with a "
            "tool-call parser; remove `tools`, or load a {0} model",
            TOOL_FAMILIES,
        )
    if family.tool_parser is None:
        return Message(
            "Tools are not supported for {0} models: vLLM has no tool-call parser for their format; "
            "remove `tools`, or load a {1} model",
            family.label,
            TOOL_FAMILIES,
        )
    if "tools" not in (chat_template or ""):
        return Message(
            "Tools are not supported by this model's chat template: it never renders `tools`; remove "
            "`tools`, or give the request a `chat_template` that renders them"
        )
    return None


def parser_for(chat_template: str | None) -> str:
    """vLLM's ``--tool-call-parser`` for a model with ``chat_template``; raises
    :class:`ToolsRefused` with a one-line reason when tools cannot run on it."""
    refused = tools_refusal(chat_template)
    if refused is not None:
        raise ToolsRefused(refused)
    family = family_of(chat_template)
    assert family is not None and family.tool_parser is not None  # tools_refusal says why otherwise
    return family.tool_parser


def request_template(fields: dict[str, Any] | None, tokenizer: Any) -> str | None:
    """The chat template a request is rendered with: its own ``chat_template`` or the model's."""
    fields = fields or {}
    return (
        fields.get("chat_template")
        or (fields.get("chat_template_kwargs") or {}).get("chat_template")
        or getattr(tokenizer, "chat_template", None)
    )


def tool_call_arguments(model: str) -> dict[str, Any]:
    """``vllm serve`` options that let the served model call tools as the console does:
    ``--enable-auto-tool-choice --tool-call-parser NAME`` for its family; {} when it cannot."""
    try:
        parser = parser_for(folder_chat_template(model))
    except ToolsRefused:
        return {}
    return {"enable-auto-tool-choice": True, "tool-call-parser": parser}


@dataclass(frozen=True)
class Answer:
    """One answer read as vLLM's server reads it."""

    content: str
    reasoning: str | None = None
    #: OpenAI ``message.tool_calls``: ``{"id", "type": "function", "function": {"name", "arguments"}}``
    tool_calls: tuple[dict[str, Any], ...] = ()
    finish_reason: str | None = None


#: Whitespace allowed between the tokens of a forced call's JSON (xgrammar's ``max_whitespace_cnt``)
CALL_WHITESPACE = 1


def bounded_whitespace(constraint: Any) -> Any:
    """vLLM's constraint on a forced call with the JSON's whitespace bounded (vLLM leaves it
    unbounded in a structural tag, and a weak model can then fill its tokens with newlines before
    the arguments end; ``disable_any_whitespace`` does the same for a JSON-schema constraint)."""
    import json

    tag = getattr(constraint, "structural_tag", None)
    if tag:

        def bound(node: Any) -> None:
            if isinstance(node, dict):
                if node.get("type") == "json_schema" and node.get("max_whitespace_cnt", 0) is None:
                    node["max_whitespace_cnt"] = CALL_WHITESPACE
                for value in node.values():
                    bound(value)
            elif isinstance(node, list):
                for value in node:
                    bound(value)

        spec = json.loads(tag)
        bound(spec)
        constraint.structural_tag = json.dumps(spec)
    elif getattr(constraint, "json", None) is not None and hasattr(constraint, "disable_any_whitespace"):
        constraint.disable_any_whitespace = True
    return constraint


def call_json(call: Any) -> dict[str, Any]:
    """An OpenAI tool call from vLLM's ``FunctionCall`` (or the ``function`` of a ``ToolCall``)."""
    call_id = getattr(call, "id", None) or f"chatcmpl-tool-{uuid.uuid4().hex}"
    return {"id": call_id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}}


def _tool_request(fields: dict[str, Any]) -> Any:
    keep = ("tools", "tool_choice", "parallel_tool_calls", "chat_template_kwargs")
    body = {"messages": [{"role": "user", "content": ""}], **{k: fields[k] for k in keep if k in fields}}
    return vllm_compat.chat_completion_request_class().model_validate(body)


def parse_answer(
    family: Family | None, tokenizer: Any, fields: dict[str, Any] | None, text: str, finish_reason: str = "stop"
) -> Answer:
    """``text`` generated for a chat request with OpenAI ``fields``: thinking split off by the
    family's reasoning parser, then tool calls read by its tool-call parser, as ``vllm serve
    --reasoning-parser R --enable-auto-tool-choice --tool-call-parser T`` returns them; the finish
    reason becomes "tool_calls" where the server's would. A forced call was constrained from the
    first token (the in-process engine runs no reasoning phase first), so it is never thinking."""
    fields = fields or {}
    kwargs = fields.get("chat_template_kwargs")
    if not wants_tools(fields) or family is None or family.tool_parser is None:
        reasoning, content = split_reasoning(family, tokenizer, text, kwargs)
        return Answer(content, reasoning, (), finish_reason)
    reasoning, content = (None, text) if forced(fields) else split_reasoning(family, tokenizer, text, kwargs)
    request = _tool_request(fields)
    parser = vllm_compat.tool_call_parser(family.tool_parser, tokenizer, request)
    _, rest, calls = parser.parse(content, request, enable_auto_tools=True)
    tool_calls = tuple(call_json(c) for c in calls or ())
    choice = fields.get("tool_choice", "auto")
    if (choice == "auto" and tool_calls) or (choice == "required" and finish_reason == "stop"):
        finish_reason = "tool_calls"
    return Answer(rest or "", reasoning, tool_calls, finish_reason)


def read_answer(
    family: Family | None, tokenizer: Any, request: GenerationRequest, finished: RequestFinished
) -> RequestFinished:
    """``finished`` as vLLM's server returns a chat answer: choice 0's thinking and tool calls
    read off its text by the family's parsers (:func:`parse_answer`), ``text`` the answer alone,
    the finish reason "tool_calls" where the server's would be. What the engine gives back for
    every chat request; a completion, a continued answer (it is all answer) and an answer already
    read (a server's parsers) come back as they are."""
    if request.messages is None or request.continue_final or not finished.choices or family is None:
        return finished
    first = finished.choices[0]
    if first.reasoning is not None or first.tool_calls:
        return finished
    answer = parse_answer(family, tokenizer, request.openai_fields, finished.text, finished.finish_reason)
    reason = answer.finish_reason or finished.finish_reason
    choice = replace(
        first, text=answer.content, reasoning=answer.reasoning, tool_calls=answer.tool_calls, finish_reason=reason
    )
    return replace(finished, text=answer.content, finish_reason=reason, choices=(choice, *finished.choices[1:]))


__all__ = [
    "Answer",
    "CALL_WHITESPACE",
    "bounded_whitespace",
    "TOOL_FAMILIES",
    "ToolsRefused",
    "call_json",
    "forced",
    "parse_answer",
    "parser_for",
    "read_answer",
    "request_template",
    "tool_call_arguments",
    "tools_refusal",
    "wants_tools",
]
