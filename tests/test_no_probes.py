"""docs/ARCHITECTURE.md (issue 30): "no ``hasattr`` probes on our own objects". What one engine can
do that another cannot is a typed Protocol (console/engine/interface.py: Loader, StandsForLoader,
Connectable, ServerLog) checked with isinstance; hasattr is left only where the object is a
third-party one whose layout differs between versions. A static scan of every call keeps it so."""

from __future__ import annotations

import ast
from pathlib import Path

CONSOLE = Path(__file__).resolve().parents[1] / "console"

#: file -> what it probes: vLLM's and transformers' objects, which change between versions.
THIRD_PARTY = {
    "console/engine/host.py": "vLLM's AsyncLLM (reset_prefix_cache is not in every release)",
    "console/engine/tool_calls.py": "vLLM's structured-output constraint (its fields differ between releases)",
    "console/engine/load_capture.py": "vllm.envs's module __getattr__ (memoized in some releases)",
    "console/export/validate.py": "vLLM's parsed engine arguments (fields move between releases)",
    "console/models/importers.py": "a transformers model config (quantization_config)",
}


def _hasattr_calls() -> dict[str, list[int]]:
    found: dict[str, list[int]] = {}
    for path in sorted(CONSOLE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "hasattr":
                found.setdefault(str(path.relative_to(CONSOLE.parent)), []).append(node.lineno)
    return found


def test_hasattr_probes_only_third_party_objects() -> None:
    calls = _hasattr_calls()
    assert set(calls) - set(THIRD_PARTY) == set(), {k: v for k, v in calls.items() if k not in THIRD_PARTY}


def test_the_capability_protocols_tell_the_engines_apart() -> None:
    from console.engine.host import EngineHost
    from console.engine.interface import (
        AttachesAdapters,
        Connectable,
        KeepWarm,
        Loadable,
        Loader,
        ServedOverHttp,
        ServerLog,
        StandsForLoader,
        Switchable,
        as_loader,
        backend_of,
    )
    from console.engine.local_server import LocalServer
    from console.engine.remote import RemoteEngine
    from console.engine.switch import EngineSwitch

    host, server, remote = EngineHost(), LocalServer(), RemoteEngine("http://127.0.0.1:9")
    on_remote = EngineSwitch(remote)
    try:
        assert isinstance(server, ServerLog) and not isinstance(host, ServerLog) and not isinstance(remote, ServerLog)
        assert isinstance(remote, Connectable) and not isinstance(host, Connectable)
        assert isinstance(host, Loader) and not isinstance(remote, Loader)
        assert as_loader(host) is host and as_loader(remote) is None
        # the switch stands for its backend: no loader while that is a remote server
        assert isinstance(on_remote, StandsForLoader) and not isinstance(host, StandsForLoader)
        assert as_loader(on_remote) is None
        # keeping warm and LoRA adapters: the in-process engine only (the switch passes keep-warm on)
        assert isinstance(host, KeepWarm) and not isinstance(server, KeepWarm) and not isinstance(remote, KeepWarm)
        assert isinstance(on_remote, KeepWarm) and on_remote.warm_models() == []
        assert isinstance(host, AttachesAdapters) and not isinstance(server, AttachesAdapters)
        assert not isinstance(remote, AttachesAdapters)
        # served over HTTP: the two servers; the switch stands for one and is moved by the window
        assert isinstance(server, ServedOverHttp) and isinstance(remote, ServedOverHttp)
        assert not isinstance(host, ServedOverHttp)
        assert isinstance(on_remote, Switchable) and not isinstance(remote, Switchable)
        assert backend_of(on_remote) is remote and backend_of(host) is host
        # what the window loads through: the loaders and the switch (which refuses for a remote server)
        assert isinstance(host, Loadable) and isinstance(server, Loadable) and isinstance(on_remote, Loadable)
        assert not isinstance(remote, Loadable)
    finally:
        for engine in (host, server, remote):
            engine.close()
