"""MCP servers started, listed and called through the official ``mcp`` SDK, behind a small
synchronous facade.

:class:`McpHub` runs the SDK on its own asyncio loop on one daemon thread; every public method
may be called from any other thread and waits with a timeout. Each running server is one task on
that loop holding the SDK's ``Client`` open until it is stopped. A stdio server is started by the
SDK in its own process group; the hub then gives it a parent-death watcher
(``children.Watcher``), so it ends with the console even when the console is killed, like every
other child. A server that fails to start, hangs past the timeout or dies mid-call gives a
one-line ``error: ...`` result (:meth:`McpHub.call` never raises for the server's faults), and the
next call starts it again. Images in a result come apart as ``data:`` URLs
(:meth:`McpHub.call_parts`), for a model that takes them. Every line the hub returns has the servers' secrets replaced
(``mcp_config.redact``). No Qt here.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import sys
import tempfile
import threading
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any, Coroutine, Iterable, TextIO, TypeVar

from console.children import Watcher
from console.chat.mcp_config import SEPARATOR, McpServer, redact, tool_name

log = logging.getLogger(__name__)
T = TypeVar("T")

START_TIMEOUT_S = 30.0
CALL_TIMEOUT_S = 60.0
#: Characters of a tool's result kept for the model (the rest is cut with a note).
MAX_RESULT = 16_000


@dataclass
class _Running:
    """One server's task on the hub's loop and what it learned."""

    server: McpServer
    errlog: TextIO
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    client: Any = None
    tools: list[Any] = field(default_factory=list)
    error: str | None = None
    watcher: Watcher | None = None
    task: asyncio.Task[None] | None = None

    def stderr_tail(self, lines: int = 3) -> str:
        try:
            self.errlog.seek(0)
            tail = [x.strip() for x in self.errlog.read().splitlines() if x.strip()][-lines:]
        except (OSError, ValueError):
            return ""
        return " | ".join(tail)


def _one_line(exc: BaseException) -> str:
    if sys.version_info >= (3, 11) and isinstance(exc, BaseExceptionGroup):  # noqa: F821 -- 3.11+
        return "; ".join(_one_line(e) for e in exc.exceptions)
    return " ".join(str(exc).split()) or type(exc).__name__


def _children() -> dict[int, list[str]]:
    """This process's children that lead their own process group, with their command lines."""
    import psutil

    out: dict[int, list[str]] = {}
    for proc in psutil.Process().children():
        try:
            if os.getpgid(proc.pid) == proc.pid:
                out[proc.pid] = proc.cmdline()
        except (psutil.Error, ProcessLookupError):
            continue
    return out


def result_parts(result: Any) -> tuple[str, tuple[str, ...]]:
    """An SDK ``CallToolResult`` as (the text the model reads, each image as a ``data:`` URL).
    In the text an image is a one-line note, which is all a model that takes no images reads."""
    parts: list[str] = []
    images: list[str] = []
    for block in result.content:
        if block.type == "text":
            parts.append(block.text)
        elif block.type == "image":
            parts.append(f"[image: {block.mime_type}]")
            images.append(f"data:{block.mime_type};base64,{block.data}")
        elif block.type == "audio":
            parts.append(f"[{block.type}: {block.mime_type}]")
        else:
            parts.append(f"[{block.type}]")
    text = "\n".join(parts)
    if not text and result.structured_content is not None:
        import json

        text = json.dumps(result.structured_content, ensure_ascii=False)
    if len(text) > MAX_RESULT:
        text = text[:MAX_RESULT] + f"\n[cut: {len(text) - MAX_RESULT} more characters]"
    return (f"error: {text}" if result.is_error else text), tuple(images)


class McpHub:
    """The configured servers (by name), started on demand and stopped by :meth:`close`."""

    def __init__(
        self, servers: Iterable[McpServer] = (), *, start_timeout_s: float = START_TIMEOUT_S,
        call_timeout_s: float = CALL_TIMEOUT_S,
    ) -> None:  # fmt: skip
        self.servers: dict[str, McpServer] = {s.name: s for s in servers}
        self.start_timeout_s = start_timeout_s
        self.call_timeout_s = call_timeout_s
        self._running: dict[str, _Running] = {}
        self._listed: dict[str, list[Any]] = {}  # each server's last listing (SDK ``Tool`` objects)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="mcp-hub", daemon=True)
        self._thread.start()
        self._spawn_lock = asyncio.Lock()
        self._closed = False

    # -- configuration ---------------------------------------------------------------------
    def configure(self, servers: Iterable[McpServer]) -> None:
        """Use ``servers`` from now on; running servers that changed or went are stopped."""
        new = {s.name: s for s in servers}
        for name, old in list(self.servers.items()):
            if new.get(name) != old:
                self.stop(name)
                self._listed.pop(name, None)
        self.servers = new

    def redact(self, text: str) -> str:
        return redact(text, self.servers.values())

    # -- sync facade -------------------------------------------------------------------------
    def _wait(self, coro: Coroutine[Any, Any, T], timeout: float | None) -> T:
        future = asyncio.run_coroutine_threadsafe(coro, self._loop)
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise

    def start(self, name: str) -> str | None:
        """Start ``name`` (no-op when it runs); None when it is up, else the one-line reason."""
        if name not in self.servers:
            return f"no MCP server named {name!r}"
        if self.servers[name].disabled:
            return f"MCP server {name!r} is disabled in its configuration"
        try:
            return self._wait(self._start(name), self.start_timeout_s + 5)
        except concurrent.futures.TimeoutError:
            self.stop(name)
            return f"MCP server {name!r} did not start within {self.start_timeout_s:.0f} s"

    def tools(self, names: Iterable[str], start: bool = True) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """OpenAI function tools (``strict``) of the servers ``names`` (started as needed; with ``start``
        False, the last listing of each, which never blocks), and the one-line error of each
        server that could not list them."""
        out: list[dict[str, Any]] = []
        errors: dict[str, str] = {}
        for name in names:
            error = self.start(name) if start else None
            if error is not None:
                errors[name] = error
                continue
            for tool in self._listed.get(name, []):
                schema = dict(tool.input_schema or {"type": "object", "properties": {}})
                schema.pop("title", None)
                schema.setdefault("properties", {})
                description = self.redact(tool.description or tool.title or tool.name)
                out.append(
                    {
                        "type": "function",
                        "function": {
                            "name": tool_name(name, tool.name),
                            "description": f"[{name}] {description}",
                            # vLLM then holds the arguments to the server's schema, so even a
                            # weak model's call is one the server can take
                            "strict": True,
                            "parameters": schema,
                        },
                    }
                )
        return out, errors

    def owner(self, function: str) -> tuple[str, str] | None:
        """``(server, tool)`` behind a function name the hub made; None for any other name."""
        server, sep, _ = function.partition(SEPARATOR)
        if not sep or server not in self.servers:
            return None
        for tool in self._listed.get(server, []):
            if tool_name(server, tool.name) == function:
                return server, tool.name
        return server, function[len(server) + len(SEPARATOR) :]

    def call(self, function: str, arguments: dict[str, Any], timeout_s: float | None = None) -> str:
        """The result of calling ``function`` (a name from :meth:`tools`) as the model reads it:
        the tool's text, or ``error: ...`` in one line when the server failed, hung past
        ``timeout_s`` (default :attr:`call_timeout_s`) or died."""
        return self.call_parts(function, arguments, timeout_s)[0]

    def call_parts(
        self, function: str, arguments: dict[str, Any], timeout_s: float | None = None
    ) -> tuple[str, tuple[str, ...]]:
        """:meth:`call`'s text and the images of the result as ``data:`` URLs (:func:`result_parts`)."""
        owner = self.owner(function)
        if owner is None:
            return f"error: no MCP tool {function!r}", ()
        server, tool = owner
        error = self.start(server)
        if error is not None:
            return self.redact(f"error: {error}"), ()
        timeout = self.call_timeout_s if timeout_s is None else timeout_s
        images: tuple[str, ...] = ()
        try:
            text, images = self._wait(self._call(server, tool, arguments, timeout), timeout + 5)
        except (concurrent.futures.TimeoutError, TimeoutError):
            self.stop(server)  # a hung server is restarted on the next call
            text = f"error: MCP server {server!r} did not answer {tool} within {timeout:g} s"
        except Exception as exc:  # the SDK's and the transport's faults: one line for the model
            running = self._running.get(server)
            tail = running.stderr_tail() if running else ""
            self.stop(server)
            text = f"error: MCP server {server!r} failed during {tool}: {_one_line(exc)}" + (
                f" ({tail})" if tail else ""
            )
        return self.redact(text), images

    def stop(self, name: str) -> None:
        """Stop ``name`` if it runs (its process group ended by the SDK, its watcher released)."""
        if name in self._running and not self._closed:
            try:
                self._wait(self._stop(name), 15)
            except concurrent.futures.TimeoutError:
                log.warning("MCP server %s did not stop in time", name)

    def running(self) -> list[str]:
        return [n for n, r in self._running.items() if r.client is not None]

    def close(self) -> None:
        """Stop every server and the hub's loop (idempotent)."""
        if self._closed:
            return
        for name in list(self._running):
            self.stop(name)
        self._closed = True
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)

    # -- on the loop -----------------------------------------------------------------------
    async def _start(self, name: str) -> str | None:
        running = self._running.get(name)
        if running is not None and (running.task is None or running.task.done()):
            await self._stop(name)
            running = None
        if running is None:
            errlog = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")
            running = _Running(self.servers[name], errlog)
            self._running[name] = running
            running.task = asyncio.get_running_loop().create_task(self._serve(running))
        try:
            await asyncio.wait_for(running.ready.wait(), self.start_timeout_s)
        except TimeoutError:
            await self._stop(name)
            return f"MCP server {name!r} did not start within {self.start_timeout_s:.0f} s"
        if running.error is not None:
            error = running.error
            await self._stop(name)
            return error
        return None

    async def _serve(self, running: _Running) -> None:
        server = running.server
        try:
            async with AsyncExitStack() as stack:
                client = await self._connect(server, running, stack)
                listing = await client.list_tools()
                tools = list(listing.tools)
                while listing.next_cursor:
                    listing = await client.list_tools(cursor=listing.next_cursor)
                    tools += listing.tools
                running.client, running.tools = client, tools
                self._listed[server.name] = tools
                running.ready.set()
                await running.stop.wait()
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # noqa: B036 -- the SDK raises exception groups from its task groups
            tail = running.stderr_tail()
            running.error = self.redact(
                f"MCP server {server.name!r} could not start: {_one_line(exc)}" + (f" ({tail})" if tail else "")
            )
        finally:
            running.client = None
            running.ready.set()
            if running.watcher is not None:
                running.watcher.release()
                running.watcher = None

    async def _connect(self, server: McpServer, running: _Running, stack: AsyncExitStack) -> Any:
        from mcp import Client
        from mcp.types import Implementation

        info = Implementation(name="inference-console", version="1")
        if server.command:
            from mcp.client.stdio import StdioServerParameters, stdio_client

            params = StdioServerParameters(
                command=server.command, args=list(server.args), env=dict(server.env) or None, cwd=server.cwd
            )
            async with self._spawn_lock:  # one spawn at a time: the new child is the server
                before = set(_children())
                try:
                    return await stack.enter_async_context(
                        Client(stdio_client(params, errlog=running.errlog), client_info=info)
                    )
                finally:
                    new = [
                        pid for pid, argv in _children().items() if pid not in before and "console.children" not in argv
                    ]
                    if new:
                        running.watcher = Watcher(group=new[0])
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        http = create_mcp_http_client(headers=dict(server.headers) or None)
        transport = streamable_http_client(str(server.url), http_client=http)
        await stack.enter_async_context(http)
        return await stack.enter_async_context(Client(transport, client_info=info))

    async def _call(
        self, server: str, tool: str, arguments: dict[str, Any], timeout: float
    ) -> tuple[str, tuple[str, ...]]:
        running = self._running[server]
        if running.client is None:
            raise ConnectionError("the server is not running")
        result = await asyncio.wait_for(running.client.call_tool(tool, arguments), timeout)
        return result_parts(result)

    async def _stop(self, name: str) -> None:
        running = self._running.pop(name, None)
        if running is None:
            return
        running.stop.set()
        if running.task is not None and not running.task.done():
            try:
                await asyncio.wait_for(asyncio.shield(running.task), 10)
            except (TimeoutError, asyncio.CancelledError):
                running.task.cancel()
            except BaseException as exc:  # noqa: B036 -- already recorded by _serve
                log.debug("MCP server %s ended: %s", name, _one_line(exc))
        running.errlog.close()


__all__ = ["CALL_TIMEOUT_S", "McpHub", "START_TIMEOUT_S", "result_parts"]
