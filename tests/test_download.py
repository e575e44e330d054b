"""Downloads against a local Hugging Face Hub look-alike on 127.0.0.1 (never the internet).

The server speaks the part of the Hub's HTTP API that huggingface_hub and the console use: model
info with file metadata (sizes, LFS sha256, git blob ids), and ``resolve/<rev>/<file>`` with
ETag / X-Repo-Commit / Content-Length headers, Range requests and the Hub's error codes. It serves
the session's tiny generated Llama; faults (a dropped connection, a corrupt body, a missing file)
are switched on per test.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

import pytest

from console.jobs import Cancelled, TaskState
from console.models.download import DownloadError, choose_files, download_dir, list_files, preview, pull, RemoteFile
from console.models.store import ModelStore

COMMIT = "0123456789abcdef0123456789abcdef01234567"
REPO = "org/tiny"


class Hub:
    def __init__(self, files: dict[str, bytes]) -> None:
        self.files = files
        self.served: dict[str, bytes] = {}  # bodies served instead of the listed content (corruption)
        self.truncate_once: dict[str, int] = {}  # drop the connection after N bytes, once
        self.missing: set[str] = set()  # listed, but resolve answers 404
        self.log: list[tuple[str, str, str | None]] = []

    def listing(self) -> dict[str, Any]:
        siblings = []
        for path, data in sorted(self.files.items()):
            s: dict[str, Any] = {
                "rfilename": path,
                "size": len(data),
                "blobId": hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest(),
            }
            if path.endswith((".safetensors", ".bin", ".gguf")):
                s["lfs"] = {"size": len(data), "sha256": hashlib.sha256(data).hexdigest(), "pointerSize": 134}
            siblings.append(s)
        return {"id": REPO, "modelId": REPO, "sha": COMMIT, "private": False, "siblings": siblings}


def _handler(hub: Hub) -> type[BaseHTTPRequestHandler]:
    class H(BaseHTTPRequestHandler):
        def log_message(self, *a: Any) -> None:
            pass

        def _error(self, code: int, error_code: str) -> None:
            body = json.dumps({"error": error_code}).encode()
            self.send_response(code)
            self.send_header("X-Error-Code", error_code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def _route(self) -> None:
            path = self.path.split("?")[0]
            hub.log.append((self.command, path, self.headers.get("Range")))
            if path.startswith("/api/models/"):
                repo = path[len("/api/models/") :].split("/revision/")[0]
                if repo != REPO:
                    return self._error(404, "RepoNotFound")
                body = json.dumps(hub.listing()).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            if "/resolve/" not in path:
                return self._error(404, "RepoNotFound")
            repo, rest = path.lstrip("/").split("/resolve/", 1)
            fname = rest.split("/", 1)[1]
            if repo != REPO:
                return self._error(404, "RepoNotFound")
            if fname not in hub.files or fname in hub.missing:
                return self._error(404, "EntryNotFound")
            data = hub.served.get(fname, hub.files[fname])
            start, end = 0, None
            rng = self.headers.get("Range")
            if rng and rng.startswith("bytes="):
                first, _, last = rng[6:].partition("-")
                start, end = int(first), int(last) if last else None
            if start >= len(data) and start > 0:
                return self._error(416, "RangeNotSatisfiable")
            body = data[start : None if end is None else end + 1]
            partial = bool(start) or (end is not None and end + 1 < len(data))
            self.send_response(206 if partial else 200)
            if partial:
                self.send_header("Content-Range", f"bytes {start}-{start + len(body) - 1}/{len(data)}")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("ETag", f'"{hashlib.sha256(hub.files[fname]).hexdigest()}"')
            self.send_header("X-Repo-Commit", COMMIT)
            self.send_header("Accept-Ranges", "bytes")
            self.end_headers()
            if self.command == "HEAD":
                return
            cut = hub.truncate_once.pop(fname, None)
            if cut is not None:
                self.wfile.write(body[:cut])
                self.wfile.flush()
                self.close_connection = True
                return
            self.wfile.write(body)

        do_GET = _route
        do_HEAD = _route

    return H


@pytest.fixture()
def hub(tiny_model: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Hub]:
    files = {p.name: p.read_bytes() for p in tiny_model.iterdir() if p.is_file()}
    files["pytorch_model.bin"] = b"\0" * 1000  # an old-format duplicate: must be skipped
    files["README.md"] = b"# tiny\n"
    h = Hub(files)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(h))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{server.server_address[1]}")
    monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
    monkeypatch.delenv("HF_TOKEN", raising=False)
    try:
        yield h
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture()
def store(home: Path) -> ModelStore:
    return ModelStore()


def _weights(hub: Hub) -> str:
    return next(p for p in hub.files if p.endswith(".safetensors"))


def test_preview_lists_the_right_files_and_the_planner_verdict(hub: Hub) -> None:
    pv = preview(REPO)
    names = {f.path for f in pv.files}
    assert "config.json" in names and _weights(hub) in names
    assert "pytorch_model.bin" not in names and "README.md" not in names
    assert pv.total_bytes == sum(len(hub.files[n]) for n in names)
    assert pv.commit == COMMIT
    assert pv.verdict == "fits", pv.verdict_detail
    assert not any(m == "GET" and "/resolve/" in p and p.endswith(".safetensors") for m, p, _ in hub.log)


def test_pull_downloads_verifies_and_registers(hub: Hub, store: ModelStore) -> None:
    seen: list[str] = []
    entry = pull(store, REPO, "tiny", task=TaskState(lambda p: seen.append(p.message)))
    assert entry.name in store and entry.architecture == "LlamaForCausalLM"
    assert entry.lineage and entry.lineage["commit"] == COMMIT
    w = _weights(hub)
    assert (Path(entry.path) / w).read_bytes() == hub.files[w]
    assert not (Path(entry.path) / "pytorch_model.bin").exists()
    assert not download_dir(store, "hf", REPO, COMMIT).exists()
    assert any("/s" in m and "of" in m for m in seen)


def test_interrupted_download_resumes_with_a_range_request(hub: Hub, store: ModelStore) -> None:
    w = _weights(hub)
    cut = len(hub.files[w]) // 2
    hub.truncate_once[w] = cut
    with pytest.raises(DownloadError, match="interrupted"):
        pull(store, REPO, "tiny")
    assert "tiny" not in store
    part = download_dir(store, "hf", REPO, COMMIT) / (w + ".part")
    assert part.stat().st_size == cut
    entry = pull(store, REPO, "tiny")
    assert ("GET", f"/{REPO}/resolve/{COMMIT}/{w}", f"bytes={cut}-") in hub.log
    assert (Path(entry.path) / w).read_bytes() == hub.files[w]


def test_missing_repo_and_missing_file_are_clear_errors(hub: Hub, store: ModelStore) -> None:
    with pytest.raises(DownloadError, match="No repository 'org/nope'"):
        list_files("org/nope")
    hub.missing.add("tokenizer.json")
    with pytest.raises(DownloadError, match="tokenizer.json is not in org/tiny"):
        pull(store, REPO, "tiny")
    assert "tiny" not in store


def test_corrupt_file_is_rejected_and_deleted(hub: Hub, store: ModelStore) -> None:
    w = _weights(hub)
    bad = bytearray(hub.files[w])
    bad[len(bad) // 2] ^= 0xFF
    hub.served[w] = bytes(bad)
    with pytest.raises(DownloadError, match="corrupt"):
        pull(store, REPO, "tiny")
    assert "tiny" not in store
    folder = download_dir(store, "hf", REPO, COMMIT)
    assert not (folder / w).exists() and not (folder / (w + ".part")).exists()
    hub.served[w] = hub.files[w][:-10]  # short body: a size mismatch
    with pytest.raises(DownloadError, match="the source lists"):
        pull(store, REPO, "tiny")
    del hub.served[w]
    assert pull(store, REPO, "tiny").name == "tiny"


def test_full_disk_is_refused_before_downloading(hub: Hub, store: ModelStore) -> None:
    free = shutil.disk_usage(store.root).free
    with pytest.raises(DownloadError, match="Not enough disk space"):
        pull(store, REPO, "tiny", reserve_bytes=free)
    assert not any("/resolve/" in p for _, p, _ in hub.log)
    assert "tiny" not in store


def test_cancel_stops_and_registers_nothing(hub: Hub, store: ModelStore) -> None:
    task = TaskState()
    task._on_progress = lambda p: task.cancel() if p.stage.startswith("downloading") else None
    with pytest.raises(Cancelled):
        pull(store, REPO, "tiny", task=task)
    assert "tiny" not in store and not store.model_dir("tiny").exists()


def test_choose_one_gguf_out_of_many() -> None:
    files = [RemoteFile("README.md", 10), RemoteFile("m.Q4_K_M.gguf", 100), RemoteFile("m.Q8_0.gguf", 200)]
    with pytest.raises(DownloadError, match="Pick one GGUF.*m.Q4_K_M.gguf"):
        choose_files(files)
    chosen, gguf = choose_files(files, variant="q8_0")
    assert gguf == "m.Q8_0.gguf" and [f.path for f in chosen] == ["m.Q8_0.gguf"]
    with pytest.raises(DownloadError, match="No GGUF file matches 'Q2_K'"):
        choose_files(files, variant="Q2_K")
    assert choose_files(files, include=["*Q4_K_M*"])[1] == "m.Q4_K_M.gguf"


def test_cli_pull(hub: Hub, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from console.cli.main import main

    assert main(["models", "pull", REPO, "--name", "tiny-cli", "--yes"]) == 0
    out = capsys.readouterr().out
    assert "planner on rtx-4090: fits" in out and "pulled 'tiny-cli'" in out
    assert main(["models", "pull", "org/nope", "--yes"]) == 2
    assert "No repository 'org/nope'" in capsys.readouterr().err


def test_modelscope_without_its_sdk_says_how_to_get_it(store: ModelStore, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "modelscope", None)  # as if not installed: import raises
    with pytest.raises(DownloadError, match=r"pip install 'inference-console\[modelscope\]'"):
        pull(store, "qwen/Qwen2.5-0.5B-Instruct", "q", source="modelscope")
