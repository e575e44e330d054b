"""The console's HTTP client factory (console/net.py) against a local server on 127.0.0.1: what
every request carries, and the offline refusal of a model-hub client before anything is sent."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator

import httpx
import pytest

from console import __version__, net


@pytest.fixture()
def server() -> Iterator[tuple[str, list[dict[str, str]]]]:
    seen: list[dict[str, str]] = []

    class H(BaseHTTPRequestHandler):
        def log_message(self, *a: Any) -> None:
            pass

        def do_GET(self) -> None:
            seen.append({k.lower(): v for k, v in self.headers.items()})
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

    srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{srv.server_address[1]}", seen
    finally:
        srv.shutdown()
        srv.server_close()


def test_every_client_sends_the_console_user_agent(server: tuple[str, list[dict[str, str]]]) -> None:
    url, seen = server
    assert net.get(url + "/health", 5).text == "ok"
    with net.client(5, headers={"Authorization": "Bearer k"}) as c:
        c.get(url)
    assert [h["user-agent"] for h in seen] == [f"inference-console/{__version__}"] * 2
    assert seen[1]["authorization"] == "Bearer k"


async def _async_get(url: str) -> str:
    async with net.async_client(5) as c:
        return (await c.get(url)).text


def test_async_client_and_timeouts(server: tuple[str, list[dict[str, str]]]) -> None:
    import asyncio

    url, seen = server
    assert asyncio.run(_async_get(url)) == "ok" and seen[0]["user-agent"].startswith("inference-console/")
    assert net.timeout(600) == httpx.Timeout(600, connect=net.CONNECT_TIMEOUT_S)  # a server engine's stream
    assert net.timeout(0.3) == httpx.Timeout(0.3)  # a short timeout bounds the connection attempt too
    assert net.host("http://127.0.0.1:9/api/models?x=1") == "127.0.0.1:9"


@pytest.mark.parametrize("key", ["INFERENCE_CONSOLE_OFFLINE", "HF_HUB_OFFLINE"])
def test_a_hub_client_is_refused_offline_before_any_request(
    server: tuple[str, list[dict[str, str]]], monkeypatch: pytest.MonkeyPatch, key: str
) -> None:
    url, seen = server
    for other in ("INFERENCE_CONSOLE_OFFLINE", "HF_HUB_OFFLINE"):
        monkeypatch.delenv(other, raising=False)
    monkeypatch.setenv(key, "1")
    with pytest.raises(net.Offline, match=f"Offline mode is on \\({key}=1\\): searching ModelScope"):
        net.client(5, hub="searching ModelScope")
    with net.client(5) as c:  # a vLLM server is not a model hub: offline mode lets it through
        assert c.get(url).text == "ok"
    assert len(seen) == 1
