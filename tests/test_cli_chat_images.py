"""``inference-console chat --image FILE``: a file that is not a picture, and a picture for a
text-only model of the store, are refused in one line before any engine starts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from console.cli.main import main
from console.models.store import ModelStore


def test_a_text_only_model_refuses_an_image_before_it_loads(
    home: Path, tiny_model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ModelStore().add_reference("tiny", tiny_model)
    Image.new("RGB", (8, 8), "red").save(tmp_path / "red.png")
    rc = main(["chat", "--model", "tiny", "--image", str(tmp_path / "red.png"), "What is this?"])
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert rc == 2 and len(lines) == 1 and "tiny does not take images" in lines[0], err
    assert "[engine]" not in err

    (tmp_path / "notes.png").write_text("words")
    rc = main(["chat", "--model", "tiny", "--image", str(tmp_path / "notes.png"), "hi"])
    err = capsys.readouterr().err
    assert rc == 2 and "notes.png is not a picture the chat can read" in err and "[engine]" not in err


@pytest.mark.engine
def test_the_terminal_chat_sends_the_pictures_with_the_first_message(
    vision_engine: Any, vision_model: Path, home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``chat --image`` on a vision model: the flags pass its check (the store's model takes
    images), and the terminal chat's first turn carries the picture to the model (its tokens in
    the prompt) and saves it with the message; the next turn carries none of its own."""
    from console.chat.session import ChatSession
    from console.cli.chat import turn
    from console.cli.chat_images import images_from_args
    from console.cli.main import build_parser
    from console.sampling import SamplingSettings
    from console.chat.conversations import ConversationStore
    from console.engine.types import GenerationRequest
    from tests.fixtures.vision import png_bytes, processor_image_tokens

    (tmp_path / "red.png").write_bytes(png_bytes(100, 80))
    ModelStore().add_reference("vision", vision_model)
    args = build_parser().parse_args(["chat", "--model", "vision", "--image", str(tmp_path / "red.png")])
    images = images_from_args(args)
    assert [i.name for i in images] == ["red.png"]

    session = ChatSession(ConversationStore())
    sampling = SamplingSettings(temperature=0.0, max_tokens=4)
    turn(vision_engine, session, sampling, "What is in this picture?", images=images)
    turn(vision_engine, session, sampling, "And now?")
    first, answer, second, _ = session.messages
    assert [i.name for i in first.images] == ["red.png"] and second.images == ()
    text_only = vision_engine.count_prompt_tokens(
        GenerationRequest(messages=[{"role": "user", "content": "What is in this picture?"}])
    )
    assert answer.prompt_tokens is not None
    assert answer.prompt_tokens > text_only + processor_image_tokens(vision_model, png_bytes(100, 80))
    assert "picture" not in capsys.readouterr().err.lower()  # nothing refused
