"""The remote engine's reading of ``file://`` pictures (``console/engine/remote_media.py``) by vLLM's
own allowed-folder rule, and a text-only server's refusal read as the console's. No engine: the
rule is vLLM's ``MediaConnector``, the pictures are files in a temporary folder (the server side is
tests/test_remote_vision.py's)."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest

from console.engine.remote_media import MediaRefused, inline_local_images, text_only_refusal
from tests.fixtures.vision import image_part, png_bytes, png_data_url, text_part


def _ask(*parts: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"role": "system", "content": "Be brief."}, {"role": "user", "content": list(parts)}]


def test_files_under_the_folder_go_as_data_urls_and_the_rest_as_written(tmp_path: Path) -> None:
    (tmp_path / "pics").mkdir()
    red = tmp_path / "pics" / "red.png"
    red.write_bytes(png_bytes(20, 10))
    messages = _ask(
        image_part(red.as_uri()), image_part(png_data_url(8, 8)), image_part("https://x/y.png"), text_part("?")
    )
    sent = inline_local_images(messages, str(tmp_path / "pics"))
    url = sent[1]["content"][0]["image_url"]["url"]
    assert url.startswith("data:image/png;base64,") and base64.b64decode(url.split(",", 1)[1]) == red.read_bytes()
    assert sent[1]["content"][1:] == messages[1]["content"][1:] and sent[0] == messages[0]
    assert messages[1]["content"][0]["image_url"]["url"] == red.as_uri()  # the caller's request is unchanged
    plain = _ask(image_part(png_data_url(8, 8)), text_part("?"))
    assert inline_local_images(plain, None) is plain  # nothing to read: the same messages


def test_files_elsewhere_are_refused_in_vllms_words(tmp_path: Path) -> None:
    folder = tmp_path / "pics"
    folder.mkdir()
    outside = tmp_path / "secret.png"
    outside.write_bytes(png_bytes(4, 4))
    (folder / "link.png").symlink_to(outside)  # a link out of the folder is outside too (resolved)
    rule = f"must be a subpath of `--allowed-local-media-path {folder.resolve()}`."
    for path in (outside, folder / ".." / "secret.png", folder / "link.png"):
        with pytest.raises(MediaRefused) as refused:
            inline_local_images(_ask(image_part(path.as_uri())), str(folder))
        assert str(refused.value) == f"The file path {path} {rule}", path
    with pytest.raises(MediaRefused, match="must be a subpath"):  # the other spellings of a file URL
        inline_local_images(_ask(image_part("FILE:" + str(outside))), str(folder))
    with pytest.raises(MediaRefused, match=r"^Cannot load local files without `--allowed-local-media-path`\.$"):
        inline_local_images(_ask(image_part((folder / "link.png").as_uri())), None)
    with pytest.raises(MediaRefused, match="No such file"):
        inline_local_images(_ask(image_part((folder / "gone.png").as_uri())), str(folder))


def test_a_text_only_servers_refusal_reads_as_the_consoles() -> None:
    with_picture = _ask(image_part(png_data_url(8, 8)), text_part("?"))
    said = "tiny is not a multimodal model"
    assert text_only_refusal(said, with_picture, "tiny") == (
        "tiny does not take images: load a vision model (such as Gemma 3 or Qwen2.5-VL) or remove the picture"
    )
    assert text_only_refusal(said, _ask(text_part("?")), "tiny") is None  # no picture: the server's words
    assert text_only_refusal("max_tokens is too large", with_picture, "tiny") is None
