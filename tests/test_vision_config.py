"""Which models take images, read from their config.json (console/engine/image_parts.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from console.engine.image_parts import takes_images


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ({"architectures": ["Gemma3ForConditionalGeneration"]}, True),
        ({"architectures": ["LlamaForCausalLM"], "vision_config": {"hidden_size": 8}}, True),
        ({"architectures": ["LlamaForCausalLM"]}, False),
        ({"architectures": ["Gemma3ForCausalLM"], "vision_config": None}, False),
    ],
)
def test_takes_images_reads_the_architecture_or_the_vision_config(
    tmp_path: Path, config: dict[str, object], expected: bool
) -> None:
    (tmp_path / "config.json").write_text(json.dumps(config))
    assert takes_images(tmp_path) is expected


def test_a_folder_without_a_readable_config_takes_no_images(tmp_path: Path) -> None:
    assert takes_images(tmp_path) is False
    (tmp_path / "config.json").write_text("not json")
    assert takes_images(tmp_path) is False
