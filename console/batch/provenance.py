"""Which input a results file belongs to, so a resumed run never mixes two inputs' results.

Each result line records a digest of the request it answers (``metrics.request_sha256``: the
endpoint, the prompt or messages and the model the line asked for; not the sampling defaults a
window or a flag adds). Before a run appends to an existing output, :func:`check_resume` compares
that file with the requests about to run:

- a custom_id in the output that the input does not have means the output holds another input's
  results (appending would mix the two files' lines);
- a custom_id whose recorded digest differs from the input's request of that id means the input
  reuses the id for another prompt (skipping it would pair the new prompt with the old answer).

Either refuses the run before anything is generated (:class:`ResumeMismatch`). Lines without a
digest (``vllm run-batch``'s output, or the console's before it wrote one) are matched by
custom_id only. The record lives in the lines themselves, so it travels with the file and an
OpenAI or vLLM reader of the output sees one more metric and nothing else.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Sequence

from console.batch.formats import BatchRequest
from console.batch.results import iter_output
from console.messages import Message, MessageError


def request_digest(req: BatchRequest) -> str:
    """A short digest of what ``req`` asks (the same request in another run gives the same one)."""
    what = {
        "endpoint": req.endpoint,
        "messages": req.messages,
        "prompt": req.prompt,
        "prompt_token_ids": req.prompt_token_ids,
        "model": req.model,
    }
    text = json.dumps(what, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


class ResumeMismatch(MessageError):
    """The output file holds results of other requests than the ones about to run."""


def check_resume(output: Path | str, requests: Sequence[BatchRequest]) -> None:
    """Raise :class:`ResumeMismatch` when appending ``requests``' results to ``output`` would mix
    them with another input's results; return quietly when the output is absent, empty or ours."""
    output = Path(output)
    digests = {r.custom_id: request_digest(r) for r in requests}
    for obj in iter_output(output):
        cid = obj["custom_id"]
        if cid not in digests:
            raise ResumeMismatch(
                Message(
                    "{0} holds results of another input (its request {1} is not in this one): "
                    "choose another output file, or turn resuming off to overwrite it",
                    output.name,
                    cid,
                )
            )
        recorded = (obj.get("metrics") or {}).get("request_sha256")
        if isinstance(recorded, str) and recorded != digests[cid]:
            raise ResumeMismatch(
                Message(
                    "{0} holds results of another input (request {1} there asked something else): "
                    "choose another output file, or turn resuming off to overwrite it",
                    output.name,
                    cid,
                )
            )


__all__ = ["ResumeMismatch", "check_resume", "request_digest"]
