"""Run a batch on an engine: bounded concurrency, progress, cancel, resume.

The API the CLI and the GUI call (from a worker thread; it blocks until the batch ends)::

    parsed = read_batch_file("in.jsonl", defaults=SamplingSettings(...))   # formats.py
    summary = run_batch(engine, parsed.requests, "out.jsonl", task,
                        concurrency=None, on_result=callback, on_progress=callback)

- ``concurrency``: at most that many requests in flight; None (the default) gives the engine every
  line at once, which it starts together (``Engine.submit_many``), as vLLM's offline batch does.
- ``engine`` is a loaded :class:`~console.engine.interface.Engine` (in-process, a console-launched
  server or a remote one); other users (chats) may share it.
- ``task`` (:class:`~console.jobs.TaskState`) receives progress (stage ``"batch"``, fraction
  done/total, a message with tok/s and ETA) and is polled for cancel. On cancel the requests in
  flight are aborted and not written, so a later run redoes them.
- ``on_result(BatchResult)`` is called on the calling thread after each line is on disk;
  ``on_progress(BatchProgress)`` after each completion with structured figures for a UI.
- Results are appended to ``output_path`` line by line and fsynced (see ``results.py``); with
  ``resume=True`` (default) custom_ids already in the file are skipped. An output that holds
  another input's results is refused before anything runs
  (:class:`~console.batch.provenance.ResumeMismatch`, see ``provenance.py``): resuming into it
  would pair this input's prompts with that input's answers, or mix the two files' lines.
- A request that fails on its own (prompt longer than the context, wrong model name) becomes an
  error line and the rest continue. An engine failure (engine unloaded, child process died, the
  server unreachable, restarted or its connection dropped) stops the batch: ``summary.engine_error``
  says why; unwritten requests are redone on resume.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Sequence

from console.batch.formats import BatchRequest
from console.batch.provenance import check_resume, request_digest
from console.batch.results import BatchResult, ResultWriter, completed_ids
from console.engine.choices import prompt_logprobs_json
from console.engine.interface import Engine
from console.engine.many import ManyRequests
from console.engine.types import EngineState, GenerationRequest, RequestFailed, RequestFinished, new_request_id
from console.jobs import TaskState

#: Requests in flight at once: None = every line at once, as vLLM's offline batch (``LLM.generate``,
#: ``run-batch``) does. The engine starts them in one step, so identical greedy lines answer alike
#: and throughput is the engine's (a window that feeds them one by one gives neither).
DEFAULT_CONCURRENCY: int | None = None


@dataclass(frozen=True)
class BatchProgress:
    done: int  # finished in this run (ok + failed)
    total: int  # to run in this run (resumed ones excluded)
    failed: int
    skipped: int  # already in the output file
    elapsed_s: float
    output_tokens: int
    tokens_per_s: float  # output tokens/s of this batch so far
    live_tokens_per_s: float  # engine-wide generation tokens/s over the last few seconds
    eta_s: float | None


@dataclass
class BatchSummary:
    total: int
    skipped: int = 0
    succeeded: int = 0
    failed: int = 0
    cancelled: bool = False
    engine_error: str | None = None
    elapsed_s: float = 0.0
    prompt_tokens: int = 0
    output_tokens: int = 0
    results: list[BatchResult] = field(default_factory=list)

    @property
    def not_run(self) -> int:
        return self.total - self.skipped - self.succeeded - self.failed

    @property
    def output_tokens_per_s(self) -> float:
        return self.output_tokens / self.elapsed_s if self.elapsed_s > 0 else 0.0

    @property
    def complete(self) -> bool:
        return self.not_run == 0


def _model_names(engine: Engine) -> set[str]:
    names: set[str] = set()
    status = engine.status
    if status.model:
        names.add(status.model)
    config = engine.config
    if config is not None:
        names.update(n for n in (config.served_model_name, config.model, Path(config.model).name) if n)
    return names


def _explain_failure(message: str, engine: Engine) -> tuple[str, str]:
    """(code, message) for a request that failed on its own."""
    if "maximum model length" in message or "max_model_len" in message or "context length" in message:
        config, info = engine.config, engine.status.info
        limit = info.max_model_len if info is not None else config.max_model_len if config is not None else None
        return (
            "context_length_exceeded",
            f"The prompt does not fit the model's context (max_model_len {limit}): shorten it, "
            f"or load the model with a larger max_model_len. Engine said: {message.splitlines()[0]}",
        )
    return "invalid_request", message


def run_batch(
    engine: Engine,
    requests: Sequence[BatchRequest],
    output_path: Path | str,
    task: TaskState | None = None,
    *,
    concurrency: int | None = DEFAULT_CONCURRENCY,
    on_result: Callable[[BatchResult], None] | None = None,
    on_progress: Callable[[BatchProgress], None] | None = None,
    resume: bool = True,
    model_name: str | None = None,
) -> BatchSummary:
    """Run ``requests`` on ``engine``; see the module docstring. Blocks until the batch ends."""
    if concurrency is not None and concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    task = task or TaskState()
    output_path = Path(output_path)
    summary = BatchSummary(total=len(requests))
    if resume:
        check_resume(output_path, requests)
    digests = {r.custom_id: request_digest(r) for r in requests}
    done_ids = completed_ids(output_path) if resume else set()
    todo = [r for r in requests if r.custom_id not in done_ids]
    summary.skipped = len(requests) - len(todo)
    to_run = len(todo)
    names = _model_names(engine) | ({model_name} if model_name else set())
    served = (
        model_name
        or (engine.config.served_model_name if engine.config is not None else None)
        or engine.status.model
        or ""
    )
    t0 = time.monotonic()

    def report() -> None:
        done = summary.succeeded + summary.failed
        elapsed = time.monotonic() - t0
        rate = done / elapsed if elapsed > 0 else 0.0
        eta = (to_run - done) / rate if rate > 0 and done < to_run else (0.0 if done >= to_run else None)
        tps = summary.output_tokens / elapsed if elapsed > 0 else 0.0
        live = engine.metrics.rate("generation_tokens", window_s=5.0)
        eta_text = "" if eta is None else f", ETA {eta:.0f}s"
        task.report(
            "batch",
            (done / to_run) if to_run else 1.0,
            f"{done}/{to_run} done ({summary.failed} failed), {tps:.1f} tok/s{eta_text}",
        )
        if on_progress is not None:
            on_progress(
                BatchProgress(
                    done, to_run, summary.failed, summary.skipped, elapsed, summary.output_tokens, tps, live, eta
                )
            )

    def record(writer: ResultWriter, result: BatchResult) -> None:
        result = replace(result, request_sha256=digests.get(result.custom_id))
        writer.write(result)  # on disk before it counts
        if result.ok:
            summary.succeeded += 1
        else:
            summary.failed += 1
        summary.prompt_tokens += result.prompt_tokens
        summary.output_tokens += result.output_tokens
        summary.results.append(result)
        if on_result is not None:
            on_result(result)
        report()

    def engine_gone(message: str | None) -> None:
        """The engine went away (unloaded, died): not the requests' fault; stop the batch."""
        summary.engine_error = (
            engine.status.error
            or message
            or ("The engine was unloaded during the batch; load the model and re-run to resume")
        )
        many.cancel()

    # A line's `model` names the base or one of its LoRA adapters, as with `vllm serve
    # --lora-modules`; requests for another model fail before reaching the engine.
    adapters = engine.adapters()
    wrong_model = [r for r in todo if r.model is not None and names and r.model not in names | set(adapters)]
    wrong_ids = {id(r) for r in wrong_model}
    to_send = [
        (
            r,
            GenerationRequest(
                messages=r.messages,
                prompt=r.prompt,
                prompt_token_ids=r.prompt_token_ids,
                sampling=r.sampling,
                request_id=new_request_id(),
                stream=False,
                openai_fields=r.openai_fields or None,
                adapter=r.model if r.model in adapters else None,
            ),
        )
        for r in todo
        if id(r) not in wrong_ids
    ]
    many = ManyRequests(engine, to_send, concurrency=concurrency, task=task)
    report()
    with ResultWriter(output_path, resume=resume) as writer:
        try:
            for req in wrong_model:
                record(
                    writer,
                    BatchResult(
                        req.custom_id,
                        req.line,
                        req.display_prompt,
                        ok=False,
                        error=f"The model `{req.model}` is not the loaded model or one of its "
                        f"adapters ({', '.join(sorted(names | set(adapters)))})",
                        error_code="model_not_found",
                    ),
                )
            for done in many:
                req, rid, event = done.key, done.request_id, done.event
                if isinstance(event, RequestFinished):
                    if event.finish_reason == "abort":
                        # Cancelled or stopped: not written, a resume redoes it.
                        if not many.cancelled and engine.status.state != EngineState.READY:
                            engine_gone(None)
                        continue
                    reasoning, text, calls, finish_reason = _answer(req, event)
                    record(
                        writer,
                        BatchResult(
                            req.custom_id,
                            req.line,
                            req.display_prompt,
                            ok=True,
                            text=text,
                            reasoning=reasoning,
                            tool_calls=calls,
                            finish_reason=finish_reason,
                            prompt_tokens=event.prompt_tokens,
                            output_tokens=event.output_tokens,
                            ttft_s=event.ttft_s,
                            latency_s=event.e2e_s,
                            model=req.model if req.model in adapters else served,
                            request_id=rid,
                            choices=tuple(replace(c, token_ids=()) for c in event.choices),  # results stay small
                            endpoint=req.endpoint,
                            top_logprobs=req.top_logprobs,
                            prompt_logprobs=prompt_logprobs_json(event.prompt_logprobs),
                        ),
                    )
                elif isinstance(event, RequestFailed):
                    if engine.status.state != EngineState.READY:
                        if summary.engine_error is None:
                            engine_gone(event.message)
                        continue
                    code, message = _explain_failure(event.message, engine)
                    record(
                        writer,
                        BatchResult(
                            req.custom_id,
                            req.line,
                            req.display_prompt,
                            ok=False,
                            error=message,
                            error_code=code,
                            model=served,
                            request_id=rid,
                        ),
                    )
            if many.submit_error is not None and summary.engine_error is None:
                summary.engine_error = str(many.submit_error)
            summary.cancelled = many.cancelled and summary.engine_error is None
        finally:
            summary.elapsed_s = time.monotonic() - t0
    if summary.engine_error and not summary.cancelled:
        task.report("batch", None, f"stopped: {summary.engine_error}")
    return summary


def _answer(req: BatchRequest, event: RequestFinished) -> tuple[str | None, str, tuple[dict[str, Any], ...], str]:
    """(reasoning, content, tool_calls, finish_reason) of a finished line, as vLLM's server writes
    them: the engine read the thinking and the calls off a chat answer (its family's parsers)."""
    if req.endpoint != "chat":
        return None, event.text, (), event.finish_reason
    calls = event.choices[0].tool_calls if event.choices else ()
    return event.reasoning, event.text, calls, event.finish_reason


__all__ = ["BatchProgress", "BatchSummary", "DEFAULT_CONCURRENCY", "run_batch"]
