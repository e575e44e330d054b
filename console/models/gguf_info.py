"""What a GGUF becomes in the console, before anything is downloaded or converted.

vLLM serves safetensors checkpoints, so an imported GGUF is dequantized to 16-bit weights
(``console.models.importers``): a 4.9 GB Q4_K_M file of an 8B model becomes about 16 GB on disk
and in GPU memory. This module reads a GGUF header (the metadata and the tensor list: a few MB at
the start of the file, so a remote file is read with HTTP ``Range`` requests) for the parameter
count and the model's shape, and offers the curated AWQ or FP8 checkpoint of the same model
instead (``console.models.curated``). Pure reading, no Qt, no torch.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from console.models.curated import CuratedModel, alternatives_for
from console.planner.shapes import ModelShape, ShapeError
from console.planner.shape_lookup import known_shape

GGUF_MAGIC = b"GGUF"
#: Bytes per parameter after the conversion (bf16).
CONVERTED_BYTES_PER_PARAM = 2
#: How much of a remote file is read for its header, growing until the tensor list is complete.
HEADER_READS = (2 * 1024**2, 16 * 1024**2, 64 * 1024**2)

_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}


class GgufError(ValueError):
    """Not a GGUF, or a header the reader cannot follow; the message is for the user."""


class IncompleteHeader(GgufError):
    """The bytes end before the tensor list does: read more of the file."""


@dataclass(frozen=True)
class GgufHeader:
    version: int
    metadata: dict[str, Any]  # scalars and strings; arrays as their length (``tokenizer.ggml.tokens`` -> 151936)
    tensor_count: int
    params: int  # elements of all tensors
    tied_embeddings: bool = False  # no separate output.weight: the embeddings are the LM head

    @property
    def architecture(self) -> str:
        return str(self.metadata.get("general.architecture", ""))

    @property
    def name(self) -> str:
        return str(self.metadata.get("general.name") or self.metadata.get("general.basename") or "")

    @property
    def split_count(self) -> int:
        """How many files the model is split into (llama.cpp's gguf-split); the tensors counted in
        ``params`` are this file's only when more than one."""
        return int(self.metadata.get("split.count") or 1)

    @property
    def model_params(self) -> int | None:
        """The whole model's parameter count, when this file holds all of it."""
        return self.params if self.split_count <= 1 else None

    def arch_value(self, key: str) -> Any:
        return self.metadata.get(f"{self.architecture}.{key}")


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise IncompleteHeader("the GGUF header goes on past the bytes read")
        chunk = self.data[self.pos : self.pos + n]
        self.pos += n
        return chunk

    def unpack(self, fmt: str) -> Any:
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]

    def string(self) -> str:
        return self.take(self.unpack("<Q")).decode("utf-8", "replace")

    def value(self, kind: int) -> Any:
        if kind in _SCALARS:
            return self.unpack(_SCALARS[kind])
        if kind == 8:
            return self.string()
        if kind == 9:
            item, count = self.unpack("<I"), self.unpack("<Q")
            if item in _SCALARS:
                self.take(count * struct.calcsize(_SCALARS[item]))
            else:
                for _ in range(count):
                    self.value(item)
            return count  # arrays (vocabularies, merges) are kept as their length only
        raise GgufError(f"unknown GGUF value type {kind}")


def read_gguf_header(data: bytes) -> GgufHeader:
    """The header of a GGUF file from its first bytes (raises :class:`IncompleteHeader` when
    they end before the tensor list does)."""
    r = _Reader(data)
    if r.take(4) != GGUF_MAGIC:
        raise GgufError("not a GGUF file (wrong magic bytes)")
    version = r.unpack("<I")
    if version < 2:
        raise GgufError(f"GGUF version {version} is too old to read (convert it with a current llama.cpp)")
    tensors, kv_count = r.unpack("<Q"), r.unpack("<Q")
    metadata: dict[str, Any] = {}
    for _ in range(kv_count):
        key = r.string()
        metadata[key] = r.value(r.unpack("<I"))
    params, output = 0, False
    for _ in range(tensors):
        output = r.string() == "output.weight" or output
        dims = [r.unpack("<Q") for _ in range(r.unpack("<I"))]
        r.unpack("<I")  # the tensor's type
        r.unpack("<Q")  # its offset
        params += math.prod(dims)
    return GgufHeader(version, metadata, tensors, params, not output)


def read_gguf_file(path: Path) -> GgufHeader:
    """The header of a local GGUF file, read in growing pieces (never the whole file)."""
    with open(path, "rb") as fh:
        for size in HEADER_READS:
            fh.seek(0)
            try:
                return read_gguf_header(fh.read(size))
            except IncompleteHeader:
                continue
    raise GgufError(f"{Path(path).name}: the header is larger than {HEADER_READS[-1] // 1024**2} MiB or cut short")


def read_gguf_remote(fetch_range: Callable[[int], bytes]) -> GgufHeader:
    """The header of a remote GGUF, ``fetch_range(n)`` giving its first ``n`` bytes."""
    for size in HEADER_READS:
        data = fetch_range(size)
        try:
            return read_gguf_header(data)
        except IncompleteHeader:
            if len(data) < size:  # the whole file was read: it is cut short
                raise
    raise GgufError(f"the GGUF header is larger than {HEADER_READS[-1] // 1024**2} MiB")


def shape_from_gguf(header: GgufHeader, name: str = "") -> ModelShape:
    """The planner's shape from a GGUF's metadata (as 16-bit weights: what the conversion makes)."""
    a = header.arch_value
    try:
        hidden, heads, layers = int(a("embedding_length")), int(a("attention.head_count")), int(a("block_count"))
    except (TypeError, ValueError) as exc:
        raise ShapeError(f"the GGUF of {name or 'the model'} does not give its layers and widths") from exc
    vocab = int(header.metadata.get("tokenizer.ggml.tokens") or a("vocab_size") or 0)
    experts = int(a("expert_count") or 0)
    inter = int(a("expert_feed_forward_length") or a("feed_forward_length") or 4 * hidden)
    return ModelShape(
        layers=layers,
        hidden_size=hidden,
        num_attention_heads=heads,
        num_kv_heads=int(a("attention.head_count_kv") or heads),
        head_dim=int(a("attention.key_length") or hidden // heads),
        intermediate_size=inter,
        vocab_size=vocab,
        max_position_embeddings=int(a("context_length") or 2048),
        tie_word_embeddings=header.tied_embeddings,
        params=header.model_params or 0,  # 0: computed from the widths (one file of a split model)
        name=name or header.name,
        num_experts=experts,
        experts_per_token=int(a("expert_used_count") or 0) if experts else 0,
        moe_intermediate_size=inter if experts else 0,
        extra={"model_type": header.architecture, "from": "gguf"},
    )


@dataclass(frozen=True)
class GgufAdvice:
    """A GGUF's size before and after the conversion, and what to take instead."""

    file_bytes: int | None
    params: int | None
    alternatives: list[CuratedModel] = field(default_factory=list)

    @property
    def converted_bytes(self) -> int | None:
        return self.params * CONVERTED_BYTES_PER_PARAM if self.params else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "file_bytes": self.file_bytes,
            "params": self.params,
            "converted_bytes": self.converted_bytes,
            "alternatives": [a.repo for a in self.alternatives],
        }


def gguf_advice(
    file_bytes: int | None, params: int | None, names: list[str], models: list[CuratedModel] | None = None
) -> GgufAdvice:
    """Advice for a GGUF of ``params`` parameters whose repository or model is called one of
    ``names``: the curated checkpoints of the same shape (by name), else of the same size."""
    shape = known_shape(*names, loose=True)
    return GgufAdvice(file_bytes, params, alternatives_for(shape.name if shape else None, params, models))


def gguf_names(repo: str, header: GgufHeader | None = None) -> list[str]:
    """Names to match a GGUF by: its model's name and base name, then the repository's name
    without "-GGUF"."""
    base = repo.rstrip("/").split("/")[-1]
    trimmed = base[:-5] if base.lower().endswith("-gguf") else base
    found = [str(header.metadata.get(k) or "") for k in ("general.basename", "general.name")] if header else []
    if header and header.metadata.get("general.size_label") and found[0]:
        found.insert(0, f"{found[0]}-{header.metadata['general.size_label']}")
    return [n for n in [*found, trimmed, base] if n]


__all__ = [
    "CONVERTED_BYTES_PER_PARAM",
    "GgufAdvice",
    "GgufError",
    "GgufHeader",
    "IncompleteHeader",
    "gguf_advice",
    "gguf_names",
    "read_gguf_file",
    "read_gguf_header",
    "read_gguf_remote",
    "shape_from_gguf",
]
