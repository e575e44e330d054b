"""Driver of the privacy test (tests/test_privacy.py): the console's own paths, end to end.

Run as ``python tests/privacy_scenario.py WORK`` under the network guard (tests/netguard): it
imports a model (the architecture check), quantizes it with AWQ (a child process), loads it on
the in-process engine (vLLM's engine core is a child), chats, runs a batch and a benchmark,
then exports a deployment bundle and a Ray script through the CLI. It writes what each step
produced to ``WORK/summary.json`` so the test can check that every step really ran.

Nothing here sets a telemetry variable: the console must do it itself.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path


def main(work: Path) -> int:
    os.environ["INFERENCE_CONSOLE_HOME"] = str(work / "home")
    os.environ["INFERENCE_CONSOLE_STORE"] = str(work / "store")
    from console.batch.formats import parse_jsonl
    from console.batch.runner import run_batch
    from console.bench.runner import run_console
    from console.bench.workload import synthetic
    from console.cli.main import main as cli
    from console.config import EngineConfig
    from console.sampling import SamplingSettings
    from console.engine.in_process import InProcessEngine
    from console.engine.types import GenerationRequest
    from console.jobs import TaskState
    from console.models.importers import import_hf_folder
    from console.models.store import ModelStore
    from tests.fixtures.synthetic import make_llama
    from console.quant.gate import calibration_path
    from console.quant.job import AwqParams, quantize_awq

    summary: dict[str, object] = {"driver_pid": os.getpid()}
    store = ModelStore(work / "store")
    entry = import_hf_folder(store, make_llama(work / "tiny-src"), "tiny")
    calib = work / "calib.txt"
    calib.write_text("\n\n".join(calibration_path().read_text(encoding="utf-8").split("\n\n")[:6]), encoding="utf-8")
    awq = quantize_awq(store, "tiny", "tiny-awq", params=AwqParams(max_seq_len=64), calib_file=calib)
    summary["quantized"] = awq.lineage.get("method")

    engine = InProcessEngine()
    try:
        engine.load(
            EngineConfig(model=entry.path, kv_cache_memory_bytes=64 * 1024**2, max_model_len=1024, device="cpu"), "tiny"
        ).result(timeout=900)
        answer = engine.generate(
            GenerationRequest(
                messages=[{"role": "user", "content": "Hello"}],
                sampling=SamplingSettings(temperature=0.0, max_tokens=6, ignore_eos=True),
            ),
            timeout=300,
        )
        summary["chat_output_tokens"] = answer.output_tokens  # type: ignore[attr-defined]
        lines = [
            json.dumps(
                {
                    "custom_id": f"r{i}",
                    "method": "POST",
                    "url": "/v1/chat/completions",
                    "body": {
                        "model": "tiny",
                        "max_tokens": 4,
                        "ignore_eos": True,
                        "messages": [{"role": "user", "content": f"Question {i}"}],
                    },
                }
            )
            for i in range(3)
        ]
        parsed = parse_jsonl("\n".join(lines), SamplingSettings(temperature=0.0))
        batch = run_batch(engine, parsed.requests, work / "batch-out.jsonl", TaskState(), concurrency=2)
        summary["batch_succeeded"] = batch.succeeded
        bench = run_console(engine, synthetic(4, 16, 8, vocab_size=512, seed=0), max_concurrency=2)
        summary["bench_requests"] = bench["requests"]
    finally:
        engine.close()

    rc_bundle = cli(["export", "--model", "tiny", "--format", "bundle", "-o", str(work / "bundle")])
    rc_ray = cli(
        [
            "export",
            "--model",
            "tiny",
            "--format",
            "ray",
            "--nodes",
            "2",
            "-tp",
            "2",
            "-o",
            str(work / "ray-cluster.sh"),
            "--no-validate",
        ]
    )
    summary["export_rc"] = [rc_bundle, rc_ray]
    (work / "summary.json").write_text(json.dumps(summary, default=str))
    return 0


if __name__ == "__main__":  # vLLM spawns its engine core: keep the entry point guarded
    raise SystemExit(main(Path(sys.argv[1])))
