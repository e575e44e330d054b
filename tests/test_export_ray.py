"""What the exported Ray layout got wrong when it was first started for real, checked on
the generated files: NVLink multicast off in every process of a multi-GPU server. Starting Ray itself
is ``benchmarks/gpu/ray_layout.py`` (a script, not CI)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import yaml

from console.config import EngineConfig
from console.engine.serve_options import MULTICAST_OFF, ServeOptions
from console.export.ray import ray_commands, rayservice_dict

#: NVLink multicast off in NCCL, PyTorch's symmetric memory and NVSHMEM.
SWITCHES = {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1", "NVSHMEM_DISABLE_NVLS": "1"}


@pytest.fixture()
def config(tiny_model: Path) -> EngineConfig:
    return EngineConfig(model=str(tiny_model), served_model_name="tiny", tensor_parallel_size=2, max_model_len=1024)


def _env_of_each_role(
    script: str, tmp_path: Path, roles: tuple[str, ...] = ("head", "worker", "serve")
) -> dict[str, dict[str, str]]:
    """Run an exported script's roles with stand-in ``ray`` and ``vllm`` commands on PATH that only
    write down the environment they were started with (the script is what is under test here; a
    script with no roles, serve.sh, ignores the argument)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(parents=True)
    for name in ("ray", "vllm"):
        stub = bin_dir / name
        stub.write_text(f'#!/bin/sh\nenv > "{tmp_path}/$ROLE.env"\n')
        stub.chmod(0o755)
    path = tmp_path / "ray-cluster.sh"
    path.write_text(script)
    clean = {k: v for k, v in os.environ.items() if k not in SWITCHES and not k.startswith("VLLM_RAY")}
    seen = {}
    for role in roles:
        env = {**clean, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "ROLE": role, "HEAD_IP": "10.0.0.1"}
        subprocess.run(["sh", str(path), role], env=env, check=True, timeout=30)
        lines = (tmp_path / f"{role}.env").read_text().splitlines()
        seen[role] = dict(line.split("=", 1) for line in lines if "=" in line)
    return seen


def test_every_ray_process_starts_with_multicast_off(config: EngineConfig, tmp_path: Path) -> None:
    """The raylets (head and worker: Ray's workers inherit their environment) and the vLLM driver
    all start with the three switches; vLLM is told to copy the two it does not copy by itself."""
    assert MULTICAST_OFF == SWITCHES
    seen = _env_of_each_role(ray_commands(config, ServeOptions(nodes=2, usage_stats=False)), tmp_path)
    for role, env in seen.items():
        for key, value in SWITCHES.items():
            assert env.get(key) == value, (role, key)
        assert env["RAY_USAGE_STATS_ENABLED"] == "0" and env["VLLM_NO_USAGE_STATS"] == "1"
    assert "RAY_AUTH_MODE=token" in ray_commands(config, ServeOptions(nodes=2))  # Ray's port runs anyone's code
    copied = set(seen["serve"]["VLLM_RAY_EXTRA_ENV_VARS_TO_COPY"].split(","))
    assert copied == {"TORCH_SYMM_MEM_DISABLE_MULTICAST", "NVSHMEM_DISABLE_NVLS"}  # NCCL_* vLLM copies itself


def test_rayservice_sets_multicast_off_in_pods_and_serve_workers(config: EngineConfig) -> None:
    service = rayservice_dict(config, ServeOptions(nodes=2), config.model)
    cluster = service["spec"]["rayClusterConfig"]
    pods = [cluster["headGroupSpec"], *cluster["workerGroupSpecs"]]
    for group in pods:
        env = {e["name"]: e["value"] for e in group["template"]["spec"]["containers"][0]["env"]}
        assert {k: env.get(k) for k in SWITCHES} == SWITCHES
    app = yaml.safe_load(service["spec"]["serveConfigV2"])["applications"][0]
    env_vars = app["runtime_env"]["env_vars"]
    assert {k: env_vars.get(k) for k in SWITCHES} == SWITCHES


def test_single_machine_multi_gpu_servers_set_multicast_off_too(tiny_model: Path, tmp_path: Path) -> None:
    """serve.sh, the one-line command, Compose and Kubernetes: the switches when the server spans more
    than one GPU (its workers talk over NCCL), and nothing extra for one GPU."""
    from console.export.compose import compose_dict
    from console.export.k8s import k8s_objects
    from console.engine.serve_args import serve_command, serve_script

    for tp, expected in ((2, SWITCHES), (1, {})):
        config = EngineConfig(model=str(tiny_model), tensor_parallel_size=tp)
        options = ServeOptions(usage_stats=False)
        script = tmp_path / f"serve-{tp}.sh"
        script.write_text(serve_script(config, options))
        seen = _env_of_each_role(script.read_text(), tmp_path / f"tp{tp}", roles=("serve",))["serve"]
        assert {k: seen[k] for k in SWITCHES if k in seen} == expected
        line = serve_command(config, options)
        assert {k: v for k, v in SWITCHES.items() if f"{k}={v} " in line} == expected
        compose = compose_dict(config, options, str(tiny_model))["services"]["vllm"]["environment"]
        assert {k: compose[k] for k in SWITCHES if k in compose} == expected
        deployment = next(o for o in k8s_objects(config, options, str(tiny_model)) if o["kind"] == "Deployment")
        env = {e["name"]: e.get("value") for e in deployment["spec"]["template"]["spec"]["containers"][0]["env"]}
        assert {k: env[k] for k in SWITCHES if k in env} == expected


def test_container_yaml_checks_on_an_offline_machine(
    tiny_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With HF_HUB_OFFLINE=1 (how the GPU machine runs) the bundle's container YAML, whose model
    path (/models/NAME) exists only inside the container, is still checked with vLLM's parser:
    the Ray run's `export --format bundle` failed there with a hub error."""
    import huggingface_hub.constants as hub

    from console.export.compose import container_serve_yaml
    from console.engine.serve_args import container_model_path
    from console.export.validate import check_yaml

    monkeypatch.setattr(hub, "HF_HUB_OFFLINE", True)
    config = EngineConfig(model=str(tiny_model), served_model_name="tiny", max_model_len=1024)
    options = ServeOptions()
    path = tmp_path / "serve.yaml"
    path.write_text(container_serve_yaml(config, options, "published on the host"))
    model = container_model_path(config, options)
    assert not Path(model).exists()
    assert check_yaml(path, config, options, model=model, host="0.0.0.0") == []
    assert hub.HF_HUB_OFFLINE is True  # the setting is back as it was
    bad = tmp_path / "bad.yaml"  # and the check still finds what vLLM reads differently
    bad.write_text(path.read_text().replace("max-model-len: 1024", "max-model-len: 2048"))
    assert any("max-model-len" in p for p in check_yaml(bad, config, options, model=model, host="0.0.0.0"))


def test_tensor_parallel_across_nodes_is_flagged(tiny_model: Path) -> None:
    """The CPU run of ``--nodes 2 -tp 2`` made vLLM warn that its tensor-parallel workers span nodes;
    the export says so first, with the layout that keeps them in one node."""
    across = EngineConfig(model=str(tiny_model), tensor_parallel_size=2)
    script = ray_commands(across, ServeOptions(nodes=2))
    assert "# WARNING: tensor parallel 2 spans nodes of 1 GPU(s)" in script and "(-pp 2 -tp 1)" in script
    within = EngineConfig(model=str(tiny_model), tensor_parallel_size=2, pipeline_parallel_size=2)
    assert "spans nodes" not in ray_commands(within, ServeOptions(nodes=2))
    assert "spans nodes" not in ray_commands(across, ServeOptions(nodes=1))
