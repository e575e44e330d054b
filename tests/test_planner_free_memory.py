"""Memory other programs hold on the card (console/planner/free_memory.py): vLLM refuses to start
when what is free at start-up is below total x gpu_memory_utilization. The plan says so, suggests
the largest utilization that fits what is free, and that suggestion planned again passes; the CLI
takes --in-use-gib and --vllm-version; NVML's process lists are read into what other programs hold
(a fake NVML result: this machine has no GPU); vLLM's own refusal text is answered the same way."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest

from console.cli.main import main
from console.engine.errors import explain, free_memory_fix, free_memory_refusal
from console.metrics import nvml
from console.metrics.nvml import GpuProcess, in_use_of, parse_processes
from console.planner import PlanRequest, compute, plan, shape_for
from console.planner.free_memory import free_bytes, largest_utilization, vllm_total_bytes
from console.planner.gpus import GiB

#: vLLM's words (v1/worker/utils.py request_memory, the same in 0.26 and 0.32)
VLLM_REFUSAL = (
    "ValueError: Free memory on device cuda:0 (18.25/23.52 GiB) on startup is less than desired GPU memory "
    "utilization (0.9, 21.17 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes."
)


def _req(in_use_gib: float | None, **knobs: Any) -> PlanRequest:
    held = None if in_use_gib is None else int(in_use_gib * GiB)
    return PlanRequest(shape_for("Qwen2.5-7B"), gpu="rtx-4090", max_model_len=8192, in_use_bytes=held, **knobs)


def test_nothing_held_changes_nothing() -> None:
    unknown, empty = plan(_req(None)), plan(_req(0))
    assert unknown.verdict == empty.verdict == "fits" and not empty.problems
    assert unknown.kv_tokens == empty.kv_tokens
    assert "in_use_bytes" not in unknown.to_dict() and empty.to_dict()["in_use_bytes"] == 0


def test_a_utilization_above_what_is_free_is_refused_and_the_largest_that_fits_is_suggested() -> None:
    req = _req(3)
    p = plan(req)
    assert p.verdict == "fits-with-changes"
    assert len(p.problems) == 1 and "vLLM refuses to start" in p.problems[0]
    assert "other programs hold 3.00 GiB" in p.problems[0] and "asks for 21.59 GiB" in p.problems[0]
    first = p.suggestions[0]
    util = first.changes["gpu_memory_utilization"]
    assert first.summary.startswith(f"gpu_memory_utilization {util:g} (the largest that fits the ")
    overheads = compute(req).overheads
    assert util == largest_utilization(req, overheads) < 0.9
    # the suggestion applied: vLLM's start-up check passes, with room to spare below one step more
    fixed = plan(req.with_changes(**first.changes))
    assert fixed.verdict == "fits" and not fixed.problems
    total, free = vllm_total_bytes(req), free_bytes(req, vllm_total_bytes(req), overheads)
    assert int(total * util) <= free < int(total * (util + 0.01)) + overheads["cuda_graphs"].bytes
    assert compute(req.with_changes(gpu_memory_utilization=round(util + 0.01, 2))).problems  # one step more fails


def test_when_what_is_free_leaves_no_kv_room_the_other_fixes_follow() -> None:
    p = plan(_req(8))  # 16-bit weights of 14 GiB in what 8 GiB held leaves
    assert "vLLM refuses to start" in p.problems[0]
    assert p.suggestions and all(
        s.kind != "settings" or s.changes.get("quantization") or s.changes.get("kv_cache_dtype") for s in p.suggestions
    )
    for s in p.suggestions:
        if s.kind == "settings":  # every settings fix sets a utilization that starts
            assert s.changes["gpu_memory_utilization"] <= largest_utilization(_req(8), compute(_req(8)).overheads)
            assert plan(_req(8).with_changes(**s.changes)).fits
    held = plan(_req(23))
    assert held.verdict == "does-not-fit" or all(s.kind == "hardware" for s in held.suggestions)


def test_the_plan_json_carries_what_is_held_and_by_whom() -> None:
    req = _req(2).with_changes(in_use_by=((41, "Xorg", GiB), (77, "firefox", GiB)))
    d = plan(req).to_dict()
    assert d["in_use_bytes"] == 2 * GiB and d["in_use_gib"] == 2.0
    assert d["in_use_by"] == [{"pid": 41, "name": "Xorg", "bytes": GiB}, {"pid": 77, "name": "firefox", "bytes": GiB}]
    assert d["request"]["in_use_bytes"] == 2 * GiB
    with pytest.raises(ValueError):
        _req(-1)


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    rc = main(["plan", "--model", "Qwen2.5-7B", "--gpu", "rtx-4090", "--max-model-len", "8192", *args])
    return rc, capsys.readouterr().out


def test_cli_in_use_gib(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out = _cli(capsys, "--in-use-gib", "3", "--json")
    d = json.loads(out)
    assert rc == 0 and d["verdict"] == "fits-with-changes" and d["in_use_bytes"] == 3 * GiB
    assert "vLLM refuses to start" in d["problems"][0]
    util = d["suggestions"][0]["changes"]["gpu_memory_utilization"]
    rc, out = _cli(capsys, "--in-use-gib", "3", "--gpu-memory-utilization", str(util))
    assert rc == 0 and "VERDICT: FITS\n" in out and "other programs hold 3.00 GiB of the card" in out
    rc, out = _cli(capsys, "--in-use-gib", "3")
    assert f"1. gpu_memory_utilization {util:g} (the largest that fits the " in out
    assert _cli(capsys, "--in-use-gib", "-1")[0] == 2


@pytest.mark.skipif(nvml.available(), reason="this machine has an NVIDIA GPU: NVML answers")
def test_cli_without_a_gpu_says_nothing_of_other_programs(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out = _cli(capsys, "--json")
    assert rc == 0 and "in_use_bytes" not in json.loads(out)
    rc, out = _cli(capsys)
    assert "other programs" not in out


def test_cli_vllm_version(capsys: pytest.CaptureFixture[str]) -> None:
    _rc, out = _cli(capsys, "--vllm-version", "0.26", "--json")
    d = json.loads(out)
    assert d["request"]["vllm_version"] == "0.26.0"
    assert d["rules"]["vllm"].startswith("vLLM 0.26.0 (the release asked for)")
    assert "outside the budget" in d["rules"]["vllm"]  # 0.26 captures a dense model's graphs outside
    _rc, out = _cli(capsys, "--vllm-version", "0.33.0", "--json")
    assert "inside the budget" in json.loads(out)["rules"]["vllm"]
    assert _cli(capsys, "--vllm-version", "latest")[0] == 2


def test_the_human_plan_names_the_programs(capsys: pytest.CaptureFixture[str]) -> None:
    from console.cli.plan import print_plan

    req = _req(1.5).with_changes(in_use_by=((41, "Xorg", GiB), (77, "", None)))
    print_plan(plan(req))
    out = capsys.readouterr().out
    assert "other programs hold 1.50 GiB of the card: Xorg (41) 1.00 GiB, pid (77)" in out


# -- NVML's process lists (a fake result: no GPU here) -------------------------------------------
def _entry(pid: int, used: int | None) -> SimpleNamespace:
    return SimpleNamespace(pid=pid, usedGpuMemory=used)


def test_nvml_processes_other_than_ours_are_summed_and_named() -> None:
    names = {10: "Xorg", 20: "firefox", 30: "python3"}
    compute_list = [_entry(30, 6 * GiB), _entry(20, GiB)]
    graphics_list = [_entry(10, GiB // 2), _entry(20, GiB)]  # firefox in both lists: once
    procs = parse_processes([compute_list, graphics_list], lambda pid: names.get(pid, ""))
    assert [(p.pid, p.name) for p in procs] == [(30, "python3"), (20, "firefox"), (10, "Xorg")]
    found = in_use_of(procs, device_used=9 * GiB, own_pids={30})
    assert found is not None and found.bytes == GiB + GiB // 2
    assert found.triples() == ((20, "firefox", GiB), (10, "Xorg", GiB // 2))


def test_nvml_without_per_process_figures_falls_back_to_used_less_ours() -> None:
    unknown = 2**64 - 1  # NVML_VALUE_NOT_AVAILABLE
    procs = parse_processes([[_entry(30, 6 * GiB), _entry(20, unknown)], None])
    assert procs[1] == GpuProcess(20, "", None)
    found = in_use_of(procs, device_used=9 * GiB, own_pids={30})
    assert found is not None and found.bytes == 3 * GiB and [p.pid for p in found.processes] == [20]
    # both calls failed: the card's used memory is all another program's
    nothing = in_use_of(parse_processes([None, None]), device_used=GiB, own_pids={30})
    assert nothing is not None and nothing.bytes == GiB and nothing.processes == ()
    assert in_use_of([], device_used=None, own_pids={30}) is None
    assert in_use_of([GpuProcess(30, "python3", None)], device_used=5 * GiB, own_pids={30}) is None


# -- vLLM's refusal for free memory --------------------------------------------------------------
def test_vllm_free_memory_refusal_is_answered_with_the_largest_utilization() -> None:
    r = free_memory_refusal(VLLM_REFUSAL)
    assert r is not None and (r.free_gib, r.total_gib, r.utilization, r.requested_gib) == (18.25, 23.52, 0.9, 21.17)
    assert r.largest_utilization == 0.77  # 18.245 / 23.52 = 0.7757
    fix = free_memory_fix(VLLM_REFUSAL)
    assert fix == (
        "gpu_memory_utilization 0.77 (the largest that fits the 18.25 GiB free)",
        {"gpu_memory_utilization": 0.77},
    )
    shared = VLLM_REFUSAL.replace(
        "desired GPU memory utilization", "the engine's budget after excluding external process's weights"
    )
    assert free_memory_refusal(shared) is not None
    assert free_memory_refusal("CUDA out of memory") is None
    # the engine process logs it; the parent only hears that the engine core failed
    text = explain(RuntimeError("Engine core initialization failed. See root cause above."), log_text=VLLM_REFUSAL)
    first, hint = text.split("\n", 1)
    assert first.startswith("Free memory on device cuda:0 (18.25/23.52 GiB)") and "gpu_memory_utilization 0.77" in hint
    assert free_memory_fix(text) == fix
