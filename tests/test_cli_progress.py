"""The CLI's progress on a terminal (one line redrawn with ``\\r``) and on anything else (a log file:
whole lines, throttled by time and by progress, the last one always). No engine: the reports are
the ones the bench and batch runners send, on an injected clock."""

from __future__ import annotations

import io

from console.cli.common import ProgressPrinter
from console.jobs import Progress, TaskState


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _bench(stream: io.StringIO, clock: Clock, n: int = 1024, dt: float = 0.01) -> None:
    """``bench --num-prompts n``: a stage, then one report per finished request (console/bench/suite.py)."""
    task = TaskState(ProgressPrinter(stream, clock=clock))
    task.report("loading engine", None)
    for i in range(1, n + 1):
        clock.t = 30.0 + i * dt
        task.report(f"console (1/1): {i}/{n} requests", i / n, f"{i}/{n} requests")


def test_a_log_file_gets_a_dozen_lines_for_1024_requests_and_the_last_one() -> None:
    out, clock = io.StringIO(), Clock()
    _bench(out, clock)
    lines = out.getvalue().splitlines()
    assert "\r" not in out.getvalue()
    # the stage, then a line per 10 % (10.24 s of requests: the 5 s timer never comes first), the end
    assert 10 <= len(lines) <= 13, lines
    assert lines[0].startswith("loading engine")
    assert lines[1].startswith("console (1/1): 1/1024 requests")
    assert lines[-1].startswith("console (1/1): 1024/1024 requests 100.0%")
    assert sum("100.0%" in line for line in lines) == 1


def test_a_log_file_gets_a_line_every_5_s_while_progress_is_slow() -> None:
    out, clock = io.StringIO(), Clock()
    task = TaskState(ProgressPrinter(out, clock=clock, interval_s=5.0))
    for i in range(601):  # 60 s of reports 0.1 s apart, 1 % of the work in all
        clock.t = i / 10
        task.report("batch", i / 60_000, f"{i}/60000 done (0 failed)")
    lines = out.getvalue().splitlines()
    assert len(lines) == 13, lines  # t = 0, 5, 10, ..., 60
    assert lines[1].startswith("batch   0.1%") and "50/60000 done" in lines[1]


def test_a_log_file_gets_every_new_stage_at_once_and_a_stop_after_progress() -> None:
    out, clock = io.StringIO(), Clock()
    task = TaskState(ProgressPrinter(out, clock=clock))
    for stage in ("listing files", "downloading config.json", "downloading model.safetensors"):
        task.report(stage, 0.5)
    task.report("batch", 0.5, "5/10 done")
    task.report("batch", None, "stopped: the engine was unloaded")  # same stage, no fraction any more
    lines = out.getvalue().splitlines()
    assert [line.split(" ")[0] for line in lines] == ["listing", "downloading", "downloading", "batch", "batch"]
    assert lines[-1] == "batch  stopped: the engine was unloaded"


def test_a_terminal_gets_one_line_redrawn_in_place() -> None:
    out, clock = FakeTerminal(), Clock()
    _bench(out, clock)
    text = out.getvalue()
    assert text.count("\n") == 1 and text.endswith("\n")  # ended once, at 100 %
    redraws = text.split("\r")[1:]
    assert 95 <= len(redraws) <= 110  # at most one redraw per 0.1 s (10.24 s of requests), the stage, the end
    assert redraws[1].startswith("console (1/1): 1/1024 requests")
    assert redraws[-1].startswith("console (1/1): 1024/1024 requests 100.0%")


def test_a_terminal_line_blanks_a_longer_one_and_is_ended_once() -> None:
    out = FakeTerminal()
    printer = ProgressPrinter(out, clock=Clock())
    printer(Progress("downloading model.safetensors", 0.4, "1.2 GB", elapsed_s=20.0))
    printer(Progress("registering", None))
    printer.end_line()
    printer.end_line()
    first = "downloading model.safetensors  40.0% ETA 30s  1.2 GB"
    assert out.getvalue() == "\r" + first + "\rregistering" + " " * (len(first) - len("registering")) + "\n"
