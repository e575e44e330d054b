"""Serve the chosen model to other apps: the Server tab's core.

:class:`SharingController` starts vLLM's OpenAI-compatible server (a :class:`SharedServer`) for a
model and preset on the port the user picks (default 8000), with an optional API key, and stops it.
What runs is what the export writes: the argument list is :func:`console.engine.serve_args.command_tokens` of
:func:`console.engine.serve_args.serve_arguments` for the configuration as it runs on this machine
(the CPU adjustments of :func:`console.engine.in_process.prepare_config`), only spelled
``python -m vllm.entrypoints.openai.api_server --model MODEL ...`` because the CPU build's
``vllm`` script does not start (benchmarks/gpu/README-acceptance.md). The API key travels in
``VLLM_API_KEY``, which vLLM reads as it reads ``--api-key``, so it is not in the process list for
every local user to read.

One engine at a time: the server becomes the window's engine (the :class:`EngineSwitch` closes
the in-process engine first, so its model is unloaded and the GPU memory freed before the server
loads). The chat, the Monitor (the server's ``/metrics`` polled into the same MetricsStore) and
the other tabs then use the server, as with Engine > Engine location > "a vLLM server started by
the console"; :meth:`SharingController.stop` stops the server (its whole process group) and puts
the in-process engine back, unloaded.

On the local network: :meth:`SharingController.start` with ``lan`` binds every address of the
machine (``0.0.0.0``), only with an API key (:class:`LanNeedsKey` otherwise); the tab shows the
machine's LAN address (:func:`lan_address`) and the warning that the key guards ``/v1`` only. The
routes the running server offers beyond chat completions, with an example each, are read from its
``/openapi.json`` (:mod:`console.engine.server_api`, :meth:`SharingController.routes`).

The log goes to ``<data home>/server-logs/console-serve-*/server.log`` and is streamed to
listeners (:class:`~console.engine.child_server.ChildServer`).
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import json
import secrets
import shlex
import shutil
import socket
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from console import net
from console.config import EngineConfig
from console.engine.factory import EngineChoice
from console.engine.child_server import SERVER_MODULE, ChildServer, port_free, port_taken_message
from console.engine.interface import Switchable, as_loader
from console.engine.server_api import ApiRoute, offered_routes, read_openapi, route_examples
from console.engine.types import EngineError, EngineInfo, EngineState
from console.engine.serve_options import ServeOptions
from console.engine.serve_args import command_tokens, serve_arguments
from console.messages import Message, MessageError
from console.metrics.store import MetricsStore
from console.paths import data_home

DEFAULT_PORT = 8000
LOOPBACK = "127.0.0.1"
#: What a server on the local network binds: every address of this machine.
ALL_ADDRESSES = "0.0.0.0"
#: The program part of the launched argv; the export's ``vllm serve MODEL`` becomes ``--model MODEL``.
API_SERVER = ("-m", SERVER_MODULE, "--model")
#: Server-log folders kept under ``<data home>/server-logs`` (the oldest go at each start).
KEEP_LOGS = 20


class PortTaken(MessageError, EngineError):
    """The chosen port is in use; the message names the way out."""


class LanNeedsKey(MessageError, EngineError):
    """Serving beyond this machine was asked for without an API key."""


#: The warning the tab shows while the local-network option is on.
LAN_WARNING = Message(
    "Other machines on your network can reach this server. The API key guards the /v1 routes only "
    "(vLLM's /metrics, /health and /openapi.json stay open): use it on a network you trust, behind a firewall."
)


def lan_address() -> str | None:
    """This machine's address on its local network (the one its default route leaves from; no
    packet is sent), or None when it has none."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("10.255.255.255", 1))
            address = str(s.getsockname()[0])
        except OSError:
            return None
    return None if address.startswith("127.") or address == ALL_ADDRESSES else address


def new_api_key() -> str:
    return "sk-" + secrets.token_urlsafe(24)


def log_root() -> Path:
    return data_home() / "server-logs"


def prune_logs(root: Path, keep: int = KEEP_LOGS) -> None:
    """Remove all but the newest ``keep`` server-log folders under ``root`` (one per start)."""
    runs = sorted((d for d in root.glob("console-serve-*") if d.is_dir()), key=lambda d: d.stat().st_mtime)
    for old in runs[: max(0, len(runs) - keep)]:
        shutil.rmtree(old, ignore_errors=True)


def served_argv(config: EngineConfig, options: ServeOptions, python: str = sys.executable) -> list[str]:
    """The server's argv: the export's command for ``config`` and ``options`` (key left out: it
    goes in the environment), run with this interpreter."""
    args = serve_arguments(config, dataclasses.replace(options, api_key=None))
    return command_tokens(args, program=(python, *API_SERVER))


def base_url(host: str, port: int) -> str:
    return f"http://{host}:{port}/v1"


def curl_example(url: str, model: str, api_key: str | None) -> str:
    """A chat request with curl (``url`` is the base URL, ending in /v1)."""
    body = json.dumps({"model": model, "messages": [{"role": "user", "content": "Hello!"}]})
    lines = [f"curl {url}/chat/completions", '-H "Content-Type: application/json"']
    if api_key:
        lines.append(f'-H "Authorization: Bearer {api_key}"')
    lines.append(f"-d {shlex.quote(body)}")
    return " \\\n  ".join(lines)


def python_example(url: str, model: str, api_key: str | None) -> str:
    """The same request with the ``openai`` package."""
    return (
        "from openai import OpenAI\n\n"
        f"client = OpenAI(base_url={url!r}, api_key={api_key or 'EMPTY'!r})\n"
        "reply = client.chat.completions.create(\n"
        f"    model={model!r},\n"
        '    messages=[{"role": "user", "content": "Hello!"}],\n'
        ")\n"
        "print(reply.choices[0].message.content)\n"
    )


class SharedServer(ChildServer):
    """The Server tab's server: a :class:`~console.engine.child_server.ChildServer` shared with other
    apps, on the port the user chose (refused when taken), started with the export's argv and the
    user's API key."""

    def __init__(
        self, options: ServeOptions, *, metrics: MetricsStore | None = None, log_dir: Path | None = None
    ) -> None:
        super().__init__(metrics=metrics, port=options.port, host=options.host, log_dir=log_dir, fixed_port=True)
        self.options = options
        self.api_key = options.api_key  # the console's own requests carry it too
        self.argv: list[str] = []

    def serve_options(self) -> ServeOptions:
        return dataclasses.replace(
            self.options, port=self.port or self.options.port, served_model_name=self.served_name
        )

    def server_command(self, yaml_path: Path, port: int) -> list[str]:
        assert self._config is not None
        self.argv = served_argv(self._config, self.serve_options(), self.python)
        return self.argv

    def child_env(self) -> dict[str, str]:
        env = {**super().child_env(), **self.options.env}
        if self.options.api_key:
            env["VLLM_API_KEY"] = self.options.api_key
        return env


@dataclass(frozen=True)
class SharedEndpoint:
    """Where other apps reach the shared server (its URLs, served name and key) and its log: for the
    tab's fields and examples."""

    url: str  # the base URL, .../v1
    model: str  # the served model name clients send
    api_key: str | None
    log_path: Path | None
    lan_url: str | None = None  # the base URL other machines use, when served on the local network

    def curl(self) -> str:
        return curl_example(self.url, self.model, self.api_key)

    def python(self) -> str:
        return python_example(self.url, self.model, self.api_key)


class SharingController:
    """What the Server tab controls: starts a :class:`SharedServer` as the window's engine behind its
    switch (:class:`~console.engine.switch.EngineSwitch`, a :class:`~console.engine.interface.Switchable`),
    reports its endpoint and routes, and stops it, putting the in-process engine back."""

    def __init__(self, switch: Switchable, *, host: str = LOOPBACK, log_dir: Path | None = None) -> None:
        self.switch = switch
        self.host = host  # bound without ``lan``
        self.log_dir = log_dir
        self.server: SharedServer | None = None
        #: the in-process model the server took the place of (its configuration and name), loaded
        #: back at :meth:`stop`; None when none was loaded
        self.before: tuple[EngineConfig, str] | None = None

    def bind_host(self, lan: bool, api_key: str | None) -> str:
        """The address the server binds: every address of the machine on the local network
        (refused with :class:`LanNeedsKey` without a key), else :attr:`host`."""
        if not lan:
            return self.host
        if not api_key:
            raise LanNeedsKey(Message("Serving on the local network needs an API key: type one or press Generate"))
        return ALL_ADDRESSES

    def check_port(self, port: int, lan: bool = False, api_key: str | None = None) -> None:
        """Raise :class:`PortTaken` when ``port`` cannot be listened on now (the tab asks before
        anything is unloaded), :class:`LanNeedsKey` for ``lan`` without ``api_key``; our own
        running server's port counts as free."""
        host = self.bind_host(lan, api_key)
        ServeOptions(host=host, port=port).validate()
        ours = self.server is not None and self.server.port == port and self.server.child is not None
        if not ours and not port_free(port, host):
            raise PortTaken(port_taken_message(port, host))

    def start(
        self,
        config: EngineConfig,
        name: str,
        port: int = DEFAULT_PORT,
        api_key: str | None = None,
        *,
        lan: bool = False,
    ) -> cf.Future[EngineInfo]:
        """Switch the window's engine to a server for ``config`` on ``port`` and start it (blocks
        while the previous engine is closed: call it off the GUI thread); ``lan``: reachable from
        the local network, which needs ``api_key``. The future ends when the server answers
        ``/health`` and ``/v1/models``."""
        self.check_port(port, lan, api_key)
        options = ServeOptions(host=self.bind_host(lan, api_key), port=port, api_key=api_key or None)
        log_dir = self.log_dir or log_root()
        log_dir.mkdir(parents=True, exist_ok=True)
        prune_logs(log_dir, KEEP_LOGS - 1)  # room for this start's
        before = self._loaded_in_process()
        server = self.switch.use_engine(
            EngineChoice("serve"), lambda: SharedServer(options, metrics=self.switch.metrics, log_dir=log_dir)
        )
        if self.server is None:  # a restart keeps what the first start replaced
            self.before = before
        self.server = server
        return server.load(config, name)

    def _loaded_in_process(self) -> tuple[EngineConfig, str] | None:
        """The model the in-process engine has loaded now (its configuration as asked for), if any."""
        loader = as_loader(self.switch.backend)
        if self.switch.choice.kind != "local" or loader is None:
            return None
        status, config = loader.status, loader.requested_config
        if status.state != EngineState.READY or config is None:
            return None
        return config, status.model or ""

    def endpoint(self) -> SharedEndpoint | None:
        s = self.server
        if s is None or s.port is None:
            return None
        lan = None
        if s.host == ALL_ADDRESSES:
            lan = base_url(lan_address() or socket.gethostname(), s.port)
        return SharedEndpoint(base_url(LOOPBACK, s.port), s.served_name, s.options.api_key, s.log_path, lan)

    def routes(self, timeout_s: float = 30.0) -> list[ApiRoute]:
        """The routes the running server offers beyond chat completions, each with its example
        (read from its ``/openapi.json``; blocking: off the GUI thread). [] when none runs."""
        endpoint = self.endpoint()
        if endpoint is None:
            return []
        offered = offered_routes(read_openapi(endpoint.url, timeout_s))
        return route_examples(endpoint.lan_url or endpoint.url, endpoint.model, endpoint.api_key, offered)

    @property
    def running(self) -> bool:
        """Whether the tab's server is the window's engine and not stopped."""
        s = self.server
        return s is not None and self.switch.backend is s and s.status.state != EngineState.STOPPED

    def health(self, timeout: float = 2.0) -> bool:
        """Whether the server answers ``/health`` now (blocking; off the GUI thread)."""
        s = self.server
        if s is None or not s.url:
            return False
        try:
            return net.get(s.url + "/health", timeout).status_code == 200
        except httpx.HTTPError:
            return False

    def stop(self, timeout: float = 60.0) -> cf.Future[EngineInfo] | None:
        """Stop the server (its process group; a start in progress is cancelled), put the
        in-process engine back behind the switch and start loading there the model the server
        replaced (:attr:`before`): its load's future, None when there was none. Blocks while the
        server stops: off the GUI thread."""
        s = self.server
        if s is None:
            return None
        try:
            s.unload().result(timeout)
        except (EngineError, cf.CancelledError):
            pass  # a cancelled start ends in an error on its own future, not here
        deadline = time.monotonic() + timeout
        while s.status.state in (EngineState.LOADING, EngineState.STOPPING) and time.monotonic() < deadline:
            time.sleep(0.05)  # a cancelled start settles just after the stop
        self.server = None
        before, self.before = self.before, None
        if self.switch.backend is not s:
            return None
        self.switch.use(EngineChoice("local"))
        loader = as_loader(self.switch.backend)
        if before is None or loader is None:
            return None
        return loader.load(*before)


__all__ = [
    "ALL_ADDRESSES",
    "DEFAULT_PORT",
    "LAN_WARNING",
    "LOOPBACK",
    "LanNeedsKey",
    "PortTaken",
    "SharedServer",
    "SharingController",
    "SharedEndpoint",
    "base_url",
    "curl_example",
    "lan_address",
    "log_root",
    "new_api_key",
    "prune_logs",
    "python_example",
    "served_argv",
]
