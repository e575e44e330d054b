"""Read what a Hugging Face checkpoint folder is without loading its weights.

Architecture, dtype, quantization and context length come from ``config.json``; the parameter
count comes from the safetensors headers (shapes only, a few KiB read per file).
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any


class ModelFormatError(ValueError):
    """A folder or file that is not a model the console can use; the message says why."""


@dataclass(frozen=True)
class CheckpointInfo:
    architecture: str
    model_type: str
    params: int
    dtype: str
    quantization: str | None
    max_context: int | None
    size_bytes: int
    config: dict[str, Any]


_DTYPE_BYTES = {
    "F64": 8,
    "F32": 4,
    "F16": 2,
    "BF16": 2,
    "I64": 8,
    "I32": 4,
    "I16": 2,
    "I8": 1,
    "U8": 1,
    "F8_E4M3": 1,
    "F8_E5M2": 1,
    "BOOL": 1,
}


def read_safetensors_header(path: Path) -> dict[str, Any]:
    with open(path, "rb") as fh:
        raw = fh.read(8)
        if len(raw) != 8:
            raise ModelFormatError(f"{path.name}: truncated safetensors file")
        (n,) = struct.unpack("<Q", raw)
        if n <= 0 or n > 100 * 1024 * 1024:
            raise ModelFormatError(f"{path.name}: not a safetensors file (header length {n})")
        try:
            header: dict[str, Any] = json.loads(fh.read(n))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ModelFormatError(f"{path.name}: corrupt safetensors header") from exc
    return header


def count_parameters(folder: Path) -> int:
    """Number of stored elements over all safetensors shards (packed int4 counts as stored)."""
    total = 0
    for shard in sorted(folder.glob("*.safetensors")):
        for name, meta in read_safetensors_header(shard).items():
            if name == "__metadata__":
                continue
            n = 1
            for d in meta.get("shape", []):
                n *= int(d)
            total += n
    return total


def folder_size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def read_config(folder: Path) -> dict[str, Any]:
    cfg_path = folder / "config.json"
    if not cfg_path.is_file():
        raise ModelFormatError(f"{folder} has no config.json: not a Hugging Face checkpoint folder")
    try:
        cfg: dict[str, Any] = json.loads(cfg_path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelFormatError(f"{cfg_path} is not valid JSON: {exc}") from exc
    if not isinstance(cfg, dict):
        raise ModelFormatError(f"{cfg_path} does not hold a JSON object")
    return cfg


def inspect_checkpoint(folder: Path) -> CheckpointInfo:
    folder = Path(folder)
    if not folder.is_dir():
        raise ModelFormatError(f"{folder} is not a folder")
    cfg = read_config(folder)
    archs = cfg.get("architectures") or []
    if not archs:
        raise ModelFormatError(f"{folder}/config.json names no architecture")
    if not any(folder.glob("*.safetensors")):
        if any(folder.glob("*.bin")):
            raise ModelFormatError(f"{folder} holds only PyTorch .bin weights; convert them to safetensors first")
        raise ModelFormatError(f"{folder} holds no .safetensors weights")
    nested = cfg.get("text_config")  # multimodal configs nest the language model's
    text_cfg = nested if isinstance(nested, dict) else cfg
    quant = cfg.get("quantization_config")
    quant_method = quant.get("quant_method") if isinstance(quant, dict) else None
    dtype = str(cfg.get("dtype") or cfg.get("torch_dtype") or "unknown")
    return CheckpointInfo(
        architecture=str(archs[0]),
        model_type=str(cfg.get("model_type", "")),
        params=count_parameters(folder),
        dtype=dtype,
        quantization=quant_method,
        max_context=text_cfg.get("max_position_embeddings"),
        size_bytes=folder_size(folder),
        config=cfg,
    )
