"""docs/ARCHITECTURE.md: "no ``hasattr`` probes on our own objects". What one engine can
do that another cannot is a typed Protocol (console/engine/interface.py: Loadable, Loader, KeepWarm,
AttachesAdapters, ServedOverHttp, Switchable, StandsForLoader, Connectable, ServerLog) checked with
isinstance; what a value of ours holds is a field of its dataclass. A probe -- ``hasattr(x, "a")``,
or ``getattr(x, "a", default)``, which is the same question asked quietly -- is left only where the
object is a foreign one whose layout differs between versions or callers. A static scan of every
call keeps it so: a new probe fails here until it is replaced, or its foreign object is named below."""

from __future__ import annotations

import ast
from pathlib import Path

CONSOLE = Path(__file__).resolve().parents[1] / "console"

#: Where probes are allowed, and on what foreign object. A key is a file (every probe in it: modules
#: whose job is adapting a third-party object) or ``file:attribute`` (that one attribute only).
FOREIGN = {
    # vLLM's objects: fields and methods come and go between releases
    "console/vllm_compat.py": "vLLM's engine, configs and tool-parser manager (the vLLM adapter itself)",
    "console/engine/in_process.py": "vLLM's AsyncLLM and RequestOutput (reset_prefix_cache, metrics not in every "
    "release)",
    "console/engine/load_capture.py": "vllm.envs's __getattr__ (memoized by release), vLLM's configs, log handlers",
    "console/engine/prepare.py": "vLLM's VllmConfig after a load (its sub-configs differ between releases)",
    "console/engine/choices.py": "vLLM's CompletionOutput and Logprob (stop_reason, decoded_token by release)",
    "console/engine/openai_body.py": "vLLM's OpenAI request models, pydantic's ValidationError (fields by release)",
    "console/engine/tool_calls.py": "vLLM's structured-output constraint and tool calls (fields by release)",
    "console/engine/front_prep.py:chat_template": "a Hugging Face tokenizer: chat_template only when the model "
    "ships one",
    "console/engine/chat_prompt.py": "vLLM's renderer result: ErrorResponse's error/message moved between releases",
    "console/bench/cpu_dtype_check.py": "vLLM's prompt Logprob entries (a Logprob object or a bare float by release)",
    "console/metrics/vllm_logger.py": "vLLM's SchedulerStats, IterationStats, FinishedRequestStats (fields by release)",
    "console/metrics/nvml.py:usedGpuMemory": "pynvml's process info (v1/v2/v3 structs; None where unknown)",
    "console/metrics/nvml.py:pid": "pynvml's process info (c_nvmlProcessInfo_t v1/v2/v3), fake entries in tests",
    "console/export/validate.py": "vLLM's parsed engine arguments (fields move between releases)",
    "console/engine/thinking.py": "vLLM's reasoning parsers (reasoning_end_str on some) and a Hugging Face tokenizer",
    "console/cli/chat_thinking.py": "vLLM's reasoning parser (reasoning_*_str on some parsers only)",
    # other libraries' objects
    "console/models/importers.py": "a transformers model config (quantization_config) and tokenizer (chat_template)",
    "console/models/modelscope_source.py": "exceptions raised by modelscope and requests (status_code, errno on some)",
    "console/ui/import_hook.py": "arbitrary imported modules' values and PySide6's __feature__ (version-dependent)",
    "console/ui/theme_switch.py:setColorScheme": "Qt's QStyleHints (setColorScheme from Qt 6.8 on)",
    "console/ui/refcount_guard.py:_console_singletons_pinned": "the interpreter's sys module: a flag set there once",
    "console/cli/progress.py:isatty": "the caller's output stream: any object with write()",
    # a Hugging Face tokenizer has chat_template only when the model ships one (older ones: not at all)
    "console/models/support.py": "transformers' model classes (is_backend_compatible and the like by release)",
    "console/quant/awq_patch.py": "AutoAWQ's AwqQuantizer method, marked once patched",
    # argparse.Namespace: helpers shared by subcommands whose parsers define different flags
    "console/cli/bench.py": "argparse.Namespace of several subcommands",
    "console/cli/engine_flags.py": "argparse.Namespace of several subcommands",
    "console/cli/chat_output.py": "argparse.Namespace of several subcommands",
    "console/cli/chat_tools.py": "argparse.Namespace of several subcommands",
    "console/cli/doctor.py": "argparse.Namespace of several subcommands",
    "console/cli/flags.py": "argparse.Namespace of several subcommands",
    "console/cli/gate.py": "argparse.Namespace of several subcommands",
    "console/cli/gui.py": "argparse.Namespace of several subcommands",
    "console/cli/knob_flags.py": "argparse.Namespace of several subcommands",
    "console/cli/presets.py": "argparse.Namespace of several subcommands",
    "console/cli/quantize.py": "argparse.Namespace of several subcommands",
}


def _probed_name(node: ast.Call) -> str | None:
    """The attribute ``node`` probes for: ``hasattr(x, a)``, or ``getattr(x, "a", default)``;
    None for any other call (a two-argument getattr fails loudly, so it is no probe)."""
    if not isinstance(node.func, ast.Name):
        return None
    if node.func.id == "hasattr" and len(node.args) == 2:
        name = node.args[1]
    elif node.func.id == "getattr" and len(node.args) == 3:
        name = node.args[1]
    else:
        return None
    return name.value if isinstance(name, ast.Constant) and isinstance(name.value, str) else "<computed>"


def _probes(source: str) -> list[tuple[int, str]]:
    return [
        (node.lineno, name)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call) and (name := _probed_name(node)) is not None
    ]


def test_probes_only_foreign_objects() -> None:
    found: dict[str, list[str]] = {}
    for path in sorted(CONSOLE.rglob("*.py")):
        rel = str(path.relative_to(CONSOLE.parent))
        for line, name in _probes(path.read_text(encoding="utf-8")):
            if rel not in FOREIGN and f"{rel}:{name}" not in FOREIGN:
                found.setdefault(rel, []).append(f"{line}: {name}")
    assert found == {}, found


def test_the_allowlist_names_only_files_that_still_probe() -> None:
    """An entry whose probes are gone goes too, so the list only shrinks."""
    used: set[str] = set()
    for path in sorted(CONSOLE.rglob("*.py")):
        rel = str(path.relative_to(CONSOLE.parent))
        for _line, name in _probes(path.read_text(encoding="utf-8")):
            used.update({rel, f"{rel}:{name}"})
    assert set(FOREIGN) - used == set()


def test_the_scan_sees_both_kinds_of_probe() -> None:
    source = 'hasattr(x, "a")\ngetattr(x, "b", None)\ngetattr(x, name, 0)\ngetattr(x, "c")\ny.getattr(x, "d", 1)\n'
    assert _probes(source) == [(1, "a"), (2, "b"), (3, "<computed>")]


def test_the_capability_protocols_tell_the_engines_apart() -> None:
    from console.engine.in_process import InProcessEngine
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
    from console.engine.child_server import ChildServer
    from console.engine.remote import RemoteEngine
    from console.engine.switch import EngineSwitch

    in_process, server, remote = InProcessEngine(), ChildServer(), RemoteEngine("http://127.0.0.1:9")
    on_remote = EngineSwitch(remote)
    try:
        assert (
            isinstance(server, ServerLog)
            and not isinstance(in_process, ServerLog)
            and not isinstance(remote, ServerLog)
        )
        assert isinstance(remote, Connectable) and not isinstance(in_process, Connectable)
        assert isinstance(in_process, Loader) and not isinstance(remote, Loader)
        assert as_loader(in_process) is in_process and as_loader(remote) is None
        # the switch stands for its backend: no loader while that is a remote server
        assert isinstance(on_remote, StandsForLoader) and not isinstance(in_process, StandsForLoader)
        assert as_loader(on_remote) is None
        # keeping warm and LoRA adapters: the in-process engine only (the switch passes keep-warm on)
        assert (
            isinstance(in_process, KeepWarm) and not isinstance(server, KeepWarm) and not isinstance(remote, KeepWarm)
        )
        assert isinstance(on_remote, KeepWarm) and on_remote.warm_models() == []
        assert isinstance(in_process, AttachesAdapters) and not isinstance(server, AttachesAdapters)
        assert not isinstance(remote, AttachesAdapters)
        # served over HTTP: the two servers; the switch stands for one and is moved by the window
        assert isinstance(server, ServedOverHttp) and isinstance(remote, ServedOverHttp)
        assert not isinstance(in_process, ServedOverHttp)
        assert isinstance(on_remote, Switchable) and not isinstance(remote, Switchable)
        assert backend_of(on_remote) is remote and backend_of(in_process) is in_process
        # what the window loads through: the loaders and the switch (which refuses for a remote server)
        assert isinstance(in_process, Loadable) and isinstance(server, Loadable) and isinstance(on_remote, Loadable)
        assert not isinstance(remote, Loadable)
    finally:
        for engine in (in_process, server, remote):
            engine.close()
