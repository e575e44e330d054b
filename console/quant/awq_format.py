"""Reading AWQ GEMM checkpoints back: dequantize, and check the scaling against the source.

AWQ moves a per-input-channel scale ``s`` from the RMSNorm into the next Linear layers:
``norm' = norm / s`` and ``W' = W * s``, so the product ``norm' * W'`` must equal ``norm * W`` up to
int4 rounding. :func:`check_scaling` dequantizes the checkpoint and measures exactly that, plus the
log-log slope of the column growth of ``W'`` against ``s`` (1 when the scale is applied once; 2 is
the CPU double-scale bug fixed in :mod:`console.quant.awq_patch`). It needs torch and safetensors
only, not AutoAWQ.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

AWQ_REVERSE_ORDER = [0, 4, 1, 5, 2, 6, 3, 7]

# (norm that feeds the projections, one projection it feeds)
_NORM_PAIRS = (("input_layernorm", "self_attn.q_proj"), ("post_attention_layernorm", "mlp.gate_proj"))


def load_tensors(folder: Path) -> dict[str, Any]:
    from safetensors.torch import load_file

    tensors: dict[str, Any] = {}
    for f in sorted(Path(folder).glob("*.safetensors")):
        tensors.update(load_file(str(f)))
    return tensors


def awq_config(folder: Path) -> dict[str, Any]:
    cfg = json.loads((Path(folder) / "config.json").read_text(encoding="utf-8"))
    q = cfg.get("quantization_config") or {}
    if q.get("quant_method") != "awq":
        raise ValueError(f"{folder} is not an AWQ checkpoint (quantization_config: {q or 'none'})")
    return q


def dequantize_gemm(qweight: Any, qzeros: Any, scales: Any, bits: int, group_size: int) -> Any:
    """Unpack AWQ GEMM tensors (``qweight`` [in, out/8] int32) into a float [out, in] weight."""
    import torch

    shifts = torch.arange(0, 32, bits, dtype=torch.int32)
    mask = (1 << bits) - 1
    iw = ((qweight[:, :, None] >> shifts[None, None, :]) & mask).reshape(qweight.shape[0], -1)
    iz = ((qzeros[:, :, None] >> shifts[None, None, :]) & mask).reshape(qzeros.shape[0], -1)
    order = torch.arange(iw.shape[1]).view(-1, 32 // bits)[:, AWQ_REVERSE_ORDER].reshape(-1)
    iw, iz = iw[:, order], iz[:, order]
    s = scales.float().repeat_interleave(group_size, dim=0)
    z = iz.repeat_interleave(group_size, dim=0).float()
    return ((iw.float() - z) * s).t().contiguous()


def dequantize_checkpoint(folder: Path) -> dict[str, Any]:
    """Every tensor of an AWQ checkpoint with quantized Linear layers turned back into ``.weight``."""
    q = awq_config(folder)
    bits, group = int(q.get("bits", 4)), int(q.get("group_size", 128))
    raw = load_tensors(folder)
    out: dict[str, Any] = {}
    for name, t in raw.items():
        if name.endswith(".qweight"):
            base = name[: -len(".qweight")]
            out[base + ".weight"] = dequantize_gemm(t, raw[base + ".qzeros"], raw[base + ".scales"], bits, group)
        elif not name.endswith((".qzeros", ".scales")):
            out[name] = t.float()
    return out


@dataclass(frozen=True)
class ScalingCheck:
    slope: float  # log-log slope of W' column growth against s: 1 when correct
    product_rel_error: float  # ||norm' * W' - norm * W|| / ||norm * W|| over all checked pairs
    log_s_spread: float  # std of log s; the slope means little when the scales barely vary
    pairs: int

    @property
    def ok(self) -> bool:
        slope_ok = self.log_s_spread < 0.05 or abs(self.slope - 1.0) < 0.3
        return slope_ok and self.product_rel_error < 0.35

    def describe(self) -> str:
        return (
            f"scale slope {self.slope:.2f} (1 expected), norm x weight error "
            f"{100 * self.product_rel_error:.1f}% over {self.pairs} layer pairs"
        )


def check_scaling(source: Path, quantized: Path) -> ScalingCheck:
    """Compare ``norm * W`` of the source with ``norm' * dequant(W')`` of the AWQ checkpoint."""
    import torch

    src = load_tensors(source)
    deq = dequantize_checkpoint(quantized)
    xs, ys, num, den, pairs = [], [], 0.0, 0.0, 0
    layer = 0
    while f"model.layers.{layer}.input_layernorm.weight" in src:
        for norm, proj in _NORM_PAIRS:
            n_key, w_key = f"model.layers.{layer}.{norm}.weight", f"model.layers.{layer}.{proj}.weight"
            if w_key not in deq or n_key not in deq:
                continue
            n0, w0 = src[n_key].float(), src[w_key].float()
            n1, w1 = deq[n_key], deq[w_key]
            a0, a1 = w0 * n0[None, :], w1 * n1[None, :]
            num += float((a1 - a0).pow(2).sum())
            den += float(a0.pow(2).sum())
            s = n0 / n1
            growth = w1.norm(dim=0) / w0.norm(dim=0).clamp_min(1e-12)
            keep = (s > 0) & torch.isfinite(s) & (growth > 0)
            xs.append(torch.log(s[keep]))
            ys.append(torch.log(growth[keep]))
            pairs += 1
        layer += 1
    if not pairs:
        raise ValueError(f"{quantized}: no norm/projection pairs to compare (not a Llama-style model?)")
    x, y = torch.cat(xs), torch.cat(ys)
    xc = x - x.mean()
    var = float((xc * xc).sum())
    slope = float((xc * (y - y.mean())).sum()) / var if var > 0 else 1.0
    return ScalingCheck(
        slope=slope, product_rel_error=(num / den) ** 0.5 if den else 0.0, log_s_spread=float(x.std()), pairs=pairs
    )
