"""The README's promise: ``console/vllm_compat.py`` holds every vLLM import path,
so a vLLM release that moves a module is fixed in one file. A static scan of every import
statement in the console (function-level ones too), like tests/test_core_has_no_qt.py."""

from __future__ import annotations

import ast
from pathlib import Path

CONSOLE = Path(__file__).resolve().parents[1] / "console"
COMPAT = CONSOLE / "vllm_compat.py"


def _vllm_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = (
            [a.name for a in node.names]
            if isinstance(node, ast.Import)
            else [node.module or ""]
            if isinstance(node, ast.ImportFrom) and node.level == 0
            else []
        )
        found += [
            f"{path.relative_to(CONSOLE.parent)}:{node.lineno} {n}"
            for n in names
            if n == "vllm" or n.startswith("vllm.")
        ]
    return found


def test_only_vllm_compat_imports_vllm() -> None:
    outside = [hit for p in sorted(CONSOLE.rglob("*.py")) if p != COMPAT for hit in _vllm_imports(p)]
    assert outside == []
    assert _vllm_imports(COMPAT) == []  # it imports by name (importlib), lazily: nothing at module level


def test_the_moved_lookups_answer() -> None:
    from console import vllm_compat

    config = vllm_compat.default_logging_config()
    assert "loggers" in config and "vllm" in config["loggers"]
    config["loggers"].clear()  # a copy: vLLM's own stays whole
    assert vllm_compat.default_logging_config()["loggers"]
    assert vllm_compat.llm_class().__name__ == "LLM"
    assert vllm_compat.vllm_version() == vllm_compat.vllm_distribution()[1]  # type: ignore[index]
