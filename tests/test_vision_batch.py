"""Images in chat requests and batch lines, against vLLM's own OpenAI serving code.

The console's side runs on the session's vision engine (``vision_engine``: the tiny Idefics3 of
``tests/fixtures/vision.py``, ``file://`` images allowed from ``vision_media``). vLLM's side is its
own ``run_batch`` module (the ``OpenAIServingChat`` a ``vllm serve`` runs, started as a child with
the same folder, dtype, eager mode, context, KV size and allowed folder): one child answers every
line, which costs one engine start instead of a server's. Its ``return_token_ids`` answer gives
the prompt's token ids as the server built them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from vllm_run_batch import bodies

from console.batch.formats import read_batch_file
from console.batch.runner import run_batch
from console.sampling import SamplingSettings
from console.engine.types import GenerationRequest, RequestFailed, RequestFinished
from tests.fixtures.vision import IMAGE_TOKEN, image_part, png_bytes, text_part

# With the other tests of vision_batch_reference (tests/xdist_groups.py), this module's too: one worker.
pytestmark = [pytest.mark.engine, pytest.mark.xdist_group("vision-batch")]


@pytest.fixture(scope="module")
def both(
    vision_engine: Any, vision_model: Path, vision_batch_reference: Any, tmp_path_factory: pytest.TempPathFactory
) -> Any:
    """The vision batch file run by the console (in process) and by vLLM's run_batch
    (``vision_batch_reference``): (console bodies, vLLM bodies, the input file)."""
    inp, theirs = vision_batch_reference
    ours = tmp_path_factory.mktemp("vision-batch-console") / "console.jsonl"
    parsed = read_batch_file(inp, SamplingSettings(temperature=0.0))
    assert not parsed.errors, parsed.errors
    summary = run_batch(vision_engine, parsed.requests, ours, model_name=str(vision_model))
    assert summary.succeeded == len(parsed.requests) and not summary.engine_error, summary
    return bodies(ours), theirs, inp


def test_image_lines_give_vllm_run_batch_output(both: Any) -> None:
    """Data URLs, allowed local files and two pictures in one message: the same answers (greedy)
    and the same prompt sizes as vLLM's run-batch."""
    ours, theirs, _ = both
    assert set(ours) == set(theirs) == {"data", "file", "two", "text"}
    for cid in ours:
        a, b = ours[cid], theirs[cid]
        assert a["choices"][0]["message"]["content"] == b["choices"][0]["message"]["content"], cid
        assert a["usage"]["prompt_tokens"] == b["usage"]["prompt_tokens"], cid
    # the pictures are in the prompts: each image line is longer than its text alone could make it
    assert ours["two"]["usage"]["prompt_tokens"] > ours["data"]["usage"]["prompt_tokens"] > 20


def test_a_chat_picture_has_the_servers_prompt_token_ids(vision_engine: Any, both: Any) -> None:
    """A chat request with a picture (as the chat sends it) reaches the engine with the token ids
    vLLM's OpenAI serving path builds for the same request, its image tokens among them."""
    _, theirs, inp = both
    line = json.loads(inp.read_text(encoding="utf-8").splitlines()[0])
    request = GenerationRequest(
        messages=line["body"]["messages"], sampling=SamplingSettings(temperature=0.0, max_tokens=8)
    )
    final = vision_engine.generate(request, timeout=120)
    assert isinstance(final, RequestFinished), final
    assert list(final.prompt_token_ids) == theirs["data"]["prompt_token_ids"]
    image_id = vision_engine.tokenizer.convert_tokens_to_ids(IMAGE_TOKEN)
    assert final.prompt_token_ids.count(image_id) == 20  # 2x2 tiles + the global image, 4 tokens each
    assert vision_engine.count_prompt_tokens(request) == final.prompt_tokens  # the chat's context meter


def test_a_file_outside_the_allowed_folder_is_refused(vision_engine: Any, tmp_path: Path) -> None:
    """vLLM's own check of ``--allowed-local-media-path``: the request fails by itself, the engine
    answers the next one."""
    outside = tmp_path / "secret.png"
    outside.write_bytes(png_bytes(30, 30))
    request = GenerationRequest(
        messages=[{"role": "user", "content": [image_part(outside.as_uri()), text_part("?")]}],
        sampling=SamplingSettings(temperature=0.0, max_tokens=2),
    )
    failed = vision_engine.generate(request, timeout=120)
    assert isinstance(failed, RequestFailed), failed
    assert "allowed" in failed.message.lower() or "local" in failed.message.lower(), failed.message
    ok = vision_engine.generate(GenerationRequest(messages=[{"role": "user", "content": "hi"}]), timeout=120)
    assert isinstance(ok, RequestFinished)
