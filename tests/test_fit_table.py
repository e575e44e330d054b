"""The Models panel's "fits?" column as core work (console/models/fit_table.py): verdicts for
every store entry from a preset held in memory and one device description, the knobs moving
them, a missing or unreadable model reported on its own row. The tiny random Llama's real
config.json is planned; no file but the models' own is read."""

from __future__ import annotations

import shutil
from pathlib import Path

from console.models.store import ModelStore
from console.models.fit_table import fit_table
from console.presets import Preset

#: Like the shipped cpu-default, but built here: nothing reads a preset file.
CPU = Preset(
    "in-memory",
    engine={
        "device": "cpu",
        "enforce_eager": True,
        "kv_cache_memory_bytes": 2 * 1024**3,
        "max_model_len": 1024,
        "max_num_seqs": 8,
    },
)


def test_fit_table_verdicts_follow_the_knobs_and_report_bad_rows(home: Path, tiny_model: Path, tmp_path: Path) -> None:
    store = ModelStore()
    store.add_reference("tiny", tiny_model)
    for name in ("ghost", "broken"):
        shutil.copytree(tiny_model, tmp_path / name)
        store.add_reference(name, tmp_path / name)
    shutil.rmtree(tmp_path / "ghost")
    (tmp_path / "broken" / "config.json").write_text('{"architectures": ["LlamaForCausalLM"]}')
    entries = store.list()
    shutil.rmtree(home / "models", ignore_errors=True)  # the registry is not read again

    fits = fit_table(entries, CPU, {}, "cpu:16")
    assert {n: f.verdict for n, f in fits.items()} == {"tiny": "fits", "ghost": "files-missing", "broken": "error"}
    assert fits["broken"].detail  # why, for the tooltip or the log
    assert str(tmp_path / "ghost") in fits["ghost"].detail

    too_big = fit_table(entries, CPU, {"kv_cache_memory_bytes": 4000 * 1024**3}, "cpu:16")
    assert too_big["tiny"].verdict == "fits-with-changes"  # the planner suggests a KV cache that fits
    on_gpu = fit_table(entries, Preset("gpu", engine={"max_model_len": 1024}), {}, "rtx-4090")
    assert on_gpu["tiny"].verdict == "fits"
