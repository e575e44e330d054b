"""A docker-compose file for the official ``vllm/vllm-openai`` image.

Inside the container vLLM listens on 0.0.0.0 (a container's 127.0.0.1 is unreachable from its
host); the *published* port is what the user's ``--host`` controls, so the default publishes on
127.0.0.1 only.
"""

from __future__ import annotations

from typing import Any

import yaml

from console.config import EngineConfig
from console.engine.serve_options import CONTAINER_CONFIG_PATH, ExportError, ServeOptions
from console.engine.serve_args import container_model_path, serve_yaml, served_name, server_env

SERVICE = "vllm"


def gpus_per_replica(config: EngineConfig) -> int:
    return (config.tensor_parallel_size or 1) * (config.pipeline_parallel_size or 1)


def single_node_only(options: ServeOptions, fmt: str) -> None:
    if options.nodes > 1:
        raise ExportError(
            f"--format {fmt} runs on one machine; for --nodes {options.nodes} use "
            "--format ray (head/worker commands and a KubeRay RayService)"
        )


#: where a LoRA adapter's folder is mounted in a container (the host path means nothing there)
CONTAINER_ADAPTER_ROOT = "/adapters"


def container_adapters(config: EngineConfig) -> EngineConfig:
    """``config`` with its adapters at their container paths (``/adapters/<name>``)."""
    if not config.lora_modules:
        return config
    return config.replace(lora_modules={n: f"{CONTAINER_ADAPTER_ROOT}/{n}" for n in config.lora_modules})


def no_adapters_in_a_volume(config: EngineConfig, fmt: str) -> None:
    """Kubernetes and KubeRay read the model from a volume claim the console does not fill with
    adapters: say so rather than write paths that exist only on this machine."""
    if config.lora_modules:
        raise ExportError(
            f"--format {fmt} serves the model from a volume claim; LoRA adapters "
            f"({', '.join(config.lora_modules)}) are not copied there: export --format compose "
            "(it mounts each adapter), or serve them from the machine with --format yaml/command"
        )


def container_header(options: ServeOptions, where: str) -> list[str]:
    lines = [f"Listens on 0.0.0.0:{options.port} inside the container; {where}."]
    if options.api_key:
        lines.append("The API key comes from the VLLM_API_KEY environment variable, not this file.")
    lines.append(options.usage_note)
    return lines


def container_serve_yaml(config: EngineConfig, options: ServeOptions, where: str) -> str:
    """The serve YAML as mounted into a container: model under /models, bound to 0.0.0.0."""
    inner = ServeOptions(**{**options.__dict__, "api_key": None})  # the key travels as an env var
    extra = (
        ["WARNING: trust-remote-code is ON: the model repository's Python code will run."]
        if config.trust_remote_code
        else []
    )
    return serve_yaml(
        container_adapters(config),
        inner,
        model=container_model_path(config, options),
        host="0.0.0.0",
        header=container_header(options, where) + extra,
    )


def published_port(options: ServeOptions) -> str:
    if options.host in ("0.0.0.0", "::"):
        return f"{options.port}:{options.port}"
    host = "127.0.0.1" if options.host == "localhost" else options.host
    host = f"[{host}]" if ":" in host else host
    return f"{host}:{options.port}:{options.port}"


def compose_dict(
    config: EngineConfig, options: ServeOptions, model_dir: str, config_file: str = "./serve.yaml"
) -> dict[str, Any]:
    single_node_only(options, "compose")
    health = f"import urllib.request; urllib.request.urlopen('http://127.0.0.1:{options.port}/health', timeout=5)"
    service: dict[str, Any] = {
        "image": options.image,
        "entrypoint": ["vllm", "serve"],
        "command": ["--config", CONTAINER_CONFIG_PATH],
        "ports": [published_port(options)],
        "volumes": [
            {"type": "bind", "source": model_dir, "target": container_model_path(config, options), "read_only": True},
            {"type": "bind", "source": config_file, "target": CONTAINER_CONFIG_PATH, "read_only": True},
            *(
                {"type": "bind", "source": path, "target": f"{CONTAINER_ADAPTER_ROOT}/{name}", "read_only": True}
                for name, path in (config.lora_modules or {}).items()
            ),
        ],
        "ipc": "host",  # NCCL/tensor-parallel workers share memory through /dev/shm
        "environment": {"HF_HUB_OFFLINE": "1", **server_env(config, options)},
        "deploy": {
            "resources": {
                "reservations": {
                    "devices": [{"driver": "nvidia", "count": gpus_per_replica(config), "capabilities": ["gpu"]}]
                }
            }
        },
        "healthcheck": {
            "test": ["CMD", "python3", "-c", health],
            "interval": "30s",
            "timeout": "10s",
            "retries": 5,
            "start_period": "600s",
        },
        "restart": "unless-stopped",
    }
    if options.api_key:
        service["environment"]["VLLM_API_KEY"] = "${VLLM_API_KEY:?set VLLM_API_KEY (see .env)}"
    return {"name": _project_name(served_name(config, options)), "services": {SERVICE: service}}


def _project_name(name: str) -> str:
    cleaned = "".join(c if c.isalnum() or c in "_-" else "-" for c in name.lower()).strip("-_")
    return cleaned or "vllm"


def compose_yaml(config: EngineConfig, options: ServeOptions, model_dir: str, config_file: str = "./serve.yaml") -> str:
    where = f"published on {published_port(options).rsplit(':', 1)[0]} of the host" + (
        "" if options.loopback else " (WARNING: reachable from other machines)"
    )
    head = [f"# docker compose up -d   (needs {config_file} beside this file)", f"# vLLM {where}."]
    note = options.exposure_note()
    if note:
        head.append(f"# WARNING: {note}")
    head.append(f"# {options.usage_note}")
    return (
        "\n".join(head) + "\n" + yaml.safe_dump(compose_dict(config, options, model_dir, config_file), sort_keys=False)
    )
