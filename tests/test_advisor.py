"""Advisor rules on recorded series: the two committed H200 runs and synthetic series built to
make each rule fire, and to stay silent just beside its threshold."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from console.advisor import AdvisorContext, RuleError, evaluate, load_rules, parse_rules, planner_view
from console.advisor.evaluate import longest_run
from console.cli.main import main
from console.metrics.store import FinishedRecord, MetricsStore
from console.metrics.recording import load_recording
from console.planner import PlanRequest, shape_for

ROOT = Path(__file__).resolve().parents[1]
GPU = ROOT / "benchmarks" / "gpu" / "results"
H200_24GB = AdvisorContext(engine={"gpu_memory_utilization": 0.1638, "max_num_seqs": 256})
T0 = 1_800_000_000.0
GiB = 1024**3


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return load_rules()


def _store(n_bins: int = 0, **bin_values: float) -> MetricsStore:
    st = MetricsStore(resolution_s=0.5)
    for i in range(n_bins):
        st.record_step(t=T0 + i * 0.5, **bin_values)  # type: ignore[arg-type]
    return st


def _gpu(st: MetricsStore, seconds: float, **values: float) -> None:
    base = {
        "mem_used_bytes": 10 * GiB,
        "mem_total_bytes": 24 * GiB,
        "gpu_util_pct": 90.0,
        "power_w": 300.0,
        "power_limit_w": 450.0,
        "temperature_c": 60.0,
        "sm_clock_mhz": 2500.0,
        "throttle_reasons": 0.0,
    }
    for i in range(int(seconds / 0.25)):
        st.record_device({**base, **values}, t=T0 + i * 0.25)


# -- the committed H200 runs -----------------------------------------------------------------------
def test_bf16_run_fires_kv_preemption_queue_and_power_and_nothing_else(rules) -> None:  # type: ignore[no-untyped-def]
    store, meta = load_recording(GPU / "series_8b_bf16.json.gz")
    assert "bf16" in meta["label"]
    report = evaluate(store, rules, H200_24GB)
    assert report.fired() == {"kv-cache-saturation", "preemptions", "long-queue-wait", "power-throttling"}
    assert set(report.silent) == {"low-gpu-util-with-waiting", "long-prompt-ttft", "thermal-throttling", "vram-foreign"}
    assert report.not_evaluated == {}
    by = {f.rule_id: f for f in report.findings}
    kv = by["kv-cache-saturation"]
    assert kv.evidence["peak_pct"] == pytest.approx(100.0)
    assert kv.duration_s >= 10  # full from 1 s to 12 s into the run
    assert kv.change == {"kv_cache_dtype": "fp8"}
    assert by["preemptions"].evidence["count"] == 80 == store.totals["preemptions"]
    assert by["preemptions"].change == {"max_num_seqs": 192}
    assert by["long-queue-wait"].evidence["queued_s"] > 5  # p90 of 258 requests: 7.1 s
    power = by["power-throttling"]
    assert power.evidence["power_limit"] == 700 and power.evidence["peak_power"] > 680
    assert power.change == {}  # guidance only: the console never changes driver settings
    assert "85%" in kv.what and "100%" in kv.what


def test_fp8_run_stays_silent(rules) -> None:  # type: ignore[no-untyped-def]
    store, _ = load_recording(GPU / "series_8b_fp8.json.gz")
    report = evaluate(store, rules, H200_24GB)
    # KV peaked at 92% for 2.5 s (window 5 s), queue p90 1.7 s (threshold 2 s), no preemption,
    # SW power cap for one sample only
    assert report.findings == []
    assert store.totals["peak_kv_usage"] > 0.9


def test_editing_a_threshold_changes_the_verdict_on_the_same_series(rules) -> None:  # type: ignore[no-untyped-def]
    store, _ = load_recording(GPU / "series_8b_fp8.json.gz")
    assert "kv-cache-saturation" in evaluate(store, rules.with_params("kv-cache-saturation", window_s=2.0)).fired()
    assert "long-queue-wait" in evaluate(store, rules.with_params("long-queue-wait", queued_threshold_s=1.5)).fired()


def test_vram_rule_needs_a_budget_and_gpu_series(rules) -> None:  # type: ignore[no-untyped-def]
    store, _ = load_recording(GPU / "series_8b_bf16.json.gz")
    report = evaluate(store, rules)  # no engine settings: budget unknown
    assert "budget is unknown" in report.not_evaluated["vram-foreign"]
    # an engine told it had a quarter of that budget: the rest is "someone else's"
    assert "vram-foreign" in evaluate(store, rules, AdvisorContext(engine={"gpu_memory_utilization": 0.12})).fired()


# -- synthetic series, one rule at a time ---------------------------------------------------------
def test_kv_saturation_sustained_vs_brief(rules) -> None:  # type: ignore[no-untyped-def]
    assert "kv-cache-saturation" in evaluate(_store(12, kv_usage=0.9, running=8), rules).fired()  # 6 s
    assert "kv-cache-saturation" not in evaluate(_store(8, kv_usage=0.9, running=8), rules).fired()  # 4 s
    assert "kv-cache-saturation" not in evaluate(_store(40, kv_usage=0.8, running=8), rules).fired()


def test_kv_saturation_run_is_broken_by_a_gap(rules) -> None:  # type: ignore[no-untyped-def]
    st = _store(8, kv_usage=0.95)
    for i in range(8):
        st.record_step(t=T0 + 30 + i * 0.5, kv_usage=0.95)
    assert "kv-cache-saturation" not in evaluate(st, rules).fired()  # two 4 s stretches, not one 8 s
    assert longest_run([(0, True), (1, True), (5, True)], 1.0)[1] == 2.0


def test_actions_fall_through_to_the_first_that_changes_something(rules) -> None:  # type: ignore[no-untyped-def]
    st = _store(12, kv_usage=0.99)
    f = evaluate(st, rules, AdvisorContext(engine={"kv_cache_dtype": "fp8", "gpu_memory_utilization": 0.9})).findings[0]
    assert f.change == {"gpu_memory_utilization": 0.95}
    f = evaluate(
        st, rules, AdvisorContext(engine={"kv_cache_dtype": "fp8", "gpu_memory_utilization": 0.95, "max_num_seqs": 32})
    ).findings[0]
    assert f.change == {"max_num_seqs": 24}


def test_low_utilisation_with_waiting_requests(rules) -> None:  # type: ignore[no-untyped-def]
    def run(util: float, kv: float = 0.3, waiting: int = 12) -> set[str]:
        st = _store(16, running=4, waiting=waiting, kv_usage=kv)
        _gpu(st, 8.0, gpu_util_pct=util)
        return evaluate(st, rules, AdvisorContext(engine={"max_num_seqs": 4})).fired()

    assert "low-gpu-util-with-waiting" in run(20.0)
    assert "low-gpu-util-with-waiting" not in run(90.0)  # busy GPU: nothing to gain
    assert "low-gpu-util-with-waiting" not in run(20.0, kv=0.95)  # cache full: more seqs won't fit
    assert "low-gpu-util-with-waiting" not in run(20.0, waiting=0)
    st = _store(16, running=4, waiting=12, kv_usage=0.3)
    _gpu(st, 8.0, gpu_util_pct=20.0)
    f = [
        f
        for f in evaluate(st, rules, AdvisorContext(engine={"max_num_seqs": 4})).findings
        if f.rule_id == "low-gpu-util-with-waiting"
    ][0]
    assert f.change == {"max_num_seqs": 8} and f.evidence["mean_util"] == 20.0
    report = evaluate(_store(16, running=4, waiting=12, kv_usage=0.3), rules)
    assert "not an NVIDIA GPU" in report.not_evaluated["low-gpu-util-with-waiting"]


def _finished(n: int, *, prompt: int, queued: float, prefill: float) -> list[FinishedRecord]:
    return [
        FinishedRecord(
            t=T0 + 10 + i,
            request_id=str(i),
            finish_reason="length",
            e2e_s=queued + prefill + 1,
            queued_s=queued,
            prefill_s=prefill,
            decode_s=1.0,
            prompt_tokens=prompt,
            generation_tokens=64,
            preemptions=0,
        )
        for i in range(n)
    ]


def test_long_prompts_dominating_ttft(rules) -> None:  # type: ignore[no-untyped-def]
    def run(**kw: float) -> list:  # type: ignore[type-arg]
        st = _store(2, running=1)
        st.record_step(t=T0 + 12, finished=_finished(6, **kw))  # type: ignore[arg-type]
        return [
            f
            for f in evaluate(st, rules, AdvisorContext(engine={"max_num_batched_tokens": 2048})).findings
            if f.rule_id == "long-prompt-ttft"
        ]

    hit = run(prompt=16000, queued=0.1, prefill=2.5)
    assert hit and hit[0].change == {"max_num_batched_tokens": 8192}
    assert hit[0].evidence["prompt_tokens"] == 16000
    assert not run(prompt=200, queued=0.1, prefill=2.5)  # slow, but not from long prompts
    assert not run(prompt=16000, queued=2.5, prefill=0.5)  # queueing dominates: another rule's job
    assert not run(prompt=16000, queued=0.05, prefill=0.3)  # fast enough


def test_queue_wait_from_finished_requests_and_from_a_standing_queue(rules) -> None:  # type: ignore[no-untyped-def]
    st = _store(2, running=1)
    st.record_step(t=T0 + 12, finished=_finished(10, prompt=100, queued=3.0, prefill=0.1))
    assert "long-queue-wait" in evaluate(st, rules).fired()
    st = _store(2, running=1)
    st.record_step(t=T0 + 12, finished=_finished(10, prompt=100, queued=1.0, prefill=0.1))
    assert "long-queue-wait" not in evaluate(st, rules).fired()
    standing = evaluate(_store(24, running=2, waiting=5), rules).findings  # 12 s, nothing finished
    assert [f.rule_id for f in standing] == ["long-queue-wait"]
    assert standing[0].what == "Requests have been waiting for 12.0 s without a break (up to 5 at once)."
    assert "long-queue-wait" not in evaluate(_store(12, running=2, waiting=5), rules).fired()


def test_thermal_and_power_throttling_read_nvml_bits(rules) -> None:  # type: ignore[no-untyped-def]
    def fired(**values: float) -> set[str]:
        st = _store(1)
        _gpu(st, 8.0, **values)
        return evaluate(st, rules).fired() & {"thermal-throttling", "power-throttling"}

    assert fired(throttle_reasons=0x40) == {"thermal-throttling"}  # HW thermal slowdown
    assert fired(temperature_c=88.0) == {"thermal-throttling"}
    assert fired(throttle_reasons=0x4) == {"power-throttling"}  # SW power cap
    assert fired(power_w=445.0) == {"power-throttling"}  # 99% of 450 W
    assert fired(throttle_reasons=0x1) == set()  # GPU idle: not throttling
    assert fired(temperature_c=80.0, power_w=400.0) == set()
    st = _store(1)
    _gpu(st, 3.0, throttle_reasons=0x40)  # 3 s only
    assert not evaluate(st, rules).fired() & {"thermal-throttling"}


def test_vram_pressure_from_other_processes(rules) -> None:  # type: ignore[no-untyped-def]
    ctx = AdvisorContext(engine={"gpu_memory_utilization": 0.5})  # budget 12 GiB of 24

    def fired(used_gib: float) -> bool:
        st = _store(1)
        _gpu(st, 8.0, mem_used_bytes=used_gib * GiB)
        return "vram-foreign" in evaluate(st, rules, ctx).fired()

    assert fired(16.0)  # 4 GiB beyond the budget
    assert not fired(13.5)  # 1.5 GiB: CUDA graphs and the driver's own use
    st = _store(1)
    _gpu(st, 8.0, mem_used_bytes=16 * GiB)
    f = [f for f in evaluate(st, rules, ctx).findings if f.rule_id == "vram-foreign"][0]
    assert f.change == {"gpu_memory_utilization": 0.4}
    assert f.evidence["excess_gib"] == pytest.approx(4.0)


def test_no_data_no_findings_and_cpu_rules_say_why(rules) -> None:  # type: ignore[no-untyped-def]
    report = evaluate(MetricsStore(), rules)
    assert report.findings == []
    assert set(report.not_evaluated) == {
        "low-gpu-util-with-waiting",
        "thermal-throttling",
        "power-throttling",
        "vram-foreign",
    }


# -- rules as data ----------------------------------------------------------------------------------
def test_bad_rule_files_name_the_rule(tmp_path: Path) -> None:
    good = {"id": "x", "kind": "kv_saturation", "title": "t", "what": "w", "why": "y", "kv_threshold": 0.9}
    with pytest.raises(RuleError, match="rule x.*kind 'nope'"):
        parse_rules({"rule": [{**good, "kind": "nope"}]})
    with pytest.raises(RuleError, match="rule x.*needs kv_threshold"):
        parse_rules({"rule": [{k: v for k, v in good.items() if k != "kv_threshold"}]})
    with pytest.raises(RuleError, match="must be a number"):
        parse_rules({"rule": [{**good, "kv_threshold": "high"}]})
    bad = tmp_path / "rules.toml"
    bad.write_text("[[rule]\n")
    with pytest.raises(RuleError, match="not valid TOML"):
        load_rules(bad)
    edited = tmp_path / "edited.toml"
    edited.write_text(
        (ROOT / "resources/advisor/rules.toml").read_text().replace("kv_threshold = 0.85", "kv_threshold = 0.99")
    )
    assert "kv-cache-saturation" not in evaluate(_store(12, kv_usage=0.9), load_rules(edited)).fired()


def test_planner_view_of_a_change() -> None:
    req = PlanRequest(shape_for("Llama-3.1-8B"), gpu="rtx-4090", max_model_len=8192)
    view = planner_view({"kv_cache_dtype": "fp8", "enable_chunked_prefill": True}, req)
    assert view["after"]["kv_tokens"] == pytest.approx(2 * view["before"]["kv_tokens"], rel=0.02)
    assert view["not_modelled"] == ["enable_chunked_prefill"]


# -- the CLI --------------------------------------------------------------------------------------
def test_cli_advise_json_and_text(capsys: pytest.CaptureFixture[str]) -> None:
    rec = str(GPU / "series_8b_bf16.json.gz")
    assert (
        main(
            [
                "advise",
                "--recording",
                rec,
                "--gpu-memory-utilization",
                "0.1638",
                "--json",
                "--model",
                "Llama-3.1-8B",
                "--gpu",
                "h200",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert {f["rule_id"] for f in out["findings"]} == {
        "kv-cache-saturation",
        "preemptions",
        "long-queue-wait",
        "power-throttling",
    }
    kv = [f for f in out["findings"] if f["rule_id"] == "kv-cache-saturation"][0]
    assert kv["planner"]["after"]["kv_tokens"] > kv["planner"]["before"]["kv_tokens"]
    assert main(["advise", "--recording", str(GPU / "series_8b_fp8.json.gz")]) == 0
    text = capsys.readouterr().out
    assert "No rule fired" in text and "not evaluated: vram-foreign" in text


def test_cli_advise_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["advise", "--recording", str(tmp_path / "none.json")]) == 2
    assert capsys.readouterr().err.startswith("error: no recording at")
    junk = tmp_path / "junk.json"
    junk.write_text('{"bins": 3}')
    assert main(["advise", "--recording", str(junk)]) == 2
    err = capsys.readouterr().err
    assert "not a metrics recording" in err and "Traceback" not in err


def test_since_keeps_the_bin_it_falls_inside(rules) -> None:  # type: ignore[no-untyped-def]
    st = _store(1, kv_usage=0.99)  # one bin starting at T0, e.g. a burst shorter than a bin
    eager = rules.with_params("kv-cache-saturation", window_s=0.0)
    assert "kv-cache-saturation" in evaluate(st, eager, since=T0 + 0.3).fired()
    assert "kv-cache-saturation" not in evaluate(st, eager, since=T0 + 0.5).fired()


def test_cli_serve_metrics_serves_then_stops(capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    rec = str(GPU / "series_8b_fp8.json.gz")
    assert main(["serve-metrics", "--recording", rec, "--port", "0", "--seconds", "0.3"]) == 0
    assert "serving http://127.0.0.1:" in capsys.readouterr().out
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["serve-metrics", "--recording", rec, "--port", str(port), "--seconds", "0.1"]) == 2
    err = capsys.readouterr().err
    assert f"cannot serve metrics on 127.0.0.1:{port}" in err and "Traceback" not in err
