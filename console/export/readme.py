"""The operator's README.md of a bundle: what is in it, how to run each form, what to check."""

from __future__ import annotations

from typing import Any

from console.config import EngineConfig
from console.engine.serve_options import ServeOptions
from console.export.plan_report import planner_text
from console.engine.serve_args import container_model_path, served_name

_DESCRIBE = {
    "serve.yaml": "`vllm serve --config serve.yaml`: the tuned engine settings (vLLM's option names)",
    "serve.sh": "the same server as one `vllm serve` command line",
    "container/serve.yaml": "the serve YAML as the containers see it (model under /models, 0.0.0.0 inside)",
    "docker-compose.yaml": "Docker Compose: official vLLM image, GPU reservation, health check",
    "k8s.yaml": "Kubernetes: ConfigMap, PersistentVolumeClaim, Deployment, ClusterIP Service",
    "ray/ray-cluster.sh": "Ray head/worker commands, then `vllm serve` on the Ray backend",
    "ray/rayservice.yaml": "KubeRay RayService serving the same engine through Ray Serve LLM",
    "plan.json": "the planner's memory view of this layout (machine-readable)",
    "plan.txt": "the same, as text",
    "bench.json": "the benchmark evidence this configuration was tuned with",
    ".env": "VLLM_API_KEY for Docker Compose (keep private)",
    "manifest.json": "versions, layout and a SHA-256 of every file",
}


def _bench_summary(bench: dict[str, Any]) -> list[str]:
    """Scalar figures of the benchmark report, two levels deep, as a table."""
    rows: list[tuple[str, Any]] = []
    for key, value in bench.items():
        if isinstance(value, dict):
            rows += [(f"{key}.{k}", v) for k, v in value.items() if isinstance(v, (str, int, float, bool))]
        elif isinstance(value, (str, int, float, bool)):
            rows.append((key, value))
    if not rows:
        return ["(the benchmark file holds no scalar figures; see bench.json)"]
    lines = ["| figure | value |", "|---|---|"]
    lines += [f"| {k} | {v:.4g} |" if isinstance(v, float) else f"| {k} | {v} |" for k, v in rows[:40]]
    return lines


def readme_text(
    config: EngineConfig,
    options: ServeOptions,
    *,
    files: list[str],
    meta: dict[str, Any],
    plan: dict[str, Any],
    bench: dict[str, Any] | None,
) -> str:
    name = served_name(config, options)
    layout = meta["layout"]
    url = f"http://{'127.0.0.1' if options.host in ('0.0.0.0', '::') else options.host}:{options.port}"
    out = [
        f"# Serving `{name}` with vLLM",
        "",
        f"Exported by inference-console {meta['inference_console']} for vLLM {meta['vllm_server_version']} "
        f"(image `{options.image}`).",
        "",
        f"- Model on this machine: `{config.model}`",
        f"- Layout: {layout['nodes']} node(s) x {layout['gpus_per_node']} GPU(s); tensor parallel "
        f"{layout['tensor_parallel_size']}, pipeline parallel {layout['pipeline_parallel_size']}",
        f"- Clients ask for model `{name}` at `{url}/v1`",
        "",
        "## Security",
        "",
    ]
    if options.loopback:
        out.append(
            f"- The server listens on {options.host} only: other machines cannot reach it. "
            "Re-export with `--host 0.0.0.0` to expose it (deliberately)."
        )
    else:
        out.append(
            f"- **The server listens on {options.host}:{options.port}, reachable from other machines.** "
            "vLLM's API key guards `/v1` only; keep it behind a firewall or an authenticating proxy."
        )
    out.append(
        "- Containers listen on 0.0.0.0 *inside* the container; Compose publishes the port on "
        f"{'127.0.0.1 only' if options.loopback else options.host}; Kubernetes uses a ClusterIP "
        "Service (inside the cluster only)."
    )
    out.append(
        "- `trust-remote-code` is **ON**: the model repository's Python code runs in the server."
        if config.trust_remote_code
        else "- `trust-remote-code` is off: no code from the model repository runs."
    )
    if options.api_key:
        out.append("- An API key is set: `serve.yaml`, `serve.sh`, `.env` and `k8s.yaml` (a Secret) hold it.")
    out += (
        ["", "## Files", ""]
        + [f"- `{f}`: {_DESCRIBE.get(f, '')}" for f in files]
        + ["- `manifest.json`: " + _DESCRIBE["manifest.json"]]
    )
    for what, why in meta.get("skipped", {}).items():
        out.append(f"- not included: {what} ({why})")
    out += [
        "",
        "## Run it",
        "",
        "On a machine with the model at the path above and vLLM installed:",
        "",
        "```sh",
        "vllm serve --config serve.yaml      # or: sh serve.sh",
        "```",
    ]
    if "docker-compose.yaml" in files:
        out += [
            "",
            "With Docker (NVIDIA Container Toolkit installed): edit the model `source:` path in "
            "`docker-compose.yaml` if the model lives elsewhere on the server, then",
            "",
            "```sh",
            "docker compose up -d && docker compose ps   # healthy after the model loads",
            "```",
        ]
    if "k8s.yaml" in files:
        pod_path = container_model_path(config, options)
        out += [
            "",
            "On Kubernetes (NVIDIA device plugin installed): apply, copy the model onto the volume "
            "once, then the pod starts serving:",
            "",
            "```sh",
            "kubectl apply -f k8s.yaml",
            f"# copy the weights to {pod_path} on the PVC, e.g. with a helper pod mounting the claim",
            "kubectl rollout status deploy/<name>",
            "```",
        ]
    if "ray/ray-cluster.sh" in files:
        out += [
            "",
            "Across GPUs/nodes with Ray: `sh ray/ray-cluster.sh head` on the head node, "
            "`HEAD_IP=... sh ray/ray-cluster.sh worker` on the others, then `sh ray/ray-cluster.sh serve` "
            "on the head. On Kubernetes with KubeRay: `kubectl apply -f ray/rayservice.yaml`.",
        ]
    out += [
        "",
        "## Check it",
        "",
        "```sh",
        f"curl -fsS {url}/health && echo healthy",
        f"curl -fsS {url}/v1/models" + (' -H "Authorization: Bearer $VLLM_API_KEY"' if options.api_key else ""),
        f"curl -fsS {url}/metrics | grep vllm:kv_cache_usage_perc",
        "```",
        "",
        "## Memory plan",
        "",
        "```",
        planner_text(plan).rstrip(),
        "```",
        "",
    ]
    if bench is not None:
        out += ["## Benchmark evidence", "", "From `bench.json` (the run this configuration was tuned on):", ""]
        out += _bench_summary(bench) + [""]
    return "\n".join(out)
