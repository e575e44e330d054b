"""Kubernetes manifests: ConfigMap (the serve YAML), PersistentVolumeClaim (the model),
Deployment (GPU requests, probes on /health, Prometheus annotations for /metrics) and a ClusterIP
Service. ClusterIP is Kubernetes' "localhost": reachable inside the cluster only (use
``kubectl port-forward`` or add an Ingress deliberately).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import yaml

from console.config import EngineConfig
from console.export.compose import container_serve_yaml, gpus_per_replica, no_adapters_in_a_volume, single_node_only
from console.engine.serve_options import CONTAINER_CONFIG_PATH, ServeOptions
from console.engine.serve_args import container_model_path, served_name, server_env

GPU_RESOURCE = "nvidia.com/gpu"


def k8s_name(text: str) -> str:
    """A DNS-1123 label: lowercase letters, digits and '-', at most 63 characters."""
    cleaned = "".join(c if c.isalnum() else "-" for c in text.lower())
    cleaned = "-".join(part for part in cleaned.split("-") if part)
    return cleaned[:63].strip("-") or "vllm"


def model_size_gib(model_dir: str | Path) -> int:
    """Room for the model on the volume: its files plus a quarter, at least 1 GiB."""
    folder = Path(model_dir)
    size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) if folder.is_dir() else 0
    return max(1, math.ceil(size * 1.25 / 1024**3))


def k8s_objects(config: EngineConfig, options: ServeOptions, model_dir: str) -> list[dict[str, Any]]:
    single_node_only(options, "k8s")
    no_adapters_in_a_volume(config, "k8s")
    name = k8s_name(served_name(config, options))
    labels = {"app.kubernetes.io/name": name, "app.kubernetes.io/component": "vllm-server"}
    meta = {"name": name, "namespace": options.namespace, "labels": labels}
    gpus = gpus_per_replica(config)
    port = options.port
    scrape = {"prometheus.io/scrape": "true", "prometheus.io/port": str(port), "prometheus.io/path": "/metrics"}
    objects: list[dict[str, Any]] = [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {**meta, "name": f"{name}-config"},
            "data": {
                "serve.yaml": container_serve_yaml(
                    config, options, "the ClusterIP Service is reachable inside the cluster only"
                )
            },
        },
        {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {**meta, "name": f"{name}-model"},
            "spec": {
                "accessModes": ["ReadWriteOnce"],
                "resources": {"requests": {"storage": f"{model_size_gib(model_dir)}Gi"}},
            },
        },
    ]
    env: list[dict[str, Any]] = [
        {"name": "HF_HUB_OFFLINE", "value": "1"},
        *({"name": k, "value": v} for k, v in server_env(config, options).items()),
    ]
    if options.api_key:
        objects.append(
            {
                "apiVersion": "v1",
                "kind": "Secret",
                "metadata": {**meta, "name": f"{name}-api-key"},
                "type": "Opaque",
                "stringData": {"api-key": options.api_key},
            }
        )
        env.append(
            {"name": "VLLM_API_KEY", "valueFrom": {"secretKeyRef": {"name": f"{name}-api-key", "key": "api-key"}}}
        )
    probe = {"httpGet": {"path": "/health", "port": port}}
    container = {
        "name": "vllm",
        "image": options.image,
        "command": ["vllm", "serve"],
        "args": ["--config", CONTAINER_CONFIG_PATH],
        "ports": [{"name": "http", "containerPort": port, "protocol": "TCP"}],
        "env": env,
        "resources": {"requests": {GPU_RESOURCE: gpus}, "limits": {GPU_RESOURCE: gpus}},
        # Loading a large model takes minutes: the startup probe allows 20, then readiness takes over.
        "startupProbe": {**probe, "periodSeconds": 10, "failureThreshold": 120},
        "readinessProbe": {**probe, "periodSeconds": 10, "timeoutSeconds": 5, "failureThreshold": 3},
        "livenessProbe": {**probe, "periodSeconds": 30, "timeoutSeconds": 10, "failureThreshold": 5},
        "volumeMounts": [
            {"name": "model", "mountPath": container_model_path(config, options), "readOnly": True},
            {"name": "config", "mountPath": str(Path(CONTAINER_CONFIG_PATH).parent), "readOnly": True},
            {"name": "dshm", "mountPath": "/dev/shm"},
        ],
    }
    objects.append(
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": meta,
            "spec": {
                "replicas": 1,
                "strategy": {"type": "Recreate"},  # never two pods fighting for the GPUs
                "selector": {"matchLabels": labels},
                "template": {
                    "metadata": {"labels": labels, "annotations": scrape},
                    "spec": {
                        "containers": [container],
                        "volumes": [
                            {
                                "name": "model",
                                "persistentVolumeClaim": {"claimName": f"{name}-model", "readOnly": True},
                            },
                            {"name": "config", "configMap": {"name": f"{name}-config"}},
                            {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "16Gi"}},
                        ],
                    },
                },
            },
        }
    )
    objects.append(
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {**meta, "annotations": scrape},
            "spec": {
                "type": "ClusterIP",
                "selector": labels,
                "ports": [{"name": "http", "port": port, "targetPort": "http", "protocol": "TCP"}],
            },
        }
    )
    return objects


def k8s_yaml(config: EngineConfig, options: ServeOptions, model_dir: str) -> str:
    head = [
        "# kubectl apply -f k8s.yaml   (copy the model onto the PVC first: see README.md)",
        "# Service type ClusterIP: reachable inside the cluster only; "
        f"kubectl port-forward svc/{k8s_name(served_name(config, options))} {options.port}:{options.port}",
    ]
    if options.api_key:
        head.append("# This file holds the API key in a Secret: keep it private.")
    head.append(f"# {options.usage_note}")
    return "\n".join(head) + "\n" + yaml.safe_dump_all(k8s_objects(config, options, model_dir), sort_keys=False)
