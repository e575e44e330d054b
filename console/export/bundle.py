"""A deployment bundle: every export of one configuration, the planner's report, the benchmark
evidence when there is one, and a README for the operator. A folder, or a zip when the target ends
in ``.zip`` (built in a temporary folder first, so a failed export leaves no half-written bundle).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from console import __version__
from console.atomic import atomic_write_bytes
from console.config import EngineConfig
from console.export.compose import compose_yaml, container_serve_yaml, gpus_per_replica
from console.export.k8s import k8s_yaml
from console.engine.serve_options import ExportError, ServeOptions, VLLM_SERVER_VERSION
from console.export.plan_report import planner_report, planner_text
from console.export.ray import ray_commands, ray_layout, rayservice_yaml
from console.export.readme import readme_text
from console.engine.serve_args import serve_script, serve_yaml
from console.paths import resources_dir


def load_bench(path: str | Path) -> dict[str, Any]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ExportError(f"benchmark file {path} does not exist") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ExportError(f"benchmark file {path} is not readable JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ExportError(f"benchmark file {path} should hold a JSON object (the benchmark's report)")
    return data


def bundle_files(
    config: EngineConfig,
    options: ServeOptions,
    *,
    model_dir: str,
    bench: dict[str, Any] | None = None,
    source: dict[str, str] | None = None,
) -> dict[str, str]:
    """``{relative path: text}`` of everything in the bundle."""
    layout = ray_layout(config, options)  # also refuses a layout that does not divide over the nodes
    files: dict[str, str] = {"serve.yaml": serve_yaml(config, options), "serve.sh": serve_script(config, options)}
    skipped: dict[str, str] = {}
    if options.nodes == 1:
        where = "docker-compose.yaml publishes it on the host"
        files["container/serve.yaml"] = container_serve_yaml(config, options, where)
        files["docker-compose.yaml"] = compose_yaml(config, options, model_dir, "./container/serve.yaml")
        if config.lora_modules:  # the volume claim holds the model only (see no_adapters_in_a_volume)
            skipped["k8s.yaml"] = "LoRA adapters are mounted by docker-compose.yaml only"
        else:
            files["k8s.yaml"] = k8s_yaml(config, options, model_dir)
    else:
        skipped["docker-compose.yaml, k8s.yaml"] = f"one machine only; this layout spans {options.nodes} nodes"
    if layout.total_gpus > 1 or options.nodes > 1:
        files["ray/ray-cluster.sh"] = ray_commands(config, options)
        if config.lora_modules:
            skipped["ray/rayservice.yaml"] = "LoRA adapters are mounted by docker-compose.yaml only"
        else:
            files["ray/rayservice.yaml"] = rayservice_yaml(config, options, model_dir)
    if options.api_key:
        files[".env"] = f"VLLM_API_KEY={options.api_key}\n"
    report = planner_report(config, options)
    files["plan.json"] = json.dumps(report, indent=2, default=str) + "\n"
    files["plan.txt"] = planner_text(report)
    if bench is not None:
        files["bench.json"] = json.dumps(bench, indent=2, default=str) + "\n"
    dashboard = resources_dir() / "grafana" / "console-dashboard.json"
    if dashboard.is_file():  # for the server's /metrics (vLLM's names) and the console's own series
        files["grafana/console-dashboard.json"] = dashboard.read_text(encoding="utf-8")
    meta = {
        "inference_console": __version__,
        "vllm_server_version": VLLM_SERVER_VERSION,
        "image": options.image,
        "layout": layout.__dict__,
        "gpus_per_replica": gpus_per_replica(config),
        "host": options.host,
        "port": options.port,
        "trust_remote_code": config.trust_remote_code,
        "source": source or {},
        "skipped": skipped,
    }
    files["README.md"] = readme_text(config, options, files=sorted(files), meta=meta, plan=report, bench=bench)
    meta["sha256"] = {k: hashlib.sha256(v.encode()).hexdigest() for k, v in sorted(files.items())}
    files["manifest.json"] = json.dumps(meta, indent=2, default=str) + "\n"
    return files


def write_bundle(target: str | Path, files: dict[str, str], *, overwrite: bool = False) -> Path:
    target = Path(target)
    if target.exists() and not overwrite:
        raise ExportError(f"{target} exists; choose another -o or add --force")
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=f".{target.name}.") as tmp:
        staging = Path(tmp) / "bundle"
        for rel, text in files.items():
            path = staging / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            if rel.endswith(".sh"):
                path.chmod(0o755)
            if rel == ".env":
                path.chmod(0o600)
        if target.suffix == ".zip":
            zpath = Path(tmp) / "bundle.zip"
            with zipfile.ZipFile(zpath, "w", compression=zipfile.ZIP_DEFLATED) as zf:
                for rel in sorted(files):
                    zf.write(staging / rel, arcname=f"{target.stem}/{rel}")
            atomic_write_bytes(target, zpath.read_bytes())
        else:
            if target.exists():
                shutil.rmtree(target)
            os.replace(staging, target)
    return target
