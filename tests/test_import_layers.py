"""The packages of console/ import each other without a circle, counting every import statement
(inside functions and under TYPE_CHECKING too), and an import of a console module inside a function
says why it waits: a ``# deferred: <reason>`` line right above it (a heavy library such as PySide6,
pyqtgraph or httpx that the importing module does not load, or the window's start order). The
layers themselves are import-linter's contract in pyproject.toml (``lint-imports``)."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

CONSOLE = Path(__file__).resolve().parents[1] / "console"


def _module(path: Path) -> str:
    parts = list(path.relative_to(CONSOLE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> list[tuple[ast.stmt, list[str], bool]]:
    """Each import statement of ``path``: the console modules it names, and whether it is in a function."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = _module(path) if path.name == "__init__.py" else _module(path).rpartition(".")[0]
    found: list[tuple[ast.stmt, list[str], bool]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                found.append((child, [a.name for a in child.names], in_function))
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")[: len(package.split(".")) - child.level + 1]
                    module = ".".join(base + ([child.module] if child.module else []))
                else:
                    module = child.module or ""
                found.append((child, [module] + [f"{module}.{a.name}" for a in child.names], in_function))
            visit(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)))

    visit(tree, False)
    return [(n, [t for t in names if t.split(".")[0] == "console"], f) for n, names, f in found]


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def package_graph() -> dict[str, dict[str, list[str]]]:
    """package -> package it imports -> the "file:line" of each import behind that edge."""
    graph: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for path in sorted(CONSOLE.rglob("*.py")):
        source = _package(_module(path))
        for node, targets, _ in _imports(path):
            for target in targets:
                if (dest := _package(target)) and dest != source and source:
                    graph[source][dest].append(f"{path.relative_to(CONSOLE.parent)}:{node.lineno}")
    return graph


def _circles(graph: dict[str, dict[str, list[str]]]) -> list[list[str]]:
    """The strongly connected components of more than one package (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph.get(v, {}):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return out


def test_no_import_circle_between_packages() -> None:
    graph = package_graph()
    found = [
        f"{' <-> '.join(c)}: "
        + "; ".join(f"{a} -> {b} ({graph[a][b][0]})" for a in c for b in c if b in graph.get(a, {}))
        for c in _circles(graph)
    ]
    assert found == []


def test_a_function_level_import_of_the_console_says_why_it_waits() -> None:
    silent = []
    for path in sorted(CONSOLE.rglob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        for node, targets, in_function in _imports(path):
            above = lines[node.lineno - 2].strip() if node.lineno > 1 else ""
            if targets and in_function and not above.startswith("# deferred: "):
                silent.append(f"{path.relative_to(CONSOLE.parent)}:{node.lineno}")
    assert silent == []


def test_the_scan_sees_imports_inside_functions() -> None:
    """Not a vacuous pass: the window is started from inside a function of cli/gui.py."""
    found = [targets for _, targets, in_function in _imports(CONSOLE / "cli" / "gui.py") if in_function]
    assert any("console.ui.app" in targets for targets in found)
