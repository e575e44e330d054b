"""Network guard for the privacy test: records (and refuses) every non-loopback network attempt.

Put this folder first on ``PYTHONPATH`` and set ``NETGUARD_LOG`` to a file: every Python process
of the run (the test's driver and all its children: vLLM's engine core, import and quantize
workers, baselines...) loads it at start through ``site``. It wraps ``socket.socket.connect``,
``connect_ex``, ``sendto``, ``sendmsg`` and the name lookups (``getaddrinfo``,
``gethostbyname``, ``gethostbyname_ex``); an attempt whose address is not loopback (and not in
``NETGUARD_ALLOW``, comma-separated hosts the user configured: a remote engine, a download
mirror) is appended to the log as a JSON line and fails with ``OSError`` -- so nothing leaves
the machine during the test either. Unix sockets are local and pass.

It also records, in each process that imports vLLM's ``usage_lib``, what
``is_usage_stats_enabled()`` says there (``{"usage_stats_enabled": ...}`` lines).
"""

from __future__ import annotations

import errno
import importlib.abc
import importlib.machinery
import ipaddress
import json
import multiprocessing
import os
import socket
import sys
import traceback
from typing import Any

_LOG = os.environ.get("NETGUARD_LOG", "")
_ALLOW = {h.strip().lower() for h in os.environ.get("NETGUARD_ALLOW", "").split(",") if h.strip()}
_LOCAL_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback", ""}


def _write(record: dict[str, Any]) -> None:
    record.update(pid=os.getpid(), ppid=os.getppid(), argv=sys.argv[:3], process=multiprocessing.current_process().name)
    line = (json.dumps(record, default=str) + "\n").encode()
    fd = os.open(_LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line)  # one write with O_APPEND: lines from many processes do not interleave
    finally:
        os.close(fd)


def _local_host(host: Any) -> bool:
    if host is None:
        return True
    if isinstance(host, bytes):
        host = host.decode(errors="replace")
    host = str(host).strip("[]").split("%")[0].lower()
    if host in _LOCAL_NAMES or host in _ALLOW:
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    return ip.is_loopback or ip.is_unspecified


def _check(call: str, family: int, address: Any) -> None:
    if family == getattr(socket, "AF_UNIX", -1) or not isinstance(address, tuple) or not address:
        return
    if _local_host(address[0]):
        return
    _write({"call": call, "address": list(address), "stack": traceback.format_stack(limit=8)[:-2]})
    raise OSError(errno.ENETUNREACH, f"netguard: {call} to {address[0]} refused (not loopback)")


def _check_name(call: str, host: Any) -> None:
    if _local_host(host):
        return
    _write({"call": call, "address": [host], "stack": traceback.format_stack(limit=8)[:-2]})
    raise socket.gaierror(socket.EAI_NONAME, f"netguard: lookup of {host} refused (not loopback)")


def _install() -> None:
    base = socket.socket
    c_socket = base.__mro__[1]  # _socket.socket: the C methods

    def connect(self: socket.socket, address: Any) -> None:
        _check("connect", self.family, address)
        c_socket.connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        _check("connect_ex", self.family, address)
        return int(c_socket.connect_ex(self, address))

    def sendto(self: socket.socket, data: Any, *args: Any) -> int:
        _check("sendto", self.family, args[-1])
        return int(c_socket.sendto(self, data, *args))

    def sendmsg(self: socket.socket, buffers: Any, ancdata: Any = (), flags: int = 0, address: Any = None) -> int:
        if address is not None:
            _check("sendmsg", self.family, address)
            return int(c_socket.sendmsg(self, buffers, ancdata, flags, address))
        return int(c_socket.sendmsg(self, buffers, ancdata, flags))

    base.connect = connect  # type: ignore[method-assign]
    base.connect_ex = connect_ex  # type: ignore[method-assign]
    base.sendto = sendto  # type: ignore[method-assign]
    base.sendmsg = sendmsg  # type: ignore[method-assign]

    real_getaddrinfo = socket.getaddrinfo
    real_byname = socket.gethostbyname
    real_byname_ex = socket.gethostbyname_ex

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        _check_name("getaddrinfo", host)
        return real_getaddrinfo(host, *args, **kwargs)

    def gethostbyname(host: str) -> str:
        _check_name("gethostbyname", host)
        return real_byname(host)

    def gethostbyname_ex(host: str) -> Any:
        _check_name("gethostbyname_ex", host)
        return real_byname_ex(host)

    socket.getaddrinfo = getaddrinfo  # type: ignore[assignment]
    socket.gethostbyname = gethostbyname  # type: ignore[assignment]
    socket.gethostbyname_ex = gethostbyname_ex  # type: ignore[assignment]
    sys.meta_path.insert(0, _UsageLibWatcher())


class _UsageLibWatcher(importlib.abc.MetaPathFinder):
    """After ``vllm.usage.usage_lib`` is imported, log what it says about usage statistics."""

    target = "vllm.usage.usage_lib"

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name != self.target:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return None
        loader = spec.loader
        real_exec = loader.exec_module  # type: ignore[union-attr]

        def exec_module(module: Any) -> None:
            real_exec(module)
            _write({"usage_stats_enabled": bool(module.is_usage_stats_enabled())})

        loader.exec_module = exec_module  # type: ignore[method-assign,union-attr]
        return spec


if _LOG:
    _install()
