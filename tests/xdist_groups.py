"""Which tests share a worker when the suite runs on several (``packaging/test.sh`` runs it with
pytest-xdist, ``--dist loadgroup``).

A worker is its own pytest session: session fixtures (the tiny engine, the SmolLM2 engine, the
family engines, the vLLM server) are built once per worker that needs them. So the tests of one
expensive shared fixture go to one worker, as a group:

- ``families``: every test that asks for a ``family`` engine (one worker then builds each family
  once, in order, the next one ahead while the current one's tests run: ``conftest.family``);
- ``smollm2``: the tests on the session's SmolLM2 engine (a build costs a minute or more);
- ``vllm-server``: the tests on the session's vLLM server;
- ``vision-batch``: the tests held to vLLM's run_batch on the vision lines (``vision_batch_reference``:
  an engine start), in process and through a server, and every other test on the session's vision
  engine (``vision_engine``: built once, not on both workers);
- any other engine or e2e test goes with the rest of its module (module fixtures build engines too).

Quick tests carry no group and go wherever a worker is free. The tiny ``tiny_engine`` is cheap
enough to build on each worker. Without xdist the markers change nothing.

xdist hands out the groups largest first, then the one-test units in collection order; on a
worker the grouped tests are put ahead of the quick ones (``heavy_first``), so a one-test engine
module late in the alphabet (the Server tab's, the window's) no longer starts while the other
worker runs out of work: the quick tests, seconds each, are what is left at the end.

xdist's scheduler reads a test's group from its node id, which xdist's worker suffixes with
``@group`` by writing the node's legacy ``_nodeid`` field. A pytest whose node ids are structured
(``Node._id``, a ``NodeId``) ignores that field: the suffix never reached the scheduler and every
test went to whichever worker was free, so each worker built the shared engines and a module's
fixtures were built again whenever its tests alternated between workers. ``tag_for_scheduler``
writes the suffix into the structured id as well (``test_xdist_groups`` checks that the ids the
scheduler receives carry it).
"""

from __future__ import annotations

import pytest

#: Shared fixture -> its group, first match wins (a test on a family and the server goes with the families).
GROUPS = (
    ("family", "families"),
    ("_smollm2_session_engine", "smollm2"),
    ("_vllm_server_session", "vllm-server"),
    ("vision_batch_reference", "vision-batch"),
    ("vision_engine", "vision-batch"),
)
HEAVY_MARKERS = ("engine", "e2e")


def group_of(item: pytest.Item) -> str | None:
    """The worker group of ``item``, or None for a test any worker may run."""
    names = set(getattr(item, "fixturenames", ()))
    for fixture, group in GROUPS:
        if fixture in names:
            return group
    if any(item.get_closest_marker(m) is not None for m in HEAVY_MARKERS):
        return f"module:{item.nodeid.split('::', 1)[0]}"
    return None


def tag_for_scheduler(item: pytest.Item, group: str) -> None:
    """Suffix ``item``'s node id with ``@group`` where pytest keeps it structured (xdist's own
    suffix, written to ``_nodeid``, then has no effect); older pytests read ``_nodeid``, which
    xdist's worker suffixes after this hook."""
    structured = getattr(item, "_id", None)
    parse = getattr(type(structured), "parse", None)
    if structured is None or parse is None or item.nodeid.endswith(f"@{group}"):
        return
    item._id = parse(f"{item.nodeid}@{group}")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        group = group_of(item)
        if group is not None and item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(group))
    if getattr(config.option, "loadgroup", False):  # an xdist worker under --dist loadgroup
        for item in items:
            names = sorted(
                {
                    str(m.args[0] if m.args else m.kwargs.get("name", "default"))
                    for m in item.iter_markers("xdist_group")
                }
            )
            if names:
                tag_for_scheduler(item, "_".join(names))
        items[:] = heavy_first(items)


def heavy_first(items: list[pytest.Item]) -> list[pytest.Item]:
    """``items`` with the grouped ones first, each part in its own order (a stable partition)."""
    grouped = [i for i in items if i.get_closest_marker("xdist_group") is not None]
    return grouped + [i for i in items if i.get_closest_marker("xdist_group") is None]


def engine_core_for_this_worker(environ: dict[str, str], cpus: set[int]) -> str | None:
    """The CPU the engines of this xdist worker are bound to (``VLLM_CPU_OMP_THREADS_BIND``), or
    None to leave vLLM's choice. vLLM's "auto" binds every CPU engine's worker process to the same
    core (the first; the last is reserved for its front end): with two test workers building and
    running engines at once, both workers' engines ran on one core while the other core waited
    for the test processes. Worker ``gwN`` gets core N (modulo the cores); still one bound core
    per engine, as "auto" gives on two cores. A binding the caller set is kept."""
    worker = environ.get("PYTEST_XDIST_WORKER", "")
    count = int(environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if not worker.startswith("gw") or count < 2 or len(cpus) < 2 or "VLLM_CPU_OMP_THREADS_BIND" in environ:
        return None
    ordered = sorted(cpus)
    return str(ordered[int(worker[2:]) % len(ordered)])
