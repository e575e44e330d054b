"""A picture in a chat request reaches the model through vLLM's own multimodal processing, on the
tiny vision fixture (``vision_engine``, ``tests/fixtures/vision.py``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from console.sampling import SamplingSettings
from console.engine.types import GenerationRequest, RequestFinished
from tests.fixtures.vision import IMAGE_TOKEN, png_bytes, png_data_url, processor_image_tokens

pytestmark = pytest.mark.engine


def _image_request(url: str, text: str = "What is in this picture?", n: int = 4) -> GenerationRequest:
    return GenerationRequest(
        messages=[
            {
                "role": "user",
                "content": [{"type": "image_url", "image_url": {"url": url}}, {"type": "text", "text": text}],
            }
        ],
        sampling=SamplingSettings(temperature=0.0, max_tokens=n, ignore_eos=True),
    )


def test_a_picture_reaches_the_model(vision_engine: Any, vision_model: Path) -> None:
    final = vision_engine.generate(_image_request(png_data_url(100, 80)), timeout=120)
    assert isinstance(final, RequestFinished), final
    image_id = vision_engine.tokenizer.convert_tokens_to_ids(IMAGE_TOKEN)
    assert final.prompt_token_ids.count(image_id) == processor_image_tokens(vision_model, png_bytes(100, 80)) == 20
