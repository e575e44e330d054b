"""Bringing models into the store: GGUF files (converted to safetensors) and HF folders.

vLLM no longer loads GGUF itself, so a GGUF file is dequantized by transformers and written as a
bf16 safetensors checkpoint with its tokenizer and chat template. The conversion runs in a child
process (``python -m console.models.gguf_worker``): an 8B GGUF dequantizes to ~16 GB of RAM that
should not stay in the console's process, a crash there cannot take the console down, and cancel
is a real kill. Progress comes back as JSON lines. Every import writes into the store's staging
area, so a failed or cancelled import leaves nothing behind.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from console.children import Child, python_module
from console.jobs import TaskState
from console.models.inspect import ModelFormatError, inspect_checkpoint
from console.models.store import ModelEntry, ModelStore
from console.models.support import check_supported

GGUF_MAGIC = b"GGUF"


@dataclass(frozen=True)
class GGUFSummary:
    architecture: str
    name: str | None
    tensors: int


def _supported_gguf_architectures() -> set[str]:
    try:
        from transformers.modeling_gguf_pytorch_utils import GGUF_SUPPORTED_ARCHITECTURES

        return {a for a in GGUF_SUPPORTED_ARCHITECTURES if a not in ("general", "tokenizer")}
    except Exception:  # older/newer transformers: fall back to the common ones
        return {"llama", "mistral", "qwen2", "qwen3", "phi3", "gemma2", "gemma3"}


def check_gguf(path: Path) -> GGUFSummary:
    """Validate a GGUF file's header and architecture without converting it."""
    path = Path(path)
    if not path.is_file():
        raise ModelFormatError(f"{path} does not exist")
    with open(path, "rb") as fh:
        if fh.read(4) != GGUF_MAGIC:
            raise ModelFormatError(f"{path.name} is not a GGUF file (wrong magic bytes)")
    try:
        import gguf

        reader = gguf.GGUFReader(str(path))
        field = reader.fields["general.architecture"]
        arch = bytes(field.parts[field.data[0]]).decode("utf-8")
        name_field = reader.fields.get("general.name")
        name = bytes(name_field.parts[name_field.data[0]]).decode("utf-8", "replace") if name_field else None
        tensors = len(reader.tensors)
    except ModelFormatError:
        raise
    except Exception as exc:  # truncated files raise all sorts of things inside the reader
        raise ModelFormatError(f"{path.name} is corrupt or truncated ({type(exc).__name__}: {exc})") from exc
    if arch not in _supported_gguf_architectures():
        raise ModelFormatError(
            f"{path.name}: GGUF architecture '{arch}' cannot be converted "
            f"(supported: {', '.join(sorted(_supported_gguf_architectures()))})"
        )
    return GGUFSummary(arch, name, tensors)


def convert_gguf(src: Path, dst: Path, task: TaskState) -> None:
    """Dequantize ``src`` (a .gguf file) into a bf16 safetensors checkpoint in ``dst``."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    task.report("reading GGUF", 0.02)
    summary = check_gguf(src)
    task.check()
    task.report(f"dequantizing {summary.tensors} tensors ({summary.architecture})", 0.1)
    model = AutoModelForCausalLM.from_pretrained(str(src.parent), gguf_file=src.name, dtype=torch.bfloat16)
    task.check()
    task.report("loading tokenizer", 0.6)
    tok = AutoTokenizer.from_pretrained(str(src.parent), gguf_file=src.name)
    task.check()
    # transformers keeps the model marked as GGUF-quantized although its Linear weights are now
    # plain bf16; drop the marker so save_pretrained writes an ordinary checkpoint.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    task.report("writing safetensors", 0.7)
    model.save_pretrained(str(dst), safe_serialization=True)
    tok.save_pretrained(str(dst))
    if getattr(tok, "chat_template", None) and not (dst / "chat_template.jinja").exists():
        (dst / "chat_template.jinja").write_text(tok.chat_template, encoding="utf-8")
    task.report("checking the result", 0.95)
    inspect_checkpoint(dst)
    task.report("done", 1.0)


def _run_worker(src: Path, dst: Path, task: TaskState) -> None:
    errors: list[str] = []

    def on_message(msg: dict[str, Any]) -> None:
        if msg.get("type") == "progress":
            task.report(msg["stage"], msg.get("fraction"))
        elif msg.get("type") == "error":
            errors.append(str(msg["message"]))

    child = Child(
        python_module("console.models.gguf_worker", str(src), str(dst)),
        env={"TRANSFORMERS_VERBOSITY": "error"},
        on_message=on_message,
    )
    with child.start():
        code = child.wait(task=task)  # Cancel stops the child's whole group and raises Cancelled
    if code != 0:
        raise ModelFormatError(errors[-1] if errors else child.error_message("GGUF conversion", n=3))


def import_gguf(
    store: ModelStore, src: Path, name: str, task: TaskState | None = None, *, source: str | None = None
) -> ModelEntry:
    task = task or TaskState()
    src = Path(src).resolve()
    summary = check_gguf(src)  # fail fast, before any process or folder exists
    return store.add_staged(
        name,
        lambda tmp: _run_worker(src, tmp, task),
        source=source or f"GGUF {src.name}",
        lineage={"method": "gguf-dequantize", "source_file": str(src), "gguf_architecture": summary.architecture},
    )


def _copy_tree(src: Path, dst: Path, task: TaskState) -> None:
    files = [p for p in src.rglob("*") if p.is_file() and ".cache" not in p.parts]
    total = sum(p.stat().st_size for p in files) or 1
    done = 0
    for p in files:
        target = dst / p.relative_to(src)
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(p, "rb") as fin, open(target, "wb") as fout:
            while chunk := fin.read(8 * 1024 * 1024):
                task.check()
                fout.write(chunk)
                done += len(chunk)
                task.report(f"copying {p.name}", done / total)
        shutil.copystat(p, target)


def import_hf_folder(
    store: ModelStore,
    src: Path,
    name: str,
    task: TaskState | None = None,
    *,
    copy: bool = True,
    source: str | None = None,
) -> ModelEntry:
    """Register a Hugging Face checkpoint folder, copying it into the store or by reference."""
    task = task or TaskState()
    src = Path(src).resolve()
    check_supported(inspect_checkpoint(src))  # validate (and ask vLLM) before copying gigabytes
    if not copy:
        return store.add_reference(name, src, source=source)
    return store.add_staged(name, lambda tmp: _copy_tree(src, tmp, task), source=source or f"folder {src}")
