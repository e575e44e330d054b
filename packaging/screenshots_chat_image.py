"""``chat-image.png`` for ``packaging/screenshots.py`` (``--only chat-image``): the Chat tab with a
picture sent to a vision model, drawn by the real window on the real CPU engine.

The model is the tests' tiny random-weight vision fixture (``tests/fixtures/vision.py``: a real
processor and tokenizer configuration, a vision tower a few layers deep), so its words are noise:
the shot shows the picture's path through the chat (the thumbnail in the transcript under the
message, the answer and its figures, a second picture waiting in the box above the message being
written), not a model's sight. Before it is saved the script checks that the picture reached the
model: the answer's prompt counts more tokens than the same question without it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

Spin = Callable[..., bool]
Save = Callable[[Any, Path], int]

VISION_MODEL = "tiny-vision-random"
QUESTION = "What is in this picture?"


def scene(path: Path, sun: tuple[int, int, int] = (255, 204, 51), hills: tuple[int, int, int] = (76, 153, 76)) -> Path:
    """A small drawn landscape (sky, sun, two hills) as the picture sent."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (480, 320))
    draw = ImageDraw.Draw(image)
    for y in range(320):  # the sky, lighter towards the horizon
        draw.line([(0, y), (480, y)], fill=(90 + y // 4, 150 + y // 5, 235))
    draw.ellipse((340, 40, 420, 120), fill=sun)
    draw.polygon([(0, 320), (0, 220), (140, 150), (300, 240), (300, 320)], fill=hills)
    darker = tuple(int(c * 0.75) for c in hills)
    draw.polygon([(160, 320), (330, 180), (480, 250), (480, 320)], fill=darker)
    image.save(path)
    return path


def image_shot(window: Any, ctx: Any, spin: Spin, save: Save, work: Path, out: Path) -> None:
    """``chat-image.png``: the vision fixture answering a message that carried a picture."""
    from console.engine.types import GenerationRequest
    from screenshots_first_run import load_fixture
    from tests.fixtures.vision import make_vision

    load_fixture(window, ctx, spin, make_vision(work / VISION_MODEL), VISION_MODEL, 1024)
    chat = window.chat
    window.tabs.setCurrentWidget(chat)
    chat.new_conversation()
    chat.temperature.setValue(0.0)
    chat.max_tokens.setValue(24)

    def attach(path: Path) -> None:
        chat.images.attach_files([str(path)])
        if not spin(60, lambda: chat.images.loading == 0) or not chat.image_strip.attachments():
            raise SystemExit(f"the picture was not attached: {chat.error_label.text()}")

    attach(scene(work / "hills.png"))
    chat.input.setPlainText(QUESTION)
    if not chat.send():
        raise SystemExit(f"chat refused to send: {chat.error_label.text()}")
    # Send saves the picture in a worker first (console/ui/chat/send.py), then the answer streams
    spin(300, lambda: not chat.saving.busy and chat.active_id is None and len(chat.messages) >= 2)
    question, answer = chat.messages[-2:]
    if not question.images or answer.role != "assistant" or answer.prompt_tokens is None:
        raise SystemExit(f"the picture did not go with the message: {chat.error_label.text()}")
    text_only = ctx.engine.count_prompt_tokens(GenerationRequest(messages=[{"role": "user", "content": QUESTION}]))
    if answer.prompt_tokens <= text_only:
        raise SystemExit(f"the prompt counts no picture: {answer.prompt_tokens} tokens, {text_only} without it")
    print(f"prompt: {answer.prompt_tokens} tokens ({text_only} without the picture)", flush=True)
    attach(scene(work / "dusk.png", sun=(255, 120, 60), hills=(60, 110, 140)))  # the next one, waiting
    chat.input.setPlainText("And this one?")
    spin(60, lambda: chat.transcript.thumbnails.pending() == 0)
    spin(0.8)
    if "chatimage:" not in chat.transcript.toHtml():
        raise SystemExit("the transcript shows no picture")
    image = window.grab().toImage()
    print(
        f"{out / 'chat-image.png'}: {image.width()}x{image.height()}, {save(image, out / 'chat-image.png') // 1024} KB"
    )
