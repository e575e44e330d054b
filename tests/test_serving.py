"""The Server tab's core, without an engine: the launched argv is the export's
command, the key goes in the environment, a taken port is refused before anything is unloaded.
The server itself is started once, from the tab, in tests/test_ui_server.py."""

from __future__ import annotations

import shlex
import socket
from pathlib import Path

import pytest

from console.config import EngineConfig
from console.engine.child_server import SERVER_MODULE
from console.engine.serving import (
    PortTaken,
    SharedServer,
    SharingController,
    curl_example,
    new_api_key,
    prune_logs,
    python_example,
    served_argv,
)
from console.engine.serve_options import ServeOptions
from console.engine.serve_args import serve_command


def export_tokens(command: str) -> list[str]:
    """``vllm serve MODEL ...`` of an export's command line, without its environment prefix."""
    tokens = shlex.split(command)
    start = tokens.index("vllm")
    assert tokens[start + 1] == "serve"
    return tokens[start + 2 :]


def test_launched_argv_is_the_export_command_with_the_key_in_the_environment(tmp_path: Path) -> None:
    config = EngineConfig(
        model=str(tmp_path / "tiny"), max_model_len=1024, enforce_eager=True, enable_prefix_caching=False, device="cpu"
    )
    key = new_api_key()
    options = ServeOptions(port=8123, served_model_name="tiny", api_key=key)
    argv = served_argv(config, options, python="/py")
    exported = export_tokens(serve_command(config, options))
    assert argv[:4] == ["/py", "-m", SERVER_MODULE, "--model"]
    i = exported.index("--api-key")
    assert exported[i + 1] == key and key not in argv  # not in the process list
    assert argv[4:] == exported[:i] + exported[i + 2 :]
    assert "--no-enable-prefix-caching" in argv and argv[argv.index("--port") + 1] == "8123"

    server = SharedServer(options)
    env = server.child_env()
    assert env["VLLM_API_KEY"] == key
    assert options.env.items() <= env.items()  # the usage-statistics choice, as the export sets it
    assert "VLLM_API_KEY" not in SharedServer(ServeOptions(port=8123)).child_env()
    server.close()


def test_a_taken_port_is_refused_before_the_engine_is_switched(home: Path) -> None:
    from console.engine.switch import EngineSwitch

    switch = EngineSwitch()
    before = switch.backend
    controller = SharingController(switch, log_dir=home / "logs")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(PortTaken, match=rf"Port {port} .* in use.*choose another port"):
            controller.start(EngineConfig(model=str(home / "m"), device="cpu"), "m", port)
    assert switch.backend is before and controller.server is None
    controller.check_port(port)  # free again
    with pytest.raises(ValueError, match="between 1 and 65535"):
        controller.check_port(70000)
    switch.close()


def test_examples_carry_the_url_key_and_model() -> None:
    url = "http://127.0.0.1:8123/v1"
    curl = curl_example(url, "tiny", "sk-abc")
    assert curl.startswith(f"curl {url}/chat/completions") and "Bearer sk-abc" in curl and '"model": "tiny"' in curl
    assert "Authorization" not in curl_example(url, "tiny", None)
    code = python_example(url, "tiny", "sk-abc")
    compile(code, "example.py", "exec")
    assert f"base_url={url!r}" in code and "api_key='sk-abc'" in code and "model='tiny'" in code
    assert "api_key='EMPTY'" in python_example(url, "tiny", None)


def test_old_server_logs_are_pruned(tmp_path: Path) -> None:
    import os

    for i in range(5):
        run = tmp_path / f"console-serve-{i}"
        run.mkdir()
        (run / "server.log").write_text("x")
        os.utime(run, (1000 + i, 1000 + i))
    (tmp_path / "other").mkdir()
    prune_logs(tmp_path, keep=2)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["console-serve-3", "console-serve-4", "other"]
