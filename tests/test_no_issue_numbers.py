"""Docstrings and comments state contracts, tests say what they check and benchmarks what they
measure; history (which issue asked for a thing) belongs to the git log. This fails on an issue
number anywhere in ``console/``, ``tests/``, ``benchmarks/`` (recorded results aside) or ``packaging/``."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ISSUE = re.compile(r"\bissues? #?\d+", re.IGNORECASE)


def _checked() -> list[Path]:
    files = [
        path
        for folder in ("console", "tests", "benchmarks", "packaging")
        for path in sorted((ROOT / folder).rglob("*"))
        if path.suffix in (".py", ".md", ".sh") and "results" not in path.parts and path.is_file()
    ]
    return [path for path in files if path != Path(__file__).resolve()]


def test_no_issue_numbers_in_the_code_tests_and_benchmarks() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in _checked()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if ISSUE.search(line)
    ]
    assert found == []


def test_the_pattern_finds_what_it_is_for() -> None:
    assert ISSUE.search("keeps models warm (issue 21): the engine")
    assert ISSUE.search("see Issue #7")
    assert not ISSUE.search("an issue with the cache; 21 tokens")
