"""MCP servers as the user configures them: the ``mcpServers`` JSON that Claude Desktop and LM
Studio's ``mcp.json`` use, read into :class:`McpServer` records, and the secrets they carry kept
out of everything the console writes.

A stdio server is ``{"command": ..., "args": [...], "env": {...}, "cwd": ...}``; a streamable-HTTP
server is ``{"url": ..., "headers": {...}}`` (``"type"``/``"transport"`` may say which; ``"disabled":
true`` keeps an entry without offering it). Secrets are every value of ``headers`` and the values
of ``env`` whose name says so (key, token, secret, password, auth, credential …) or that look like
one (16 characters or more, no spaces, not a path): :func:`redact` replaces them wherever they
appear (tool results, error lines, a server's stderr), and :meth:`McpServer.describe` names the
variables without any values.

A server's tools reach the model as function tools named ``<server>__<tool>`` (:func:`tool_name`),
so two servers may each have a tool of the same name. The window keeps the file the user imported
as ``mcp.json`` in the data home (:func:`import_servers`, :func:`saved_servers`). No Qt here.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from console.atomic import atomic_write_text
from console.paths import data_home

#: The window's copy of the imported file, in the data home.
CONFIG_FILE = "mcp.json"
#: Between a server's name and its tool's in the name the model sees.
SEPARATOR = "__"
#: OpenAI function names: letters, digits, ``_`` and ``-``, at most 64.
_NAME = re.compile(r"[^A-Za-z0-9_-]")
MAX_NAME = 64
#: A secret shorter than this is not searched for (``"1"`` would blank every digit of a result).
MIN_SECRET = 4
#: Names of environment variables whose values are secrets whatever they look like.
SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASS|AUTH|CRED|COOKIE|SESSION|PRIVATE|(^|_)PAT($|_)", re.I)
#: A value this long with no spaces and no path separator is taken for a secret.
SECRET_LOOK = re.compile(r"[^\s/\\]{16,}")
MASK = "***"


class McpConfigError(ValueError):
    """An ``mcpServers`` file that cannot be used; the message says where and why, in one line."""


@dataclass(frozen=True)
class McpServer:
    """One configured server: stdio (``command``) or streamable HTTP (``url``)."""

    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    disabled: bool = False

    @property
    def transport(self) -> str:
        return "stdio" if self.command else "http"

    def secrets(self) -> list[str]:
        """The values that must never be written anywhere (see the module docstring)."""
        env = [v for k, v in self.env.items() if SECRET_NAME.search(k) or SECRET_LOOK.fullmatch(v)]
        return [v for v in (*env, *self.headers.values()) if len(v) >= MIN_SECRET]

    def describe(self) -> str:
        """One line for people: the command (or URL) with variable and header names only."""
        if self.command:
            env = " ".join(f"{k}={MASK}" for k in sorted(self.env))
            line = " ".join([self.command, *self.args])
            return redact(f"{env} {line}".strip(), [self])
        headers = ", ".join(sorted(self.headers))
        return redact(f"{self.url}" + (f" (headers: {headers})" if headers else ""), [self])


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise McpConfigError(f"{where}: must be a list of strings")
    return tuple(value)


def _mapping(value: Any, where: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, (str, int, float, bool)) for v in value.values()):
        raise McpConfigError(f"{where}: must be an object of strings")
    return {str(k): str(v) for k, v in value.items()}


def server_name(name: str) -> str:
    """``name`` as it can appear in a function name (other characters become ``-``)."""
    return _NAME.sub("-", name.strip())[:32] or "server"


def parse_servers(text: str, source: str = "mcp.json") -> list[McpServer]:
    """The servers of an ``mcpServers`` JSON document (a bare ``{name: {...}}`` object is taken
    too); raises :class:`McpConfigError` with a one-line reason."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise McpConfigError(f"{source}: line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    if not isinstance(data, dict):
        raise McpConfigError(f'{source}: expected a JSON object with "mcpServers"')
    entries = data.get("mcpServers", data.get("servers", data))
    if not isinstance(entries, dict):
        raise McpConfigError(f'{source}: "mcpServers" must be an object of servers by name')
    out: list[McpServer] = []
    seen: set[str] = set()
    for raw_name, entry in entries.items():
        where = f"{source}: server {raw_name!r}"
        if not isinstance(entry, dict):
            raise McpConfigError(f"{where}: must be an object")
        name = server_name(str(raw_name))
        if name in seen:
            raise McpConfigError(f"{where}: two servers have the name {name!r}")
        seen.add(name)
        kind = str(entry.get("type", entry.get("transport", "")))
        command, url = entry.get("command"), entry.get("url", entry.get("serverUrl"))
        if kind == "sse":
            raise McpConfigError(f"{where}: SSE servers are not supported; use its streamable-HTTP URL")
        if isinstance(command, str) and command.strip():
            out.append(
                McpServer(
                    name,
                    command=command.strip(),
                    args=_strings(entry.get("args", []), f"{where} args"),
                    env=_mapping(entry.get("env", {}), f"{where} env"),
                    cwd=str(entry["cwd"]) if entry.get("cwd") else None,
                    disabled=bool(entry.get("disabled", False)),
                )
            )
        elif isinstance(url, str) and url.startswith(("http://", "https://")):
            out.append(
                McpServer(
                    name,
                    url=url,
                    headers=_mapping(entry.get("headers", {}), f"{where} headers"),
                    disabled=bool(entry.get("disabled", False)),
                )
            )
        else:
            raise McpConfigError(f'{where}: needs a "command" (stdio) or an http(s) "url"')
    return out


def load_servers(path: str | Path) -> list[McpServer]:
    """:func:`parse_servers` of a file; raises :class:`McpConfigError` (unreadable file included)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise McpConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
    return parse_servers(text, str(path))


def import_servers(path: str | Path) -> list[McpServer]:
    """Check ``path`` and keep a copy as the window's servers (readable by the user only, as
    it may hold keys); raises :class:`McpConfigError`."""
    servers = load_servers(path)
    target = data_home() / CONFIG_FILE
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(target, Path(path).read_text(encoding="utf-8"))
    target.chmod(0o600)
    return servers


def saved_servers() -> tuple[list[McpServer], str | None]:
    """The servers of the window's copy (none when nothing was imported) and, when that copy
    cannot be used, the one-line reason."""
    path = data_home() / CONFIG_FILE
    if not path.exists():
        return [], None
    try:
        return load_servers(path), None
    except McpConfigError as exc:
        return [], str(exc)


def redact(text: str, servers: Iterable[McpServer]) -> str:
    """``text`` with every secret of ``servers`` replaced by ``***``."""
    for secret in sorted({s for server in servers for s in server.secrets()}, key=len, reverse=True):
        text = text.replace(secret, MASK)
    return text


def tool_name(server: str, tool: str) -> str:
    """The function name the model sees for ``tool`` of ``server``."""
    return f"{server}{SEPARATOR}{_NAME.sub('-', tool)}"[:MAX_NAME]


__all__ = [
    "MASK",
    "McpConfigError",
    "McpServer",
    "SEPARATOR",
    "CONFIG_FILE",
    "import_servers",
    "load_servers",
    "saved_servers",
    "parse_servers",
    "redact",
    "server_name",
    "tool_name",
]
