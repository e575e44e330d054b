"""The worker groups (tests/xdist_groups.py) keep each shared engine on one worker: checked on the
items of the run this test is part of (the whole suite in CI, where every group is populated)."""

from __future__ import annotations

import pytest

from xdist_groups import GROUPS, HEAVY_MARKERS


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
