"""Batch input files: JSONL of prompts, CSV, and the OpenAI batch request format.

Accepted line shapes (JSONL, one JSON object per line, blank lines ignored):

- OpenAI batch requests, as ``vllm run-batch`` reads them::

    {"custom_id": "q1", "method": "POST", "url": "/v1/chat/completions",
     "body": {"model": "smollm2", "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 64}}

- Plain prompts: ``{"prompt": "text"}`` or ``{"messages": [...]}``, with an optional
  ``custom_id`` (or ``id``), optional ``system`` and the same sampling keys as a request body.

CSV files need a header with a ``prompt`` column; ``custom_id``/``id``, ``system``,
``max_tokens``, ``temperature``, ``top_p`` and ``seed`` columns are used when present.

Every request body (OpenAI lines, and plain lines read as a chat body) is validated by vLLM's own
protocol models and converted to sampling parameters by vLLM (``console/engine/openai_body.py``):
structured outputs, logprobs, ``n`` and penalties work as in ``vllm run-batch``, and a refused line carries
vLLM's message. ``/v1/completions`` lines (one prompt each) are accepted too.

A line that cannot be used becomes an :class:`InputError` carrying its line number and a
readable reason; the good lines still run. Fields vLLM accepts and ignores are named in the
warnings.
Lines without an id get ``line-<N>``, so a re-run of the same file resumes correctly.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from console.engine.openai_body import URLS, BodyError, Endpoint, parse_body
from console.engine import image_parts
from console.sampling import SamplingSettings
from console import vllm_compat

#: Longest line or CSV cell we accept, so an enormous input fails by line instead of by memory.
MAX_LINE_CHARS = 4 * 1024 * 1024
#: Keys of a plain-prompt line that are not request-body fields.
_PLAIN_ONLY = {"prompt", "messages", "custom_id", "id", "system"}


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
    messages: list[dict[str, Any]] | None = None
    prompt: str | None = None
    sampling: SamplingSettings = field(default_factory=SamplingSettings)
    model: str | None = None  # the model the line asks for (OpenAI format), if any
    endpoint: Endpoint = "chat"
    prompt_token_ids: list[int] | None = None
    params: Any = None  # vLLM SamplingParams from vLLM's own conversion of the body
    openai_fields: dict[str, Any] = field(default_factory=dict)  # body fields a server engine is sent
    top_logprobs: int | None = None  # alternatives per token to write (None: no logprobs)

    @property
    def display_prompt(self) -> str:
        if self.prompt is not None:
            return self.prompt
        if self.prompt_token_ids is not None:
            return f"<{len(self.prompt_token_ids)} token ids>"
        return "\n".join(image_parts.content_text(m["content"]) for m in self.messages or [] if m["role"] != "system")


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


def _custom_id(value: Any, line: int) -> str:
    if value is None:
        return f"line-{line}"
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise _LineError(f"'custom_id' must be a string, not {value!r}")
    text = _text("custom_id", str(value))
    if not text.strip() or len(text) > 512:
        raise _LineError("'custom_id' must be a non-empty string of at most 512 characters")
    return text


def _request(
    cid: str, line: int, endpoint: Endpoint, body: dict[str, Any], defaults: SamplingSettings, warnings: list[str]
) -> BatchRequest:
    try:
        parsed = parse_body(endpoint, body, defaults)
    except BodyError as exc:
        raise _LineError(str(exc)) from None
    if parsed.ignored:
        warnings.append(f"line {line}: field(s) ignored by vLLM: {', '.join(parsed.ignored)}")
    for m in parsed.messages or []:
        _text("a message", image_parts.content_text(m["content"]))
    if parsed.prompt is not None:
        _text("prompt", parsed.prompt)
    if parsed.model is not None:
        _text("body.model", parsed.model)
    return BatchRequest(
        custom_id=cid,
        line=line,
        messages=parsed.messages,
        prompt=parsed.prompt,
        prompt_token_ids=parsed.prompt_token_ids,
        sampling=parsed.sampling,
        model=parsed.model,
        endpoint=endpoint,
        params=parsed.params,
        openai_fields=parsed.fields,
        top_logprobs=parsed.top_logprobs,
    )


#: A batch line without max_tokens stops here (the chat's default, up to the context, would let
#: thousands of answers each fill their context): the CLI's and the Batch tab's default.
BATCH_MAX_TOKENS = 256


def batch_defaults() -> SamplingSettings:
    """The sampling of a batch line that gives none: fixed values (a file's lines are parsed
    before any model loads, so the chat's defaults from the loaded model are not known yet),
    bounded answers."""
    return SamplingSettings(temperature=0.7, top_p=1.0, top_k=0, repetition_penalty=1.0, max_tokens=BATCH_MAX_TOKENS)


def _openai_line(obj: dict[str, Any], line: int, defaults: SamplingSettings, warnings: list[str]) -> BatchRequest:
    for key in ("custom_id", "method", "url", "body"):
        if key not in obj:
            raise _LineError(f"missing '{key}' (an OpenAI batch line needs custom_id, method, url, body)")
    extra = set(obj) - {"custom_id", "method", "url", "body"}
    if extra:
        raise _LineError(f"unknown field(s) {', '.join(sorted(extra))}")
    cid = _custom_id(obj["custom_id"], line)
    if obj["method"] != "POST":
        raise _LineError(f"method must be POST, not {obj['method']!r}")
    endpoint = URLS.get(obj["url"]) if isinstance(obj["url"], str) else None
    if endpoint is None:
        raise _LineError(f"url {obj['url']!r} is not supported (supported: {', '.join(URLS)})")
    if not isinstance(obj["body"], dict):
        raise _LineError("'body' must be an object")
    if endpoint == "chat" and "messages" not in obj["body"]:
        raise _LineError("body has no 'messages'")
    return _request(cid, line, endpoint, obj["body"], defaults, warnings)


def _plain_line(obj: dict[str, Any], line: int, defaults: SamplingSettings, warnings: list[str]) -> BatchRequest:
    """A plain line is a chat body with ``prompt``/``system`` shorthands."""
    if ("prompt" in obj) == ("messages" in obj):
        raise _LineError("a line needs exactly one of 'prompt' or 'messages'")
    cid = _custom_id(obj.get("custom_id", obj.get("id")), line)
    unknown = set(obj) - _PLAIN_ONLY - set(vllm_compat.chat_completion_request_class().model_fields)
    if unknown:
        raise _LineError(f"unknown field(s) {', '.join(sorted(unknown))}")
    system = obj.get("system")
    if system is not None and not isinstance(system, str):
        raise _LineError("'system' must be text")
    if "prompt" in obj:
        prompt = obj["prompt"]
        if not isinstance(prompt, str) or not prompt.strip():
            raise _LineError("'prompt' must be non-empty text")
        messages: Any = [{"role": "user", "content": prompt}]
    else:
        messages = obj["messages"]
        if not isinstance(messages, list) or not messages:
            raise _LineError("'messages' must be a non-empty list")
    if system:
        messages = [{"role": "system", "content": system}] + messages
    body = {k: v for k, v in obj.items() if k not in _PLAIN_ONLY}
    return _request(cid, line, "chat", {**body, "messages": messages}, defaults, warnings)


def _check_text(text: str) -> None:
    if "\x00" in text:
        raise _LineError("contains a NUL character")
    if any("\udc80" <= ch <= "\udcff" for ch in text):  # bytes kept by surrogateescape
        raise _LineError("is not UTF-8 text")


def parse_jsonl(text: str, defaults: SamplingSettings | None = None) -> ParsedBatch:
    defaults = defaults or batch_defaults()
    requests: list[BatchRequest] = []
    errors: list[InputError] = []
    seen: dict[str, int] = {}
    kinds: set[str] = set()
    warnings: list[str] = []
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
                why = exc.msg if isinstance(exc, json.JSONDecodeError) else exc
                raise _LineError(f"not valid JSON ({why})") from None
            if not isinstance(obj, dict):
                raise _LineError(f"expected a JSON object, got {type(obj).__name__}")
            if "body" in obj or "url" in obj or "method" in obj:
                req = _openai_line(obj, n, defaults, warnings)
                kinds.add("openai")
            else:
                req = _plain_line(obj, n, defaults, warnings)
                kinds.add("jsonl")
            _accept(req, n, seen, requests)
        except _LineError as exc:
            errors.append(InputError(n, str(exc)))
    fmt = "openai" if kinds == {"openai"} else "jsonl"
    if len(kinds) > 1:
        warnings.insert(0, "the file mixes OpenAI batch lines and plain prompt lines")
    return ParsedBatch(requests, errors, fmt, warnings)


def _accept(req: BatchRequest, line: int, seen: dict[str, int], requests: list[BatchRequest]) -> None:
    """Keep ``req`` unless its custom_id was already used (results are keyed by it)."""
    if req.custom_id in seen:
        raise _LineError(f"duplicate custom_id {req.custom_id!r} (first on line {seen[req.custom_id]})")
    seen[req.custom_id] = line
    requests.append(req)


_CSV_COLUMNS = {"prompt", "custom_id", "id", "system", "max_tokens", "temperature", "top_p", "seed"}


def parse_csv(text: str, defaults: SamplingSettings | None = None) -> ParsedBatch:
    defaults = defaults or batch_defaults()
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
            req = _plain_line(obj, n, defaults, warnings)
            _accept(req, n, seen, requests)
        except _LineError as exc:
            errors.append(InputError(n, str(exc)))
    return ParsedBatch(requests, errors, "csv", warnings)


def _csv_number(key: str, text: str, kind: type) -> Any:
    try:
        return kind(text)
    except ValueError:
        raise _LineError(f"'{key}' must be a number, not {text!r}") from None


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
            raise BatchFormatError(
                f"{path} is not UTF-8 text (first bad byte on line {line}); save it as UTF-8 and try again"
            ) from None
    # JSONL: a bad byte spoils only its own line (reported), the rest still runs.
    return parse_jsonl(data.decode("utf-8", errors="surrogateescape"), defaults)
