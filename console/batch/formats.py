"""Batch input files: JSONL of prompts, CSV, and the OpenAI batch request format.

Accepted line shapes (JSONL, one JSON object per line, blank lines ignored):

- OpenAI batch requests, as ``vllm run-batch`` reads them::

    {"custom_id": "q1", "method": "POST", "url": "/v1/chat/completions",
     "body": {"model": "smollm2", "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 64}}

- Plain prompts: ``{"prompt": "text"}`` or ``{"messages": [...]}``, with an optional
  ``custom_id`` (or ``id``), optional ``system`` and the same sampling keys as a request body.

CSV files need a header with a ``prompt`` column; ``custom_id``/``id``, ``system``,
``max_tokens``, ``temperature``, ``top_p`` and ``seed`` columns are used when present.

A line that cannot be used becomes an :class:`InputError` carrying its line number and a
readable reason; the good lines still run. Nothing is silently guessed: unknown fields in a
plain-prompt line, sampling fields the engine cannot honour (``presence_penalty``, ``n > 1``,
``stream``, tools, ...), wrong types and out-of-range values are all refused by line.
Lines without an id get ``line-<N>``, so a re-run of the same file resumes correctly.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from console.config import SamplingSettings

CHAT_URL = "/v1/chat/completions"
#: Longest line or CSV cell we accept, so an enormous input fails by line instead of by memory.
MAX_LINE_CHARS = 4 * 1024 * 1024
_ROLES = {"system", "user", "assistant", "developer", "tool"}

# Request-body fields we honour, and the SamplingSettings field each maps to.
_SAMPLING_KEYS = {"temperature": "temperature", "top_p": "top_p", "top_k": "top_k",
                  "max_tokens": "max_tokens", "max_completion_tokens": "max_tokens",
                  "repetition_penalty": "repetition_penalty", "seed": "seed", "stop": "stop",
                  "min_tokens": "min_tokens", "ignore_eos": "ignore_eos"}
# Fields that do not change the generation (accepted and ignored) or that we accept only at
# their neutral value.
_HARMLESS_KEYS = {"model", "user", "metadata", "store", "service_tier"}
_NEUTRAL_VALUES: dict[str, tuple[Any, ...]] = {
    "n": (1, None), "stream": (False, None), "logprobs": (False, None), "top_logprobs": (0, None),
    "presence_penalty": (0, 0.0, None), "frequency_penalty": (0, 0.0, None),
    "tools": (None, []), "tool_choice": (None, "none"), "response_format": (None, {"type": "text"}),
    "stream_options": (None,), "parallel_tool_calls": (None, True, False),
}
_BODY_KEYS = set(_SAMPLING_KEYS) | _HARMLESS_KEYS | set(_NEUTRAL_VALUES) | {"messages"}
_PLAIN_KEYS = set(_SAMPLING_KEYS) | {"prompt", "messages", "custom_id", "id", "system", "model"}


class BatchFormatError(ValueError):
    """The file as a whole cannot be read (missing, not UTF-8, no usable header...)."""


@dataclass(frozen=True)
class InputError:
    line: int  # 1-based line (CSV: record number + 1 for the header)
    message: str
    custom_id: str | None = None

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


@dataclass
class BatchRequest:
    """One prompt of a batch: exactly one of ``messages`` or ``prompt``."""

    custom_id: str
    line: int
    messages: list[dict[str, str]] | None = None
    prompt: str | None = None
    sampling: SamplingSettings = field(default_factory=SamplingSettings)
    model: str | None = None  # the model the line asks for (OpenAI format), if any

    @property
    def display_prompt(self) -> str:
        if self.prompt is not None:
            return self.prompt
        return "\n".join(m["content"] for m in self.messages or [] if m["role"] != "system")


@dataclass
class ParsedBatch:
    requests: list[BatchRequest]
    errors: list[InputError]
    format: str  # "openai", "jsonl" or "csv"
    warnings: list[str] = field(default_factory=list)

    @property
    def total_lines(self) -> int:
        return len(self.requests) + len(self.errors)


class _LineError(ValueError):
    pass


def _text(where: str, value: str) -> str:
    """Refuse strings that cannot be written back as UTF-8 (lone surrogates from JSON escapes)."""
    if any("\ud800" <= ch <= "\udfff" for ch in value):
        raise _LineError(f"{where} contains invalid Unicode (a lone surrogate)")
    if "\x00" in value:
        raise _LineError(f"{where} contains a NUL character")
    return value


def _number(key: str, value: Any, *, integer: bool = False) -> Any:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _LineError(f"'{key}' must be a number, not {value!r}")
    if integer and not (isinstance(value, int) or float(value).is_integer()):
        raise _LineError(f"'{key}' must be a whole number, not {value!r}")
    if value != value or value in (float("inf"), float("-inf")):
        raise _LineError(f"'{key}' must be a finite number")
    return int(value) if integer else float(value)


def _sampling(values: dict[str, Any], defaults: SamplingSettings) -> SamplingSettings:
    changes: dict[str, Any] = {}
    for key, target in _SAMPLING_KEYS.items():
        if key not in values or values[key] is None:
            continue
        v = values[key]
        if target in ("max_tokens", "top_k", "min_tokens"):
            v = _number(key, v, integer=True)
        elif target == "seed":
            v = _number(key, v, integer=True)
            if not -(2**63) <= v < 2**63:
                raise _LineError("'seed' is out of range")
        elif target == "stop":
            if isinstance(v, str):
                v = [v]
            if not isinstance(v, list) or not all(isinstance(s, str) and s for s in v) or len(v) > 16:
                raise _LineError("'stop' must be a string or a list of up to 16 non-empty strings")
            for item in v:
                _text("stop", item)
        elif target == "ignore_eos":
            if not isinstance(v, bool):
                raise _LineError("'ignore_eos' must be true or false")
        else:
            v = _number(key, v)
        changes[target] = v
    s = replace(defaults, **changes)
    try:
        s.validate()
    except ValueError as exc:
        raise _LineError(str(exc)) from None
    if s.top_k < -1:
        raise _LineError("top_k must be -1, 0 (off) or positive")
    if s.min_tokens < 0 or s.min_tokens > s.max_tokens:
        raise _LineError("min_tokens must be between 0 and max_tokens")
    return s


def _messages(value: Any) -> list[dict[str, str]]:
    if not isinstance(value, list) or not value:
        raise _LineError("'messages' must be a non-empty list")
    out: list[dict[str, str]] = []
    for i, m in enumerate(value):
        if not isinstance(m, dict) or "role" not in m or "content" not in m:
            raise _LineError(f"messages[{i}] must be an object with 'role' and 'content'")
        role, content = m["role"], m["content"]
        if role not in _ROLES:
            raise _LineError(f"messages[{i}].role {role!r} is not one of {', '.join(sorted(_ROLES))}")
        if isinstance(content, list):  # OpenAI content parts: text only
            texts = []
            for part in content:
                if not isinstance(part, dict) or part.get("type") != "text" or not isinstance(part.get("text"), str):
                    raise _LineError(f"messages[{i}].content: only text parts are supported")
                texts.append(part["text"])
            content = "".join(texts)
        if not isinstance(content, str):
            raise _LineError(f"messages[{i}].content must be text")
        _text(f"messages[{i}].content", content)
        out.append({"role": "system" if role == "developer" else role, "content": content})
    if all(m["role"] == "system" for m in out):
        raise _LineError("'messages' has no user message")
    return out


def _custom_id(value: Any, line: int) -> str:
    if value is None:
        return f"line-{line}"
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise _LineError(f"'custom_id' must be a string, not {value!r}")
    text = _text("custom_id", str(value))
    if not text.strip() or len(text) > 512:
        raise _LineError("'custom_id' must be a non-empty string of at most 512 characters")
    return text


def _openai_line(obj: dict[str, Any], line: int, defaults: SamplingSettings) -> BatchRequest:
    for key in ("custom_id", "method", "url", "body"):
        if key not in obj:
            raise _LineError(f"missing '{key}' (an OpenAI batch line needs custom_id, method, url, body)")
    extra = set(obj) - {"custom_id", "method", "url", "body"}
    if extra:
        raise _LineError(f"unknown field(s) {', '.join(sorted(extra))}")
    cid = _custom_id(obj["custom_id"], line)
    if obj["method"] != "POST":
        raise _LineError(f"method must be POST, not {obj['method']!r}")
    if obj["url"] != CHAT_URL:
        raise _LineError(f"url {obj['url']!r} is not supported (supported: {CHAT_URL})")
    body = obj["body"]
    if not isinstance(body, dict):
        raise _LineError("'body' must be an object")
    unknown = set(body) - _BODY_KEYS
    if unknown:
        raise _LineError(f"body field(s) not supported: {', '.join(sorted(unknown))}")
    for key, allowed in _NEUTRAL_VALUES.items():
        if key in body and body[key] not in allowed:
            raise _LineError(f"body.{key} = {body[key]!r} is not supported by the console")
    if "messages" not in body:
        raise _LineError("body has no 'messages'")
    model = body.get("model")
    if model is not None and not isinstance(model, str):
        raise _LineError("body.model must be a string")
    if model is not None:
        _text("body.model", model)
    return BatchRequest(custom_id=cid, line=line, messages=_messages(body["messages"]),
                        sampling=_sampling(body, defaults), model=model)


def _plain_line(obj: dict[str, Any], line: int, defaults: SamplingSettings) -> BatchRequest:
    unknown = set(obj) - _PLAIN_KEYS
    if unknown:
        raise _LineError(f"unknown field(s) {', '.join(sorted(unknown))}")
    if ("prompt" in obj) == ("messages" in obj):
        raise _LineError("a line needs exactly one of 'prompt' or 'messages'")
    cid = _custom_id(obj.get("custom_id", obj.get("id")), line)
    system = obj.get("system")
    if system is not None and not isinstance(system, str):
        raise _LineError("'system' must be text")
    if system:
        _text("system", system)
    if "prompt" in obj:
        prompt = obj["prompt"]
        if not isinstance(prompt, str) or not prompt.strip():
            raise _LineError("'prompt' must be non-empty text")
        _text("prompt", prompt)
        messages = [{"role": "user", "content": prompt}]
    else:
        messages = _messages(obj["messages"])
    if system:
        messages = [{"role": "system", "content": system}] + messages
    return BatchRequest(custom_id=cid, line=line, messages=messages, sampling=_sampling(obj, defaults),
                        model=obj.get("model") if isinstance(obj.get("model"), str) else None)


def _check_text(text: str) -> None:
    if "\x00" in text:
        raise _LineError("contains a NUL character")
    if any("\udc80" <= ch <= "\udcff" for ch in text):  # bytes kept by surrogateescape
        raise _LineError("is not UTF-8 text")


def parse_jsonl(text: str, defaults: SamplingSettings | None = None) -> ParsedBatch:
    defaults = defaults or SamplingSettings()
    requests: list[BatchRequest] = []
    errors: list[InputError] = []
    seen: dict[str, int] = {}
    kinds: set[str] = set()
    for n, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip()
        if not line:
            continue
        try:
            if len(line) > MAX_LINE_CHARS:
                raise _LineError(f"line is longer than {MAX_LINE_CHARS} characters")
            _check_text(line)
            try:
                obj = json.loads(line)
            except (json.JSONDecodeError, RecursionError) as exc:
                raise _LineError(f"not valid JSON ({getattr(exc, 'msg', exc)})") from None
            if not isinstance(obj, dict):
                raise _LineError(f"expected a JSON object, got {type(obj).__name__}")
            if "body" in obj or "url" in obj or "method" in obj:
                req = _openai_line(obj, n, defaults)
                kinds.add("openai")
            else:
                req = _plain_line(obj, n, defaults)
                kinds.add("jsonl")
            _accept(req, n, seen, requests)
        except _LineError as exc:
            errors.append(InputError(n, str(exc)))
    fmt = "openai" if kinds == {"openai"} else "jsonl"
    warnings = ["the file mixes OpenAI batch lines and plain prompt lines"] if len(kinds) > 1 else []
    return ParsedBatch(requests, errors, fmt, warnings)


def _accept(req: BatchRequest, line: int, seen: dict[str, int], requests: list[BatchRequest]) -> None:
    """Keep ``req`` unless its custom_id was already used (results are keyed by it)."""
    if req.custom_id in seen:
        raise _LineError(f"duplicate custom_id {req.custom_id!r} (first on line {seen[req.custom_id]})")
    seen[req.custom_id] = line
    requests.append(req)


_CSV_COLUMNS = {"prompt", "custom_id", "id", "system", "max_tokens", "temperature", "top_p", "seed"}


def parse_csv(text: str, defaults: SamplingSettings | None = None) -> ParsedBatch:
    defaults = defaults or SamplingSettings()
    try:
        reader = csv.DictReader(io.StringIO(text, newline=""), strict=True)
        header = reader.fieldnames
    except csv.Error as exc:
        raise BatchFormatError(f"the CSV header cannot be read ({exc})") from None
    if not header or "prompt" not in [h.strip() for h in header]:
        raise BatchFormatError("a CSV batch file needs a header row with a 'prompt' column")
    warnings = []
    ignored = [h for h in header if h.strip() not in _CSV_COLUMNS]
    if ignored:
        warnings.append(f"CSV column(s) not used: {', '.join(ignored)}")
    requests: list[BatchRequest] = []
    errors: list[InputError] = []
    seen: dict[str, int] = {}
    n = 1
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            errors.append(InputError(reader.line_num, f"malformed CSV ({exc})"))
            break  # the csv module cannot resynchronise after a broken quote
        n = reader.line_num
        try:
            if None in row:
                raise _LineError("more cells than header columns")
            cells = {k.strip(): (v or "").strip() for k, v in row.items() if k is not None}
            for v in cells.values():
                _check_text(v)
                if len(v) > MAX_LINE_CHARS:
                    raise _LineError(f"a cell is longer than {MAX_LINE_CHARS} characters")
            obj: dict[str, Any] = {"prompt": cells.get("prompt", "")}
            if cells.get("custom_id") or cells.get("id"):
                obj["custom_id"] = cells.get("custom_id") or cells.get("id")
            if cells.get("system"):
                obj["system"] = cells["system"]
            for key in ("max_tokens", "seed"):
                if cells.get(key):
                    obj[key] = _csv_number(key, cells[key], int)
            for key in ("temperature", "top_p"):
                if cells.get(key):
                    obj[key] = _csv_number(key, cells[key], float)
            req = _plain_line(obj, n, defaults)
            _accept(req, n, seen, requests)
        except _LineError as exc:
            errors.append(InputError(n, str(exc)))
    return ParsedBatch(requests, errors, "csv", warnings)


def _csv_number(key: str, text: str, kind: type) -> Any:
    try:
        return kind(text)
    except ValueError:
        raise _LineError(f"'{key}' must be a number, not {text!r}") from None


def parse_batch_text(text: str, fmt: str, defaults: SamplingSettings | None = None) -> ParsedBatch:
    if fmt == "csv":
        return parse_csv(text, defaults)
    return parse_jsonl(text, defaults)


def read_batch_file(path: Path | str, defaults: SamplingSettings | None = None) -> ParsedBatch:
    """Parse a batch file; the format follows the extension (``.csv``, else JSONL)."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise BatchFormatError(f"the batch file {path} does not exist") from None
    except IsADirectoryError:
        raise BatchFormatError(f"{path} is a folder, not a batch file") from None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if path.suffix.lower() == ".csv":
        try:
            return parse_csv(data.decode("utf-8"), defaults)
        except UnicodeDecodeError as exc:
            line = data[: exc.start].count(b"\n") + 1
            raise BatchFormatError(f"{path} is not UTF-8 text (first bad byte on line {line}); "
                                   "save it as UTF-8 and try again") from None
    # JSONL: a bad byte spoils only its own line (reported), the rest still runs.
    return parse_jsonl(data.decode("utf-8", errors="surrogateescape"), defaults)
