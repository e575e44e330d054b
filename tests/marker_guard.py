"""The marker rule: a test that starts an engine, a server or a heavy child process
carries ``@pytest.mark.engine`` or ``@pytest.mark.e2e``, so ``-m "not engine and not e2e"`` (the
quick lane, ``bash packaging/test.sh --quick``) runs only what is quick.

Enforced two ways, both before anything expensive starts:

- statically: a test that asks for a fixture in :data:`HEAVY_FIXTURES` (the session's shared
  engines and models) fails in its setup when unmarked, whichever test happens to build it first;
- at run time: :meth:`InProcessEngine.load`, :meth:`ChildServer.load` and ``subprocess.Popen`` of a
  Python child that runs vLLM or the console's heavy workers (:func:`heavy_child`) are wrapped;
  called from an unmarked test (its fixtures included) they raise pytest's ``Failed`` (a
  ``BaseException``: product code's ``except Exception`` cannot swallow it) and the test's report
  is failed even where the call ran on another thread.

Loaded by tests/conftest.py; ``-p marker_guard`` loads it into another pytest run (its own test
does that, tests/test_marker_guard.py).
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import threading
from pathlib import Path
from typing import Any, Iterator, Sequence

import pytest

#: Markers that put a test out of the quick lane.
MARKERS = ("engine", "e2e")
MARKER_LINES = [
    "engine: starts a real vLLM engine, a server or a child that imports vLLM (slow; engines shared per session)",
    "e2e: uses the bundled SmolLM2 model end to end",
]
#: Session fixtures that build an engine, start a server or convert a model.
HEAVY_FIXTURES = frozenset(
    {
        "tiny_engine",
        "_tiny_session_engine",
        "vllm_server",
        "_vllm_server_session",
        "smollm2_model",
        "smollm2_engine",
        "_smollm2_session_engine",
        "vision_engine",
        "vision_batch_reference",
    }
)
#: ``python -m`` modules of the console that are heavy children (the watcher, console.children, is not).
HEAVY_MODULES = ("console.models.gguf_worker", "console.quant.awq_worker", "console.bench.baselines")
#: What in a child's code (``-c``, or a script's text) says it imports vLLM or builds an engine, a
#: server, a conversion or an AWQ job (a mere mention, e.g. checking that vLLM is *not* loaded, is not).
HEAVY_CODE = re.compile(
    r"\b(?:import|from)\s+vllm\b|import_module\(\s*['\"]vllm"
    r"|\b(?:InProcessEngine|ChildServer|import_gguf|quantize_awq|run_baseline)\s*\("
)

_stack: list[pytest.Item] = []
_violations: dict[str, list[str]] = {}
_lock = threading.Lock()
_installed = False


def is_marked(item: pytest.Item) -> bool:
    return any(item.get_closest_marker(m) is not None for m in MARKERS)


def heavy_child(argv: Sequence[str]) -> str | None:
    """What makes ``argv`` a heavy child (a Python process running vLLM, the console's CLI or one
    of its engine/convert/quantize workers), or None."""
    if not argv or "python" not in Path(str(argv[0])).name:
        return None
    args = [str(a) for a in argv[1:]]
    while args and args[0].startswith("-") and args[0] not in ("-m", "-c"):
        args = args[1:]  # interpreter flags (-u, -X ..., -I)
    if len(args) >= 2 and args[0] == "-m":
        mod = args[1]
        if mod == "console" or mod.startswith("vllm") or mod.startswith(HEAVY_MODULES):
            return f"python -m {mod}"
        return None
    if len(args) >= 2 and args[0] == "-c":
        found = HEAVY_CODE.search(args[1])
        return f"python -c <code with {found.group(0).strip()}>" if found else None
    if args and args[0].endswith(".py") and os.path.isfile(args[0]):
        found = HEAVY_CODE.search(Path(args[0]).read_text(encoding="utf-8", errors="replace"))
        return f"python {Path(args[0]).name} (with {found.group(0).strip()})" if found else None
    return None


def check(what: str) -> None:
    """Called by the wrapped entry points: fail the running test if it is unmarked."""
    with _lock:
        item = _stack[-1] if _stack else None
    if item is None or is_marked(item):
        return
    message = (
        f"{item.nodeid} {what} but carries no engine/e2e marker: add @pytest.mark.engine "
        "(or e2e for the bundled SmolLM2) so the quick lane leaves it out (tests/marker_guard.py)"
    )
    with _lock:
        _violations.setdefault(item.nodeid, []).append(message)
    pytest.fail(message, pytrace=False)


def _wrap(owner: Any, name: str, what: str) -> None:
    original = getattr(owner, name)
    if getattr(original, "_marker_guard", False):
        return

    @functools.wraps(original)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        check(what)
        return original(*args, **kwargs)

    guarded._marker_guard = True  # type: ignore[attr-defined]
    setattr(owner, name, guarded)


def _install() -> None:
    global _installed
    if _installed:
        return
    _installed = True
    from console.engine.in_process import InProcessEngine
    from console.engine.child_server import ChildServer

    _wrap(InProcessEngine, "load", "builds an engine (InProcessEngine.load)")
    _wrap(ChildServer, "load", "starts a vLLM server (ChildServer.load)")
    popen_init = subprocess.Popen.__init__

    @functools.wraps(popen_init)
    def guarded_init(self: subprocess.Popen[Any], args: Any, *rest: Any, **kwargs: Any) -> None:
        argv = [args] if isinstance(args, (str, bytes, os.PathLike)) else list(args)
        why = heavy_child(argv) if not kwargs.get("shell") else None
        if why:
            check(f"starts a heavy child ({why})")
        popen_init(self, args, *rest, **kwargs)

    subprocess.Popen.__init__ = guarded_init  # type: ignore[method-assign]


def pytest_configure(config: pytest.Config) -> None:
    for line in MARKER_LINES:
        config.addinivalue_line("markers", line)
    _install()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    heavy = sorted(HEAVY_FIXTURES & set(getattr(item, "fixturenames", ())))
    if heavy and not is_marked(item):
        with _lock:
            _violations.setdefault(item.nodeid, []).append(f"uses {heavy}")
        pytest.fail(
            f"{item.nodeid} uses {', '.join(heavy)} (an engine or the bundled model) but carries no "
            "engine/e2e marker: add @pytest.mark.engine or e2e (tests/marker_guard.py)",
            pytrace=False,
        )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    with _lock:
        _stack.append(item)
    try:
        yield
    finally:
        with _lock:
            _stack.remove(item)
            _violations.pop(item.nodeid, None)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    with _lock:
        found = _violations.get(item.nodeid)
    if found and report.passed and report.when == "call":  # the call was made on another thread
        report.outcome = "failed"
        report.longrepr = "\n".join(found)
