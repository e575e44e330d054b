"""Pictures through a remote engine, against vLLM's own run_batch.

A ``vllm serve`` on the tiny vision model (``tests/fixtures/vision.py``, started by the console's
ChildServer with ``vision_config`` but *no* allowed folder: like a server on another machine, it
cannot read this machine's files) is reached by a RemoteEngine that allows ``vision_media``, as
``--engine URL --allowed-local-media-path DIR`` builds it. The image batch lines of
tests/test_vision_batch.py then give the same answers and prompt sizes as vLLM's run_batch
(``vision_batch_reference``): data URLs pass as they are, ``file://`` pictures are read here and
sent as data URLs, a file outside the folder fails alone with vLLM's own refusal. A chat turn with
a picture (the terminal chat's ``--image``) carries its tokens in the prompt.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pytest

from console.cli.main import main
from console.sampling import SamplingSettings
from console.engine.factory import make_engine, parse_engine_choice
from console.engine.remote import RemoteEngine
from console.engine.types import GenerationRequest, RequestFailed, RequestFinished
from tests.conftest import start_vllm_server
from tests.fixtures.vision import chat_line, image_part, png_bytes, processor_image_tokens, text_part
from tests.vision_session import vision_config

# With the other tests held to vision_batch_reference (tests/xdist_groups.py): one worker runs it once.
pytestmark = [pytest.mark.engine, pytest.mark.xdist_group("vision-batch")]


@pytest.fixture(scope="module")
def server(vision_model: Path) -> Iterator[Any]:
    served = start_vllm_server(vision_config(vision_model, None), "tiny-vision")
    yield served
    served.close()


@pytest.fixture(scope="module")
def remote(server: Any, vision_media: Path) -> Iterator[RemoteEngine]:
    engine = make_engine(parse_engine_choice(server.url), media_folder=str(vision_media))
    assert isinstance(engine, RemoteEngine)
    engine.connect().result(timeout=60)
    yield engine
    engine.close()


def test_image_lines_through_a_server_give_vllm_run_batch_output(
    server: Any,
    vision_media: Path,
    vision_batch_reference: Any,
    tmp_path: Path,
    home: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``batch --engine URL --allowed-local-media-path DIR`` on the vision lines plus one naming a
    file outside DIR: every vision line answers as vLLM's run_batch does (greedy text, prompt
    tokens), the outside one fails alone with vLLM's own words, the batch goes on."""
    inp, theirs = vision_batch_reference
    outside = tmp_path / "elsewhere" / "secret.png"
    outside.parent.mkdir()
    outside.write_bytes(png_bytes(30, 30))
    lines = inp.read_text(encoding="utf-8") + json.dumps(
        chat_line("outside", [image_part(outside.as_uri()), text_part("?")])
    )
    (tmp_path / "in.jsonl").write_text(lines + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    argv = ["batch", "-i", str(tmp_path / "in.jsonl"), "-o", str(out), "--engine", server.url, "--json"]
    rc = main([*argv, "--allowed-local-media-path", str(vision_media)])
    captured = capsys.readouterr()
    summary = json.loads(captured.out)
    assert rc == 1 and (summary["succeeded"], summary["failed"]) == (4, 1), captured.err[-3000:]
    rows = {r["custom_id"]: r for r in map(json.loads, filter(None, out.read_text(encoding="utf-8").split("\n")))}
    for cid, body in theirs.items():
        ours = rows[cid]["response"]["body"]
        assert ours["choices"][0]["message"]["content"] == body["choices"][0]["message"]["content"], cid
        assert ours["usage"]["prompt_tokens"] == body["usage"]["prompt_tokens"], cid
    assert (
        rows["two"]["response"]["body"]["usage"]["prompt_tokens"]
        > rows["text"]["response"]["body"]["usage"]["prompt_tokens"]
    )
    assert rows["outside"]["error"]["message"] == (
        f"The file path {outside} must be a subpath of `--allowed-local-media-path {vision_media.resolve()}`."
    )


def test_without_an_allowed_folder_a_file_is_refused_as_vllm_does(server: Any, vision_media: Path) -> None:
    """No folder allowed: a ``file://`` picture is refused with vLLM's own sentence (what the
    in-process engine says without ``--allowed-local-media-path``), the engine answers the next."""
    engine = RemoteEngine(server.url)
    try:
        engine.connect().result(timeout=60)
        content = [image_part((vision_media / "red.png").as_uri()), text_part("?")]
        sampling = SamplingSettings(temperature=0.0, max_tokens=2)
        failed = engine.generate(
            GenerationRequest(messages=[{"role": "user", "content": content}], sampling=sampling), timeout=60
        )
        assert isinstance(failed, RequestFailed), failed
        assert failed.message == "Cannot load local files without `--allowed-local-media-path`."
        ok = engine.generate(GenerationRequest(messages=[{"role": "user", "content": "hi"}], sampling=sampling), 60)
        assert isinstance(ok, RequestFinished), ok
    finally:
        engine.close()


def test_a_chat_picture_reaches_the_servers_model(
    remote: RemoteEngine,
    server: Any,
    vision_model: Path,
    vision_media: Path,
    vision_batch_reference: Any,
    home: Path,
    tmp_path: Path,
) -> None:
    """The terminal chat's ``--image`` through ``--engine URL``: the turn's prompt holds the
    picture's tokens, as many as vLLM's run_batch counts for the same message; the context meter
    (the server's ``/tokenize``) counts the same, a ``file://`` picture read here included."""
    from console.chat.session import ChatSession
    from console.cli.chat import turn
    from console.cli.chat_images import images_from_args
    from console.cli.main import build_parser
    from console.chat.conversations import ConversationStore

    _, theirs = vision_batch_reference
    (tmp_path / "red.png").write_bytes(png_bytes(100, 80))  # the "data" line's picture
    args = build_parser().parse_args(["chat", "--engine", server.url, "--image", str(tmp_path / "red.png")])
    session = ChatSession(ConversationStore())
    turn(
        remote,
        session,
        SamplingSettings(temperature=0.0, max_tokens=4),
        "What is in this picture?",
        images=images_from_args(args),
    )
    question, answer = session.messages
    assert [i.name for i in question.images] == ["red.png"]
    assert answer.prompt_tokens == theirs["data"]["usage"]["prompt_tokens"]
    text_only = remote.count_prompt_tokens(
        GenerationRequest(messages=[{"role": "user", "content": "What is in this picture?"}])
    )
    assert answer.prompt_tokens > text_only + processor_image_tokens(vision_model, png_bytes(100, 80))
    file_line = next(
        x
        for x in map(json.loads, filter(None, vision_batch_reference[0].read_text().split("\n")))
        if x["custom_id"] == "file"
    )
    counted = remote.count_prompt_tokens(GenerationRequest(messages=file_line["body"]["messages"]))
    assert counted == theirs["file"]["usage"]["prompt_tokens"]
