"""Importing a model whose architecture the installed vLLM cannot run is refused at import, with
the reason and the vLLM version; supported ones, and custom-code ones that only the
load can judge, go in. Uses vLLM's real model registry."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from console.vllm_compat import vllm_distribution
from console.models.importers import import_hf_folder
from console.models.inspect import ModelFormatError, inspect_checkpoint
from console.models.store import ModelStore
from console.models.support import unsupported_reason, vllm_architectures


def with_architecture(src: Path, dst: Path, arch: str) -> Path:
    """A copy of checkpoint ``src`` at ``dst`` whose config.json names ``arch``."""
    shutil.copytree(src, dst, dirs_exist_ok=True)
    cfg = json.loads((dst / "config.json").read_text())
    cfg["architectures"] = [arch]
    (dst / "config.json").write_text(json.dumps(cfg))
    return dst


def test_unknown_architecture_is_refused_before_anything_is_copied(tiny_model: Path, tmp_path: Path) -> None:
    weird = with_architecture(tiny_model, tmp_path / "weird", "NoSuchModelForCausalLM")
    store = ModelStore(tmp_path / "store")
    dist = vllm_distribution()
    assert dist is not None
    for copy in (True, False):
        with pytest.raises(ModelFormatError) as info:
            import_hf_folder(store, weird, "weird", copy=copy)
        message = str(info.value)
        assert "NoSuchModelForCausalLM" in message and f"{dist[0]} {dist[1]}" in message
        assert "cannot run" in message
    assert store.list() == [] and not (store.root / "weird").exists()


def test_converted_or_downloaded_model_is_refused_by_the_store(tiny_model: Path, tmp_path: Path) -> None:
    """The store's staged path (GGUF conversion, download, quantize) asks too, and leaves nothing."""
    store = ModelStore(tmp_path / "store")
    with pytest.raises(ModelFormatError, match="NoSuchModelForCausalLM"):
        store.add_staged(
            "weird", lambda tmp: with_architecture(tiny_model, tmp, "NoSuchModelForCausalLM"), source="test"
        )
    assert store.list() == [] and not (store.root / "weird").exists()


def test_supported_transformers_backend_and_custom_code_pass(tiny_model: Path, tmp_path: Path) -> None:
    assert "LlamaForCausalLM" in vllm_architectures() and len(vllm_architectures()) > 50
    assert unsupported_reason("LlamaForCausalLM", {}) is None
    # Custom code (auto_map): only the load (with trust-remote-code) can tell.
    assert unsupported_reason("MyOwnForCausalLM", {"auto_map": {"AutoModelForCausalLM": "m.MyOwn"}}) is None
    assert unsupported_reason("MyOwnForCausalLM", {}) is not None
    # The real import of a supported model goes through.
    entry = import_hf_folder(ModelStore(tmp_path / "store"), tiny_model, "tiny")
    assert entry.architecture == inspect_checkpoint(tiny_model).architecture == "LlamaForCausalLM"
