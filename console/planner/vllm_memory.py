"""What vLLM holds on a GPU beside the KV cache, counted the way its start-up does it, with a few
constants measured per GPU and vLLM release (``resources/calibration/vllm-memory.json``).

vLLM sizes the KV cache as ``total x gpu_memory_utilization`` less three figures it measures at start
(its "Actual usage is ..." line; read from ``v1/worker/gpu_worker.py`` and the model runners):

* **weights**: the bytes torch holds after loading. The planner counts the checkpoint's parameters
  (quantized linears at their format's width, the rest 16-bit) and the rotary embeddings' cos/sin
  caches (one per distinct rope: Gemma-3's global rope, linear x 8, holds 1M positions, 512 MiB);
  what quantization's post-processing adds or keeps (scales, repacked Marlin tensors) is one
  measured share of the quantized linears' bytes per format (``weights_extra``), the same for
  every architecture.
* **peak activation**: the torch peak of the profile run, one forward pass of
  ``max_num_batched_tokens`` tokens without attention, then the sampler on ``min(max_num_seqs,
  tokens)`` rows. The forward pass peaks in the MLP: the residual, the layer's input and output
  (three hidden-size rows a token) beside the gate/up output and its activation (three
  intermediate-size rows), 16-bit; a mixture of experts holds the fused-MoE kernel's workspaces for
  each routed copy of a token instead. The sampler phase holds the hidden states and the logits:
  the v2 model runner (dense models) keeps them in the model's dtype and works in place, the v1
  runner (a mixture of experts in 0.26) adds a float32 copy. The peak is the larger phase. A
  compiled engine's first profile run also compiles the model: inductor benchmarks its fused
  kernels on random copies of their arguments (``benchmark_combo_kernel``, which vLLM turns on),
  the largest being the embedding gather with the first norm: the embedding table and two
  ``[tokens, hidden]`` outputs. Nothing there grows with ``max_num_seqs``.
* **non-torch** memory (NCCL, cuBLAS workspaces): a constant per GPU and release.

CUDA graphs are captured after the cache is sized (outside the budget in 0.26 for dense models);
their size is the planner's estimate times the release's ``graphs_scale``.

Each release's constants come with the error they leave on loads they were not fitted to
(``held_out``: every architecture left out of the fit in turn, its loads predicted): a plan states that
error and holds back the measured share of its own non-KV figure, not a blanket margin.
"""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from console.paths import resources_dir
from console.planner.gpus import GiB
from console.planner.shapes import ModelShape

FORMAT = 1
#: The weight formats the constants distinguish: the planner's quantization family (16-bit as "bf16"),
#: "-ct" for a compressed-tensors checkpoint (vLLM loads it through other kernels than the family's own
#: format), "-moe" for a mixture of experts (its experts go through the fused-MoE kernels).
WEIGHT_FORMATS = (
    "bf16",
    "bf16-moe",
    "fp8",
    "fp8-ct",
    "fp8-moe",
    "awq",
    "awq-moe",
    "gptq",
    "gptq-ct",
    "gptq-moe",
    "mxfp4-moe",
)
#: The sampler's logits in the profile run, bytes a value: the v2 model runner (vLLM 0.26's for dense
#: models) keeps the model's 16-bit logits and applies the sampling parameters in place; the v1
#: runner (a mixture of experts) holds a float32 copy beside them (``v1/sample/sampler.py``).
SAMPLER_BYTES_PER_LOGIT = 2
SAMPLER_BYTES_PER_LOGIT_V1 = 2 + 4
#: Architectures whose vLLM code builds the rotary cache in float32 (``gpt_oss.py``).
ROPE_FLOAT32 = frozenset({"gpt_oss"})


@dataclass(frozen=True)
class HeldOut:
    """The error the constants leave on loads they were not fitted to (leave one architecture out)."""

    loads: int = 0
    families: int = 0
    #: KV tokens predicted over measured - 1: the median of |error|, the most optimistic, the most pessimistic
    kv_median_abs: float = 0.0
    kv_most_optimistic: float = 0.0
    kv_most_pessimistic: float = 0.0
    #: what the plan holds back: this share of its own non-KV estimate (weights + activation peak),
    #: by which three in four held-out loads' non-KV memory exceeded their prediction at most
    non_kv_share: float = 0.0
    #: the largest share by which a held-out load's non-KV memory exceeded its prediction
    non_kv_worst: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "loads": self.loads,
            "families": self.families,
            "kv_median_abs": round(self.kv_median_abs, 4),
            "kv_most_optimistic": round(self.kv_most_optimistic, 4),
            "kv_most_pessimistic": round(self.kv_most_pessimistic, 4),
            "non_kv_share": round(self.non_kv_share, 4),
            "non_kv_worst": round(self.non_kv_worst, 4),
        }


@dataclass(frozen=True)
class ReleaseConstants:
    """The measured constants of one GPU and vLLM release."""

    gpu: str
    vllm_version: str
    weights_extra: dict[str, float] = field(default_factory=dict)
    activation_moe: float = 1.0
    non_torch_bytes: int = int(0.22 * GiB)
    graphs_scale: float = 1.0
    loads: int = 0
    held_out: dict[str, HeldOut] = field(default_factory=dict)  # "eager" / "compiled"
    #: where vLLM's code for an architecture (config ``model_type``) holds more or less than the
    #: release's rule, measured on its own loads, in the rule's units, so that they carry to the
    #: architecture's other sizes: "weights" (share of the quantized linears' bytes), "activation"
    #: (share of the forward peak, eager) and "compiled" (bytes a compiled engine's peak adds beyond
    #: the release's rule; none where the rule holds within 0.05 GiB)
    architectures: dict[str, dict[str, float]] = field(default_factory=dict)

    def residual(self, model_type: str | None, term: str) -> float:
        return self.architectures.get(model_type or "", {}).get(term, 0.0)

    def weights_extra_share(self, fmt: str) -> float:
        """The measured share for ``fmt``; an unmeasured format takes its family's (the same
        quantization, another loader), else the largest measured (the safe side)."""
        if fmt in self.weights_extra:
            return self.weights_extra[fmt]
        family = fmt.split("-")[0]
        related = [v for k, v in self.weights_extra.items() if k.split("-")[0] == family]
        return max(related or list(self.weights_extra.values()) or [0.0])

    def error(self, eager: bool) -> HeldOut:
        return self.held_out.get("eager" if eager else "compiled") or self.held_out.get("eager") or HeldOut()

    def to_dict(self) -> dict[str, Any]:
        return {
            "gpu": self.gpu,
            "vllm_version": self.vllm_version,
            "weights_extra": {k: round(v, 4) for k, v in sorted(self.weights_extra.items())},
            "activation_moe": round(self.activation_moe, 4),
            "non_torch_bytes": self.non_torch_bytes,
            "graphs_scale": round(self.graphs_scale, 4),
            "loads": self.loads,
            "held_out": {k: v.to_dict() for k, v in sorted(self.held_out.items())},
            "architectures": {
                k: {t: round(x, 4) for t, x in sorted(v.items())} for k, v in sorted(self.architectures.items())
            },
        }


@dataclass(frozen=True)
class MemoryConstants:
    releases: tuple[ReleaseConstants, ...] = ()
    source: str = ""
    path: str = ""

    def find(self, gpu: str, version: str) -> tuple[ReleaseConstants | None, str]:
        """The constants for ``gpu`` and ``version`` and how close they are: "exact", "other-gpu"
        (this release, another GPU), "other-version", "other-gpu-and-version" or "none"."""
        for want, label in (
            (lambda r: r.gpu == gpu and r.vllm_version == version, "exact"),
            (lambda r: r.vllm_version == version, "other-gpu"),
            (lambda r: r.gpu == gpu, "other-version"),
            (lambda r: True, "other-gpu-and-version"),
        ):
            found = [r for r in self.releases if want(r)]
            if found:
                return max(found, key=lambda r: (r.loads, r.vllm_version)), label
        return None, "none"


# -- the arithmetic --------------------------------------------------------------------------------
def weight_format(shape: ModelShape, quantization: str | None) -> str:
    """The format key of ``shape`` loaded with ``quantization`` (see :data:`WEIGHT_FORMATS`)."""
    fmt = quantization or "bf16"
    if quantization and quantization == shape.quantization and shape.quant_variant in ("channel", "tensor", "group"):
        fmt += "-ct"
    return fmt + ("-moe" if shape.is_moe else "")


def quantized_bytes(shape: ModelShape, bits: float, experts_only: bool) -> float:
    """The bytes of the linears a quantization format covers (16-bit: every linear)."""
    n = shape.layers
    quantized = n * shape.num_experts * shape.expert_params if experts_only else n * shape.linear_params_per_layer
    return quantized * bits / 8


#: Architectures whose vLLM MLP keeps its gate/up output bound while the down projection runs
#: (``gate_up, _ = self.gate_up_proj(x); x = self.act_fn(gate_up)``: Qwen2MLP, which Qwen3 reuses,
#: Gemma3MLP, Granite, StableLM); Llama's (Mistral's, Phi-3's) rebinds ``x`` and frees it.
MLP_KEEPS_GATE_UP = frozenset({"qwen2", "qwen3", "gemma3_text", "gemma3", "granite", "stablelm"})


def forward_peak(shape: ModelShape, tokens: int, tp: int = 1, quantization: str | None = None) -> int:
    """The profile run's forward peak before any constant (bytes), eager: the MLP of one layer on
    ``tokens`` tokens, or a mixture of experts' fused-kernel workspaces per routed copy. Beside the
    layer's input, the residual and the normed input (three hidden-size rows a token, 16-bit) the
    MLP holds gate/up and its activation (three intermediate-size rows); where the architecture
    keeps gate/up through the down projection (:data:`MLP_KEEPS_GATE_UP`) that runs beside them
    with its output (a fourth hidden-size row) and, for FP8 weights (W8A8), its 8-bit input and
    scales (per 128-wide group for block FP8, per token otherwise)."""
    h = shape.hidden_size
    if shape.is_moe:
        n = shape.moe_intermediate_size // tp
        per_token = shape.experts_per_token * (max(2 * n, h) + max(n, h) + 2 * n) + 3 * h
        return tokens * per_token * 2
    i = shape.intermediate_size // tp
    quantized_input = 0
    if quantization == "fp8":
        quantized_input = i + (i // 32 if shape.quant_variant == "block" else 4)
    kept = 2 * i if shape.model_type in MLP_KEEPS_GATE_UP else 0
    down = (4 * h + i + kept) * 2 + quantized_input
    return tokens * max((3 * h + 3 * i) * 2, down)


def rope_cache_bytes(shape: ModelShape) -> int:
    """The rotary embeddings' cos/sin caches vLLM holds beside the weights (every GPU its own copy):
    the config's (``config_keys.rope_cache_elements``), else one rope of ``max_position`` rows."""
    elements = int(shape.extra.get("rope") or shape.max_position_embeddings * shape.head_dim)
    return elements * (4 if shape.model_type in ROPE_FLOAT32 else shape.weight_bytes)


def compile_benchmark_peak(shape: ModelShape, tokens: int, tp: int = 1) -> int:
    """What a compiled engine's first profile run holds while inductor benchmarks the embedding
    gather fused with the first norm on random copies of its arguments: the embedding table (its
    rank's share, vocabulary padded to 64), the token ids and two ``[tokens, hidden]`` outputs."""
    wb = shape.weight_bytes
    table = -(-shape.vocab_size // 64) * 64 // tp * shape.hidden_size * wb
    return table + tokens * 8 + 2 * tokens * shape.hidden_size * wb


def sampler_peak(shape: ModelShape, tokens: int, seqs: int) -> int:
    """The sampler phase of the profile run: the hidden states kept, the rows gathered for the
    ``min(seqs, tokens)`` requests and their logits (see :data:`SAMPLER_BYTES_PER_LOGIT`)."""
    rows = min(seqs, tokens)
    per_logit = SAMPLER_BYTES_PER_LOGIT_V1 if shape.is_moe else SAMPLER_BYTES_PER_LOGIT
    return (tokens + rows) * shape.hidden_size * 2 + rows * shape.vocab_size * per_logit


def activation_bytes(
    shape: ModelShape,
    tokens: int,
    seqs: int,
    tp: int,
    eager: bool,
    constants: ReleaseConstants | None,
    quantization: str | None = None,
) -> int:
    """vLLM's "peak activation" for these scheduler figures (without its non-torch memory)."""
    c = constants or ReleaseConstants(gpu="?", vllm_version="?")
    forward, sampler = forward_peak(shape, tokens, tp, quantization), sampler_peak(shape, tokens, seqs)
    compile_peak = compile_benchmark_peak(shape, tokens, tp)
    return int(_activation(forward, sampler, compile_peak, shape.is_moe, shape.model_type, eager, c))


def _activation(
    forward: float,
    sampler: float,
    compile_peak: float,
    moe: bool,
    model_type: str | None,
    eager: bool,
    c: ReleaseConstants,
) -> float:
    """The rule: the larger phase, the forward count with the architecture's measured residual; a
    compiled engine's compile-time benchmark as a third phase, and the architecture's measured bytes."""
    scale = c.activation_moe if moe else 1.0
    peak = max(forward * (scale + c.residual(model_type, "activation")), sampler)
    if eager:
        return peak
    return max(peak, compile_peak) + c.residual(model_type, "compiled")


# -- the shipped file --------------------------------------------------------------------------------
def constants_path() -> Path:
    return resources_dir() / "calibration" / "vllm-memory.json"


def parse_constants(data: Any, where: str) -> MemoryConstants:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{where}: not a vLLM memory constants file of format {FORMAT}")
    releases = []
    for item in data.get("releases", []):
        releases.append(
            ReleaseConstants(
                gpu=str(item["gpu"]),
                vllm_version=str(item["vllm_version"]),
                weights_extra={str(k): float(v) for k, v in item.get("weights_extra", {}).items()},
                activation_moe=float(item.get("activation_moe", 1.0)),
                non_torch_bytes=int(item.get("non_torch_bytes", 0.22 * GiB)),
                graphs_scale=float(item.get("graphs_scale", 1.0)),
                loads=int(item.get("loads", 0)),
                held_out={str(k): HeldOut(**v) for k, v in item.get("held_out", {}).items()},
                architectures={
                    str(k): {str(t): float(x) for t, x in v.items()} for k, v in item.get("architectures", {}).items()
                },
            )
        )
    return MemoryConstants(releases=tuple(releases), source=str(data.get("source", "")), path=where)


@lru_cache(maxsize=4)
def _load(path: str, mtime_ns: int) -> MemoryConstants:
    return parse_constants(json.loads(Path(path).read_text(encoding="utf-8")), path)


def memory_constants() -> MemoryConstants:
    """The shipped constants (empty when the file is missing)."""
    path = constants_path()
    if not path.is_file():
        return MemoryConstants()
    return _load(str(path), path.stat().st_mtime_ns)


# -- the fit (benchmarks/gpu/fit_report.py; the tests replay it) -------------------------------------
@dataclass(frozen=True)
class LoadTerms:
    """One measured load in the planner's terms: what vLLM reported beside the model's arithmetic."""

    model_type: str
    fmt: str
    eager: bool
    moe: bool
    weights: float  # vLLM's weight figure
    weights_raw: float  # the planner's parameter count at the format's width, with the rope caches
    quantized: float  # the quantized linears' bytes
    activation: float  # vLLM's peak activation
    forward: float  # forward_peak
    sampler: float  # sampler_peak
    compile_peak: float  # compile_benchmark_peak
    tokens: int
    non_torch: float
    graphs: float | None
    graphs_estimate: float
    budget: float  # total x utilization - what the KV cache does not hold outside these terms
    kv_bytes: float  # what vLLM gave the KV cache


def _ceil3(x: float) -> float:
    return math.ceil(x * 1000) / 1000


def _quantile(values: list[float], q: float) -> float:
    """The ``q`` quantile, interpolated between the sorted values."""
    v = sorted(values)
    pos = q * (len(v) - 1)
    lo = int(pos)
    return v[lo] + (v[min(lo + 1, len(v) - 1)] - v[lo]) * (pos - lo)


def _median(values: list[float], default: float) -> float:
    return statistics.median(values) if values else default


def fit_release(gpu: str, version: str, loads: list[LoadTerms], architectures: bool = True) -> ReleaseConstants:
    """The constants of one GPU and release from its loads (medians: one odd load moves nothing),
    with each measured architecture's residual unless ``architectures`` is False. The dense forward
    count is vLLM's own (not fitted); a mixture of experts' scale is the largest measured (few loads,
    each through other kernels: the safe side)."""
    extra: dict[str, float] = {}
    for fmt in WEIGHT_FORMATS:
        shares = [(x.weights - x.weights_raw) / x.quantized for x in loads if x.fmt == fmt and x.quantized]
        if shares:
            extra[fmt] = max(0.0, _median(shares, 0.0))
    moe = [x.activation / x.forward for x in loads if x.eager and x.moe and x.forward >= x.sampler]
    moe_scale = max(moe, default=1.0)
    graphs = [x.graphs / x.graphs_estimate for x in loads if x.graphs and x.graphs_estimate]
    non_torch = [x.non_torch for x in loads]
    release = ReleaseConstants(
        gpu=gpu,
        vllm_version=version,
        weights_extra=extra,
        activation_moe=moe_scale,
        non_torch_bytes=int(max(non_torch, default=0.22 * GiB)),
        graphs_scale=max(graphs, default=1.0),
        loads=len(loads),
    )
    if not architectures:
        return release
    residuals = _eager_residuals(release, loads)
    with_eager = replace(release, architectures=residuals)
    for model_type in sorted({x.model_type for x in loads}):
        comp = [
            x.activation + x.non_torch - predicted_non_kv(x, with_eager)[1]
            for x in loads
            if x.model_type == model_type and not x.eager
        ]
        if comp and abs(_median(comp, 0.0)) >= 0.05 * GiB:  # under 0.05 GiB: the release's rule holds
            residuals.setdefault(model_type, {})["compiled"] = _median(comp, 0.0)
    return replace(release, architectures=residuals)


#: vLLM logs its memory figures in GiB with two decimals: a residual worth less is not measured
RESOLUTION = 0.01 * GiB


def _eager_residuals(release: ReleaseConstants, loads: list[LoadTerms]) -> dict[str, dict[str, float]]:
    """Each architecture's weights and eager-activation residual over the release's rule (medians of
    its loads, in the rule's units; under half a percent, or worth less than vLLM's figures resolve
    (:data:`RESOLUTION`): the rule holds, nothing kept)."""
    residuals: dict[str, dict[str, float]] = {}
    for model_type in sorted({x.model_type for x in loads}):
        own = [x for x in loads if x.model_type == model_type]
        w = [(x.weights - predicted_non_kv(x, release)[0]) / x.quantized for x in own if x.quantized]
        eager_own = [x for x in own if x.eager and x.forward * _scale(x, release) >= x.sampler]
        a = [(x.activation + x.non_torch - predicted_non_kv(x, release)[1]) / x.forward for x in eager_own]
        terms = {"weights": _median(w, 0.0), "activation": _median(a, 0.0)}
        size = {
            "weights": _median([x.quantized for x in own], 0.0),
            "activation": _median([x.forward for x in eager_own], 0.0),
        }
        kept = {k: v for k, v in terms.items() if abs(v) >= 0.005 and abs(v) * size[k] >= RESOLUTION}
        if kept:
            residuals[model_type] = kept
    return residuals


def _scale(x: LoadTerms, c: ReleaseConstants) -> float:
    return c.activation_moe if x.moe else 1.0


def predicted_non_kv(x: LoadTerms, c: ReleaseConstants) -> tuple[float, float]:
    """(weights, activation + non-torch) the constants predict for a load."""
    weights = x.weights_raw + (c.weights_extra_share(x.fmt) + c.residual(x.model_type, "weights")) * x.quantized
    return weights, _activation(
        x.forward, x.sampler, x.compile_peak, x.moe, x.model_type, x.eager, c
    ) + c.non_torch_bytes


def held_out_error(gpu: str, version: str, loads: list[LoadTerms]) -> dict[str, HeldOut]:
    """Leave each architecture (model_type) out of the fit in turn and predict its loads: the KV error and the share
    of the non-KV memory the prediction missed, for eager and compiled loads apart."""
    rows: dict[str, list[tuple[float, float]]] = {"eager": [], "compiled": []}
    fams: dict[str, set[str]] = {"eager": set(), "compiled": set()}
    for model_type in sorted({x.model_type for x in loads}):
        rest = [x for x in loads if x.model_type != model_type]
        if not rest:
            continue
        c = fit_release(gpu, version, rest)
        for x in loads:
            if x.model_type != model_type or x.kv_bytes <= 0:
                continue
            w, a = predicted_non_kv(x, c)
            kv = x.budget - w - a
            measured_non_kv = x.weights + x.activation + x.non_torch
            kind = "eager" if x.eager else "compiled"
            rows[kind].append((kv / x.kv_bytes - 1, (measured_non_kv - (w + a)) / (w + a)))
            fams[kind].add(model_type)
    out = {}
    for kind, pairs in rows.items():
        if not pairs:
            continue
        errors = [p[0] for p in pairs]
        out[kind] = HeldOut(
            loads=len(pairs),
            families=len(fams[kind]),
            kv_median_abs=statistics.median(abs(e) for e in errors),
            kv_most_optimistic=max(errors),
            kv_most_pessimistic=min(errors),
            non_kv_share=_ceil3(_quantile([max(0.0, p[1]) for p in pairs], 0.75)),
            non_kv_worst=_ceil3(max(0.0, max(p[1] for p in pairs))),
        )
    return out


__all__ = [
    "FORMAT",
    "HeldOut",
    "LoadTerms",
    "MLP_KEEPS_GATE_UP",
    "MemoryConstants",
    "ReleaseConstants",
    "WEIGHT_FORMATS",
    "activation_bytes",
    "compile_benchmark_peak",
    "constants_path",
    "fit_release",
    "forward_peak",
    "held_out_error",
    "memory_constants",
    "parse_constants",
    "predicted_non_kv",
    "quantized_bytes",
    "rope_cache_bytes",
    "sampler_peak",
    "weight_format",
]
