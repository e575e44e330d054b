"""Batch results: the OpenAI batch output format, crash-safe appends, resume and CSV export.

Each finished request becomes one line, as ``vllm run-batch`` writes it::

    {"id": "vllm-…", "custom_id": "q1",
     "response": {"status_code": 200, "request_id": "vllm-batch-…",
                  "body": {"id": "chatcmpl-…", "object": "chat.completion", "model": "…",
                           "choices": [{"index": 0, "message": {"role": "assistant", "content": "…"},
                                        "finish_reason": "stop", "logprobs": null}],
                           "usage": {"prompt_tokens": 9, "completion_tokens": 7, "total_tokens": 16}}},
     "error": null,
     "metrics": {"ttft_s": 0.05, "latency_s": 0.31, ...}}

``metrics`` is the console's addition (OpenAI and vLLM readers accept extra fields). A failed
request has ``response.status_code`` 400, ``body`` null and ``error: {"code", "message"}``.

:class:`ResultWriter` appends a line and fsyncs it before the request counts as done, so a crash,
``kill -9`` or cancel loses nothing finished; a torn last line (killed mid-write) is cut off
when the file is opened again, and :func:`completed_ids` tells a re-run what to skip.
"""

from __future__ import annotations

import csv
import errno
import json
import os
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator

from console.atomic import DiskFullError, atomic_write_text
from console.engine.choices import Choice, OpenAIChoiceCollector, chat_logprobs, completion_logprobs


@dataclass(frozen=True)
class BatchResult:
    """One request's outcome and figures (what the GUI's results table shows)."""

    custom_id: str
    line: int
    prompt: str
    ok: bool
    text: str = ""
    finish_reason: str | None = None
    prompt_tokens: int = 0
    output_tokens: int = 0
    ttft_s: float | None = None
    latency_s: float | None = None
    error: str | None = None
    error_code: str | None = None
    model: str = ""
    request_id: str = ""
    #: All ``n`` answers with their logprobs (empty: one answer, ``text``)
    choices: tuple[Choice, ...] = ()
    endpoint: str = "chat"  # "chat" or "completion": the body shape written
    top_logprobs: int | None = None  # alternatives per token written (None: no logprobs)
    #: The prompt's log-probabilities when the line asked for them (``prompt_logprobs``), in
    #: vLLM's JSON form (:func:`console.engine.choices.prompt_logprobs_json`)
    prompt_logprobs: list[Any] | None = None
    #: The answer's thinking, split off ``text`` by the family's vLLM reasoning parser;
    #: None: no parser for this model, or nothing to split
    reasoning: str | None = None
    #: The answer's tool calls (OpenAI ``message.tool_calls``), read by the family's vLLM
    #: tool-call parser (``console/engine/tool_calls.py``); empty: none
    tool_calls: tuple[dict[str, Any], ...] = ()
    #: What request this answers (``console/batch/provenance.py``), kept in the line's metrics so
    #: a resumed run can tell its own results from another input's; None: not recorded
    request_sha256: str | None = None

    def _choices(self) -> list[dict[str, Any]]:
        choices = self.choices or (Choice(0, self.text, self.finish_reason or "stop", self.output_tokens),)
        out = []
        for c in choices:
            if self.endpoint == "completion":
                lp = (
                    None
                    if c.logprobs is None or self.top_logprobs is None
                    else completion_logprobs(c.logprobs, self.top_logprobs)
                )
                out.append(
                    {
                        "index": c.index,
                        "text": c.text,
                        "logprobs": lp,
                        "finish_reason": c.finish_reason,
                        "stop_reason": c.stop_reason,
                    }
                )
                if self.prompt_logprobs is not None:  # vLLM writes them in each completion choice
                    out[-1]["prompt_logprobs"] = self.prompt_logprobs
            else:
                lp = (
                    None
                    if c.logprobs is None or self.top_logprobs is None
                    else chat_logprobs(c.logprobs, self.top_logprobs)
                )
                message: dict[str, Any] = {"role": "assistant", "content": c.text}
                if self.reasoning is not None and c.index == 0:  # vLLM's field, and its former name
                    message.update(content=self.text, reasoning=self.reasoning, reasoning_content=self.reasoning)
                if self.tool_calls and c.index == 0:  # as vLLM's server: the calls, content null when empty
                    message.update(content=self.text or None, tool_calls=list(self.tool_calls))
                calls = bool(self.tool_calls) and c.index == 0
                out.append(
                    {
                        "index": c.index,
                        "message": message,
                        "logprobs": lp,
                        "finish_reason": self.finish_reason if calls else c.finish_reason,
                        "stop_reason": c.stop_reason,
                    }
                )
        return out

    def to_openai(self) -> dict[str, Any]:
        """This result as one line of the OpenAI batch output format."""
        rid = self.request_id or uuid.uuid4().hex
        metrics = {
            "line": self.line,
            "ttft_s": self.ttft_s,
            "latency_s": self.latency_s,
            "prompt_tokens": self.prompt_tokens,
            "output_tokens": self.output_tokens,
            "finish_reason": self.finish_reason,
        }
        if self.request_sha256 is not None:
            metrics["request_sha256"] = self.request_sha256
        if not self.ok:
            return {
                "id": f"vllm-{uuid.uuid4().hex}",
                "custom_id": self.custom_id,
                "response": {"status_code": 400, "request_id": f"vllm-batch-{rid}", "body": None},
                "error": {"code": self.error_code or "invalid_request", "message": self.error or ""},
                "metrics": metrics,
            }
        chat = self.endpoint != "completion"
        body = {
            "id": f"chatcmpl-{rid}" if chat else f"cmpl-{rid}",
            "object": "chat.completion" if chat else "text_completion",
            "created": int(time.time()),
            "model": self.model,
            "choices": self._choices(),
            "usage": {
                "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.output_tokens,
                "total_tokens": self.prompt_tokens + self.output_tokens,
            },
        }
        if chat and self.prompt_logprobs is not None:  # vLLM writes them beside a chat body's choices
            body["prompt_logprobs"] = self.prompt_logprobs
        return {
            "id": f"vllm-{uuid.uuid4().hex}",
            "custom_id": self.custom_id,
            "response": {"status_code": 200, "request_id": f"vllm-batch-{rid}", "body": body},
            "error": None,
            "metrics": metrics,
        }

    @classmethod
    def from_openai(cls, obj: dict[str, Any], prompt: str = "") -> "BatchResult":
        """Read a line back (ours or ``vllm run-batch``'s)."""
        metrics = obj.get("metrics") or {}
        response = obj.get("response") or {}
        body = response.get("body") or {}
        error = obj.get("error")
        if error is None and body.get("choices"):
            collected = OpenAIChoiceCollector()
            collected.add(body["choices"])
            choices = collected.choices()
            choice = body["choices"][0]
            usage = body.get("usage") or {}
            return cls(
                custom_id=str(obj["custom_id"]),
                line=int(metrics.get("line") or 0),
                prompt=prompt,
                ok=True,
                text=choices[0].text if choices else "",
                choices=choices if len(choices) > 1 else (),
                endpoint="completion" if body.get("object") == "text_completion" else "chat",
                finish_reason=choice.get("finish_reason"),
                prompt_tokens=int(usage.get("prompt_tokens") or 0),
                output_tokens=int(usage.get("completion_tokens") or 0),
                ttft_s=metrics.get("ttft_s"),
                latency_s=metrics.get("latency_s"),
                model=str(body.get("model") or ""),
                prompt_logprobs=body.get("prompt_logprobs") or choice.get("prompt_logprobs"),
                reasoning=_reasoning(choice),
                tool_calls=tuple((choice.get("message") or {}).get("tool_calls") or ()),
            )
        if isinstance(error, dict):
            inner = error.get("error", error)
            message, code = str(inner.get("message", error)), inner.get("code")
        else:
            message, code = str(error), None
        return cls(
            custom_id=str(obj["custom_id"]),
            line=int(metrics.get("line") or 0),
            prompt=prompt,
            ok=False,
            error=message,
            error_code=None if code is None else str(code),
            latency_s=metrics.get("latency_s"),
        )


def _reasoning(choice: dict[str, Any]) -> str | None:
    message = choice.get("message") or {}
    value = message.get("reasoning", message.get("reasoning_content"))
    return value if isinstance(value, str) else None


def _disk_full(path: Path, exc: OSError) -> OSError:
    if exc.errno == errno.ENOSPC:
        return DiskFullError(
            errno.ENOSPC,
            f"No space left on the disk holding {path}: the results "
            "written so far are kept; free some space and re-run to resume",
        )
    return exc


def repair_tail(path: Path) -> int:
    """Cut a torn last line (a write killed mid-way); returns the bytes removed."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return 0
    if size == 0:
        return 0
    with open(path, "rb+") as fh:
        fh.seek(max(0, size - 1))
        if fh.read(1) == b"\n":
            return 0
        # Walk back to the last newline.
        pos = size
        chunk = 65536
        keep = 0
        while pos > 0:
            start = max(0, pos - chunk)
            fh.seek(start)
            data = fh.read(pos - start)
            idx = data.rfind(b"\n")
            if idx >= 0:
                keep = start + idx + 1
                break
            pos = start
        fh.truncate(keep)
        fh.flush()
        os.fsync(fh.fileno())
        return size - keep


def iter_output(path: Path) -> Iterator[dict[str, Any]]:
    """Complete, parseable lines of an output file (anything else is skipped)."""
    if Path(path).exists() and not Path(path).is_file():
        # A device or FIFO (e.g. /dev/full, /dev/zero) has no results to resume, and reading it
        # line by line would never end: one endless "line" grew this process to 18 GB.
        return
    try:
        fh = open(path, "rb")
    except FileNotFoundError:
        return
    with fh:
        for raw in fh:
            if not raw.endswith(b"\n"):
                break  # torn tail
            try:
                obj = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError):
                continue
            if isinstance(obj, dict) and isinstance(obj.get("custom_id"), str):
                yield obj


def completed_ids(path: Path) -> set[str]:
    """custom_ids that already have a line in ``path`` (what a resumed run skips)."""
    return {obj["custom_id"] for obj in iter_output(Path(path))}


class ResultWriter:
    """Appends result lines to the output file, each fsynced before it counts as written."""

    def __init__(self, path: Path | str, *, resume: bool = True) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if resume:
            repair_tail(self.path)
        try:
            self._fh = open(self.path, "ab" if resume else "wb")
        except OSError as exc:
            raise _disk_full(self.path, exc) from exc

    def write(self, result: BatchResult) -> None:
        data = (json.dumps(result.to_openai(), ensure_ascii=False) + "\n").encode("utf-8")
        try:
            self._fh.write(data)
            self._fh.flush()
            os.fsync(self._fh.fileno())
        except OSError as exc:
            raise _disk_full(self.path, exc) from exc

    def close(self) -> None:
        # After a failed write the bytes are still buffered and close() flushes them again; the
        # second ENOSPC used to replace the explained DiskFullError with a bare OSError.
        try:
            self._fh.close()
        except OSError as exc:
            raise _disk_full(self.path, exc) from exc

    def __enter__(self) -> "ResultWriter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


CSV_COLUMNS = [
    "custom_id",
    "line",
    "status",
    "prompt",
    "output",
    "finish_reason",
    "prompt_tokens",
    "output_tokens",
    "ttft_s",
    "latency_s",
    "error",
]


def results_to_csv_text(results: Iterable[BatchResult]) -> str:
    import io

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for r in results:
        w.writerow(
            [
                r.custom_id,
                r.line or "",
                "ok" if r.ok else "error",
                r.prompt,
                r.text,
                r.finish_reason or "",
                r.prompt_tokens,
                r.output_tokens,
                "" if r.ttft_s is None else f"{r.ttft_s:.4f}",
                "" if r.latency_s is None else f"{r.latency_s:.4f}",
                r.error or "",
            ]
        )
    return buf.getvalue()


def export_csv(output_jsonl: Path | str, csv_path: Path | str, prompts: dict[str, str] | None = None) -> int:
    """Write the results of an output file as CSV (atomically); returns the row count.
    ``prompts`` (custom_id → prompt text) fills the prompt column."""
    prompts = prompts or {}
    results = [BatchResult.from_openai(o, prompts.get(o["custom_id"], "")) for o in iter_output(Path(output_jsonl))]
    atomic_write_text(Path(csv_path), results_to_csv_text(results))
    return len(results)
