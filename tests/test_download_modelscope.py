"""`models pull --source modelscope` through the real ModelScope SDK, against a local look-alike.

The SDK (modelscope >= 1.38, i.e. modelscope_hub) is pointed at 127.0.0.1 with
``MODELSCOPE_ENDPOINT``. What it calls, as observed with modelscope 1.40.2 / modelscope-hub 0.5.1:
``GET /api/v1/models/<repo>/repo/files?Revision=R&Recursive=True`` for the listing (JSON
``{"Code": 200, "Data": {"Files": [{"Path", "Size", "Sha256", "Type"}, ...]}}``),
``GET /api/v1/models/<repo>/repo?Revision=R&FilePath=F`` for a file's body (Range honoured), and
``GET /api/v1/repos/internalAccelerationInfo`` (a 404 is fine). No test touches the internet.
"""

from __future__ import annotations

import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import parse_qs, urlparse

import pytest

from console.jobs import Cancelled, TaskState
from console.models.download import DownloadError, download_dir, list_files, preview, pull
from console.models.store import ModelStore

REPO = "org/tiny"


class MsHub:
    def __init__(self, files: dict[str, bytes]) -> None:
        self.files = files
        self.served: dict[str, bytes] = {}  # a body other than the listed one (corruption)
        self.status: int | None = None  # answer every API call with this (401, 500, ...)
        self.log: list[str] = []

    def listing(self) -> list[dict[str, Any]]:
        return [
            {
                "Path": p,
                "Name": p.rsplit("/", 1)[-1],
                "Size": len(d),
                "Type": "blob",
                "Sha256": hashlib.sha256(d).hexdigest(),
                "Revision": "master",
            }
            for p, d in sorted(self.files.items())
        ]


def _handler(hub: MsHub) -> type[BaseHTTPRequestHandler]:
    class H(BaseHTTPRequestHandler):
        def log_message(self, *a: Any) -> None:
            pass

        def _send(
            self, code: int, body: bytes, ctype: str = "application/json", headers: dict[str, str] | None = None
        ) -> None:
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def _error(self, code: int, message: str) -> None:
            self._send(code, json.dumps({"Code": code, "Success": False, "Message": message}).encode())

        def _route(self) -> None:
            url = urlparse(self.path)
            query = parse_qs(url.query)
            hub.log.append(url.path + ("?" + url.query if url.query else ""))
            if hub.status is not None:
                return self._error(hub.status, "denied" if hub.status in (401, 403) else "broken")
            if url.path == f"/api/v1/models/{REPO}/repo/files":
                body = {"Code": 200, "Success": True, "Data": {"Files": hub.listing()}}
                return self._send(200, json.dumps(body).encode())
            if url.path == f"/api/v1/models/{REPO}/repo":
                name = query.get("FilePath", [""])[0]
                if name not in hub.files:
                    return self._error(404, "file not found")
                data = hub.served.get(name, hub.files[name])
                rng = self.headers.get("Range")
                if rng and rng.startswith("bytes="):
                    a, _, b = rng[6:].partition("-")
                    start, end = int(a), int(b) if b else len(data) - 1
                    return self._send(
                        206,
                        data[start : end + 1],
                        "application/octet-stream",
                        {"Content-Range": f"bytes {start}-{end}/{len(data)}"},
                    )
                return self._send(200, data, "application/octet-stream")
            return self._error(404, "model not found")

        do_GET = _route
        do_HEAD = _route

    return H


@pytest.fixture()
def mshub(tiny_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[MsHub]:
    files = {p.name: p.read_bytes() for p in tiny_model.iterdir() if p.is_file()}
    files["README.md"] = b"# tiny\n"
    hub = MsHub(files)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(hub))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("MODELSCOPE_ENDPOINT", f"http://127.0.0.1:{server.server_address[1]}")
    monkeypatch.setenv("MODELSCOPE_CACHE", str(tmp_path / "ms-cache"))
    monkeypatch.setenv("MODELSCOPE_HOME", str(tmp_path / "ms-home"))  # its session file, not ~/.modelscope
    monkeypatch.delenv("MODELSCOPE_API_TOKEN", raising=False)
    monkeypatch.delenv("MODELSCOPE_DOMAIN", raising=False)
    try:
        yield hub
    finally:
        server.shutdown()
        server.server_close()


def test_listing_carries_sizes_and_hashes(mshub: MsHub) -> None:
    listing = list_files(REPO, source="modelscope")
    by_path = {f.path: f for f in listing.files}
    assert by_path["model.safetensors"].size == len(mshub.files["model.safetensors"])
    assert by_path["model.safetensors"].sha256 == hashlib.sha256(mshub.files["model.safetensors"]).hexdigest()
    assert any("/api/v1/models/org/tiny/repo/files" in line for line in mshub.log)


def test_preview_reads_config_for_the_planner(mshub: MsHub) -> None:
    pv = preview(REPO, source="modelscope", gpu="rtx-4090")
    assert "README.md" not in [f.path for f in pv.files]
    assert pv.total_bytes == sum(len(mshub.files[f.path]) for f in pv.files)
    assert pv.verdict == "fits", pv.verdict_detail
    assert any("FilePath=config.json" in line for line in mshub.log)


def test_pull_through_the_sdk_lands_in_the_store(mshub: MsHub, home: Path) -> None:
    store = ModelStore()
    seen: list[float] = []
    entry = pull(
        store,
        REPO,
        "tiny-ms",
        source="modelscope",
        reserve_bytes=0,
        task=TaskState(lambda p: seen.append(p.fraction or 0.0)),
    )
    assert entry.architecture == "LlamaForCausalLM"
    assert (Path(entry.path) / "model.safetensors").read_bytes() == mshub.files["model.safetensors"]
    assert entry.lineage["source"] == "modelscope"
    assert max(seen) == 1.0
    assert not download_dir(store, "modelscope", REPO, "master").exists()


def test_missing_repo_and_login_are_sentences(mshub: MsHub, home: Path) -> None:
    with pytest.raises(DownloadError, match="No repository 'org/nope'"):
        list_files("org/nope", source="modelscope")
    mshub.status = 401
    with pytest.raises(DownloadError, match="MODELSCOPE_API_TOKEN"):
        list_files(REPO, source="modelscope")


def test_corrupt_file_is_refused_and_nothing_registered(mshub: MsHub, home: Path) -> None:
    data = mshub.files["model.safetensors"]
    mshub.served["model.safetensors"] = bytes([data[0] ^ 0xFF]) + data[1:]
    store = ModelStore()
    with pytest.raises(DownloadError, match="corrupt|hash"):
        pull(store, REPO, "tiny-ms", source="modelscope", reserve_bytes=0)
    assert "tiny-ms" not in store
    mshub.served.clear()  # the next run fetches it again and succeeds
    assert pull(store, REPO, "tiny-ms", source="modelscope", reserve_bytes=0).name == "tiny-ms"


def test_cancel_stops_the_sdk_download(mshub: MsHub, home: Path) -> None:
    store = ModelStore()
    task = TaskState(lambda p: task.cancel() if p.stage.startswith("downloading") else None)
    with pytest.raises(Cancelled):
        pull(store, REPO, "tiny-ms", source="modelscope", reserve_bytes=0, task=task)
    assert "tiny-ms" not in store


def test_cli_pull_from_modelscope(mshub: MsHub, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from console.cli.main import main

    assert main(["models", "pull", REPO, "--source", "modelscope", "--name", "tiny-cli", "--yes"]) == 0
    out = capsys.readouterr().out
    assert "(modelscope)" in out and "planner on rtx-4090: fits" in out and "pulled 'tiny-cli'" in out
