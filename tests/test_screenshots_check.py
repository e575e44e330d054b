"""packaging/screenshots.py refuses a chat screenshot whose answer is wrong (the headline
chat.png showed "L'Étoile, le Pont d'Aix..." for the capital question). No engine: the check is fed
answers directly; the script's run calls it before each chat screenshot is saved."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "packaging" / "screenshots.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("screenshots_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_wrong_capital_answer_is_refused_with_a_clear_reason() -> None:
    shots = _script()
    wrong = "L'Étoile, le Pont d'Aix. la bibliotéraire, la cité, le mort, les meurtres."
    reason = shots.wrong_answer(shots.CAPITAL_QUESTION, wrong)
    assert reason is not None and "Paris" in reason and "L'Étoile" in reason and "\n" not in reason
    with pytest.raises(SystemExit) as exc:
        shots.check_answer(shots.CAPITAL_QUESTION, wrong)
    assert exc.value.code == reason  # a string code: Python prints it and exits with status 1
    with pytest.raises(SystemExit):
        shots.check_answer(shots.CAPITAL_QUESTION, "")  # nothing answered is wrong too


def test_a_right_answer_passes() -> None:
    shots = _script()
    assert shots.wrong_answer(shots.CAPITAL_QUESTION, "The capital of France is Paris.") is None
    assert (
        shots.wrong_answer(
            "Give the capital of France as JSON with city and country.", '{ "city": "Paris", "country": "FRANCE" }'
        )
        is None
    )
    shots.check_answer(shots.CAPITAL_QUESTION, "paris")  # no exit
    assert shots.wrong_answer("Describe the sea in one sentence.", "anything") is None  # no known answer


def test_the_last_assistant_message_is_the_one_checked() -> None:
    shots = _script()
    chat = SimpleNamespace(
        messages=[
            SimpleNamespace(role="user", content="What is the capital of France?"),
            SimpleNamespace(role="assistant", content="Paris."),
            SimpleNamespace(role="user", content="again"),
            SimpleNamespace(role="assistant", content="L'Étoile"),
        ]
    )
    assert shots.last_answer(chat) == "L'Étoile"
    assert shots.last_answer(SimpleNamespace(messages=[])) == ""


def test_every_chat_screenshot_with_a_known_answer_is_checked_before_it_is_saved() -> None:
    text = SCRIPT.read_text(encoding="utf-8")
    # the capital question's shot: the check comes before chat.png is written
    body = text[text.index("def chat_and_batches") :]
    assert body.index("check_answer(CAPITAL_QUESTION") < body.index("'chat.png'")
    ask = text[text.index("    def ask(") :]
    assert ask.index("check_answer(question") < ask.index("save_small(")
    # and the tab loop never writes chat.png after the answer was replaced by later shots
    assert re.search(r'title (== "chat"|in \("chat", )', text)


def test_a_saved_screenshot_keeps_the_dark_themes_greys_apart(qapp: object, tmp_path: Path) -> None:
    """The palette PNG keeps the colours of the picture: the dark theme's window (#2b2b2b) and its
    text fields (#1e1e1e) stay two greys, the light theme's window (#efefef) stays off white, even
    with anti-aliased text (more than 256 colours) on them."""
    from PIL import Image
    from PySide6.QtCore import QRect, Qt
    from PySide6.QtGui import QColor, QFont, QImage, QPainter

    image = QImage(400, 200, QImage.Format.Format_RGB32)
    painter = QPainter(image)
    for i, colour in enumerate(("#2b2b2b", "#1e1e1e", "#efefef", "#ffffff")):
        painter.fillRect(QRect(i * 100, 0, 100, 200), QColor(colour))
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    for i in range(40):  # many hues of anti-aliased text
        painter.setPen(QColor.fromHsv(i * 9, 200, 120 + i * 3))
        painter.setFont(QFont("Sans", 7 + i % 9))
        painter.drawText(QRect((i * 37) % 380, (i * 23) % 180, 120, 20), Qt.AlignmentFlag.AlignLeft, "Paris 42")
    painter.end()
    path = tmp_path / "shot.png"
    _script().save_small(image, path)
    saved = Image.open(path)
    assert saved.mode == "P"  # a palette PNG (small)
    rgb = saved.convert("RGB")
    corners = [rgb.getpixel((i * 100 + 2, 198)) for i in range(4)]
    assert corners == [(0x2B,) * 3, (0x1E,) * 3, (0xEF,) * 3, (0xFF,) * 3], corners
