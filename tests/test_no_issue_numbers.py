"""Docstrings and comments in the package state contracts; history (which issue asked for a thing)
belongs to the git log and ``benchmarks/``. This fails on an issue number anywhere in ``console/``."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ISSUE = re.compile(r"\bissues? #?\d+", re.IGNORECASE)


def test_no_issue_numbers_in_the_package() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in sorted((ROOT / "console").rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if ISSUE.search(line)
    ]
    assert found == []


def test_the_pattern_finds_what_it_is_for() -> None:
    assert ISSUE.search("keeps models warm (issue 21): the engine")
    assert ISSUE.search("see Issue #7")
    assert not ISSUE.search("an issue with the cache; 21 tokens")
