"""A local stand-in for the hubs' model-search APIs (127.0.0.1, never the internet): it answers
``/api/models`` (Hugging Face) and ``/openapi/v1/models`` (ModelScope) with the recorded-shape
answers in tests/data/, records each request, and can be switched to fail (an HTTP status, a
delay longer than the client waits). Used by tests/test_model_search.py and the picker's UI tests."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import parse_qs, urlsplit

import pytest

DATA = Path(__file__).parent / "data"


class SearchHub:
    def __init__(self) -> None:
        self.hf = json.loads((DATA / "hf_search_qwen3_8b.json").read_text(encoding="utf-8"))
        self.modelscope = json.loads((DATA / "modelscope_search_qwen3_8b.json").read_text(encoding="utf-8"))
        self.requests: list[tuple[str, dict[str, list[str]]]] = []
        self.status = 200
        self.delay_s = 0.0
        self.url = ""

    def answer(self, path: str, query: dict[str, list[str]]) -> tuple[int, Any]:
        if self.status != 200:
            return self.status, {"error": "fault switched on by the test"}
        if path == "/api/models":
            words = query.get("search", [""])[0].lower().split()
            return 200, [m for m in self.hf if all(w in m["id"].lower() for w in words)]
        if path == "/openapi/v1/models":
            return 200, self.modelscope
        return 404, {"error": "not found"}


def _handler(hub: SearchHub) -> type[BaseHTTPRequestHandler]:
    class H(BaseHTTPRequestHandler):
        def log_message(self, *a: Any) -> None:
            pass

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            query = parse_qs(parts.query)
            hub.requests.append((parts.path, query))
            if hub.delay_s:
                time.sleep(hub.delay_s)
            status, body = hub.answer(parts.path, query)
            data = json.dumps(body).encode()
            self.send_response(status)
            if status == 429:
                self.send_header("Retry-After", "30")
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            try:
                self.wfile.write(data)
            except OSError:
                pass  # the client gave up waiting

    return H


@pytest.fixture()
def search_hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[SearchHub]:
    """The fake hubs, with HF_ENDPOINT and MODELSCOPE_ENDPOINT pointing at them."""
    hub = SearchHub()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(hub))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    hub.url = f"http://127.0.0.1:{server.server_address[1]}"
    monkeypatch.setenv("HF_ENDPOINT", hub.url)
    monkeypatch.setenv("MODELSCOPE_ENDPOINT", hub.url)
    for key in ("INFERENCE_CONSOLE_OFFLINE", "HF_HUB_OFFLINE"):
        monkeypatch.delenv(key, raising=False)
    try:
        yield hub
    finally:
        server.shutdown()
        server.server_close()
