"""LoRA adapters (PEFT folders): what one is, whether it fits a base model, what vLLM needs for it.

A PEFT adapter folder holds ``adapter_config.json`` (rank ``r``, ``lora_alpha``, target modules,
the base model it was trained on) and ``adapter_model.safetensors``. Everything here reads those
two files without torch: the rank and the shapes come from the safetensors header. The base check
compares each ``lora_A`` / ``lora_B`` shape with the projection it adapts in the base model's
``config.json``: an adapter trained on another model has other widths (or more layers) and vLLM
would refuse it at the first request, or worse, apply it to the wrong shapes.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from console.config import VLLM_LORA_RANKS
from console.planner.lora import num_layers, projection_shapes
from console.models.inspect import ModelFormatError, folder_size, read_config, read_safetensors_header

#: vLLM's defaults when LoRA is on and the setting is left out.
DEFAULT_MAX_LORAS = 1
DEFAULT_MAX_LORA_RANK = 16

_WEIGHT_RE = re.compile(r"layers\.(\d+)\..*?\.?([A-Za-z0-9_]+)\.lora_([AB])(?:\.[A-Za-z0-9_]+)?\.weight$")


class AdapterError(ModelFormatError):
    """An adapter that cannot be used (corrupt, wrong base, rank too large); the message says why."""


@dataclass(frozen=True)
class AdapterInfo:
    path: str
    rank: int
    alpha: float
    target_modules: tuple[str, ...]
    base_model: str  # ``base_model_name_or_path`` as the adapter records it ("" when absent)
    size_bytes: int
    #: (layer, module, "A" | "B") -> shape, read from the safetensors header (a MoE expert's
    #: module is ``experts.gate_proj``, a shared expert's ``shared_expert.gate_proj``)
    shapes: dict[tuple[int, str, str], tuple[int, ...]]
    base_revision: str = ""  # the base's ``revision`` as the adapter records it (a commit or branch)

    @property
    def num_layers(self) -> int:
        return 1 + max((layer for layer, _, _ in self.shapes), default=-1)

    def summary(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "alpha": self.alpha,
            "target_modules": list(self.target_modules),
            "base_model": self.base_model,
            "size_bytes": self.size_bytes,
        }


def is_adapter_folder(folder: Path) -> bool:
    return (Path(folder) / "adapter_config.json").is_file()


def inspect_adapter(folder: Path) -> AdapterInfo:
    """Read a PEFT LoRA folder; :class:`AdapterError` says what is wrong with a corrupt one."""
    folder = Path(folder)
    cfg_path = folder / "adapter_config.json"
    if not cfg_path.is_file():
        raise AdapterError(f"{folder} has no adapter_config.json: not a PEFT adapter folder")
    try:
        cfg = json.loads(cfg_path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise AdapterError(f"{cfg_path} is not valid JSON ({exc}): the adapter is corrupt") from exc
    if not isinstance(cfg, dict):
        raise AdapterError(f"{cfg_path} does not hold a JSON object: the adapter is corrupt")
    kind = str(cfg.get("peft_type", "LORA")).upper()
    if kind != "LORA":
        raise AdapterError(f"{folder.name} is a {kind} adapter; vLLM serves LoRA adapters only")
    if cfg.get("use_dora"):
        raise AdapterError(f"{folder.name} is a DoRA adapter; vLLM serves plain LoRA adapters only")
    _refuse_unservable(folder.name, cfg)
    rank = cfg.get("r")
    if isinstance(rank, bool) or not isinstance(rank, int) or rank < 1:
        raise AdapterError(f"{cfg_path} has no usable rank 'r' ({rank!r}): the adapter is corrupt")
    weights = folder / "adapter_model.safetensors"
    if not weights.is_file():
        if (folder / "adapter_model.bin").is_file():
            raise AdapterError(
                f"{folder.name} holds only adapter_model.bin; save it as safetensors "
                "(peft's save_pretrained(..., safe_serialization=True))"
            )
        raise AdapterError(f"{folder.name} has no adapter_model.safetensors: the adapter is incomplete")
    try:
        header = read_safetensors_header(weights)
    except ModelFormatError as exc:
        raise AdapterError(f"{folder.name}: {exc}: the adapter is corrupt") from exc
    declared = 8 + max((int(m["data_offsets"][1]) for k, m in header.items() if k != "__metadata__"), default=0)
    with open(weights, "rb") as fh:
        header_len = int.from_bytes(fh.read(8), "little")
    if weights.stat().st_size < declared + header_len:
        raise AdapterError(
            f"{folder.name}: adapter_model.safetensors is truncated "
            f"({weights.stat().st_size} bytes, its header lists more): the adapter is corrupt"
        )
    shapes: dict[tuple[int, str, str], tuple[int, ...]] = {}
    for key, meta in header.items():
        m = _WEIGHT_RE.search(key)
        if m and isinstance(meta, dict):
            module = _expert_prefix(key) + m.group(2)
            shapes[(int(m.group(1)), module, m.group(3))] = tuple(int(d) for d in meta.get("shape", []))
    if not shapes:
        raise AdapterError(f"{folder.name}: adapter_model.safetensors holds no LoRA weights (lora_A / lora_B)")
    pattern = cfg.get("rank_pattern") or {}
    top_rank = max([rank, *(int(v) for v in pattern.values() if isinstance(v, int))])
    targets = cfg.get("target_modules") or sorted({mod for _, mod, _ in shapes})
    if isinstance(targets, str):
        targets = [targets]
    return AdapterInfo(
        path=str(folder.resolve()),
        rank=top_rank,
        alpha=float(cfg.get("lora_alpha") or rank),
        target_modules=tuple(str(t) for t in targets),
        base_model=str(cfg.get("base_model_name_or_path") or ""),
        size_bytes=folder_size(folder),
        shapes=shapes,
        base_revision=str(cfg.get("revision") or ""),
    )


def _refuse_unservable(name: str, cfg: dict[str, Any]) -> None:
    """What PEFT can train and vLLM cannot serve, refused at import rather than at the first request."""
    bias = cfg.get("bias", "none")
    if bias not in (None, "none"):
        raise AdapterError(
            f"{name} trains biases (bias = {bias!r}); vLLM serves LoRA adapters with bias 'none' "
            "only: retrain with bias='none'"
        )
    if cfg.get("lora_bias"):
        raise AdapterError(f"{name} has LoRA biases (lora_bias); vLLM does not serve them: retrain without")
    saved = cfg.get("modules_to_save")
    if saved:
        listed = ", ".join(map(str, saved)) if isinstance(saved, list) else str(saved)
        raise AdapterError(
            f"{name} carries whole trained copies of {listed} (modules_to_save); vLLM serves only the "
            "LoRA matrices of a text-generation adapter, so the answers would not be the ones trained: "
            "retrain without modules_to_save, or merge the adapter into the model and import that"
        )


#: Where a MoE layer's routed experts (``mlp.experts.3.gate_proj``) and shared experts
#: (``mlp.shared_expert.gate_proj``, DeepSeek's ``mlp.shared_experts.gate_proj``) sit in a weight name.
_EXPERT_RE = re.compile(r"\.experts\.\d+\.")
_SHARED_RE = re.compile(r"\.shared_experts?\.")


def _expert_prefix(key: str) -> str:
    if _EXPERT_RE.search(key):
        return "experts."
    if _SHARED_RE.search(key):
        return "shared_expert."
    return ""


def expert_shapes(config: dict[str, Any]) -> dict[str, tuple[int, int]]:
    """(in, out) features of a MoE layer's expert projections, named ``experts.gate_proj`` and
    ``shared_expert.gate_proj`` as :func:`inspect_adapter` keys them: an expert is
    ``moe_intermediate_size`` wide (Qwen2/3-MoE, DeepSeek), a shared expert
    ``shared_expert_intermediate_size`` (Qwen2-MoE) or ``n_shared_experts`` experts (DeepSeek).
    Empty where the config gives no expert width (vLLM then checks the shapes at load)."""
    text = config.get("text_config")
    cfg: dict[str, Any] = text if isinstance(text, dict) else config
    hidden = int(cfg.get("hidden_size") or 0)
    out: dict[str, tuple[int, int]] = {}
    expert = int(cfg.get("moe_intermediate_size") or 0)
    shared = int(cfg.get("shared_expert_intermediate_size") or expert * int(cfg.get("n_shared_experts") or 0))
    widths = {"experts": expert, "shared_expert": shared}
    for kind, inter in widths.items():
        if inter:
            out.update(
                {
                    f"{kind}.gate_proj": (hidden, inter),
                    f"{kind}.up_proj": (hidden, inter),
                    f"{kind}.down_proj": (inter, hidden),
                }
            )
    return out


def check_base(info: AdapterInfo, base_folder: Path, base_name: str | None = None) -> None:
    """Raise :class:`AdapterError` with the reason when ``info`` was not made for this base model."""
    config = read_config(Path(base_folder))
    label = base_name or Path(base_folder).name
    trained_on = f" (it was trained on {info.base_model})" if info.base_model else ""
    layers = num_layers(config)
    if layers and info.num_layers > layers:
        raise AdapterError(
            f"The adapter does not fit '{label}'{trained_on}: it adapts {info.num_layers} layers, "
            f"'{label}' has {layers}"
        )
    dims = {**projection_shapes(config), **expert_shapes(config)}
    for (layer, module, side), shape in sorted(info.shapes.items()):
        if module not in dims or len(shape) != 2:
            continue  # a module we do not know the shape of: vLLM checks it at load
        fan_in, fan_out = dims[module]
        want = (shape[0], fan_in) if side == "A" else (fan_out, shape[1])
        if shape != want:
            width = "input" if side == "A" else "output"
            raise AdapterError(
                f"The adapter does not fit '{label}'{trained_on}: layer {layer} {module} has {width} width "
                f"{shape[1] if side == 'A' else shape[0]}, '{label}' has {fan_in if side == 'A' else fan_out}"
            )


def check_rank(info: AdapterInfo, max_lora_rank: int | None) -> None:
    limit = max_lora_rank or DEFAULT_MAX_LORA_RANK
    if info.rank > limit:
        raise AdapterError(
            f"The adapter's rank is {info.rank}, larger than this engine's max_lora_rank {limit}: "
            f"load the model with max_lora_rank {rank_slot(info.rank)} or more"
        )


def rank_slot(rank: int) -> int:
    """The smallest ``max_lora_rank`` vLLM accepts that holds ``rank``."""
    for r in VLLM_LORA_RANKS:
        if r >= rank:
            return r
    raise AdapterError(f"Rank {rank} is larger than vLLM's largest max_lora_rank ({VLLM_LORA_RANKS[-1]})")


def write_null_adapter(folder: Path, base_folder: Path) -> Path:
    """A rank-1 adapter of all-zero weights on ``q_proj`` of every layer: the base model's own
    answers through the LoRA path (the CPU build's workaround, ``console/engine/adapters.py``)."""
    import numpy as np
    from safetensors.numpy import save_file

    config = read_config(Path(base_folder))
    fan_in, fan_out = projection_shapes(config)["q_proj"]
    prefix = "base_model.model.model.layers"
    tensors = {}
    for layer in range(num_layers(config)):
        tensors[f"{prefix}.{layer}.self_attn.q_proj.lora_A.weight"] = np.zeros((1, fan_in), dtype=np.float32)
        tensors[f"{prefix}.{layer}.self_attn.q_proj.lora_B.weight"] = np.zeros((fan_out, 1), dtype=np.float32)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    save_file(tensors, str(folder / "adapter_model.safetensors"))
    (folder / "adapter_config.json").write_text(
        json.dumps(
            {
                "peft_type": "LORA",
                "r": 1,
                "lora_alpha": 1,
                "target_modules": ["q_proj"],
                "bias": "none",
                "base_model_name_or_path": str(base_folder),
                "task_type": "CAUSAL_LM",
            }
        ),
        encoding="utf-8",
    )
    return folder


__all__ = [
    "AdapterError",
    "AdapterInfo",
    "VLLM_LORA_RANKS",
    "check_base",
    "check_rank",
    "expert_shapes",
    "inspect_adapter",
    "is_adapter_folder",
    "rank_slot",
]
