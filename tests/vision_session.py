"""The session's vision fixtures (imported by conftest.py): the tiny Idefics3 checkpoint
(``tests/fixtures/vision.py``), a folder of pictures, the in-process engine on them and vLLM's own
run_batch on the vision batch lines, the reference both the in-process and the remote image
batches are held to."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest

#: KV cache of the vision fixture's engine (short prompts, a few images each).
VISION_KV_BYTES = 32 * 1024**2
VISION_MAX_LEN = 1024


@pytest.fixture(scope="session")
def vision_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny random-weight vision-language checkpoint (``tests/fixtures/vision.py``: Idefics3,
    a 3-layer vision tower, a real processor and tokenizer configuration), built once per session."""
    from tests.fixtures.vision import make_vision

    return make_vision(tmp_path_factory.mktemp("vision") / "tiny-vision")


@pytest.fixture(scope="session")
def vision_media(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder ``vision_engine`` allows ``file://`` images from (``allowed_local_media_path``),
    holding ``red.png`` (100x80) and ``wide.png`` (300x100)."""
    from tests.fixtures.vision import png_bytes

    folder = tmp_path_factory.mktemp("vision-media")
    (folder / "red.png").write_bytes(png_bytes(100, 80))
    (folder / "wide.png").write_bytes(png_bytes(300, 100, (20, 90, 200)))
    return folder


def vision_config(model: Path, media: Path | None) -> Any:
    """The vision engines' configuration: VISION_KV_BYTES of KV, VISION_MAX_LEN, ``file://``
    images allowed from ``media`` (None: none)."""
    from console.config import EngineConfig

    return EngineConfig(
        model=str(model),
        kv_cache_memory_bytes=VISION_KV_BYTES,
        max_model_len=VISION_MAX_LEN,
        device="cpu",
        allowed_local_media_path=str(media) if media is not None else None,
    )


@pytest.fixture(scope="session")
def vision_engine(vision_model: Path, vision_media: Path) -> Iterator["object"]:
    """One in-process CPU engine on ``vision_model``, shared by every vision test (engine-marked):
    ``vision_config`` with ``file://`` images allowed from ``vision_media``, its prefix cache reset
    before each test (as ``tiny_engine``'s); none may load another model into it."""
    from console.engine.in_process import InProcessEngine

    engine = InProcessEngine()
    engine.load(vision_config(vision_model, vision_media), "tiny-vision").result(timeout=900)
    yield engine
    engine.close()


@pytest.fixture(scope="session")
def vision_batch_reference(
    vision_model: Path, vision_media: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, dict[str, dict[str, Any]]]:
    """(the file of ``tests/fixtures/vision.py``'s ``vision_lines``, vLLM's own run_batch's answer
    bodies to it by custom_id): the reference the console's image batches are held to, in process
    (tests/test_vision_batch.py) and through a server (tests/test_remote_vision.py). run_batch runs
    with ``vision_config``'s settings (the dtype the console's engines resolve "auto" to here) and
    the same allowed folder."""
    import json

    from console.engine.prepare import prepare_config
    from tests.fixtures.vision import vision_lines
    from vllm_run_batch import bodies, run_vllm_batch

    folder = tmp_path_factory.mktemp("vision-batch")
    inp, out = folder / "in.jsonl", folder / "vllm.jsonl"
    inp.write_text("".join(json.dumps(x) + "\n" for x in vision_lines(vision_media)), encoding="utf-8")
    config, _ = prepare_config(vision_config(vision_model, vision_media))
    run_vllm_batch(
        inp,
        out,
        vision_model,
        config.dtype,
        VISION_MAX_LEN,
        VISION_KV_BYTES,
        folder,
        "--allowed-local-media-path",
        str(vision_media),
    )
    return inp, bodies(out)
