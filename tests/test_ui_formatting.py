"""Figures in the UI follow the locale: decimal and grouping separators, date order, and the
panels that show numbers go through console.ui.formatting."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Iterator

import pytest
from PySide6.QtCore import QLocale

from console.ui.formatting import (
    format_bytes,
    format_count,
    format_datetime,
    format_duration,
    format_number,
    format_params,
    format_rate,
)

EN, DE, ZH = QLocale("en_US"), QLocale("de_DE"), QLocale("zh_CN")
MOMENT = "2026-03-04T15:06:07+00:00"


def test_sizes_use_the_locale_decimal_separator() -> None:
    size = int(1.5 * 1024**3)
    assert format_bytes(size, locale=EN) == "1.5 GiB"
    assert format_bytes(size, locale=ZH) == "1.5 GiB"
    assert format_bytes(size, locale=DE) == "1,5 GiB"
    assert format_bytes(0, locale=EN) == "—"
    assert format_rate(12.5 * 1024**2, locale=DE).startswith("12,5 MiB")


def test_counts_and_numbers_are_grouped_for_the_locale() -> None:
    assert format_count(1234567, locale=EN) == "1,234,567"
    assert format_count(1234567, locale=ZH) == "1,234,567"
    assert format_count(1234567, locale=DE) == "1.234.567"
    assert format_number(3.25, 2, locale=DE) == "3,25"
    assert format_number(3.25, 2, locale=ZH) == "3.25"
    assert format_params(135_000_000, locale=DE) == "135,0M"


def test_dates_follow_the_locale_order() -> None:
    en, de, zh = (format_datetime(MOMENT, locale=loc) for loc in (EN, DE, ZH))
    assert "26" in en and en.index("3") < en.index("4")  # month first: 3/4/26
    assert "04.03.26" in de  # day first, dots
    assert zh.startswith("2026/3/4")  # year first
    assert format_datetime("not a date", locale=EN) == "not a date"


def test_durations_are_translated(qapp: Any) -> None:
    from console.ui.app import install_translators

    assert format_duration(185) == "3 min 05 s"
    before = QLocale()
    installed = install_translators(qapp, "zh_CN")
    try:
        assert format_duration(185) == "3 分 05 秒"
        assert format_bytes(int(1.5 * 1024**3)) == "1.5 GiB"  # zh_CN's default locale now
    finally:
        for t in installed:
            qapp.removeTranslator(t)
        QLocale.setDefault(before)


@pytest.fixture()
def german() -> Iterator[None]:
    before = QLocale()
    QLocale.setDefault(DE)
    yield
    QLocale.setDefault(before)


def test_panels_show_locale_figures(german: None) -> None:
    from console.ui.chat.panel import figures_text
    from console.ui.models.table import human_bytes

    assert human_bytes(int(2.5 * 1024**2)) == "2,5 MiB"
    m = SimpleNamespace(ttft_s=0.125, tokens_per_s=1234.5, output_tokens=12345, finish_reason="stop")
    text = figures_text(m)  # type: ignore[arg-type]
    assert "0,13 s" in text or "0,12 s" in text
    assert "1.234,5 tok/s" in text and "12.345 tokens" in text


def test_the_planner_box_groups_its_figures_for_the_locale(german: None, qapp: Any) -> None:
    """The Planner box's KV cache tokens and concurrency, as every other figure: "12.345" under
    de_DE (it wrote Python's "12,345" whatever the locale)."""
    from console.config import EngineConfig
    from console.planner import KNOWN_SHAPES, PlanRequest, plan
    from console.ui.models.plan_view import PlanView

    p = plan(PlanRequest(KNOWN_SHAPES["Llama-3.1-8B"], gpu="h200", max_model_len=8192))
    view = PlanView()
    view.show_plan(p, EngineConfig(model="tiny", max_model_len=8192))
    text = view.plan_label.text()
    assert f"KV cache: {format_count(p.kv_tokens)} tokens" in text, text
    assert "." in format_count(p.kv_tokens)  # de_DE's grouping, so the line above tests it
    assert f"Max concurrency at full context: {format_number(p.max_concurrency)}×" in text, text
