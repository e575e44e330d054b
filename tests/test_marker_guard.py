"""The marker rule is enforced (tests/marker_guard.py): an unmarked test that builds an engine,
starts a heavy child or asks for a shared engine fails before anything starts; marked tests and
light children pass. The tests below run in a pytest of their own (in this process) with the guard
loaded as a plugin, so nothing heavy starts here either."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from marker_guard import heavy_child

INNER = textwrap.dedent("""
    import subprocess
    import sys

    import pytest


    @pytest.fixture()
    def tiny_engine():
        return "a stand-in: the guard refuses before it is built"


    def test_unmarked_builds_an_engine(tmp_path):
        from console.config import EngineConfig
        from console.engine.in_process import InProcessEngine

        engine = InProcessEngine()
        try:
            try:
                engine.load(EngineConfig(model=str(tmp_path), device="cpu"), "x")
            except Exception:
                pass  # product code catching errors does not hide the missing marker
        finally:
            engine.close()


    def test_unmarked_starts_a_vllm_child():
        subprocess.run([sys.executable, "-c", "import vllm"], check=True)


    def test_unmarked_runs_the_cli_as_a_child():
        subprocess.run([sys.executable, "-m", "console", "--version"], check=True)


    def test_unmarked_uses_the_shared_engine(tiny_engine):
        pass


    @pytest.mark.engine
    def test_marked_child_runs():
        code = "print('from vllm import x'.split()[0])"  # heavy by its text, quick to run
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert out.stdout.strip() == "from"


    @pytest.mark.e2e
    def test_marked_fixture_is_allowed(tiny_engine):
        assert tiny_engine


    def test_a_light_child_needs_no_marker():
        assert subprocess.run([sys.executable, "-c", "print(1)"], capture_output=True).returncode == 0
""")


class Reports:
    def __init__(self) -> None:
        self.failed: dict[str, str] = {}
        self.passed: set[str] = set()

    def pytest_runtest_logreport(self, report: Any) -> None:
        name = report.nodeid.split("::")[-1]
        if report.failed:
            self.failed[name] = str(report.longrepr)
        elif report.passed and report.when == "call":
            self.passed.add(name)


def test_unmarked_engine_tests_fail_and_marked_ones_pass(tmp_path: Path) -> None:
    (tmp_path / "test_inner.py").write_text(INNER, encoding="utf-8")
    reports = Reports()
    rc = pytest.main(
        [
            str(tmp_path / "test_inner.py"),
            "-p",
            "marker_guard",
            "-p",
            "no:cacheprovider",
            "-q",
            "--rootdir",
            str(tmp_path),
            "-W",
            "ignore::pytest.PytestAssertRewriteWarning",
        ],
        plugins=[reports],
    )
    assert rc == 1
    assert set(reports.failed) == {
        "test_unmarked_builds_an_engine",
        "test_unmarked_starts_a_vllm_child",
        "test_unmarked_runs_the_cli_as_a_child",
        "test_unmarked_uses_the_shared_engine",
    }
    assert "InProcessEngine.load" in reports.failed["test_unmarked_builds_an_engine"]
    assert "python -c <code with import vllm>" in reports.failed["test_unmarked_starts_a_vllm_child"]
    assert "python -m console" in reports.failed["test_unmarked_runs_the_cli_as_a_child"]
    assert "tiny_engine" in reports.failed["test_unmarked_uses_the_shared_engine"]
    assert all("no engine/e2e marker" in text for text in reports.failed.values())
    assert reports.passed == {
        "test_marked_child_runs",
        "test_marked_fixture_is_allowed",
        "test_a_light_child_needs_no_marker",
    }


def test_which_children_are_heavy() -> None:
    py = sys.executable
    assert heavy_child([py, "-m", "console", "batch"]) == "python -m console"
    assert heavy_child([py, "-u", "-m", "vllm.entrypoints.openai.api_server"]) is not None
    assert heavy_child([py, "-m", "console.models.gguf_worker", "a", "b"]) is not None
    assert heavy_child([py, "-m", "console.quant.awq_worker", "spec"]) is not None
    assert heavy_child([py, "-m", "console.children", "5", "0"]) is None  # the watcher: tiny
    assert heavy_child([py, "-c", "import time; time.sleep(1)"]) is None
    assert (
        heavy_child([py, "-c", "from console.engine.in_process import InProcessEngine\nInProcessEngine().load(c)"])
        is not None
    )
    assert heavy_child([py, "-c", "from vllm.usage.usage_lib import UsageContext"]) is not None
    assert heavy_child([py, "-c", "import sys; print('vllm' in sys.modules)"]) is None  # a mention, no import
    assert heavy_child([py, "-c", "import importlib; importlib.import_module('console.vllm_compat')"]) is None
    script = Path(__file__).resolve().parent / "privacy_scenario.py"
    assert heavy_child([py, str(script), "work"]) is not None
    assert heavy_child(["bash", "-n", "x.sh"]) is None
