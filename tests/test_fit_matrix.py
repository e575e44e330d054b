"""The GPU fit matrix (``benchmarks/gpu/fit_matrix.py``), without a GPU and without starting vLLM:
its published configs parse and their quantization groups divide the widths, vLLM accepts every
load's engine arguments, the log watch stops a load on a recorded vLLM 0.26 log once the memory
report is complete (and kills the load's whole process group), and ``--dry-run --list`` runs.

``FIT_MATRIX_ENGINE_CONFIG=1`` also builds vLLM's whole engine config for every load (about two
minutes on two cores; the default checks the argument names for all and the config for the knobs)."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import tarfile
import time
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
GPU = ROOT / "benchmarks" / "gpu"
sys.path.insert(0, str(GPU))
import fit_matrix  # noqa: E402
import published_extra  # noqa: E402

from console.planner.shapes import ModelShape  # noqa: E402

LOADS = fit_matrix.MATRIX
IDS = [x.load_id for x in LOADS]


def _recorded_log(name: str) -> str:
    with tarfile.open(GPU / "results" / "vision" / "vision-logs.tar.gz") as tar:
        member = tar.extractfile(f"logs/{name}")
        assert member is not None
        return member.read().decode("utf-8", errors="replace")


def test_the_matrix_covers_what_it_promises() -> None:
    assert len(set(IDS)) == len(IDS), "load ids must be unique (resume and --only use them)"
    assert 35 <= len(LOADS) <= 45
    assert sum(x.estimate_s for x in LOADS) <= 28 * 60  # one device session after staging (resumable after)
    assert len({x.model_type for x in LOADS if not x.offered}) >= 2
    offered = {x.model_type for x in LOADS if x.offered}
    assert {"llama", "qwen2", "qwen3", "gemma3_text"} <= offered
    args = [fit_matrix.engine_args(x, Path("/m"), fit_matrix.UTIL) for x in LOADS]
    assert {16, 1024} <= {a["max_num_seqs"] for a in args}
    assert {2048, 16384} <= {a["max_num_batched_tokens"] for a in args}
    assert "fp8" in {a["kv_cache_dtype"] for a in args}
    assert {True, False} == {a["enforce_eager"] for a in args}
    assert any(x.hold and x.hold[0] == "bytes" for x in LOADS) and any(x.hold and x.hold[0] == "leave" for x in LOADS)
    # the three shapes come first, held out
    first = fit_matrix.ordered(LOADS, "priority")[:3]
    assert [x.shape for x in first] == ["Phi-4", "Qwen3-32B", "Gemma-3-4B"] and all(x.held_out for x in first)
    # held out: every load of a family not offered, and a fixed part of the others
    assert all(x.held_out for x in LOADS if not x.offered)
    assert any(x.held_out for x in LOADS if x.offered and x.group == "sizes")
    assert any(not x.held_out for x in LOADS)


@pytest.mark.parametrize("load", LOADS, ids=IDS)
def test_each_config_parses_and_its_groups_divide(load: fit_matrix.Load) -> None:
    shape = ModelShape.from_hf_config(load.config, load.shape)
    assert shape.model_type == load.model_type
    assert load.context <= shape.max_position_embeddings
    assert published_extra.group_misfits(load.config) == []
    q = load.config.get("quantization_config")
    if load.quant in ("awq", "gptq", "fp8-block"):
        assert q is not None and published_extra.group_size(load.config) == 128
    if load.quant in ("bf16", "fp8-online"):
        assert q is None and load.config["torch_dtype"] == "bfloat16"
    if load.quant == "fp8-online":
        assert load.knobs.get("quantization") == "fp8"


def test_a_group_that_does_not_divide_is_caught() -> None:
    smol = {"hidden_size": 576, "num_attention_heads": 9, "intermediate_size": 1536}
    assert published_extra.group_misfits(published_extra.quantized(smol, "awq")) == [
        "hidden_size 576 % 128",
        "attention_width 576 % 128",
    ]
    assert published_extra.group_misfits(published_extra.quantized(smol, "fp8-dynamic")) == []  # per channel


def test_extra_shapes_match_the_known_table_where_it_has_them() -> None:
    from console.planner.shapes import KNOWN_SHAPES

    for name in ("Llama-3.1-8B", "Qwen3-32B"):
        ours = ModelShape.from_hf_config(published_extra.EXTRA[name].config, name)
        assert ours.params == KNOWN_SHAPES[name].params, name
    assert published_extra.OFFERED_FAMILIES >= {"llama", "qwen3", "gemma3_text", "gpt_oss"}
    assert not {"phi3", "granite", "olmo2", "stablelm"} & published_extra.OFFERED_FAMILIES


def test_vllm_accepts_every_loads_engine_args(tmp_path: Path) -> None:
    arg_utils = pytest.importorskip("vllm.engine.arg_utils")
    fields = {f.name for f in dataclasses.fields(arg_utils.EngineArgs)}
    full = os.environ.get("FIT_MATRIX_ENGINE_CONFIG") == "1"
    for x in LOADS:
        args = fit_matrix.engine_args(x, fit_matrix.write_folder(x, tmp_path), fit_matrix.UTIL)
        assert set(args) <= fields, (x.load_id, set(args) - fields)
        engine = arg_utils.EngineArgs(**args)
        if full or x.repo == fit_matrix.LLAMA_FP8:  # the knobs on one model: its config is cheap
            config = engine.create_engine_config()
            assert config.scheduler_config.max_num_seqs == args["max_num_seqs"]
            assert config.scheduler_config.max_num_batched_tokens == args["max_num_batched_tokens"]
            assert config.cache_config.cache_dtype == args["kv_cache_dtype"]


@pytest.mark.parametrize(
    "name, kv_tokens", [("gemma-3-4b-it-text-8192.log", 105879), ("gemma-3-12b-it-FP8-dynamic-text-32768.log", 39568)]
)
def test_the_watch_stops_at_the_memory_report(name: str, kv_tokens: int) -> None:
    lines = _recorded_log(name).splitlines(keepends=True)
    watch = fit_matrix.LogWatch()
    stop = next(i for i, line in enumerate(lines) if watch.feed(line))
    assert "Free memory on device" in lines[stop] and "Actual usage is" in lines[stop]
    assert any("KV cache size" in line for line in lines[:stop])
    assert not any("FITRESULT" in line for line in lines[: stop + 1])
    # nothing before that line is enough: a log cut before it never stops the load
    early = fit_matrix.LogWatch()
    assert not any(early.feed(line) for line in lines[:stop])
    result = fit_matrix.result_of("".join(lines[: stop + 1]), -9, True, False, 12.0, None)
    assert result["rc"] == 0 and result["kv_tokens"] == kv_tokens and result["stopped_after_report"]
    assert result["report"]["weights_gib"] > 0 and "refusal" not in result


def test_a_refusal_keeps_the_figure_it_names() -> None:
    text = (
        "ValueError: Free memory on device cuda:0 (20.9/139.8 GiB) on startup is less than desired GPU memory "
        "utilization (0.1638, 22.9 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes."
    )
    result = fit_matrix.result_of(text, 1, False, False, 9.0, None)
    assert result["rc"] == 1 and result["refusal"] == {
        "free_gib": 20.9,
        "free_total_gib": 139.8,
        "refused_requested_gib": 22.9,
    }
    text = "ValueError: ... Based on the available memory, the estimated maximum model length is 3600. Try ..."
    assert fit_matrix.result_of(text, 1, False, False, 9.0, None)["refusal"]["max_len_estimate"] == 3600


class _NoNvml:
    idle = peak = None

    def used(self) -> None:
        return None

    def __enter__(self) -> "_NoNvml":
        return self

    def __exit__(self, *exc: object) -> None:
        return None


def test_a_load_is_killed_with_its_group_once_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A stand-in for vLLM replays a recorded log, starts a child (as vLLM's EngineCore) and would
    then sleep for a minute: the watch kills both right after the memory report."""
    log = tmp_path / "recorded.log"
    log.write_text(_recorded_log("gemma-3-4b-it-text-8192.log"), encoding="utf-8")
    pidfile = tmp_path / "child.pid"
    fake = (
        "import subprocess, sys, time\n"
        f"child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        f"open({str(pidfile)!r}, 'w').write(str(child.pid))\n"
        f"for line in open({str(log)!r}):\n"
        "    print(line, end='', flush=True)\n"
        "    if 'Free memory on device' in line:\n"
        "        time.sleep(60)\n"
    )
    monkeypatch.setattr(fit_matrix, "LOAD_SCRIPT", fake)
    t0 = time.monotonic()
    result = fit_matrix.run_streamed({"model": "x"}, tmp_path / "load.log", _NoNvml(), timeout=40)
    assert time.monotonic() - t0 < 30
    assert result["rc"] == 0 and result["stopped_after_report"] and result["exit"] == -9
    assert result["kv_tokens"] == 105879
    child = int(pidfile.read_text())
    for _ in range(50):
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        pytest.fail("the load's child process outlived the load")


def test_dry_run_list_and_resume(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert fit_matrix.main([str(tmp_path), "--dry-run", "--list"]) == 0
    printed = capsys.readouterr().out
    assert "by estimate, not measured" in printed
    for x in LOADS:
        config = json.loads((tmp_path / "models" / x.load_id / "config.json").read_text(encoding="utf-8"))
        assert config == x.config
        assert x.load_id in printed
    record: dict[str, Any] = {"load_id": IDS[0], "rc": 0}
    (tmp_path / fit_matrix.JSONL).write_text(json.dumps(record) + "\n", encoding="utf-8")
    assert fit_matrix.main([str(tmp_path), "--dry-run", "--skip-done"]) == 0
    resumed = capsys.readouterr().out
    assert f"{IDS[0]}:" not in resumed and f"{IDS[1]}:" in resumed
    assert fit_matrix.main([str(tmp_path), "--dry-run", "--order", "cheap", "--only", f"{IDS[0]},{IDS[3]}"]) == 0
    only = [ln.split(":")[0] for ln in capsys.readouterr().out.splitlines()]
    assert only == [IDS[3], IDS[0]]  # eager before compiled


def test_a_record_is_what_fit_report_reads() -> None:
    import fit_report

    x = next(x for x in LOADS if x.shape == "Qwen3-4B")
    args = fit_matrix.engine_args(x, Path("/m"), fit_matrix.UTIL)
    record = {
        "repo": x.repo,
        "shape": x.shape,
        "mode": x.mode,
        "gpu": "h200",
        "vllm_version": "0.26.0",
        "config": x.config,
        "engine_args": {k: v for k, v in args.items() if k not in ("model", "load_format", "seed")},
    }
    request = fit_report.request_of(record)
    assert request.max_model_len == 8192 and request.quantization == "fp8"
