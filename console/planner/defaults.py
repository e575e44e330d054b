"""The scheduler defaults vLLM gives the console's in-process engine, for the planner.

The in-process engine builds vLLM's ``AsyncLLM`` with the usage context of vLLM's offline batch
(``UsageContext.LLM_CLASS``), as ``LLM.generate`` and ``run-batch`` do (the bare in-process context
gives 2,048 batched tokens and 128 sequences: too few for a batch). Its defaults depend on the
device; this mirrors
``EngineArgs.get_batch_defaults`` of vLLM 0.26-0.32.
"""

from __future__ import annotations

from console.planner.gpus import GiB, GpuProfile

#: (max_num_batched_tokens, max_num_seqs) on the CPU (per device in the world), on a card of
#: 70 GiB or more that is not an A100 (an H100/H200), and on the rest (an RTX 4090).
OFFLINE_DEFAULTS_CPU = (4096, 256)
OFFLINE_DEFAULTS_BIG_GPU = (16384, 1024)
OFFLINE_DEFAULTS_GPU = (8192, 256)
#: What vLLM gave the console's engine before it asked for the offline defaults (the bare in-process
#: context: SchedulerConfig's 2,048 batched tokens and 128 sequences): a recorded load that does not
#: say its scheduler figures ran with these.
RECORDED_LOAD_DEFAULTS = {"max_num_batched_tokens": 2048, "max_num_seqs": 128}


def scheduler_defaults(gpu: GpuProfile, world_size: int = 1) -> tuple[int, int]:
    """(max_num_batched_tokens, max_num_seqs) vLLM picks for the console's engine on ``gpu``."""
    if gpu.is_cpu:
        return OFFLINE_DEFAULTS_CPU[0] * world_size, OFFLINE_DEFAULTS_CPU[1] * world_size
    if gpu.memory_bytes >= 70 * GiB and "a100" not in f"{gpu.name} {gpu.label}".lower():
        return OFFLINE_DEFAULTS_BIG_GPU
    return OFFLINE_DEFAULTS_GPU


__all__ = [
    "OFFLINE_DEFAULTS_BIG_GPU",
    "OFFLINE_DEFAULTS_CPU",
    "OFFLINE_DEFAULTS_GPU",
    "RECORDED_LOAD_DEFAULTS",
    "scheduler_defaults",
]
