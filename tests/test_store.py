"""The model store: registry round-trip, staging (all or nothing), references, removal."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from console.jobs import Cancelled, TaskState
from console.models.importers import import_hf_folder
from console.models.inspect import ModelFormatError, inspect_checkpoint
from console.models.store import ModelStore, StoreError


def test_inspect_reads_shape_from_config_and_headers(tiny_model: Path) -> None:
    info = inspect_checkpoint(tiny_model)
    cfg = json.loads((tiny_model / "config.json").read_text())
    assert info.architecture == "LlamaForCausalLM"
    assert info.max_context == cfg["max_position_embeddings"]
    # params from safetensors headers must equal the count from the shapes in config.json
    h, i, v, n = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"], cfg["num_hidden_layers"]
    kv = cfg["num_key_value_heads"] * (h // cfg["num_attention_heads"])
    per_layer = h * h * 2 + h * kv * 2 + 3 * h * i + 2 * h
    assert info.params == v * h * 2 + n * per_layer + h
    assert info.size_bytes > 2 * info.params  # bf16 weights plus tokenizer files


def test_registry_round_trip(tmp_path: Path, tiny_model: Path) -> None:
    store = ModelStore(tmp_path / "store")
    entry = import_hf_folder(store, tiny_model, "tiny")
    assert (tmp_path / "store" / "tiny" / "config.json").is_file()
    again = ModelStore(tmp_path / "store").get("tiny")  # a fresh object reads the file back
    assert again == entry
    assert again.available and again.managed
    assert [e.name for e in store.list()] == ["tiny"]
    with pytest.raises(StoreError, match="already exists"):
        import_hf_folder(store, tiny_model, "tiny")
    store.update("tiny", trust_remote_code=True)
    assert ModelStore(tmp_path / "store").get("tiny").trust_remote_code is True


def test_reference_is_not_copied_and_files_survive_removal(tmp_path: Path, tiny_model: Path) -> None:
    store = ModelStore(tmp_path / "store")
    entry = import_hf_folder(store, tiny_model, "ref", copy=False)
    assert Path(entry.path) == tiny_model.resolve() and not entry.managed
    store.remove("ref")
    assert (tiny_model / "config.json").is_file()
    assert "ref" not in store


def test_remove_deletes_managed_files(tmp_path: Path, tiny_model: Path) -> None:
    store = ModelStore(tmp_path / "store")
    entry = import_hf_folder(store, tiny_model, "copy")
    store.remove("copy")
    assert not Path(entry.path).exists()
    with pytest.raises(StoreError, match="No model named"):
        store.get("copy")


def test_failed_import_leaves_nothing(tmp_path: Path, tiny_model: Path) -> None:
    store = ModelStore(tmp_path / "store")

    def writer(tmp: Path) -> None:
        shutil.copy(tiny_model / "config.json", tmp / "config.json")  # weights missing

    with pytest.raises(ModelFormatError, match="safetensors"):
        store.add_staged("broken", writer, source="test")
    assert store.list() == []
    assert not (tmp_path / "store" / "broken").exists()
    assert list((tmp_path / "store" / ".staging").iterdir()) == []


def test_cancelled_copy_leaves_nothing(tmp_path: Path, tiny_model: Path) -> None:
    store = ModelStore(tmp_path / "store")
    task = TaskState()
    task.cancel()
    with pytest.raises(Cancelled):
        import_hf_folder(store, tiny_model, "cancelled", task)
    assert store.list() == [] and not (tmp_path / "store" / "cancelled").exists()


def test_stale_staging_of_dead_process_is_swept(tmp_path: Path) -> None:
    root = tmp_path / "store"
    stale = root / ".staging" / "new-999999999-half"
    stale.mkdir(parents=True)
    (stale / "model.safetensors").write_bytes(b"half written")
    ModelStore(root)
    assert not stale.exists()


@pytest.mark.parametrize("bad", ["", "../x", "a b", "-lead", "x" * 65])
def test_bad_names_are_refused(tmp_path: Path, tiny_model: Path, bad: str) -> None:
    with pytest.raises(StoreError, match="not a usable model name"):
        import_hf_folder(ModelStore(tmp_path / "s"), tiny_model, bad)


def test_folder_without_config_is_refused(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(ModelFormatError, match="no config.json"):
        import_hf_folder(ModelStore(tmp_path / "s"), tmp_path / "empty", "x")


def test_corrupt_registry_gives_a_clear_error(tmp_path: Path) -> None:
    root = tmp_path / "store"
    root.mkdir()
    (root / "registry.json").write_text("{not json")
    with pytest.raises(StoreError, match="unreadable"):
        ModelStore(root).list()
