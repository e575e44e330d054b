"""The worker groups (tests/xdist_groups.py) keep each shared engine on one worker: checked on the
items of the run this test is part of (the whole suite in CI, where every group is populated)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from xdist_groups import GROUPS, HEAVY_MARKERS, engine_core_for_this_worker


def _group(item: pytest.Item) -> str | None:
    marker = item.get_closest_marker("xdist_group")
    return None if marker is None else str(marker.args[0] if marker.args else marker.kwargs.get("name"))


def test_each_shared_session_engine_is_asked_for_by_one_group(request: pytest.FixtureRequest) -> None:
    items = request.session.items
    for fixture, _ in GROUPS:
        groups = {_group(i) for i in items if fixture in getattr(i, "fixturenames", ())}
        assert len(groups) <= 1, f"the tests using {fixture} are spread over the groups {sorted(map(str, groups))}"


def test_engine_tests_are_grouped_and_quick_tests_are_not(request: pytest.FixtureRequest) -> None:
    for item in request.session.items:
        heavy = any(item.get_closest_marker(m) is not None for m in HEAVY_MARKERS)
        assert (_group(item) is not None) == heavy, f"{item.nodeid}: group {_group(item)!r}, engine/e2e {heavy}"


INNER_CONFTEST = """
import os
import pytest
from xdist_groups import pytest_collection_modifyitems  # noqa: F401

@pytest.fixture(scope="session")
def _vllm_server_session():
    return "a stand-in: only its name puts a test in a group"

def pytest_collection_finish(session):
    with open(os.path.join(os.environ["WHERE"], "order-" + os.environ["PYTEST_XDIST_WORKER"]), "w") as f:
        f.write("\\n".join(item.nodeid for item in session.items))

@pytest.fixture(autouse=True)
def _where(request):
    out = os.path.join(os.environ["WHERE"], request.node.name)
    with open(out, "w") as f:
        f.write(os.environ["PYTEST_XDIST_WORKER"])
"""
INNER_TESTS = """
import pytest

@pytest.mark.parametrize("i", range(3))
def test_on_the_server(_vllm_server_session, i):
    pass

@pytest.mark.xdist_group("marked")
@pytest.mark.parametrize("i", range(3))
def test_marked(i):
    pass

@pytest.mark.parametrize("i", range(4))
def test_free(i):
    pass
"""


def test_a_group_runs_on_one_worker_under_xdist(tmp_path: Path) -> None:
    """packaging/test.sh's run (``-n 2 --dist loadgroup``) on a small suite of two modules: each
    group's tests, those of a shared fixture and those marked by hand, all run on one worker (the
    scheduler received the groups), while the run used both workers; the workers hand the
    scheduler the grouped tests ahead of the others (``heavy_first``)."""
    suite, where = tmp_path / "suite", tmp_path / "where"
    suite.mkdir()
    where.mkdir()
    (suite / "conftest.py").write_text(INNER_CONFTEST, encoding="utf-8")
    for module in ("test_one.py", "test_two.py"):
        (suite / module).write_text(INNER_TESTS.replace("def test_", f"def test_{module[5:8]}_"), encoding="utf-8")
    env = {**os.environ, "WHERE": str(where), "PYTHONPATH": str(Path(__file__).parent)}
    env.pop("PYTEST_XDIST_WORKER", None)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-p", "no:cacheprovider", "-q", str(suite)],
        cwd=suite,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    ran = {p.name: p.read_text() for p in where.iterdir() if not p.name.startswith("order-")}
    assert len(ran) == 20, sorted(ran)
    for kind in ("on_the_server", "marked"):
        workers = {w for name, w in ran.items() if kind in name}
        assert len(workers) == 1, f"the group of test_*_{kind} ran on {sorted(workers)}"
    assert set(ran.values()) == {"gw0", "gw1"}  # and the run did use both workers
    order = (where / "order-gw0").read_text().splitlines()
    assert order == (where / "order-gw1").read_text().splitlines() and len(order) == 20
    grouped = ["@" in nodeid for nodeid in order]
    assert grouped == sorted(grouped, reverse=True) and grouped.count(True) == 12, order


def test_each_worker_binds_its_engines_to_a_core_of_its_own() -> None:
    two = {0, 1}
    assert engine_core_for_this_worker({"PYTEST_XDIST_WORKER": "gw0", "PYTEST_XDIST_WORKER_COUNT": "2"}, two) == "0"
    assert engine_core_for_this_worker({"PYTEST_XDIST_WORKER": "gw1", "PYTEST_XDIST_WORKER_COUNT": "2"}, two) == "1"
    assert engine_core_for_this_worker({"PYTEST_XDIST_WORKER": "gw3", "PYTEST_XDIST_WORKER_COUNT": "4"}, {4, 6}) == "6"
    assert engine_core_for_this_worker({}, two) is None  # one process: vLLM's own binding
    assert engine_core_for_this_worker({"PYTEST_XDIST_WORKER": "gw0", "PYTEST_XDIST_WORKER_COUNT": "1"}, two) is None
    assert engine_core_for_this_worker({"PYTEST_XDIST_WORKER": "gw1", "PYTEST_XDIST_WORKER_COUNT": "2"}, {0}) is None
    mine = {"PYTEST_XDIST_WORKER": "gw1", "PYTEST_XDIST_WORKER_COUNT": "2", "VLLM_CPU_OMP_THREADS_BIND": "nobind"}
    assert engine_core_for_this_worker(mine, two) is None  # the caller's choice is kept


def test_an_xdist_worker_leaves_its_exit_to_the_controller(monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker that ran out of work waits for the others (minutes in a targeted run): no exit
    watchdog there to call that a stuck exit; the controller keeps its own."""
    import threading
    from types import SimpleNamespace

    import conftest

    monkeypatch.setattr(conftest, "EXIT_GRACE_S", 1e9)  # a watchdog started here would never fire
    before = set(threading.enumerate())
    conftest.pytest_unconfigure(SimpleNamespace(workerinput={"workerid": "gw0"}, _console_exit_status=0))
    assert not [t for t in set(threading.enumerate()) - before if t.name == "exit-watchdog"]
