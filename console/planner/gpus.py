"""Device profiles: memory, bandwidth and peak compute of the cards the planner knows.

Memory is what NVML reports as total for the card (a "24 GB" RTX 4090 has 24,564 MiB). Bandwidth
and dense tensor-core peaks (FP32 accumulate, no sparsity) come from the vendors' datasheets and
architecture whitepapers; they are upper bounds for the roofline, not promises.
The "cpu" profile stands for the CPU engine: its KV cache is exactly ``kv_cache_memory_bytes``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

MiB = 1024**2
GiB = 1024**3


@dataclass(frozen=True)
class GpuProfile:
    name: str
    label: str
    memory_bytes: int
    bandwidth_gbs: float  # GB/s (10^9 bytes per second)
    bf16_tflops: float  # dense tensor-core peak
    fp8_tflops: float | None = None  # None: no FP8 tensor cores (FP8 weights run as W8A16)
    kind: str = "cuda"  # "cuda" | "cpu"
    block_size: int = 16  # vLLM's KV block size on this device (CPU forces 128)

    @property
    def memory_gib(self) -> float:
        return self.memory_bytes / GiB

    @property
    def is_cpu(self) -> bool:
        return self.kind == "cpu"

    @property
    def native_fp8(self) -> bool:
        return self.fp8_tflops is not None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["memory_gib"] = round(self.memory_gib, 2)
        return d


#: CPU engine default RAM when the user names none (this project's dev machines have 24 GiB).
DEFAULT_CPU_RAM_GIB = 24

GPU_PROFILES: dict[str, GpuProfile] = {
    p.name: p
    for p in [
        GpuProfile("rtx-4090", "NVIDIA GeForce RTX 4090 (24 GB, Ada)", 24564 * MiB, 1008.0, 165.2, 330.3),
        GpuProfile("rtx-4080", "NVIDIA GeForce RTX 4080 (16 GB, Ada)", 16376 * MiB, 716.8, 97.5, 194.9),
        GpuProfile("rtx-3090", "NVIDIA GeForce RTX 3090 (24 GB, Ampere)", 24576 * MiB, 936.2, 71.0, None),
        GpuProfile("l40s", "NVIDIA L40S (48 GB, Ada)", 46068 * MiB, 864.0, 362.1, 733.0),
        GpuProfile("a100-80gb", "NVIDIA A100 80GB (Ampere)", 81920 * MiB, 2039.0, 312.0, None),
        GpuProfile("h100-80gb", "NVIDIA H100 80GB SXM (Hopper)", 81559 * MiB, 3350.0, 989.4, 1978.9),
        GpuProfile("h200", "NVIDIA H200 141GB SXM (Hopper)", 143771 * MiB, 4800.0, 989.4, 1978.9),
        # Rough figures for a desktop CPU (dual-channel DDR5, AVX-512 bf16 on a few cores).
        GpuProfile(
            "cpu",
            f"CPU engine ({DEFAULT_CPU_RAM_GIB} GiB RAM)",
            DEFAULT_CPU_RAM_GIB * GiB,
            60.0,
            1.0,
            None,
            kind="cpu",
            block_size=128,
        ),
    ]
}

#: Aliases users type.
_ALIASES = {
    "4090": "rtx-4090",
    "4080": "rtx-4080",
    "3090": "rtx-3090",
    "a100": "a100-80gb",
    "h100": "h100-80gb",
    "h200-141gb": "h200",
}


def get_gpu(name: str | GpuProfile) -> GpuProfile:
    """A profile by name; ``cpu:64`` is the CPU engine with 64 GiB of RAM."""
    if isinstance(name, GpuProfile):
        return name
    key = str(name).strip().lower().replace("_", "-").replace(" ", "-")
    if key.startswith("cpu:"):
        try:
            ram = float(key[4:].removesuffix("gib").removesuffix("gb"))
        except ValueError:
            raise ValueError(f"'{name}': write the CPU's RAM in GiB, e.g. cpu:64") from None
        base = GPU_PROFILES["cpu"]
        return GpuProfile(
            "cpu",
            f"CPU engine ({ram:g} GiB RAM)",
            int(ram * GiB),
            base.bandwidth_gbs,
            base.bf16_tflops,
            None,
            kind="cpu",
            block_size=128,
        )
    key = _ALIASES.get(key.removeprefix("nvidia-").removeprefix("geforce-"), key)
    key = _ALIASES.get(key, key)
    if key in GPU_PROFILES:
        return GPU_PROFILES[key]
    raise ValueError(f"Unknown GPU '{name}' (known: {', '.join(GPU_PROFILES)}, or cpu:RAM_GIB)")
