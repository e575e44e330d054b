"""TLS is verified by default: a server with a certificate nobody vouches for is refused with a
message that says so; given that certificate as the CA bundle, the same server is accepted."""

from __future__ import annotations

import json
import shutil
import ssl
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

import pytest

from console.engine.remote import RemoteEngine
from console.engine.types import EngineError


class _Models(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        data = json.dumps(
            {"data": [{"id": "tls-model", "max_model_len": 128}]} if self.path == "/v1/models" else {}
        ).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture()
def https_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Models)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    httpd.socket = ctx.wrap_socket(httpd.socket, server_side=True)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"https://127.0.0.1:{httpd.server_address[1]}", cert
    httpd.shutdown()
    httpd.server_close()


def test_untrusted_certificate_is_refused_then_accepted_with_its_ca(https_server: tuple[str, Path]) -> None:
    url, cert = https_server
    engine = RemoteEngine(url)
    try:
        with pytest.raises(EngineError, match="TLS check failed"):
            engine.connect().result(timeout=30)
    finally:
        engine.close()
    trusted = RemoteEngine(url, verify=str(cert))
    try:
        assert trusted.connect().result(timeout=30).model == "tls-model"
    finally:
        trusted.close()
