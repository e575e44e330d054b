"""The trials that can help one stream (goal ``one-user``), on the installed vLLM:

- n-gram speculation (prompt lookup) at a few draft lengths: it copies tokens from the prompt, so
  it pays off where the answer repeats it (code edits, rewrites, quoting);
- an EAGLE-3 draft head, only when the model store holds one made for this model
  (:func:`find_eagle3_head`);
- an FP8 KV cache, only where the device takes one: vLLM's CPU engine (0.32) accepts ``fp8`` on
  x86 with AVX-512 or AMX and a head size divisible by 32 (``cpu_attn._get_attn_isa``), else it
  refuses, so the plan leaves it out with that reason;
- the chunked-prefill size (``max_num_batched_tokens``): how much of a long prompt one step
  prefills, which sets the time to the first token on the longest prompt;
- the precision the checkpoint offers: FP8 weights on a card with FP8 tensor cores for a 16-bit
  checkpoint; a quantized checkpoint's precision is fixed, and the CPU engine runs the checkpoint's own.

``max_num_seqs`` barely matters with one request in flight: it is left at vLLM's default. What is
left out goes to the plan's pruned list with its reason.
"""

from __future__ import annotations

import itertools
import json
import platform
from pathlib import Path
from typing import Any

from console.bench.tune_plan import Pruned, default_grid
from console.config import EngineConfig
from console.models.store import ModelEntry, ModelStore
from console.planner import ShapeError, shape_for
from console.planner.gpus import GpuProfile

#: n-gram draft lengths tried (tokens proposed per step)
NGRAM_DRAFTS = (2, 4, 8)
#: draft tokens per step with an EAGLE-3 head (the speculators' usual setting)
EAGLE3_DRAFTS = 3


def _cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return set()
    for line in text.splitlines():
        if line.startswith("flags"):
            return set(line.partition(":")[2].split())
    return set()


def cpu_fp8_kv_refusal(head_dim: int | None, flags: set[str] | None = None, machine: str | None = None) -> str | None:
    """Why vLLM's CPU engine would refuse ``kv_cache_dtype=fp8`` here, or None when it takes it."""
    flags = _cpu_flags() if flags is None else flags
    machine = (machine or platform.machine()).lower()
    if machine not in ("x86_64", "amd64") or not ({"avx512f", "amx_tile"} & flags):
        return "vLLM's CPU engine takes an FP8 KV cache only on x86 with AVX-512 or AMX, which this CPU lacks"
    if head_dim is not None and head_dim % 32 != 0:
        return (
            f"vLLM's CPU engine takes an FP8 KV cache only for a head size divisible by 32 (this model's is {head_dim})"
        )
    return None


def _identities(model: str, store: ModelStore | None) -> set[str]:
    """Names a draft head may give for its target: the folder, its config's _name_or_path, and the
    store entry's name and source."""
    path = Path(model)
    names = {model, path.name}
    try:
        cfg = json.loads((path / "config.json").read_text(encoding="utf-8"))
        names.add(str(cfg.get("_name_or_path") or ""))
    except (OSError, ValueError):
        pass
    for e in store.list() if store is not None else []:
        if e.name == model or Path(e.path) == path:
            names.update({e.name, e.source, e.path})
    out = set()
    for n in filter(None, names):
        out.update({n.lower(), n.rstrip("/").split("/")[-1].lower()})
    return out


def _eagle3_target(entry: ModelEntry) -> str | None:
    """The model an EAGLE-3 head in the store was trained for, or None when it is not one."""
    try:
        cfg = json.loads((Path(entry.path) / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    archs = " ".join(cfg.get("architectures") or []).lower()
    spec = cfg.get("speculators_config") or {}
    if "eagle3" not in archs and cfg.get("speculators_model_type") != "eagle3":
        return None
    target = entry.extra.get("draft_for") or (spec.get("verifier") or {}).get("name_or_path")
    return str(target) if target else None


def find_eagle3_head(model: str, store: ModelStore | None) -> ModelEntry | None:
    """An EAGLE-3 draft head in the store made for ``model`` (its config names it as the verifier,
    or its entry's ``extra["draft_for"]`` does); None when there is none."""
    if store is None:
        return None
    ids = _identities(model, store)
    for e in store.list():
        target = _eagle3_target(e)
        if target and e.available and {target.lower(), target.rstrip("/").split("/")[-1].lower()} & ids:
            return e
    return None


def prequantized(config: EngineConfig) -> bool:
    """Whether the checkpoint's precision is fixed: a quantization set, or one in its config.json."""
    if config.quantization:
        return True
    try:
        cfg = json.loads((Path(config.model) / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return bool(isinstance(cfg, dict) and cfg.get("quantization_config"))


def one_user_grid(
    base: EngineConfig,
    device: str,
    *,
    native_fp8: bool = False,
    prequantized: bool = False,
    store: ModelStore | None = None,
    cpu_flags: set[str] | None = None,
) -> tuple[list[dict[str, Any]], list[Pruned]]:
    """The points to try for one user, and what was left out and why."""
    pruned: list[Pruned] = []
    spec: list[dict[str, Any]] = [{}]
    spec += [{"speculative_method": "ngram", "num_speculative_tokens": k} for k in NGRAM_DRAFTS]
    head = find_eagle3_head(base.model, store)
    if head is not None:
        spec.append(
            {"speculative_method": "eagle3", "speculative_model": head.path, "num_speculative_tokens": EAGLE3_DRAFTS}
        )
    else:
        pruned.append(
            Pruned({"speculative_method": "eagle3"}, "no EAGLE-3 draft head for this model in the model store")
        )
    kv = ["auto", "fp8"]
    if device != "cuda":
        try:
            head_dim: int | None = shape_for(base.model).head_dim
        except (ShapeError, OSError, ValueError):
            head_dim = None
        why = cpu_fp8_kv_refusal(head_dim, cpu_flags)
        if why:
            kv = ["auto"]
            pruned.append(Pruned({"kv_cache_dtype": "fp8"}, why))
    chunks = [2048, 8192] if device == "cuda" else [512, 2048]
    precision: list[dict[str, Any]] = [{}]
    if device != "cuda":
        pruned.append(Pruned({"quantization": "fp8"}, "the CPU engine runs the checkpoint's own precision"))
    elif prequantized:
        pruned.append(Pruned({"quantization": "fp8"}, "the checkpoint is already quantized: its precision is fixed"))
    elif not native_fp8:
        pruned.append(
            Pruned({"quantization": "fp8"}, "this card has no FP8 tensor cores (FP8 weights would be slower)")
        )
    else:
        precision.append({"quantization": "fp8"})
    pruned.append(
        Pruned({"max_num_seqs": "any"}, "one request in flight: max_num_seqs barely matters (vLLM's default kept)")
    )
    points = [
        {**s, "kv_cache_dtype": k, "max_num_batched_tokens": c, **q}
        for s, k, c, q in itertools.product(spec, kv, chunks, precision)
    ]
    return points, pruned


def goal_grid(
    base: EngineConfig, device: str, goal_kind: str, profile: GpuProfile | None
) -> tuple[dict[str, list[Any]] | list[dict[str, Any]], list[Pruned]]:
    """The grid a tune of ``goal_kind`` searches when the user typed no knobs, and what it left
    out and why: the one-user trials for "one-user", the device's default grid otherwise, FP8
    weights tried only where ``profile`` (the card planned for) has FP8 tensor cores and the
    checkpoint's precision is not fixed. The CLI and the Bench tab both ask here."""
    native_fp8 = bool(profile is not None and profile.native_fp8)
    fixed = prequantized(base)
    if goal_kind == "one-user":
        return one_user_grid(base, device, native_fp8=native_fp8, prequantized=fixed, store=ModelStore())
    return default_grid(device, native_fp8=native_fp8, prequantized=fixed), []
