"""Beyond one GPU: tensor/pipeline parallel layouts on vLLM's Ray backend.

Two ways to run the same layout: plain ``ray start`` head/worker commands plus ``vllm serve ...
--distributed-executor-backend ray`` on the head, or a KubeRay ``RayService`` that serves the model
through Ray Serve LLM (``ray.serve.llm:build_openai_app``) with the same engine arguments.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Any

import yaml

from console.config import CONSOLE_ONLY_FIELDS, EngineConfig
from console.export.compose import no_adapters_in_a_volume
from console.export.k8s import GPU_RESOURCE, k8s_name, model_size_gib
from console.engine.serve_options import MULTICAST_OFF, ExportError, ServeOptions
from console.engine.serve_args import command_tokens, container_model_path, env_exports, serve_arguments, served_name

RAY_PORT = 6379
#: vLLM hands its Ray workers the driver's ``NCCL_*``/``VLLM_*`` variables (a runtime_env), not these two:
#: named here, they reach the workers even when a worker node's raylet was started without them.
RAY_COPY_TO_WORKERS = {"VLLM_RAY_EXTRA_ENV_VARS_TO_COPY": "TORCH_SYMM_MEM_DISABLE_MULTICAST,NVSHMEM_DISABLE_NVLS"}


@dataclass(frozen=True)
class RayLayout:
    nodes: int
    gpus_per_node: int
    tensor_parallel_size: int
    pipeline_parallel_size: int

    @property
    def total_gpus(self) -> int:
        return self.nodes * self.gpus_per_node

    def spread_note(self) -> str | None:
        """vLLM warns when one tensor-parallel group spans nodes (each layer's
        all-reduce then crosses the network); pipeline parallel over the nodes is the usual fix."""
        if self.tensor_parallel_size <= self.gpus_per_node:
            return None
        return (
            f"tensor parallel {self.tensor_parallel_size} spans nodes of {self.gpus_per_node} GPU(s): every layer's "
            "all-reduce crosses the network, which vLLM warns is slow without an InfiniBand-class link; across "
            f"{self.nodes} nodes prefer pipeline parallel {self.nodes} x tensor parallel {self.gpus_per_node} "
            f"(-pp {self.nodes} -tp {self.gpus_per_node})"
        )

    def describe(self) -> str:
        return (
            f"{self.total_gpus} GPU(s) = tensor parallel {self.tensor_parallel_size} x pipeline "
            f"parallel {self.pipeline_parallel_size}, over {self.nodes} node(s) of "
            f"{self.gpus_per_node} GPU(s)"
        )


def ray_layout(config: EngineConfig, options: ServeOptions) -> RayLayout:
    tp = config.tensor_parallel_size or 1
    pp = config.pipeline_parallel_size or 1
    total = tp * pp
    if total % options.nodes:
        raise ExportError(
            f"tensor parallel {tp} x pipeline parallel {pp} = {total} GPUs cannot be split "
            f"evenly over {options.nodes} nodes; usually pipeline parallel = number of nodes "
            f"and tensor parallel = GPUs per node"
        )
    return RayLayout(options.nodes, total // options.nodes, tp, pp)


def ray_env(options: ServeOptions) -> dict[str, str]:
    """Every Ray process (head, workers, the vLLM workers they start): Ray's own usage stats and
    vLLM's follow the user's choice; NVLink multicast is off."""
    return {
        **options.env,
        "RAY_USAGE_STATS_ENABLED": "1" if options.usage_stats else "0",
        **MULTICAST_OFF,
        **RAY_COPY_TO_WORKERS,
    }


def ray_commands(config: EngineConfig, options: ServeOptions) -> str:
    """A shell script with three roles: ``head``, ``worker`` (on every other node), ``serve``."""
    layout = ray_layout(config, options)
    serve = shlex.join(command_tokens(serve_arguments(config, options, ray=True)))
    head = f"ray start --head --port={RAY_PORT} --num-gpus={layout.gpus_per_node} --dashboard-host=127.0.0.1"
    worker = f'ray start --address="$HEAD_IP:{RAY_PORT}" --num-gpus={layout.gpus_per_node}'
    lines = [
        "#!/bin/sh",
        f"# Layout: {layout.describe()}.",
        "# 1. head node: sh {this} head",
        f"# 2. each of the {layout.nodes - 1} other node(s): HEAD_IP=<head address> sh {{this}} worker",
        f"# 3. head node, once `ray status` shows {layout.total_gpus} GPU(s): sh {{this}} serve",
        f"# The model must be at {config.model} on EVERY node (same path); the nodes must reach",
        f"# each other on port {RAY_PORT} and on NCCL's ports.",
        f"# Anyone who reaches port {RAY_PORT} can run code on the cluster (Ray 2.60 warns so at start): keep",
        "# the nodes on a private network, or turn on Ray's token authentication where your Ray has it",
        "# (RAY_AUTH_MODE=token and the same token, `ray get-auth-token --generate` on the head, on every node).",
    ]
    for note in (options.exposure_note(), layout.spread_note()):
        if note:
            lines.append(f"# WARNING: {note}")
    lines.append(f"# {options.usage_note}")
    lines += [
        "set -e",
        env_exports(ray_env(options)),
        'case "${1:-}" in',
        f"  head) {head} ;;",
        '  worker) : "${HEAD_IP:?set HEAD_IP to the head node address}"',
        f"          {worker} ;;",
        f"  serve) exec {serve} ;;",
        '  *) echo "usage: $0 head|worker|serve" >&2; exit 2 ;;',
        "esac",
    ]
    return "\n".join(lines).replace("{this}", "ray-cluster.sh") + "\n"


def ray_engine_kwargs(config: EngineConfig, options: ServeOptions) -> dict[str, Any]:
    """Engine arguments for Ray Serve LLM (underscored names, as ``AsyncEngineArgs`` takes them)."""
    out = {
        k: v
        for k, v in config.engine_kwargs().items()
        if k not in CONSOLE_ONLY_FIELDS and k not in ("model", "served_model_name", "tokenizer")
    }
    out["distributed_executor_backend"] = "ray"
    return out


def rayservice_dict(config: EngineConfig, options: ServeOptions, model_dir: str) -> dict[str, Any]:
    no_adapters_in_a_volume(config, "ray (RayService)")
    layout = ray_layout(config, options)
    name = k8s_name(served_name(config, options))
    model_path = container_model_path(config, options)
    llm_config = {
        "model_loading_config": {"model_id": served_name(config, options), "model_source": model_path},
        "engine_kwargs": ray_engine_kwargs(config, options),
        "deployment_config": {"autoscaling_config": {"min_replicas": 1, "max_replicas": 1}},
    }
    serve_config = {
        "applications": [
            {
                "name": "llm",
                "route_prefix": "/",
                "import_path": "ray.serve.llm:build_openai_app",
                "args": {"llm_configs": [llm_config]},
                "runtime_env": {"env_vars": {"HF_HUB_OFFLINE": "1", **options.env, **MULTICAST_OFF}},
            }
        ]
    }
    volumes = [
        {"name": "model", "persistentVolumeClaim": {"claimName": f"{name}-model", "readOnly": True}},
        {"name": "dshm", "emptyDir": {"medium": "Memory"}},
    ]
    mounts = [{"name": "model", "mountPath": model_path, "readOnly": True}, {"name": "dshm", "mountPath": "/dev/shm"}]
    scrape = {"prometheus.io/scrape": "true", "prometheus.io/port": "8080", "prometheus.io/path": "/metrics"}
    env = [{"name": k, "value": v} for k, v in ray_env(options).items()]
    head = {
        "name": "ray-head",
        "image": options.ray_image,
        "env": env,
        "ports": [
            {"containerPort": RAY_PORT, "name": "gcs"},
            {"containerPort": 8265, "name": "dashboard"},
            {"containerPort": 8000, "name": "serve"},
            {"containerPort": 8080, "name": "metrics"},
        ],
        "resources": {"requests": {"cpu": "4", "memory": "16Gi"}, "limits": {"cpu": "4", "memory": "16Gi"}},
        "volumeMounts": mounts,
    }
    worker = {
        "name": "ray-worker",
        "image": options.ray_image,
        "env": env,
        "resources": {"requests": {GPU_RESOURCE: layout.gpus_per_node}, "limits": {GPU_RESOURCE: layout.gpus_per_node}},
        "volumeMounts": mounts,
    }
    return {
        "apiVersion": "ray.io/v1",
        "kind": "RayService",
        "metadata": {"name": name, "namespace": options.namespace},
        "spec": {
            "serveConfigV2": yaml.safe_dump(serve_config, sort_keys=False),
            "rayClusterConfig": {
                "headGroupSpec": {
                    "rayStartParams": {"dashboard-host": "0.0.0.0", "num-gpus": "0"},
                    "template": {
                        "metadata": {"annotations": scrape},
                        "spec": {"containers": [head], "volumes": volumes},
                    },
                },
                "workerGroupSpecs": [
                    {
                        "groupName": "gpu-workers",
                        "replicas": layout.nodes,
                        "minReplicas": layout.nodes,
                        "maxReplicas": layout.nodes,
                        "rayStartParams": {},
                        "template": {
                            "metadata": {"annotations": scrape},
                            "spec": {"containers": [worker], "volumes": volumes},
                        },
                    }
                ],
            },
        },
    }


def rayservice_yaml(config: EngineConfig, options: ServeOptions, model_dir: str) -> str:
    layout = ray_layout(config, options)
    name = k8s_name(served_name(config, options))
    pvc = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": f"{name}-model", "namespace": options.namespace},
        "spec": {
            "accessModes": ["ReadOnlyMany"],
            "resources": {"requests": {"storage": f"{model_size_gib(model_dir)}Gi"}},
        },
    }
    head = [
        f"# KubeRay RayService: {layout.describe()}.",
        "# Needs the KubeRay operator; the model PVC must be readable from every node (ReadOnlyMany).",
        f"# Serve listens on the {name}-serve-svc Service (ClusterIP: inside the cluster only).",
        f"# {options.usage_note}",
    ]
    return (
        "\n".join(head) + "\n" + yaml.safe_dump_all([pvc, rayservice_dict(config, options, model_dir)], sort_keys=False)
    )
