"""OpenAI request bodies read by vLLM's own protocol models.

A ``/v1/chat/completions`` or ``/v1/completions`` body is validated by vLLM's
``ChatCompletionRequest`` / ``CompletionRequest`` (the classes its server and ``run-batch`` use)
and turned into ``SamplingParams`` by their own ``to_sampling_params``: whatever the installed
vLLM accepts (structured outputs as ``response_format`` or ``structured_outputs``, logprobs and
top_logprobs, ``n``, penalties, logit bias, ...) the console accepts, and what it refuses comes
back with vLLM's own message. The console's sampling defaults (the batch flags or the Batch tab)
fill what a body leaves out, as a server's generation config would.

A chat body may carry ``tools`` / ``tool_choice`` as vLLM's protocol accepts them; they run as
``vllm serve --enable-auto-tool-choice --tool-call-parser`` runs them (``tool_calls.py``), and the
conversation may hold the calls (``assistant`` ``tool_calls``) and their results (``tool`` messages).
A message's content may hold ``image_url`` parts (``data:`` URLs, ``file://`` URLs under the
engine's allowed folder, web addresses), kept as written for vLLM's chat preprocessing (``engine/image_parts.py``).
What the console cannot do is refused by name: beam search, audio, video or other non-text
content, several prompts in one completion body, ``echo``, ``suffix``.
"""

from __future__ import annotations

import functools
import json
import warnings
from dataclasses import dataclass, field
from typing import Any, Literal

from console.sampling import FIT_CONTEXT, SamplingDefaults, SamplingSettings
from console import vllm_compat
from console.engine.types import GenerationRequest

CHAT_URL = "/v1/chat/completions"
COMPLETIONS_URL = "/v1/completions"
Endpoint = Literal["chat", "completion"]
URLS: dict[str, Endpoint] = {CHAT_URL: "chat", COMPLETIONS_URL: "completion"}
_ROLES = {"system", "user", "assistant", "developer", "tool"}
#: Body fields that choose where the request goes, not how it is generated.
_ROUTING = ("messages", "prompt", "model", "stream", "stream_options")


class BodyError(ValueError):
    """The body cannot run; the message is vLLM's own where vLLM refused it."""


@dataclass
class OpenAIBody:
    endpoint: Endpoint
    params: Any  # vllm.SamplingParams
    sampling: SamplingSettings  # the same settings as the console shows them
    messages: list[dict[str, Any]] | None = None
    prompt: str | None = None
    prompt_token_ids: list[int] | None = None
    model: str | None = None
    fields: dict[str, Any] = field(default_factory=dict)  # what a server engine is sent
    top_logprobs: int | None = None  # alternatives per token in the answer (None: no logprobs)
    ignored: list[str] = field(default_factory=list)  # fields vLLM accepts and ignores


def _validation_message(exc: Exception) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):
        try:
            parts = []
            for e in errors():
                loc = ".".join(str(x) for x in e.get("loc", ()) if not str(x).startswith("function-"))
                msg = str(e.get("msg", "")).removeprefix("Value error, ")
                parts.append(f"{loc}: {msg}" if loc else msg)
            if parts:
                return "; ".join(parts)
        except Exception:
            pass
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def _defaults_for(defaults: SamplingSettings) -> tuple[dict[str, Any], dict[str, Any]]:
    """(vLLM ``default_sampling_params``, body fields to add when absent) from the console's
    defaults; a field left to the model (None) is left out, so vLLM's own default fills it (the
    chat passes its settings resolved over the loaded model's defaults)."""
    server = defaults.explicit()
    return server, defaults.request_extras()


def _content(i: int, content: Any) -> str | list[dict[str, Any]]:
    """A message's content: text (text parts joined), or the parts as written when an image is
    among them (vLLM's chat preprocessing loads it, as the server does)."""
    if isinstance(content, str):
        return content
    if content is None:
        return ""
    if isinstance(content, list):
        texts = []
        for part in content:
            if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str):
                texts.append(part["text"])
            elif not (isinstance(part, dict) and part.get("type") == "image_url"):
                raise BodyError(f"messages[{i}].content: only text and image_url parts are supported by the console")
        return [dict(part) for part in content] if len(texts) < len(content) else "".join(texts)
    raise BodyError(f"messages[{i}].content must be text or a list of parts")


#: Message fields of a tool conversation, kept as written (vLLM's template reads them)
_TOOL_KEYS = ("tool_calls", "tool_call_id", "name")


def _messages(value: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i, m in enumerate(value):
        role = m.get("role")
        if role not in _ROLES:
            raise BodyError(
                f"messages[{i}].role {role!r} is not supported by the console ({', '.join(sorted(_ROLES))})"
            )
        message = {"role": "system" if role == "developer" else role, "content": _content(i, m.get("content"))}
        message.update({k: m[k] for k in _TOOL_KEYS if m.get(k) is not None})
        out.append(message)
    if not out or all(m["role"] == "system" for m in out):
        raise BodyError("'messages' has no user message")
    return out


def _refuse_unsupported(req: Any, body: dict[str, Any]) -> None:
    if (body.get("tools") or body.get("tool_choice") not in (None, "none")) and "messages" not in body:
        raise BodyError("tools and tool_choice need a chat body (/v1/chat/completions, with messages)")
    if getattr(req, "use_beam_search", False):
        raise BodyError("use_beam_search is not supported by the console")
    if body.get("stream"):
        raise BodyError("stream must be false in a batch (results are written whole)")
    if getattr(req, "echo", False):
        raise BodyError("echo is not supported by the console")
    if getattr(req, "suffix", None):
        raise BodyError("suffix is not supported by the console")


def parse_body(endpoint: Endpoint, body: dict[str, Any], defaults: SamplingSettings | None = None) -> OpenAIBody:
    """Validate ``body`` with vLLM's request model for ``endpoint``; raises :class:`BodyError`."""
    if not isinstance(body, dict):
        raise BodyError("'body' must be an object")
    defaults = defaults or SamplingSettings(max_tokens=FIT_CONTEXT)  # no limit given: vLLM's, the context's end
    server_defaults, body_defaults = _defaults_for(defaults)
    full = {**body_defaults, **body}
    cls = vllm_compat.chat_completion_request_class() if endpoint == "chat" else vllm_compat.completion_request_class()
    try:
        req = cls.model_validate(full)
    except Exception as exc:  # pydantic's ValidationError or vLLM's own VLLMValidationError
        raise BodyError(_validation_message(exc)) from None
    _refuse_unsupported(req, body)
    with warnings.catch_warnings():  # vLLM marks max_tokens deprecated; run-batch files still use it
        warnings.simplefilter("ignore", DeprecationWarning)
        given = [v for v in (getattr(req, "max_completion_tokens", None), req.max_tokens) if v is not None]
    max_tokens = given[0] if given else defaults.engine_max_tokens()  # None: up to the context
    try:
        params = req.to_sampling_params(max_tokens, server_defaults)
    except Exception as exc:
        message = _validation_message(exc)
        if "greedy" in message and "temperature" not in body:
            default = 1.0 if defaults.temperature is None else defaults.temperature
            message += (
                f" (the console's default temperature is {default:g}: give the line a "
                "temperature, or set the default one)"
            )
        raise BodyError(message) from None
    model = body.get("model")
    ignored = sorted(k for k in body if k not in cls.model_fields)
    out = OpenAIBody(
        endpoint,
        params,
        _settings(params),
        model=model if isinstance(model, str) else None,
        fields={k: v for k, v in full.items() if k not in _ROUTING and k not in ignored},
        ignored=ignored,
    )
    if endpoint == "chat":
        out.messages = _messages(body["messages"])
        out.top_logprobs = (req.top_logprobs or 0) if req.logprobs else None
    else:
        _completion_prompt(out, req.prompt)
        out.top_logprobs = req.logprobs
    if "max_tokens" not in body and "max_completion_tokens" not in body and max_tokens is not None:
        out.fields["max_tokens"] = max_tokens  # a server would otherwise fill its context
    return out


def _completion_prompt(out: OpenAIBody, prompt: Any) -> None:
    if isinstance(prompt, list) and len(prompt) == 1 and isinstance(prompt[0], (str, list)):
        prompt = prompt[0]
    if isinstance(prompt, str):
        if not prompt:
            raise BodyError("'prompt' must not be empty")
        out.prompt = prompt
    elif isinstance(prompt, list) and prompt and all(isinstance(t, int) for t in prompt):
        out.prompt_token_ids = list(prompt)
    else:
        raise BodyError(
            "one prompt per line (text or token ids): several prompts in one body are not supported by the console"
        )


def output_fields(
    *,
    json_schema: dict[str, Any] | None = None,
    choice: list[str] | None = None,
    regex: str | None = None,
    grammar: str | None = None,
    json_object: bool = False,
    logprobs: int | None = None,
    n: int | None = None,
) -> dict[str, Any]:
    """OpenAI body fields for what the chat's Output control and ``chat`` flags ask for
    (at most one structured-output kind; vLLM says so if more are given)."""
    fields: dict[str, Any] = {}
    if json_schema is not None:
        fields["response_format"] = {"type": "json_schema", "json_schema": {"name": "output", "schema": json_schema}}
    if json_object:
        fields["response_format"] = {"type": "json_object"}
    structured = {k: v for k, v in (("choice", choice), ("regex", regex), ("grammar", grammar)) if v}
    if structured:
        fields["structured_outputs"] = structured
    if logprobs is not None:
        fields["logprobs"] = True
        fields["top_logprobs"] = logprobs
    if n is not None and n != 1:
        fields["n"] = n
    return fields


def chat_request_parts(
    messages: list[dict[str, Any]], fields: dict[str, Any], defaults: SamplingSettings
) -> OpenAIBody:
    """A chat turn with OpenAI ``fields`` (output_fields), checked and converted by vLLM."""
    return parse_body("chat", {**fields, "messages": messages}, defaults)


def request_fields(fields: dict[str, Any], sampling: SamplingSettings) -> dict[str, Any]:
    """``GenerationRequest`` keyword arguments (``openai_fields``) for a chat turn with OpenAI
    ``fields``, checked by vLLM's own request model with ``sampling`` (the params do not depend on
    the messages); ``{}`` for none. Raises :class:`BodyError` with vLLM's message. The engine makes
    vLLM's params from the same fields when it runs the request (:func:`body_params`)."""
    if not fields:
        return {}
    body = chat_request_parts([{"role": "user", "content": "?"}], fields, sampling)
    return {"openai_fields": body.fields}


def request_body(request: GenerationRequest) -> tuple[Endpoint, dict[str, Any]]:
    """(endpoint, OpenAI body) of ``request`` without the fields that route it (model, stream):
    the one body every engine sends or renders. It carries only the sampling values the user set
    (a server keeps its own defaults; the in-process engine fills the rest from the loaded model's),
    ``max_tokens`` only when an answer is limited (left out: up to the context's end), then the
    request's OpenAI fields as written, which win."""
    s = request.sampling
    body: dict[str, Any] = {}
    if s.engine_max_tokens() is not None:
        body["max_tokens"] = s.max_tokens
    if request.continue_final:  # vLLM's chat extension: go on with the last (assistant) message
        body.update(continue_final_message=True, add_generation_prompt=False)
    body.update(s.explicit())
    body.update(s.request_extras())
    if request.want_prompt_logprobs is not None:
        body["prompt_logprobs"] = request.want_prompt_logprobs
    if request.openai_fields:  # an OpenAI request as the user wrote it (validated by vLLM's models)
        body.update(request.openai_fields)
    if request.messages is not None:
        body["messages"] = request.messages
        return "chat", body
    body["prompt"] = request.prompt if request.prompt is not None else list(request.prompt_token_ids or [])
    return "completion", body


def output_limit(body: dict[str, Any]) -> int | None:
    """The answer's token limit a body asks for: ``max_completion_tokens``, else the older
    ``max_tokens`` (vLLM's rule); None: up to the context's end."""
    given = body.get("max_completion_tokens")
    return given if given is not None else body.get("max_tokens")


def body_params(request: GenerationRequest, defaults: SamplingDefaults | None = None) -> Any:
    """vLLM's ``SamplingParams`` for ``request``'s body (:func:`request_body`), made by vLLM's own
    request model as its server makes them, the values the request leaves to the model filled
    from the loaded model's ``defaults``. The params do not depend on the prompt, so bodies that
    differ only there share one conversion (a copy is returned). Raises :class:`BodyError`."""
    endpoint, body = request_body(request)
    for key in ("messages", "prompt"):
        body.pop(key, None)
    resolved = request.sampling.resolved(defaults)
    fields = json.dumps(body, sort_keys=True, default=str)
    return _params(endpoint, fields, json.dumps(resolved.to_dict(), sort_keys=True)).clone()


@functools.lru_cache(maxsize=256)
def _params(endpoint: Endpoint, body: str, sampling: str) -> Any:
    stub: dict[str, Any] = {"messages": [{"role": "user", "content": "?"}]} if endpoint == "chat" else {"prompt": "?"}
    return parse_body(endpoint, {**json.loads(body), **stub}, SamplingSettings(**json.loads(sampling))).params


def _settings(params: Any) -> SamplingSettings:
    """The console's view of vLLM's params (what the results table and the chat show)."""
    return SamplingSettings(
        temperature=float(params.temperature),
        top_p=float(params.top_p),
        top_k=max(int(params.top_k or 0), 0),
        max_tokens=int(params.max_tokens or 0),
        repetition_penalty=float(params.repetition_penalty),
        seed=params.seed,
        stop=list(params.stop or []),
        ignore_eos=bool(params.ignore_eos),
        min_tokens=int(params.min_tokens or 0),
    )


__all__ = [
    "BodyError",
    "CHAT_URL",
    "COMPLETIONS_URL",
    "OpenAIBody",
    "URLS",
    "body_params",
    "chat_request_parts",
    "output_fields",
    "output_limit",
    "parse_body",
    "request_body",
    "request_fields",
]
