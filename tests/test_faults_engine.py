"""Engine and input faults against the real vLLM CPU engine on the tiny model.

Each case asserts the state afterwards: what was kept, the message the user sees (cause and fix),
and that a new request or load works without restarting. Cases that break an engine share ONE
dedicated engine (engine builds cost 15-40 s here); the rest use the session's ``tiny_engine``.
Already covered elsewhere (not repeated): a dead engine child mid-stream, load-while-loading,
a missing model folder at load, a prompt longer than the context (tests/test_in_process_engine.py);
malformed/non-UTF-8 batch lines and resume after cancel (tests/test_batch_*.py); truncated or
unsupported GGUF (tests/test_gguf_import.py); export binding and the exposure warning
(tests/test_export_import.py).
"""

from __future__ import annotations

import json
import queue
import shutil
import threading
from pathlib import Path
from typing import Any

import psutil
import pytest

from console.atomic import DiskFullError
from console.batch.formats import parse_jsonl, read_batch_file
from console.batch.results import iter_output
from console.batch.runner import BatchSummary, run_batch
from console.config import EngineConfig
from console.sampling import SamplingSettings
from console.engine.in_process import InProcessEngine
from console.engine.types import (
    EngineBusy,
    EngineError,
    EngineNotReady,
    EngineState,
    GenerationRequest,
    RequestFailed,
    RequestFinished,
    TokenDelta,
)
from console.jobs import TaskState
from console.launch import engine_config_for
from console.models.importers import import_hf_folder
from console.models.inspect import ModelFormatError
from console.models.store import ModelStore
from tests.conftest import TEST_KV_BYTES

pytestmark = pytest.mark.engine


def _chat(n: int, prompt: str = "Tell me about GPUs.") -> GenerationRequest:
    return GenerationRequest(
        messages=[{"role": "user", "content": prompt}],
        sampling=SamplingSettings(temperature=0.0, max_tokens=n, ignore_eos=True),
    )


def _batch_line(cid: str, content: str, max_tokens: int) -> str:
    return json.dumps(
        {
            "custom_id": cid,
            "method": "POST",
            "url": "/v1/chat/completions",
            "body": {
                "messages": [{"role": "user", "content": content}],
                "max_tokens": max_tokens,
                "ignore_eos": True,
                "temperature": 0,
            },
        }
    )


def _ok(engine: InProcessEngine) -> None:
    ev = engine.generate(_chat(4), timeout=120)
    assert isinstance(ev, RequestFinished) and ev.output_tokens == 4


# -- one dedicated engine: refused configurations, a deleted folder, unload during a batch ----------


def test_refused_loads_deleted_folder_and_unload_during_batch(tiny_model: Path, tmp_path: Path) -> None:
    base = EngineConfig(model=str(tiny_model), kv_cache_memory_bytes=TEST_KV_BYTES, max_model_len=1024, device="cpu")
    engine = InProcessEngine()
    try:
        # 1. Unsupported architecture: the import refuses it (test_model_support.py); a
        #    folder registered anyway (imported under another vLLM) fails to load, naming the
        #    architecture and saying it is not supported. Nothing else to clean up.
        weird = tmp_path / "weird"
        shutil.copytree(tiny_model, weird)
        cfg = json.loads((weird / "config.json").read_text())
        cfg["architectures"] = ["NoSuchModelForCausalLM"]
        (weird / "config.json").write_text(json.dumps(cfg))
        store = ModelStore(tmp_path / "store")
        with pytest.raises(ModelFormatError, match="NoSuchModelForCausalLM"):
            import_hf_folder(store, weird, "weird", copy=False)
        entry = store.add_reference("weird", weird)
        assert entry.architecture == "NoSuchModelForCausalLM"
        with pytest.raises(EngineError) as info:
            engine.load(
                engine_config_for(store, "weird", "cpu-default", kv_cache_memory_bytes=TEST_KV_BYTES), "weird"
            ).result(timeout=600)
        message = str(info.value)
        assert "NoSuchModelForCausalLM" in message and "not supported" in message
        assert "For further information visit" not in message and "input_value" not in message
        assert engine.status.state == EngineState.FAILED and engine.status.error == message

        # 2. max_model_len beyond the model's max_position_embeddings (2048): cause with both
        #    figures, and the fix. (Before the fix in errors.py the first line was pydantic's
        #    "For further information visit https://errors.pydantic.dev/..." boilerplate.)
        with pytest.raises(EngineError) as info:
            engine.load(base.replace(max_model_len=100_000), "tiny").result(timeout=600)
        message = str(info.value)
        assert "max_model_len (100000)" in message and "2048" in message
        assert "lower it to the model's context length" in message
        assert not message.startswith("For further information")

        # 3. A KV cache too small for one request of max_model_len. The engine child refuses and
        #    only logs why; the parent saw "Engine core initialization failed". Now the message
        #    names the figures and the fix (fixed in errors.py).
        with pytest.raises(EngineError) as info:
            engine.load(base.replace(kv_cache_memory_bytes=100_000), "tiny").result(timeout=600)
        message = str(info.value)
        assert "The KV cache does not fit" in message
        assert "kv_cache_memory_bytes = 100,000" in message and "max_model_len 1024" in message
        assert "lower max_model_len" in message and "inference-console plan" in message
        assert engine.status.state == EngineState.FAILED
        with pytest.raises(EngineNotReady, match="load a model first"):
            engine.submit(_chat(4))

        # 4. Unload during a running batch (on a copy of the model, loaded after the refusals above:
        #    a failed load leaves the engine able to load; no unload in the middle of a load): the
        #    batch stops with a clear engine error, finished results stay on disk, nothing aborted
        #    is written.
        copy = tmp_path / "copy"
        shutil.copytree(tiny_model, copy)
        fut = engine.load(base.replace(model=str(copy)), "copy")
        with pytest.raises(EngineBusy, match="loading"):
            engine.unload()
        fut.result(timeout=600)
        n = 10
        requests = parse_jsonl("\n".join(_batch_line(f"u{i}", f"Item {i}", 48) for i in range(n))).requests
        out = tmp_path / "out.jsonl"
        two_done = threading.Event()
        results: list[Any] = []

        def on_result(r: Any) -> None:
            results.append(r)
            if len(results) >= 2:
                two_done.set()

        summary: list[BatchSummary] = []
        runner = threading.Thread(
            daemon=True,
            target=lambda: summary.append(run_batch(engine, requests, out, concurrency=2, on_result=on_result)),
        )
        runner.start()
        assert two_done.wait(timeout=300)
        engine.unload().result(timeout=120)
        runner.join(timeout=120)
        assert not runner.is_alive() and summary
        first = summary[0]
        assert first.engine_error and "unloaded" in first.engine_error and "re-run to resume" in first.engine_error
        assert not first.cancelled and not first.complete and first.failed == 0
        written = list(iter_output(out))
        assert len(written) == first.succeeded >= 2
        assert all(o["error"] is None and o["response"]["body"]["usage"]["completion_tokens"] == 48 for o in written)
        assert engine.status.state == EngineState.STOPPED

        # 5. After a reload, a re-run resumes; then the model folder is deleted while loaded: the
        #    loaded weights keep answering; a reload says the folder is gone. (One build fewer than
        #    reloading the original model after the deletion: the suite's time.)
        engine.load(base.replace(model=str(copy)), "copy").result(timeout=600)
        second = run_batch(engine, requests, out, concurrency=4)
        assert second.skipped == first.succeeded and second.complete and second.engine_error is None
        ids = [o["custom_id"] for o in iter_output(out)]
        assert sorted(ids) == sorted(f"u{i}" for i in range(n))  # each once: nothing lost, nothing twice
        shutil.rmtree(copy)
        _ok(engine)
        with pytest.raises(EngineError, match="no config.json: the model folder is missing"):
            engine.load(base.replace(model=str(copy)), "copy").result(timeout=600)
        assert engine.status.state == EngineState.FAILED
    finally:
        engine.close()


# -- the shared engine: input faults and concurrency -------------------------------------------


def test_non_utf8_text_in_a_chat_prompt_is_refused_clearly(tiny_engine: InProcessEngine) -> None:
    """Bytes of a Latin-1 file read with surrogateescape. Before the fix in types.py the request
    failed inside vLLM with the bare message 'EngineGenerateError'."""
    text = b"caf\xe9 au lait".decode("utf-8", errors="surrogateescape")
    with pytest.raises(ValueError, match="not valid UTF-8 text.*save the text as UTF-8"):
        tiny_engine.submit(_chat(4, text))
    with pytest.raises(ValueError, match="not valid UTF-8"):
        tiny_engine.submit(GenerationRequest(prompt=text, sampling=SamplingSettings(max_tokens=4)))
    assert tiny_engine.status.state == EngineState.READY
    _ok(tiny_engine)
    ev = tiny_engine.generate(_chat(4, "café, 显存, emoji 🙂"), timeout=60)  # real Unicode is fine
    assert isinstance(ev, RequestFinished)


def test_a_50_mb_prompt_is_a_quick_per_request_error(tiny_engine: InProcessEngine) -> None:
    proc = psutil.Process()
    rss_before = proc.memory_info().rss
    huge = "word " * (10 * 1024 * 1024)  # 50 MiB
    ev = tiny_engine.generate(_chat(4, huge), timeout=120)
    del huge
    assert isinstance(ev, RequestFailed)
    assert "maximum context length is 1024 tokens" in ev.message
    assert proc.memory_info().rss - rss_before < 1024**3  # no tokenization of 50 MB into ids
    assert tiny_engine.status.state == EngineState.READY
    _ok(tiny_engine)


def test_a_50_mb_batch_line_is_reported_and_the_rest_runs(tiny_engine: InProcessEngine, tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    with open(src, "w", encoding="utf-8") as fh:
        fh.write(_batch_line("a", "Hello", 4) + "\n")
        fh.write(_batch_line("huge", "x" * (50 * 1024 * 1024), 4) + "\n")
        fh.write(_batch_line("b", "Bye", 4) + "\n")
    parsed = read_batch_file(src)
    assert [r.custom_id for r in parsed.requests] == ["a", "b"]
    assert [(e.line, "longer than" in e.message) for e in parsed.errors] == [(2, True)]
    summary = run_batch(tiny_engine, parsed.requests, tmp_path / "out.jsonl")
    assert (summary.succeeded, summary.failed, summary.complete) == (2, 0, True)


def test_batch_results_on_a_full_disk_stop_the_batch_not_the_engine(tiny_engine: InProcessEngine) -> None:
    """/dev/full answers each write with ENOSPC: the batch stops with DiskFullError, the requests
    it had in flight are aborted, and the engine keeps serving."""
    requests = parse_jsonl("\n".join(_batch_line(f"f{i}", f"Q{i}", 8) for i in range(4))).requests
    with pytest.raises(DiskFullError, match="No space left"):
        run_batch(tiny_engine, requests, Path("/dev/full"), concurrency=4)
    assert tiny_engine.status.state == EngineState.READY
    _ok(tiny_engine)


def test_chats_and_a_batch_at_once_cancelling_one_leaves_the_others(
    tiny_engine: InProcessEngine, tmp_path: Path
) -> None:
    queues = [queue.Queue() for _ in range(3)]  # type: ignore[var-annotated]
    chats = [tiny_engine.submit(_chat(64, f"chat {i}"), q.put) for i, q in enumerate(queues)]
    victim_q: queue.Queue[Any] = queue.Queue()
    victim = tiny_engine.submit(_chat(900, "the one to stop"), victim_q.put)

    task = TaskState()
    out = tmp_path / "out.jsonl"
    requests = parse_jsonl("\n".join(_batch_line(f"c{i}", f"B{i}", 32) for i in range(12))).requests
    summary: list[BatchSummary] = []

    def on_result(r: Any) -> None:
        if sum(1 for _ in iter_output(out)) >= 3:
            task.cancel()  # cancel the batch while the chats are still streaming

    runner = threading.Thread(
        daemon=True,
        target=lambda: summary.append(run_batch(tiny_engine, requests, out, task, concurrency=3, on_result=on_result)),
    )
    runner.start()
    assert isinstance(victim_q.get(timeout=60), TokenDelta)
    victim.cancel()
    runner.join(timeout=300)
    assert not runner.is_alive()

    stopped = victim.result(timeout=60)
    assert isinstance(stopped, RequestFinished) and stopped.finish_reason == "abort" and stopped.output_tokens < 900
    for handle in chats:
        final = handle.result(timeout=300)
        assert isinstance(final, RequestFinished), final
        assert final.finish_reason == "length" and final.output_tokens == 64  # untouched by the cancels
    batch = summary[0]
    assert batch.cancelled and 3 <= batch.succeeded < 12 and batch.engine_error is None
    assert all(o["response"]["body"]["usage"]["completion_tokens"] == 32 for o in iter_output(out))
    again = run_batch(tiny_engine, requests, out, concurrency=4)
    assert again.complete and again.skipped == batch.succeeded
    _ok(tiny_engine)


# -- security: trust_remote_code follows the model's own flag ------------------------------------


def test_trust_remote_code_is_off_unless_the_model_entry_enables_it(home: Path, tiny_model: Path) -> None:
    store = ModelStore()
    import_hf_folder(store, tiny_model, "tiny", copy=False)
    assert store.get("tiny").trust_remote_code is False
    assert engine_config_for(store, "tiny", "cpu-default").trust_remote_code is False
    # A preset cannot switch it on behind the model's back: the store entry decides.
    user_presets = home / "presets"
    user_presets.mkdir(parents=True, exist_ok=True)
    (user_presets / "sneaky.toml").write_text('name = "sneaky"\n[engine]\ntrust_remote_code = true\n')
    assert engine_config_for(store, "tiny", "sneaky").trust_remote_code is False
    store.update("tiny", trust_remote_code=True)
    assert engine_config_for(store, "tiny", "cpu-default").trust_remote_code is True


_KILLED_CONSOLE = """
import sys, time
from console.config import EngineConfig
from console.engine.in_process import InProcessEngine

if __name__ == "__main__":  # vLLM spawns its engine core: the main module is imported again there
    engine = InProcessEngine()
    engine.load(EngineConfig(model=sys.argv[1], kv_cache_memory_bytes=64 * 1024**2, max_model_len=256,
                           device="cpu"), "tiny").result(timeout=600)
    print("READY", engine._reaper.pid, *engine._reaper.pids, flush=True)
    time.sleep(3600)
"""


def test_a_killed_console_leaves_no_engine_process_behind(tiny_model: Path, tmp_path: Path) -> None:
    """SIGKILL of the console (the OOM killer, a crash) must not leave vLLM's EngineCore holding
    memory: the reaper started at load kills it once its parent is gone."""
    import subprocess
    import sys

    script = tmp_path / "console_to_kill.py"
    script.write_text(_KILLED_CONSOLE)
    proc = subprocess.Popen([sys.executable, str(script), str(tiny_model)], stdout=subprocess.PIPE, text=True)
    try:
        line = ""
        for line in proc.stdout or []:  # vLLM logs to stdout too
            if line.startswith("READY"):
                break
        assert line.startswith("READY"), line
        reaper_pid, *engine_pids = (int(x) for x in line.split()[1:])
        engine = [psutil.Process(p) for p in engine_pids]
        tree = engine + [c for p in engine for c in p.children(recursive=True)]
        assert engine and all(p.is_running() for p in tree)
        assert any("EngineCore" in " ".join(p.cmdline()) or "EngineCore" in p.name() for p in tree) or any(
            "multiprocessing" in " ".join(p.cmdline()) for p in tree
        )
        proc.kill()
        proc.wait(timeout=30)
        gone, alive = psutil.wait_procs(tree, timeout=30)
        assert not alive, [(p.pid, p.name()) for p in alive]
        assert not psutil.pid_exists(reaper_pid) or psutil.Process(reaper_pid).status() == psutil.STATUS_ZOMBIE
    finally:
        if proc.poll() is None:
            proc.kill()
