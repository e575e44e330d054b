"""Replays of the H200 run on a machine without a GPU.

benchmarks/gpu/results/ holds what benchmarks/gpu/run_gpu.py recorded on an NVIDIA H200 with
vLLM 0.26.0 (2026-11-29): load figures, bench figures, vLLM's own start-up log lines and the
MetricsStore series (engine stats + NVML samples). These tests push those files back through the
planner with the rules of the vLLM release that ran them (KV tokens predicted vs measured, with and
without resources/calibration/h200.json and the release constants of resources/calibration/vllm-memory.json;
the 24 GB configurations that would run out of memory) and through the metrics code (the series add
up to what the bench reported).
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from console.metrics.store import MetricsStore
from console.planner import PlanRequest, find_calibration, plan, shape_for
from console.planner.calibration import Calibration
from console.planner.defaults import RECORDED_LOAD_DEFAULTS
from console.planner.core import compute
from console.planner.gpus import GPU_PROFILES, GiB, MiB

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "gpu" / "results"
EMU_GIB = 23.0  # run_gpu.py: the emulated 24 GB card's budget


@cache
def results(name: str) -> dict[str, Any]:
    from console.metrics.recording import read_json_file

    return dict(read_json_file(RESULTS / name))


def h200() -> Calibration:
    cal = find_calibration("h200")
    assert cal is not None, "resources/calibration/h200.json is missing"
    return cal


# The engine starts whose KV cache vLLM sized: (model shape, run_gpu.py load record, extra args).
LOADS = {
    "8b-bf16": ("Llama-3.1-8B", ("engine.json", "8b_bf16_load"), {}),
    "8b-fp8": ("Llama-3.1-8B", ("engine.json", "8b_fp8_load"), {"quantization": "fp8", "kv_cache_dtype": "fp8"}),
    "3b": ("Llama-3.2-3B", ("extra.json", "Llama-3.2-3B_load"), {}),
    "qwen-7b": ("Qwen2.5-7B", ("extra.json", "Qwen2.5-7B_load"), {}),
    "8b-whole-card": ("Llama-3.1-8B", ("extra.json", "8b_whole_load"), {}),
}


#: The loads benchmarks/gpu/fit_report.py fits the release constants from (the last rows of
#: results/fit/fit-table.md); the whole-card load's scheduler figures are not recorded, so it is not fitted.
FITTED = ["8b-bf16", "8b-fp8", "3b", "qwen-7b"]
#: The largest error of the replay table (results/fit/fit-table.md: -1.26%, gpt-oss-20b compiled).
#: the replay table's largest |error| (results/fit/fit-table.md), rounded up
FIT_TABLE_ERROR = 0.031


def load_record(key: str) -> dict[str, Any]:
    file, entry = LOADS[key][1]
    return results(file)[entry]


def recorded_vllm(key: str) -> str:
    """The vLLM release that ran the load (its rules apply to the replay)."""
    return str(results(LOADS[key][1][0])["environment"]["vllm"][1])


def request(
    key: str, gpu: str = "h200", calibration: Any = True, util: float | None = None, family: bool = True
) -> PlanRequest:
    model, _, extra = LOADS[key]
    cfg = load_record(key)["config"]
    return PlanRequest(
        shape_for(model),
        gpu=gpu,
        gpu_memory_utilization=util if util is not None else cfg["gpu_memory_utilization"],
        max_model_len=cfg.get("max_model_len"),
        max_num_seqs=cfg.get("max_num_seqs") or RECORDED_LOAD_DEFAULTS["max_num_seqs"],
        max_num_batched_tokens=cfg.get("max_num_batched_tokens") or RECORDED_LOAD_DEFAULTS["max_num_batched_tokens"],
        enforce_eager=cfg.get("enforce_eager", False),
        calibration=calibration,
        measured_constants=family,
        vllm_version=recorded_vllm(key),
        **extra,
    )


def rel_error(key: str, calibration: Any, family: bool = True, vllm: bool = False) -> float:
    """The planner's KV tokens (``vllm``: what vLLM itself would size) against the measured ones."""
    measured = load_record(key)["kv_cache_tokens"]
    p = compute(request(key, calibration=calibration, family=family))
    return (p.vllm_kv_tokens if vllm else p.kv_tokens) / measured - 1


def fit_table() -> dict[int, int]:
    """results/fit/fit-table.md: vLLM's KV cache size -> the planner's, per replayed load."""
    rows = {}
    for line in (RESULTS / "fit" / "fit-table.md").read_text(encoding="utf-8").splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[int(cells[3].replace(",", ""))] = int(cells[4].replace(",", ""))
    return rows


def vllm_usage_lines() -> list[dict[str, float]]:
    """vLLM's 'Actual usage is ...' start-up lines of the five big loads (the two tiny loads first)."""
    text = (RESULTS / "vllm_log_lines.txt").read_text(encoding="utf-8")
    usage = re.findall(
        r"Actual usage is ([\d.]+) GiB for weight, ([\d.]+) GiB for peak activation, ([\d.]+) GiB "
        r"for non-torch memory, and ([\d.]+) GiB for CUDAGraph memory",
        text,
    )
    kv = re.findall(r"Current kv cache memory in use is ([\d.]+) GiB", text)
    assert len(usage) == len(kv) == 7
    keys = ("weights", "activation", "non_torch", "graphs")
    return [dict(zip(keys, map(float, u)), kv=float(k)) for u, k in list(zip(usage, kv))[2:]]


# -- the planner against what vLLM measured --------------------------------------------------------
@pytest.mark.parametrize("key", list(LOADS))
def test_calibrated_kv_tokens_within_10_percent(key: str) -> None:
    assert abs(rel_error(key, True)) < 0.10
    # vLLM's own arithmetic within the replay table's largest error; the four fitted loads are its
    # rows, figure for figure; the promise holds back the release's measured error, never above vLLM
    assert abs(rel_error(key, True, vllm=True)) < FIT_TABLE_ERROR
    p = compute(request(key))
    assert p.rules["calibration"] == "exact" and p.kv_tokens <= p.vllm_kv_tokens
    assert p.kv_tokens <= load_record(key)["kv_cache_tokens"] * 1.03
    if key in FITTED:
        assert fit_table()[load_record(key)["kv_cache_tokens"]] == p.vllm_kv_tokens


def test_calibration_matters() -> None:
    """Without h200.json every prediction is higher (vLLM's budget is CUDA's 139.8 GiB x utilization,
    not NVML's 140.4 GiB); without the release's constants the plan holds back the margin of an
    unmeasured release, further below vLLM's figure."""
    for key in LOADS:
        raw, cal = rel_error(key, False, vllm=True), rel_error(key, True, vllm=True)
        assert raw > cal, (key, raw, cal)
    assert max(abs(rel_error(k, True, vllm=True)) for k in LOADS) < FIT_TABLE_ERROR
    for key in FITTED:
        measured, none = rel_error(key, True), rel_error(key, True, family=False)
        assert none < measured, (key, measured, none)  # the unmeasured margin: the promise is lower
    assert min(rel_error(k, True, family=False) for k in FITTED) < -0.05


def test_calibration_points_are_the_committed_measurements() -> None:
    cal = h200()
    assert {p["run"] for p in cal.points} == {load_record(k)["name"] for k in LOADS}
    for key in LOADS:
        rec = load_record(key)
        point = next(p for p in cal.points if p["run"] == rec["name"])
        m = point["measured"]
        assert m["kv_cache_size_tokens"] == rec["kv_cache_tokens"] == m["num_gpu_blocks"] * m["block_size"]
        assert m["num_gpu_blocks"] == rec["num_kv_blocks"] and m["max_concurrency"] == rec["max_concurrency"]
        assert point["engine_args"]["gpu_memory_utilization"] == rec["config"]["gpu_memory_utilization"]
        p = compute(request(key))
        assert p.block_size == m["block_size"]
        # vLLM's own max concurrency is blocks / blocks per sequence, as the planner computes it
        assert p.max_concurrency == pytest.approx(m["max_concurrency"], rel=FIT_TABLE_ERROR)


def test_overheads_reproduce_from_vllm_log_lines() -> None:
    """The release's measured constants (resources/calibration/vllm-memory.json) reproduce vLLM's logged
    figures for these loads, re-read here from the log lines."""
    from console.planner.vllm_memory import memory_constants

    cal = h200()
    c, coverage = memory_constants().find("h200", "0.26.0")
    assert c is not None and coverage == "exact"
    lines = vllm_usage_lines()
    assert "activation_peak" not in cal.overheads  # the release's constants replaced h200.json's activation line
    raw = [compute(request(k, calibration=False, family=False)).overheads for k in LOADS]
    calibrated = [compute(request(k)).overheads for k in LOADS]
    # non-torch memory: the largest vLLM logged (these loads 0.22 GiB; others up to 0.23 GiB)
    assert all(u["non_torch"] * GiB <= c.non_torch_bytes for u in lines)
    # each load's predicted activation (with non-torch memory and the compiled extra) is within 0.1 GiB
    # of what vLLM logged (its figures are rounded to 0.01 GiB)
    for key, e, u in zip(LOADS, calibrated, lines):
        if key in FITTED:
            assert abs(e["activation_peak"].bytes - (u["activation"] + u["non_torch"]) * GiB) < 0.1 * GiB, key
    # cuda_graphs: the release's scale is at least every logged / estimated ratio, so no point is under-counted
    ratios = [u["graphs"] * GiB / e["cuda_graphs"].bytes for u, e in zip(lines, raw)]
    assert c.graphs_scale >= max(ratios) - 1e-3
    for u, e in zip(lines, calibrated):
        assert e["cuda_graphs"].bytes >= u["graphs"] * GiB - 1
    # cuda_context: NVML's peak minus everything vLLM accounted for (8B bf16 and fp8 series)
    outside = []
    for u, tag in zip(lines[:2], ("bf16", "fp8")):
        peak = max(s["values"]["mem_used_bytes"] for s in results(f"series_8b_{tag}.json.gz")["device"])
        outside.append(peak - (u["weights"] + u["activation"] + u["non_torch"] + u["graphs"] + u["kv"]) * GiB)
    assert 1.2 * GiB < max(outside) <= cal.overheads["cuda_context"]["bytes"] < max(outside) + MiB


def test_h200_emulated_configs_fit_on_the_h200() -> None:
    """They did start on the H200: the planner must not refuse them there."""
    for key in LOADS:
        p = plan(request(key))
        assert p.verdict == "fits", (key, p.problems)


# -- the 24 GB configurations ----------------------------------------------------------------------
def test_nvml_saw_more_than_a_24gb_card_holds() -> None:
    """The evidence: vLLM's budget was 23.0 GiB (util 0.1638 of the H200), NVML saw more than a whole
    RTX 4090 in use, even after taking away what NVML reported as used on the idle card."""
    card = GPU_PROFILES["rtx-4090"].memory_bytes
    for tag in ("bf16", "fp8"):
        device = results(f"series_8b_{tag}.json.gz")["device"]
        idle = device[0]["values"]["mem_used_bytes"]
        peak = max(s["values"]["mem_used_bytes"] for s in device)
        assert idle < 1 * GiB
        assert peak > EMU_GIB * GiB + 0.5 * GiB  # budget + CUDA graphs (0.5-0.6 GiB) and more
        assert peak - idle > card


@pytest.mark.parametrize("key", ["8b-bf16", "8b-fp8", "3b", "qwen-7b"])
def test_planner_flags_the_emulated_budget_on_a_4090(key: str) -> None:
    card = GPU_PROFILES["rtx-4090"]
    util = round(EMU_GIB * GiB / card.memory_bytes, 4)  # 0.9588: the same 23.0 GiB budget
    p = plan(request(key, gpu="rtx-4090", util=util))
    assert p.verdict != "fits"
    assert "CUDA graphs" in p.problems[0] and "run out of memory" in p.problems[0]
    assert p.vllm_kv_tokens > p.kv_tokens
    fixes = [s for s in p.suggestions if s.kind == "settings"]
    assert fixes and fixes[0].changes.get("gpu_memory_utilization", 1) < util


def test_plan_cli_prints_the_oom(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """On a machine whose vLLM is 0.26 (the H200 run's: CUDA graphs outside its budget); with 0.33
    (graphs inside the budget) the same settings fit."""
    from console.cli.main import main

    monkeypatch.setenv("INFERENCE_CONSOLE_HOME", str(tmp_path))
    args = [
        "plan",
        "--model",
        "Llama-3.1-8B",
        "--gpu",
        "rtx-4090",
        "--gpu-memory-utilization",
        "0.9588",
        "--max-model-len",
        "8192",
        "--max-num-seqs",
        "256",
        "--max-num-batched-tokens",
        "8192",
    ]
    monkeypatch.setattr("console.planner.request.installed_vllm", lambda: ("vllm", "0.26.0"))
    rc = main(args)
    out = capsys.readouterr().out
    assert rc == 0
    assert "FITS ONLY WITH CHANGES" in out and "run out of memory" in out and "gpu_memory_utilization 0.95" in out
    monkeypatch.setattr("console.planner.request.installed_vllm", lambda: ("vllm", "0.33.0"))
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "VERDICT: FITS\n" in out and "run out of memory" not in out


# -- the recorded series through the metrics code --------------------------------------------------
def replay(series: dict[str, Any]) -> MetricsStore:
    """Feed the recorded bins and NVML samples back into a MetricsStore, as the engine and sampler did."""
    store = MetricsStore(resolution_s=series["resolution_s"])
    for b in series["bins"]:
        store.record_step(
            t=b["t"],
            running=b["running"],
            waiting=b["waiting"],
            kv_usage=b["kv_usage"],
            prompt_tokens=b["prompt_tokens"],
            generation_tokens=b["generation_tokens"],
            preemptions=b["preemptions"],
            prefix_hits=b["prefix_hits"],
            prefix_queries=b["prefix_queries"],
        )
    for s in series["device"]:
        store.record_device(s["values"], t=s["t"])
    return store


@pytest.mark.parametrize("tag", ["bf16", "fp8"])
def test_series_add_up_to_the_bench(tag: str) -> None:
    series = results(f"series_8b_{tag}.json.gz")
    eng = results("engine.json")
    bench, abort = eng[f"8b_{tag}_bench"], eng[f"8b_{tag}_stream_abort"]
    store = replay(series)
    bins = store.bins()
    assert [b.t for b in bins] == [b["t"] for b in series["bins"]]  # one bin each: the grid survived
    assert all(b2.t - b1.t >= series["resolution_s"] - 1e-9 for b1, b2 in zip(bins, bins[1:]))
    # generated tokens: bench (256 x 256), single stream (256), stream (32), aborted request
    expected_gen = (
        bench["throughput"]["output_tokens"]
        + bench["single_stream"]["output_tokens"]
        + abort["stream_tokens"]
        + abort["abort_tokens"]
    )
    gen = sum(b.generation_tokens for b in bins)
    assert gen == pytest.approx(expected_gen, rel=0.01)
    assert gen == series["totals"]["generation_tokens"] == store.totals["generation_tokens"]
    expected_prompt = bench["throughput"]["prompt_tokens"] + bench["single_stream"]["prompt_tokens"] + 2 * 64
    assert sum(b.prompt_tokens for b in bins) == pytest.approx(expected_prompt, rel=0.01)
    # preemptions and peak KV usage as the bench reported them from the same store
    assert sum(b.preemptions for b in bins) == bench["throughput"]["engine"]["preemptions"]
    assert all(0.0 <= b.kv_usage <= 1.0 for b in bins)
    assert store.totals["peak_kv_usage"] == pytest.approx(bench["throughput"]["engine"]["peak_kv_cache_usage"])
    assert 1 <= store.totals["peak_running"] <= 256 and store.totals["peak_waiting"] <= 256
    # the busiest second generated at least the bench's average rate
    best = max(store.rate("generation_tokens", window_s=1.0, now=b.t + series["resolution_s"]) for b in bins)
    assert best >= bench["throughput"]["output_tokens_per_s"]
    # finished records: 256 + single stream + stream, all 'length'; vLLM's stats carry no record for the
    # request aborted by the console (its one token is in the bins, not in a finished record)
    assert series["totals"]["finished_requests"] == len(series["finished"]) == 256 + 1 + 1
    assert {f["finish_reason"] for f in series["finished"]} == {"length"}
    assert sum(f["generation_tokens"] for f in series["finished"]) == expected_gen - abort["abort_tokens"]
    assert len(series["ttft"]) >= 256


@pytest.mark.parametrize("tag", ["bf16", "fp8"])
def test_nvml_samples_are_sane(tag: str) -> None:
    series = results(f"series_8b_{tag}.json.gz")
    store = replay(series)
    samples = store.device_samples()
    assert len(samples) == len(series["device"]) > 100
    total = results("engine.json")["environment"]["gpu_total_bytes"]
    ts = [s.t for s in samples]
    assert ts == sorted(ts) and max(b - a for a, b in zip(ts, ts[1:])) < 2.0  # 0.25 s sampler, no gaps
    bins = store.bins()
    # NVML covers the engine's whole activity (the last bin holds the final stream, 0.1 s long)
    assert ts[0] <= bins[0].t and ts[-1] >= bins[-1].t - series["resolution_s"]
    for s in samples:
        v = s.values
        assert 0 < v["mem_used_bytes"] < v["mem_total_bytes"] == total
        assert 0 <= v["gpu_util_pct"] <= 100 and 0 <= v["mem_util_pct"] <= 100
        assert 0 < v["power_w"] <= v["power_limit_w"]
        assert 15 <= v["temperature_c"] <= 95
        assert v["sm_clock_mhz"] > 0 and v["mem_clock_mhz"] > 0
    peak = max(s.values["mem_used_bytes"] for s in samples)
    bench = results("engine.json")[f"8b_{tag}_bench"]["throughput"]
    assert peak == bench["peak_memory_bytes"]
    busy = [s for s in samples if bins[0].t <= s.t <= bins[-1].t + 0.5]
    assert max(s.values["gpu_util_pct"] for s in busy) >= 90


# -- speed: single stream against the roofline; the console against plain vLLM ---------------------
@pytest.mark.parametrize("tag,quant", [("bf16", None), ("fp8", "fp8")])
def test_single_stream_under_the_roofline(tag: str, quant: str | None) -> None:
    measured = results("engine.json")[f"8b_{tag}_bench"]["single_stream"]["output_tokens_per_s"]
    p = plan(
        PlanRequest(
            shape_for("Llama-3.1-8B"),
            gpu="h200",
            quantization=quant,
            kv_cache_dtype="fp8" if quant else "auto",
            max_model_len=8192,
        )
    )
    bound = p.roofline["decode_tok_s_single_stream"]
    # bf16 reaches 63% of the bandwidth bound, FP8 (W8A8, dynamic activation scales) 47%
    assert 0.4 < measured / bound < 1.0, (measured, bound)


def test_readme_figures_come_from_the_results() -> None:
    readme = (ROOT / "benchmarks" / "gpu" / "README.md").read_text(encoding="utf-8")
    eng, extra = results("engine.json"), results("extra.json")
    for tag in ("bf16", "fp8"):
        console = eng[f"8b_{tag}_bench"]["throughput"]["output_tokens_per_s"]
        plain = extra[f"8b_{tag}_plain_vllm"]["output_tokens_per_s"]
        assert f"{console:,.0f}" in readme and f"{plain:,.0f}" in readme
        assert f"{console / plain:.3f}" in readme
        # the 2026-11-29 harness (toy tokenizer) put the console below 0.97; kept as measured
        assert console / plain < 0.97
    assert f"{extra['8b_whole_bench']['throughput']['output_tokens_per_s']:,.0f}" in readme
    for key in LOADS:
        assert f"{load_record(key)['kv_cache_tokens']:,}" in readme
        assert f"{compute(request(key)).kv_tokens:,}" in readme


def test_readme_conclusion_comes_from_the_real_tokenizer_runs() -> None:
    """The re-measured conclusion: the acceptance bench reports, real tokenizer, prefix
    cache reset; console / plain vLLM within 3% on both configurations."""
    readme = (ROOT / "benchmarks" / "gpu" / "README.md").read_text(encoding="utf-8")
    for tag in ("bf16", "fp8"):
        rep = results(f"acceptance-bench-8b-{tag}.json")
        console = rep["results"]["console"]["output_tokens_per_s"]
        plain = rep["results"]["vllm"]["output_tokens_per_s"]
        assert rep["results"]["console"]["prefix_cache"] == "reset before the run"
        assert f"{console:,.0f}" in readme and f"{plain:,.0f}" in readme
        assert f"**{console / plain:.3f}**" in readme
        assert console / plain >= 0.97
