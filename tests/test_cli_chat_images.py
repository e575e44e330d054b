"""``inference-console chat --image FILE``: a file that is not a picture, and a picture for a
text-only model of the store, are refused in one line before any engine starts."""

from __future__ import annotations

from pathlib import Path

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
