"""Compose, Kubernetes, Ray and bundle exports: parsed back as YAML and checked structurally;
the Kubernetes objects also against the official schemas (kubernetes-validate, offline)."""

from __future__ import annotations

import json
import subprocess
import zipfile
from pathlib import Path

import pytest
import yaml

from console.config import EngineConfig
from console.export.bundle import bundle_files, write_bundle
from console.export.compose import compose_dict, compose_yaml
from console.export.k8s import k8s_objects, k8s_yaml
from console.engine.serve_options import DEFAULT_IMAGE, VLLM_SERVER_VERSION, ExportError, ServeOptions
from console.export.ray import ray_commands, rayservice_yaml
from console.export.validate import check_yaml

K8S_VERSION = "1.30.0"


@pytest.fixture()
def config(tiny_model: Path) -> EngineConfig:
    return EngineConfig(
        model=str(tiny_model),
        served_model_name="tiny",
        tensor_parallel_size=2,
        pipeline_parallel_size=2,
        enable_prefix_caching=False,
        max_model_len=1024,
    )


def test_image_is_pinned_to_the_gpu_extra() -> None:
    pyproject = (Path(__file__).parents[1] / "pyproject.toml").read_text()
    assert f'"vllm=={VLLM_SERVER_VERSION}"' in pyproject
    assert DEFAULT_IMAGE == f"vllm/vllm-openai:v{VLLM_SERVER_VERSION}"


def test_compose_structure(config: EngineConfig, tiny_model: Path) -> None:
    doc = yaml.safe_load(compose_yaml(config, ServeOptions(), str(tiny_model), "./container/serve.yaml"))
    svc = doc["services"]["vllm"]
    assert svc["image"] == DEFAULT_IMAGE
    assert svc["entrypoint"] == ["vllm", "serve"] and svc["command"] == ["--config", "/config/serve.yaml"]
    assert svc["ports"] == ["127.0.0.1:8000:8000"]  # localhost unless the user chooses otherwise
    devices = svc["deploy"]["resources"]["reservations"]["devices"]
    assert devices == [{"driver": "nvidia", "count": 4, "capabilities": ["gpu"]}]
    mounts = {m["target"]: m for m in svc["volumes"]}
    assert mounts["/models/tiny"]["source"] == str(tiny_model) and mounts["/models/tiny"]["read_only"]
    assert mounts["/config/serve.yaml"]["source"] == "./container/serve.yaml"
    assert "/health" in " ".join(svc["healthcheck"]["test"])
    exposed = compose_dict(config, ServeOptions(host="0.0.0.0", port=9000, api_key="s3cret"), str(tiny_model))
    assert exposed["services"]["vllm"]["ports"] == ["9000:9000"]
    assert "s3cret" not in json.dumps(exposed)  # the key reaches the container through the environment
    assert exposed["services"]["vllm"]["environment"]["VLLM_API_KEY"].startswith("${VLLM_API_KEY")


def test_compose_container_yaml_reads_back(config: EngineConfig, tmp_path: Path) -> None:
    files = bundle_files(config, ServeOptions(), model_dir=config.model)
    path = tmp_path / "serve.yaml"
    path.write_text(files["container/serve.yaml"])
    assert check_yaml(path, config, ServeOptions(), model="/models/tiny", host="0.0.0.0") == []


def test_kubernetes_objects(config: EngineConfig, tiny_model: Path) -> None:
    import kubernetes_validate

    docs = [d for d in yaml.safe_load_all(k8s_yaml(config, ServeOptions(api_key="k"), str(tiny_model))) if d]
    kinds = {d["kind"]: d for d in docs}
    assert set(kinds) == {"ConfigMap", "PersistentVolumeClaim", "Secret", "Deployment", "Service"}
    for doc in docs:
        kubernetes_validate.validate(doc, K8S_VERSION, strict=True)
    pod = kinds["Deployment"]["spec"]["template"]
    container = pod["spec"]["containers"][0]
    assert container["image"] == DEFAULT_IMAGE
    assert (
        container["resources"]["limits"]["nvidia.com/gpu"] == 4 == container["resources"]["requests"]["nvidia.com/gpu"]
    )
    assert container["readinessProbe"]["httpGet"] == {"path": "/health", "port": 8000}
    assert pod["metadata"]["annotations"] == {
        "prometheus.io/scrape": "true",
        "prometheus.io/port": "8000",
        "prometheus.io/path": "/metrics",
    }
    mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
    volumes = {v["name"]: v for v in pod["spec"]["volumes"]}
    assert (
        volumes[mounts["/models/tiny"]]["persistentVolumeClaim"]["claimName"]
        == kinds["PersistentVolumeClaim"]["metadata"]["name"]
    )
    assert volumes[mounts["/config"]]["configMap"]["name"] == kinds["ConfigMap"]["metadata"]["name"]
    assert kinds["Service"]["spec"]["type"] == "ClusterIP"
    assert kinds["Service"]["spec"]["selector"] == kinds["Deployment"]["spec"]["selector"]["matchLabels"]
    served = yaml.safe_load(kinds["ConfigMap"]["data"]["serve.yaml"])
    assert served["model"] == "/models/tiny" and served["enable-prefix-caching"] is False
    assert "api-key" not in served  # from the Secret, through VLLM_API_KEY
    env = {e["name"]: e for e in container["env"]}
    assert env["VLLM_API_KEY"]["valueFrom"]["secretKeyRef"]["name"] == kinds["Secret"]["metadata"]["name"]


def test_kubernetes_schema_check_can_fail(config: EngineConfig, tiny_model: Path) -> None:
    import kubernetes_validate

    deployment = next(d for d in k8s_objects(config, ServeOptions(), str(tiny_model)) if d["kind"] == "Deployment")
    deployment["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]["periodSeconds"] = "often"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, K8S_VERSION, strict=True)


def test_single_machine_formats_refuse_many_nodes(config: EngineConfig) -> None:
    with pytest.raises(ExportError, match="--format ray"):
        compose_dict(config, ServeOptions(nodes=2), config.model)
    with pytest.raises(ExportError, match="--format ray"):
        k8s_objects(config, ServeOptions(nodes=2), config.model)


def test_ray_commands_and_rayservice(config: EngineConfig, tmp_path: Path) -> None:
    script = ray_commands(config, ServeOptions(nodes=2))
    assert "ray start --head --port=6379 --num-gpus=2" in script
    assert 'ray start --address="$HEAD_IP:6379" --num-gpus=2' in script
    assert "--distributed-executor-backend ray" in script and "--tensor-parallel-size 2" in script
    path = tmp_path / "ray.sh"
    path.write_text(script)
    assert subprocess.run(["sh", "-n", str(path)]).returncode == 0
    usage = subprocess.run(["sh", str(path)], capture_output=True, text=True)
    assert usage.returncode == 2 and "head|worker|serve" in usage.stderr
    no_head = subprocess.run(["sh", str(path), "worker"], capture_output=True, text=True)
    assert no_head.returncode != 0 and "HEAD_IP" in no_head.stderr

    pvc, service = list(yaml.safe_load_all(rayservice_yaml(config, ServeOptions(nodes=2), config.model)))
    assert pvc["kind"] == "PersistentVolumeClaim" and service["kind"] == "RayService"
    workers = service["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]
    assert workers["replicas"] == 2
    assert workers["template"]["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == 2
    app = yaml.safe_load(service["spec"]["serveConfigV2"])["applications"][0]
    assert app["import_path"] == "ray.serve.llm:build_openai_app"
    llm = app["args"]["llm_configs"][0]
    assert llm["model_loading_config"] == {"model_id": "tiny", "model_source": "/models/tiny"}
    assert llm["engine_kwargs"]["tensor_parallel_size"] == 2 and llm["engine_kwargs"]["pipeline_parallel_size"] == 2
    assert llm["engine_kwargs"]["enable_prefix_caching"] is False
    with pytest.raises(ExportError, match="evenly"):
        ray_commands(config, ServeOptions(nodes=3))


def test_bundle_folder_and_zip(config: EngineConfig, tmp_path: Path) -> None:
    bench = {"gpu": "NVIDIA H200", "driver": "570.1", "vllm_version": "0.26.0", "output_tokens_per_s": 1234.5}
    files = bundle_files(config, ServeOptions(), model_dir=config.model, bench=bench)
    for name in (
        "serve.yaml",
        "serve.sh",
        "docker-compose.yaml",
        "container/serve.yaml",
        "k8s.yaml",
        "ray/ray-cluster.sh",
        "ray/rayservice.yaml",
        "plan.json",
        "plan.txt",
        "bench.json",
        "README.md",
        "manifest.json",
    ):
        assert name in files, name
    dashboard = json.loads(files["grafana/console-dashboard.json"])  # the Grafana dashboard travels too
    assert dashboard["panels"] and "grafana/console-dashboard.json" in files["README.md"]
    readme = files["README.md"]
    assert "## Security" in readme and "127.0.0.1 only" in readme and "trust-remote-code` is off" in readme
    assert "| output_tokens_per_s | 1234 |" in readme and "NVIDIA H200" in readme
    plan = json.loads(files["plan.json"])  # the planner's per-GPU view of tp 2 x pp 2
    assert plan["available"], plan.get("reason")
    assert [g["stage"] for g in plan["per_gpu"]] == [0, 0, 1, 1]
    assert plan["request"]["tensor_parallel_size"] == 2 and plan["request"]["pipeline_parallel_size"] == 2
    assert "GPU 3 (stage 1" in files["plan.txt"] and "GPU 3 (stage 1" in readme

    folder = write_bundle(tmp_path / "b", files)
    assert (folder / "serve.sh").stat().st_mode & 0o111
    assert json.loads((folder / "bench.json").read_text()) == bench
    manifest = json.loads((folder / "manifest.json").read_text())
    import hashlib

    assert manifest["sha256"]["k8s.yaml"] == hashlib.sha256((folder / "k8s.yaml").read_bytes()).hexdigest()
    with pytest.raises(ExportError, match="exists"):
        write_bundle(tmp_path / "b", files)

    zpath = write_bundle(tmp_path / "b.zip", files)
    with zipfile.ZipFile(zpath) as zf:
        assert set(zf.namelist()) == {f"b/{name}" for name in files}
        assert zf.read("b/serve.yaml").decode() == files["serve.yaml"]
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no staging left behind


def test_planner_refusal_is_reported(config: EngineConfig) -> None:
    files = bundle_files(config, ServeOptions(gpu="no-such-gpu"), model_dir=config.model)
    plan = json.loads(files["plan.json"])
    assert plan["available"] is False and "no-such-gpu" in plan["reason"]
