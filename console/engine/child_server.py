"""An engine that is a ``vllm serve`` the console starts as a child process.

``ChildServer().load(config, name)`` writes the ``vllm serve --config`` YAML that
``console/export`` writes for deployment (with the same CPU adjustments the in-process engine
makes: eager mode, an explicit KV-cache size, the checked CPU dtype), starts vLLM's OpenAI-compatible server
module on ``127.0.0.1:<free port>``, turns its log lines into startup stages and the load's
phases (``load_phases.py``, timed as the lines arrive), and once
``/health`` answers talks to it as any :class:`~console.engine.remote.HttpEngine`. Unlike a
remote server it is a :class:`~console.engine.interface.Loader`: ``load`` applies the config.

No orphans, however the console ends: the server is a :class:`console.children.Child` -- its own
process group (stopping it signals the whole group, including vLLM's EngineCore child: SIGTERM,
then SIGKILL after ``stop_timeout_s``) with the console's one parent-death watcher, which ends
the group when the console dies, even by SIGKILL.

The server's log is kept (``log_lines()``, last 5,000 lines; the whole log in ``log_path``) for
the GUI's log view; ``add_log_listener`` streams new lines.
"""

from __future__ import annotations

import asyncio
import atexit
import collections
import concurrent.futures as cf
import dataclasses
import logging
import re
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable

from console import speed
from console.engine import image_parts
from console.children import Child
from console.config import EngineConfig
from console.engine.errors import explain
from console.engine.load_phases import LoadPhases, PhaseClock
from console.engine.in_process import prepare_config, resolve_device
from console.messages import Message
from console.models.family_table import family_of_folder, folder_chat_template
from console.metrics.store import MetricsStore
from console.engine.remote import HttpEngine
from console.engine.tool_calls import tools_refusal
from console.engine.types import EngineBusy, EngineError, EngineInfo, EngineState, EngineStatus
from console.engine.serve_options import ServeOptions

log = logging.getLogger(__name__)

SERVER_MODULE = "vllm.entrypoints.openai.api_server"
LogListener = Callable[[str], None]

#: Log line patterns -> startup stage shown to the user (first match wins; order = startup order).
STAGES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"vLLM API server version|non-default args", re.I), "starting the API server"),
    (re.compile(r"Initializing a V\d LLM engine|Resolved architecture", re.I), "initializing the engine"),
    (re.compile(r"Starting to load model|Loading weights|Loading safetensors", re.I), "loading weights"),
    (re.compile(r"(Model loading|Loading weights) took", re.I), "weights loaded; sizing the KV cache"),
    (
        re.compile(r"KV cache size|Maximum concurrency|num_gpu_blocks|GPU KV cache", re.I),
        "KV cache allocated; warming up",
    ),
    (re.compile(r"init engine .* took|Capturing|warm", re.I), "warming up"),
    (
        re.compile(r"Starting vLLM API server|Uvicorn running|Application startup complete|Available routes", re.I),
        "server up; checking health",
    ),
]


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def port_free(port: int, host: str = "127.0.0.1") -> bool:
    """Whether a server could listen on ``port`` now. With SO_REUSEADDR, as uvicorn binds: the
    TIME_WAIT connections a killed server leaves do not keep its successor off the port."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
            return True
        except OSError:
            return False


def connect_host(host: str) -> str:
    """Where the console reaches a server bound to ``host``: this machine for a server bound to
    every address (``0.0.0.0``, ``::``), else ``host``."""
    return "127.0.0.1" if host in ("0.0.0.0", "::", "") else host


def port_taken_message(port: int, host: str = "127.0.0.1") -> str:
    """The one line shown when a server cannot listen on the port the user chose."""
    return Message(
        "Port {0} on {1} is already in use (another server, or one still stopping): choose another port, "
        "or stop what listens there",
        port,
        host,
    )


class ChildServer(HttpEngine):
    """A ``vllm serve`` the console starts as its child process and owns (``--engine serve``):
    ``load(config)`` starts it on a free port of this machine; ``unload()``/``close()`` stop it."""

    kind = "serve"

    def __init__(
        self,
        *,
        metrics: MetricsStore | None = None,
        port: int | None = None,
        host: str = "127.0.0.1",
        log_dir: str | Path | None = None,
        startup_timeout_s: float = 900.0,
        stop_timeout_s: float = 20.0,
        python: str = sys.executable,
        poll_interval_s: float = 1.0,
        fixed_port: bool = False,
    ) -> None:
        super().__init__(None, None, metrics=metrics, poll_interval_s=poll_interval_s)
        self.host = host
        self.port = port
        #: Refuse to start when ``port`` is taken instead of taking a free one (the Server tab's port).
        self.fixed_port = fixed_port
        self.served_name = ""
        self.startup_timeout_s = startup_timeout_s
        self.stop_timeout_s = stop_timeout_s
        self.python = python
        self._log_dir = Path(log_dir) if log_dir else None
        self.log_path: Path | None = None
        self.yaml_path: Path | None = None
        self.child: Child | None = None
        self._log: collections.deque[str] = collections.deque(maxlen=5000)
        self._log_listeners: list[LogListener] = []
        self._stopping = False
        self._start_cancelled = False  # set by a stop that arrives while the server starts
        self._exit_watch: asyncio.Task[None] | None = None
        self._phases: PhaseClock | None = None  # while starting: fed on the log reader's thread
        self._phases_lock = threading.Lock()
        atexit.register(self.close)

    # -- log -----------------------------------------------------------------------------------
    def log_lines(self) -> list[str]:
        return list(self._log)

    def add_log_listener(self, listener: LogListener) -> None:
        """``listener(line)`` for each new log line, on the log reader thread."""
        self._log_listeners.append(listener)

    def remove_log_listener(self, listener: LogListener) -> None:
        if listener in self._log_listeners:
            self._log_listeners.remove(listener)

    def _on_log_line(self, line: str, loop: asyncio.AbstractEventLoop) -> None:
        """A line of the server's log (on the child's reader thread)."""
        self._log.append(line)
        for listener in list(self._log_listeners):
            try:
                listener(line)
            except Exception:
                log.exception("log listener failed")
        for pattern, stage in STAGES:
            if pattern.search(line):
                loop.call_soon_threadsafe(self._on_stage, stage)
                break
        with self._phases_lock:
            clock = self._phases
            if clock is not None and clock.feed(time.time(), line):  # timed as it arrives (unbuffered)
                loop.call_soon_threadsafe(self._on_phases, clock.snapshot(time.time()))

    def _on_stage(self, stage: str) -> None:
        if self._status.state == EngineState.LOADING:
            self._set_status(dataclasses.replace(self._status, stage=stage))

    def _on_phases(self, phases: LoadPhases) -> None:
        if self._status.state == EngineState.LOADING:
            self._set_status(dataclasses.replace(self._status, phases=phases))

    def _finish_phases(self) -> LoadPhases | None:
        """The start's phases, now that it is done (None: it was not followed)."""
        with self._phases_lock:
            clock, self._phases = self._phases, None
            return None if clock is None else clock.finish(time.time())

    def failure_cause(self) -> str:
        """The log's most telling line: the last error-looking one, else the last line."""
        lines = [ln for ln in self._log if ln.strip()]
        for line in reversed(lines[-80:]):
            if re.search(r"(Error|error:|Exception|Traceback|failed|refused)", line) and "Traceback" not in line:
                return line.strip()
        return lines[-1].strip() if lines else "no output"

    # -- start ---------------------------------------------------------------------------------
    @property
    def pid(self) -> int | None:
        return self.child.pid if self.child is not None else None

    def device_label(self) -> str:
        return f"local server {self.url} (pid {self.pid})"

    def load(self, config: EngineConfig | None = None, name: str | None = None) -> cf.Future[EngineInfo]:
        if config is None:
            raise EngineError("A local server needs a model configuration to start")
        refusal = speed.capability_refusal(config, resolve_device(config))
        if refusal:  # the server child would die with a stack trace in its log
            raise EngineError(refusal)
        with self._lock:
            if self._status.state in (EngineState.LOADING, EngineState.STOPPING):
                raise EngineBusy(f"The server is {self._status.state.value}; wait for it to finish")
            label = name or Path(config.model).name
            self._set_status(EngineStatus(EngineState.LOADING, label, Message("starting the server process")))
        return self.run_coroutine(self._start(config, label))

    def server_command(self, yaml_path: Path, port: int) -> list[str]:
        # --host and --port are in the YAML (given again, vLLM warns about duplicate keys).
        # A chat template sent with a request is used, as the in-process engine does.
        return [self.python, "-m", SERVER_MODULE, "--config", str(yaml_path), "--trust-request-chat-template"]

    async def _start(self, config: EngineConfig, name: str) -> EngineInfo:
        # deferred: imports yaml
        from console.engine.serve_args import serve_yaml

        t0 = time.monotonic()
        self._start_cancelled = False
        try:
            await self._stop_process()
            await self._cancel_all()
            config, _device = prepare_config(config)
            if self.fixed_port and (self.port is None or not port_free(self.port, self.host)):
                raise EngineError(port_taken_message(self.port or 0, self.host))
            if self.port is None or not port_free(self.port, self.host):
                self.port = free_port(self.host)
            work = Path(tempfile.mkdtemp(prefix="console-serve-", dir=self._log_dir))
            self.yaml_path = work / "serve.yaml"
            served = self.served_name = config.served_model_name or name
            self.yaml_path.write_text(
                serve_yaml(  # no reasoning parser: the thinking stays in the answer, split here
                    config, ServeOptions(host=self.host, port=self.port, served_model_name=served), reasoning=False
                )
            )
            self.log_path = work / "server.log"
            self._config = config
            with self._phases_lock:
                self._phases = PhaseClock(time.time(), graphs=_device != "cpu" and not config.enforce_eager)
            self.url = f"http://{connect_host(self.host)}:{self.port}"
            if self._start_cancelled:  # stopped before the process existed
                raise EngineError("The server's start was cancelled")
            self._spawn(self.server_command(self.yaml_path, self.port))
            info = await self._wait_healthy(t0, name)
        except BaseException as exc:
            self._finish_phases()  # no longer followed
            if self._start_cancelled:  # stopped while starting: a cancel, not a failure
                await self._stop_process()
                self._set_status(EngineStatus(EngineState.STOPPED))
                raise EngineError("The server's start was cancelled") from exc
            message = str(exc) if isinstance(exc, EngineError) else explain(exc, config)
            await self._stop_process()
            self._set_status(EngineStatus(EngineState.FAILED, name, "", message))
            raise EngineError(message) from exc
        self._start_monitor()
        self._exit_watch = asyncio.get_running_loop().create_task(self._watch_exit())
        self._set_status(EngineStatus(EngineState.READY, info.model, "", None, info))
        return info

    def _spawn(self, cmd: list[str]) -> None:
        """Start the server: its own group, stdout+stderr into the log (file and memory)."""
        self._log.clear()
        self._stopping = False
        loop = asyncio.get_running_loop()
        # The stages come from INFO lines; the log is captured.
        self.child = Child(
            cmd,
            env=self.child_env(),
            log_path=self.log_path,
            merge_stderr=True,
            json_lines=False,
            on_line=lambda line: self._on_log_line(line, loop),
        ).start()

    def child_env(self) -> dict[str, str]:
        """What the server's environment adds to :func:`console.children.child_env`."""
        return {"VLLM_LOGGING_LEVEL": "INFO"}

    async def _wait_healthy(self, t0: float, name: str) -> EngineInfo:
        child = self.child
        assert child is not None
        deadline = t0 + self.startup_timeout_s
        while True:
            if self._start_cancelled:
                raise EngineError("The server's start was cancelled")
            code = child.returncode
            if code is not None:
                await asyncio.sleep(0.3)  # let the reader take the last lines
                raise EngineError(self._exit_message(code, starting=True))
            if time.monotonic() > deadline:
                raise EngineError(
                    f"The server did not become healthy within {self.startup_timeout_s:.0f} s "
                    f"(last log line: {self.failure_cause()})"
                )
            if await self._healthy_strict():
                break
            await asyncio.sleep(0.5)
        self._on_stage("connecting")
        info = await self._connect(t0)
        phases = self._finish_phases()
        return EngineInfo(
            model=info.model,
            model_path=self._config.model if self._config else info.model_path,
            device=info.device,
            max_model_len=info.max_model_len,
            num_kv_blocks=info.num_kv_blocks,
            block_size=info.block_size,
            load_seconds=time.monotonic() - t0,
            vllm_version=info.vllm_version,
            takes_images=image_parts.takes_images(self._config.model) if self._config else None,
            family=family_of_folder(self._config.model) if self._config else None,
            tools_refusal=tools_refusal(folder_chat_template(self._config.model)) if self._config else None,
            load_phases=phases.done if phases is not None else (),
        )

    async def _healthy_strict(self) -> bool:
        try:
            resp = await self._http().get(self.url + "/health", timeout=2.0)
            return resp.status_code == 200
        except Exception:
            return False

    def _exit_message(self, code: int, starting: bool) -> str:
        how = f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"
        when = "while starting" if starting else "unexpectedly"
        cause = self.failure_cause()
        hint = explain(RuntimeError(cause), self._config)
        log_ref = f" Full log: {self.log_path}" if self.log_path else ""
        return f"The server process {how} {when}. {hint}{log_ref}"

    async def _watch_exit(self) -> None:
        child = self.child
        while child is not None and child is self.child:
            code = child.returncode
            if code is not None:
                if not self._stopping:
                    await asyncio.sleep(0.3)
                    message = self._exit_message(code, starting=False) + " Start it again to continue."
                    self._set_status(EngineStatus(EngineState.FAILED, self._status.model, "", message))
                    await self._stop_process()  # the EngineCore child may outlive it: end the group
                return
            await asyncio.sleep(0.5)

    # -- stop ----------------------------------------------------------------------------------
    async def _stop_process(self) -> None:
        child = self.child
        if child is None:
            return
        self._stopping = True
        await asyncio.get_running_loop().run_in_executor(None, child.stop, self.stop_timeout_s)
        self.child = None

    def unload(self) -> cf.Future[None]:
        """Stop the server (the whole process group)."""
        return self.run_coroutine(self._disconnect())

    def stop(self) -> cf.Future[None]:
        return self.unload()

    async def _disconnect(self) -> None:
        name = self._status.model
        if self._status.state == EngineState.LOADING:
            self._start_cancelled = True
        self._set_status(EngineStatus(EngineState.STOPPING, name, "stopping the server"))
        await self._cancel_all()
        await self._stop_process()
        self._set_status(EngineStatus(EngineState.STOPPED))

    async def _shutdown(self) -> None:
        await self._cancel_all()
        await self._stop_process()
        await super()._shutdown()

    async def _cancel_all(self) -> None:
        watch, self._exit_watch = self._exit_watch, None
        if watch is not None and watch is not asyncio.current_task():
            watch.cancel()
        await super()._cancel_all()


__all__ = ["ChildServer", "connect_host", "free_port", "port_free", "port_taken_message", "SERVER_MODULE"]
