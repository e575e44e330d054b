"""docs/ARCHITECTURE.md names only what exists: every file and folder it names in backticks is in the
repository, and every Python name it names in backticks is defined where the doc says, by the rule
the doc states under "How names are written here". Static: reads the doc and parses the sources."""

from __future__ import annotations

import ast
import functools
import keyword
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "ARCHITECTURE.md"
CONSOLE = ROOT / "console"

#: Names in the doc that are not the console's: vLLM's, Python's, NVML's, environment variables.
EXTERNAL = {
    "AsyncLLM",
    "AsyncLLM.generate",
    "SamplingParams",
    "LoRARequest",
    "hasattr",
    "getattr",
    "isinstance",
    "nvmlInit",
    "sys.modules",
    "vllm.envs",
    "VLLM_LOGGING_CONFIG_PATH",  # vLLM's environment variable
    "from_engine_args",  # AsyncLLM's constructor
    "dataclasses.replace",
    "threading.Thread",
    "__feature__",
    "TYPE_CHECKING",
}

PATH_SUFFIXES = (".py", ".md", ".json", ".toml", "/")
IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
TICKED = re.compile(r"`([^`\n]+)`")


def _blocks(text: str) -> list[str]:
    """Paragraphs, list items and table cells, outside fenced code blocks."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    blocks: list[str] = []
    for para in re.split(r"\n\s*\n", text):
        lines = para.splitlines()
        if lines and all(line.startswith("|") for line in lines):
            blocks += [cell for line in lines for cell in line.strip("|").split(" | ")]
            continue
        item: list[str] = []
        for line in lines:  # a list item starts at "- " or "1. "
            if re.match(r"^\s*(-|\d+\.) ", line) and item:
                blocks.append("\n".join(item))
                item = []
            item.append(line)
        blocks.append("\n".join(item))
    return blocks


def _is_path(token: str) -> bool:
    return token.endswith(PATH_SUFFIXES) and " " not in token and not token.startswith(("/", "."))


def resolve(token: str) -> list[Path]:
    """The doc's rule: relative to the repository root when the first part is a top-level entry of
    the repository, else relative to console/. ``<N>`` stands for any text."""
    first = token.split("/")[0]
    base = ROOT if (ROOT / first).exists() else CONSOLE
    pattern = re.sub(r"<[^>]*>", "*", token.rstrip("/"))
    if "*" in pattern:
        return sorted(base.glob(pattern))
    target = base / pattern
    return [target] if (target.is_dir() if token.endswith("/") else target.is_file()) else []


@functools.cache
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def _defined(node: ast.AST, top_only: bool = False) -> set[str]:
    """Names a def, class or assignment binds in ``node`` (nested ones too unless ``top_only``)."""
    names: set[str] = set()
    nodes = ast.iter_child_nodes(node) if top_only else ast.walk(node)
    for n in nodes:
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(n.name)
        elif isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            for t in targets:
                for sub in ast.walk(t):
                    if isinstance(sub, ast.Name):
                        names.add(sub.id)
                    elif isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id == "self":
                        names.add(sub.attr)
        elif isinstance(n, ast.arg) and not top_only:
            names.add(n.arg)
    return names


@functools.cache
def _console_files() -> tuple[Path, ...]:
    return tuple(sorted(CONSOLE.rglob("*.py")))


@functools.cache
def _classes() -> dict[str, list[ast.ClassDef]]:
    found: dict[str, list[ast.ClassDef]] = {}
    for path in _console_files():
        for n in ast.walk(_tree(path)):
            if isinstance(n, ast.ClassDef):
                found.setdefault(n.name, []).append(n)
    return found


def _class_has(cls: str, attr: str, seen: frozenset[str] = frozenset()) -> bool:
    for node in _classes().get(cls, []):
        if attr in _defined(node):
            return True
        bases = [b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases]
        if any(b not in seen and _class_has(b, attr, seen | {cls}) for b in bases):
            return True
    return False


def _modules(name: str) -> list[Path]:
    """console's modules a dotted prefix names: ``vllm_compat``, ``engine.in_process``, ``console.net``."""
    parts = tuple(name.removeprefix("console.").split("."))
    found = [p for p in _console_files() if p.with_suffix("").parts[-len(parts) :] == parts]
    packages = [p for p in _console_files() if p.name == "__init__.py" and p.parent.parts[-len(parts) :] == parts]
    return found + packages


def _found(name: str, files: list[Path]) -> bool:
    if keyword.iskeyword(name):
        return True
    if "." in name:
        head, attr = name.rsplit(".", 1)
        if _modules(name) or any(attr in _defined(_tree(p)) for p in _modules(head)):
            return True
        return _class_has(head, attr)
    if files:  # named beside its file(s): defined there
        return any(name in _defined(_tree(p)) for p in files)
    return bool(_modules(name)) or any(name in _defined(_tree(p)) for p in _console_files())


def references() -> tuple[list[str], list[tuple[str, list[Path]]]]:
    paths: list[str] = []
    names: list[tuple[str, list[Path]]] = []
    for block in _blocks(DOC.read_text(encoding="utf-8")):
        tokens = TICKED.findall(block)
        files = [f for t in tokens if _is_path(t) and t.endswith(".py") for f in resolve(t)]
        for t in tokens:
            if _is_path(t):
                paths.append(t)
            elif IDENT.match(t) and t not in EXTERNAL:
                names.append((t, files))
    return paths, names


def test_the_doc_names_paths_and_names() -> None:
    paths, names = references()
    assert len(paths) > 50 and len(names) > 50  # the parser still reads the doc


def test_every_path_the_doc_names_exists() -> None:
    paths, _ = references()
    assert [p for p in paths if not resolve(p)] == []


def test_every_name_the_doc_names_is_defined_where_it_says() -> None:
    _, names = references()
    missing = [(n, [str(f.relative_to(ROOT)) for f in files]) for n, files in names if not _found(n, files)]
    assert missing == []


@pytest.mark.parametrize(
    ("name", "files", "found"),
    [
        ("InProcessEngine", ["engine/in_process.py"], True),
        ("InProcessEngine", ["engine/remote.py"], False),  # named beside the wrong file
        ("InProcessEngine.submit_many", [], True),  # from its base, LoopEngine
        ("vllm_compat.model_sampling_defaults", [], True),
        ("vllm_compat.no_such_function", [], False),
        ("NoSuchName", [], False),
    ],
)
def test_the_rule_itself(name: str, files: list[str], found: bool) -> None:
    assert _found(name, [p for f in files for p in resolve(f)]) is found
