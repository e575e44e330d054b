"""The model picker's core messages (badge details, search errors, offline mode) come out in
Chinese under zh_CN through console/ui/core_text.py. Each message is made by the core itself
against the local fake of the hubs' search APIs, so a template without a translation fails here.
No engine."""

from __future__ import annotations

from typing import Any

import pytest

from console.models.curated import fit_badges
from console.models.search import UNKNOWN_SHAPE, SearchError, search_models
from console.planner import KNOWN_SHAPES
from search_fakes import SearchHub, search_hub  # noqa: F401  (the fixture)
from tests.test_i18n_core_text import _translated, zh_cn  # noqa: F401  (zh_cn: the fixture)


def _error(**kwargs: Any) -> str:
    with pytest.raises(SearchError) as err:
        search_models("qwen3", **kwargs)
    return err.value.message  # what the window shows (str(err.value) is its English)


def test_badge_details(zh_cn: None) -> None:
    fits = fit_badges(KNOWN_SHAPES["Qwen3-8B"], "awq", "rtx-4090").detail
    assert "rtx-4090" in _translated(fits)
    too_big = fit_badges(KNOWN_SHAPES["Qwen3-32B"], None, "rtx-4090").detail
    assert ";" in too_big and "rtx-4090" in _translated(too_big)
    _translated(UNKNOWN_SHAPE)


def test_search_errors_and_offline_mode(
    zh_cn: None,
    search_hub: SearchHub,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for status in (429, 503, 404):
        search_hub.status = status
        assert str(status) in _translated(_error())
    search_hub.status = 200
    search_hub.delay_s = 1.0
    assert "0.2" in _translated(_error(timeout=0.2))
    search_hub.delay_s = 0
    assert "127.0.0.1:9" in _translated(_error(base="http://127.0.0.1:9"))
    monkeypatch.setenv("INFERENCE_CONSOLE_OFFLINE", "1")
    offline = _translated(_error(source="modelscope"))
    assert "INFERENCE_CONSOLE_OFFLINE" in offline and "ModelScope" in offline and "searching" not in offline
    with pytest.raises(SearchError) as err:
        search_models("  ")
    _translated(err.value.message)
