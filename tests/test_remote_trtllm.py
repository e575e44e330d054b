"""The trtllm-serve profile of the remote engine. TensorRT-LLM cannot run here (no GPU), so its
server is stood in for by a front that passes the shared OpenAI surface (``/v1/*``, ``/health``)
through to the real vLLM server of the session and answers the rest as ``trtllm-serve``
documents it: ``/version`` and ``/metrics`` with TensorRT-LLM's iteration statistics (the
recorded sample of tests/data/trtllm_iteration_stats.json, one body per poll). Chat, batch, the
Monitor's series and ``bench --engine trtllm+URL --compare-local`` run through it."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

import httpx
import pytest

from console.batch.formats import parse_jsonl
from console.batch.runner import run_batch
from console.sampling import SamplingSettings
from console.engine.factory import make_engine, parse_engine_choice
from console.engine.child_server import ChildServer
from console.engine.remote import RemoteEngine
from console.engine.types import GenerationRequest, RequestFinished, TokenDelta
from tests.conftest import wait_for

pytestmark = pytest.mark.engine

SAMPLE = json.loads((Path(__file__).parent / "data" / "trtllm_iteration_stats.json").read_text())


class _Front(BaseHTTPRequestHandler):
    upstream = ""
    polls: list[Any] = []

    def log_message(self, *args: Any) -> None:
        pass

    def _reply(self, code: int, body: bytes, content_type: str = "application/json") -> None:
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        if self.path == "/metrics":  # one recorded body per poll, then an empty queue
            cls = type(self)
            self._reply(200, json.dumps(cls.polls.pop(0) if cls.polls else []).encode())
        elif self.path == "/version":
            self._reply(200, b'{"version": "1.1.0"}')
        else:
            resp = httpx.get(self.upstream + self.path, timeout=30)
            self._reply(resp.status_code, resp.content, resp.headers.get("content-type", "application/json"))

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        with httpx.stream(
            "POST", self.upstream + self.path, content=body, headers={"Content-Type": "application/json"}, timeout=120
        ) as resp:
            self.send_response(resp.status_code)
            self.send_header("Content-Type", resp.headers.get("content-type", "application/json"))
            self.send_header("Connection", "close")
            self.end_headers()
            for chunk in resp.iter_raw():  # streamed as it comes: the body ends when the connection closes
                self.wfile.write(chunk)
                self.wfile.flush()
        self.close_connection = True


@pytest.fixture()
def front(vllm_server: ChildServer) -> Iterator[str]:
    handler = type("Front", (_Front,), {"upstream": vllm_server.url, "polls": list(SAMPLE["polls"])})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_chat_batch_and_monitor_through_a_trtllm_profile(front: str, tmp_path: Path) -> None:
    choice = parse_engine_choice(f"trtllm+{front}")
    assert (choice.kind, choice.url, choice.server) == ("remote", front, "trtllm")
    engine = make_engine(choice)
    assert isinstance(engine, RemoteEngine)
    engine.poll_interval_s = 0.2
    try:
        info = engine.connect().result(timeout=60)
        assert info.model == "tiny" and info.vllm_version == "TensorRT-LLM 1.1.0"
        assert (info.num_kv_blocks, info.block_size) == (101256, 32)  # from kvCacheStats
        assert engine.device_label() == f"TensorRT-LLM server {front}"
        events = list(
            engine.stream(
                GenerationRequest(
                    messages=[{"role": "user", "content": "Hello there"}],
                    sampling=SamplingSettings(temperature=0.0, max_tokens=12, ignore_eos=True),
                ),
                timeout=60,
            )
        )
        done = events[-1]
        assert isinstance(done, RequestFinished) and done.output_tokens == 12
        assert "".join(e.text for e in events if isinstance(e, TokenDelta)) == done.text
        lines = "\n".join(
            json.dumps({"custom_id": f"r{i}", "messages": [{"role": "user", "content": f"Count to {i}"}]})
            for i in range(4)
        )
        parsed = parse_jsonl(lines, SamplingSettings(temperature=0.0, max_tokens=8))
        result = run_batch(engine, parsed.requests, tmp_path / "out.jsonl", concurrency=2)
        assert result.succeeded == 4, result.engine_error
        # The monitor polled the recorded iteration statistics into the same series vLLM's feed.
        wait_for(lambda: engine.metrics.totals["generation_tokens"] >= 11, 30, "the sample's polls")
        assert engine.metrics.totals["prompt_tokens"] == 104 and engine.metrics.totals["peak_running"] == 3
    finally:
        engine.close()


def test_an_unnamed_url_is_told_apart_by_its_metrics(front: str, vllm_server: ChildServer) -> None:
    trt = RemoteEngine(front)
    plain = RemoteEngine(vllm_server.url)
    try:
        trt.connect().result(timeout=60)
        plain.connect().result(timeout=60)
        assert (trt.server, plain.server) == ("trtllm", "vllm")
    finally:
        trt.close()
        plain.close()


def test_bench_side_by_side_with_the_in_process_engine(
    front: str, tiny_model: Path, tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from console.cli.main import main

    report = tmp_path / "bench.json"
    argv = ["bench", "--engine", f"trtllm+{front}", "--model", str(tiny_model), "--preset", "cpu-default"]
    argv += ["--num-prompts", "4", "--input-len", "16", "--output-len", "8", "--compare-local", "--report", str(report)]
    argv += ["--kv-cache-memory-bytes", str(64 << 20), "--max-model-len", "1024"]
    rc = main(argv)
    err = capsys.readouterr()
    assert rc == 0, err.err[-3000:]
    data = json.loads(report.read_text())
    server, local = data["results"]["console"], data["results"]["in-process vLLM"]
    assert server["output_tokens"] == local["output_tokens"] == 32  # the same prompts, both engines
    assert server["prompt_tokens"] == local["prompt_tokens"] == 64
    assert data["side_by_side"]["output_tokens_per_s"] > 0
    assert "in-process vLLM" in err.out and "server / in-process output_tokens_per_s" in err.out
