"""GGUF import: the bundled SmolLM2 converts, and the conversion answers on the real engine (the
session's SmolLM2 engine runs it); bad files are refused clearly; cancel leaves nothing behind."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import psutil
import pytest

from console.sampling import SamplingSettings
from console.jobs import Cancelled, Progress, TaskState
from console.models.importers import check_gguf, import_gguf
from console.models.inspect import ModelFormatError, inspect_checkpoint
from console.models.store import ModelStore
from console.models.bundled import bundled_gguf
from tests.conftest import SMOLLM2_MAX_LEN


@pytest.mark.e2e
def test_bundled_gguf_converts_to_a_checkpoint(smollm2_model: Path) -> None:
    info = inspect_checkpoint(smollm2_model)
    assert info.architecture == "LlamaForCausalLM"
    assert 130e6 < info.params < 140e6  # SmolLM2-135M
    assert info.quantization is None  # the GGUF marker must not survive: vLLM would refuse it
    cfg = json.loads((smollm2_model / "config.json").read_text())
    assert "quantization_config" not in cfg
    tok_cfg = (smollm2_model / "tokenizer_config.json").read_text() + (
        (smollm2_model / "chat_template.jinja").read_text() if (smollm2_model / "chat_template.jinja").exists() else ""
    )
    assert "im_start" in tok_cfg  # the chat template came along


@pytest.mark.e2e
def test_converted_smollm2_answers_through_vllm(smollm2_engine: Any) -> None:
    """The session's SmolLM2 engine runs the importer's conversion of the bundled GGUF
    (``smollm2_model``): loaded by the vLLM CPU engine, it answers."""
    from console.engine.types import GenerationRequest, RequestFinished

    info = smollm2_engine.status.info
    assert info.device == "cpu" and info.max_model_len == SMOLLM2_MAX_LEN
    ev = smollm2_engine.generate(
        GenerationRequest(
            messages=[{"role": "user", "content": "What is the capital of France?"}],
            sampling=SamplingSettings(temperature=0.0, max_tokens=24),
        ),
        timeout=120,
    )
    assert isinstance(ev, RequestFinished), ev
    assert "Paris" in ev.text


def test_check_gguf_reads_the_header() -> None:
    gguf = bundled_gguf()
    assert gguf is not None
    summary = check_gguf(gguf)
    assert summary.architecture == "llama" and summary.tensors == 272


def test_not_a_gguf_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "model.gguf"
    bad.write_bytes(b"PK\x03\x04" + os.urandom(1000))
    with pytest.raises(ModelFormatError, match="not a GGUF file"):
        check_gguf(bad)


def test_truncated_gguf_is_refused_and_store_untouched(tmp_path: Path) -> None:
    gguf = bundled_gguf()
    assert gguf is not None
    cut = tmp_path / "cut.gguf"
    with open(gguf, "rb") as fh:
        cut.write_bytes(fh.read(2 * 1024 * 1024))
    store = ModelStore(tmp_path / "store")
    with pytest.raises(ModelFormatError, match="corrupt or truncated"):
        import_gguf(store, cut, "cut")
    assert store.list() == []


def test_unsupported_architecture_is_refused(tmp_path: Path) -> None:
    import gguf
    import numpy as np

    path = tmp_path / "odd.gguf"
    w = gguf.GGUFWriter(str(path), "not-a-real-arch")
    w.add_tensor("x", np.zeros((4,), dtype=np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    with pytest.raises(ModelFormatError, match="not-a-real-arch.*cannot be converted"):
        check_gguf(path)


@pytest.mark.engine
def test_cancel_during_conversion_kills_the_worker_and_leaves_nothing(tmp_path: Path) -> None:
    gguf = bundled_gguf()
    assert gguf is not None
    store = ModelStore(tmp_path / "store")
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    stages: list[str] = []
    task: TaskState

    def on_progress(p: Progress) -> None:
        stages.append(p.stage)
        if p.stage.startswith("dequantizing"):
            task.cancel()

    task = TaskState(on_progress)
    with pytest.raises(Cancelled):
        import_gguf(store, gguf, "half", task)
    assert any(s.startswith("dequantizing") for s in stages)
    assert store.list() == []
    assert not (tmp_path / "store" / "half").exists()
    assert list((tmp_path / "store" / ".staging").iterdir()) == []
    alive = {p.pid for p in psutil.Process().children(recursive=True) if p.is_running()} - before
    assert not alive, f"conversion worker still running: {alive}"
