"""What an export needs beyond the engine configuration: where and how the server listens.

Security defaults: the server binds to 127.0.0.1 unless the user chooses another host,
and every export that binds wider says so in its own text; ``trust_remote_code`` is whatever the
model's store entry says (off unless turned on for that model).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field

from console import privacy

#: vLLM release the server images are pinned to: the ``gpu`` extra of pyproject.toml.
VLLM_SERVER_VERSION = "0.33.0"
DEFAULT_IMAGE = f"vllm/vllm-openai:v{VLLM_SERVER_VERSION}"
#: Ray image with Ray Serve LLM (for the KubeRay RayService); it brings its own vLLM.
DEFAULT_RAY_IMAGE = "rayproject/ray-llm:2.49.0-py311-cu128"
#: NVLink multicast (NVLS) off in NCCL, PyTorch's symmetric memory and NVSHMEM, in every process of a
#: multi-GPU server: on a host whose GPUs are shared a program using multicast can put them all out
#: of service (the multi-GPU runs set them: benchmarks/gpu/ray-gpu-run.md).
MULTICAST_OFF = {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1", "NVSHMEM_DISABLE_NVLS": "1"}
#: Where container formats mount the model and the serve YAML.
CONTAINER_MODEL_ROOT = "/models"
CONTAINER_CONFIG_PATH = "/config/serve.yaml"


class ExportError(ValueError):
    """An export that cannot be made as asked; the message says why and what to change."""


@dataclass
class ServeOptions:
    host: str = "127.0.0.1"
    port: int = 8000
    served_model_name: str | None = None
    api_key: str | None = None
    image: str = DEFAULT_IMAGE
    ray_image: str = DEFAULT_RAY_IMAGE
    #: Machines the model is spread over (more than one means Ray).
    nodes: int = 1
    #: GPU type the planner should assume (a planner profile name), e.g. "h100-80gb".
    gpu: str | None = None
    namespace: str = "default"
    #: Whether the exported server may send vLLM's usage statistics: the user's privacy choice.
    usage_stats: bool = field(default_factory=privacy.usage_stats_allowed)

    @property
    def env(self) -> dict[str, str]:
        """Environment every exported server sets (the usage-statistics choice, explicit)."""
        return privacy.export_env(self.usage_stats)

    @property
    def usage_note(self) -> str:
        return privacy.export_note(self.usage_stats)

    def validate(self) -> None:
        if not 1 <= self.port <= 65535:
            raise ExportError(f"port {self.port} is not between 1 and 65535")
        if self.nodes < 1:
            raise ExportError(f"--nodes must be at least 1, not {self.nodes}")
        if not self.host or any(c.isspace() for c in self.host):
            raise ExportError(f"host {self.host!r} is not a usable address")

    @property
    def loopback(self) -> bool:
        return is_loopback(self.host)

    def exposure_note(self) -> str | None:
        """The sentence every export prints when the server listens beyond this machine."""
        if self.loopback:
            return None
        return (
            f"the server will listen on {self.host}:{self.port}, reachable from other machines; "
            f"{'an API key is set' if self.api_key else 'NO API key is set (add --api-key)'} "
            "and vLLM's API key guards /v1 only: put it behind a firewall or a proxy"
        )


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
