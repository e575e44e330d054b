"""Per-family calibration: what vLLM really allocated for each model family, keyed by GPU, vLLM
version and family (the config's ``model_type`` and the checkpoint's quantization).

The shipped file ``resources/calibration/families.json`` is fitted from loads measured on a GPU
(``benchmarks/gpu/fit_check.py``: every curated checkpoint's published config with dummy weights)
by :func:`fit_families`; its ``loads`` are the records it was fitted from, replayed by the tests.
For each family it holds:

* ``weights_scale``: the weights vLLM reported over the planner's estimate (rotary caches,
  quantization scales, packing, what stays 16-bit);
* ``activation_scale``: the profile run's peak activation over the planner's estimate (eager; a
  compiled engine adds ``compile_extra_bytes`` per 8,192 batched tokens, measured in pairs);
* ``graphs_scale``: the CUDA graphs' memory over the estimate, where a compiled load was measured;
* ``compile_extra_bytes``: the family's own compiled-minus-eager peak, where it was measured both
  ways (other families use the file's ``compile_extra_bytes``: the median of the measured pairs).

A plan says how well it is covered (:func:`coverage`): a fit for this GPU and the vLLM release whose
rules it follows, a fit from another GPU or release, or none; the planner holds back a stated margin
for every step away from an exact fit (:mod:`console.planner.overheads`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from console.paths import resources_dir
from console.planner.gpus import GiB
from console.planner.shapes import ModelShape

FORMAT = 1


@dataclass(frozen=True)
class FamilyFit:
    gpu: str
    vllm_version: str
    family: str  # "gemma3_text/fp8": model_type / quantization ("bf16" when none)
    weights_scale: float = 1.0
    activation_scale: float = 1.0
    graphs_scale: float | None = None
    loads: int = 0
    #: what a compiled engine's profile run adds for this family, per 8,192 batched tokens, where
    #: the family was measured both ways (Gemma-3 adds far more than the dense Llama-likes)
    compile_extra_bytes: int | None = None


@dataclass(frozen=True)
class FamilyCalibration:
    fits: tuple[FamilyFit, ...] = ()
    non_torch_bytes: int = int(0.22 * GiB)
    compile_extra_bytes: int = int(0.34 * GiB)
    source: str = ""
    path: str = ""

    def find(self, gpu: str, version: str, family: str) -> tuple[FamilyFit | None, str]:
        """The best fit for ``family`` and how close it is: "exact" (this GPU and release),
        "other-gpu", "other-version", "other-gpu-and-version" or "none"."""
        same = [f for f in self.fits if f.family == family]
        for want, label in (
            (lambda f: f.gpu == gpu and f.vllm_version == version, "exact"),
            (lambda f: f.vllm_version == version, "other-gpu"),
            (lambda f: f.gpu == gpu, "other-version"),
            (lambda f: True, "other-gpu-and-version"),
        ):
            found = [f for f in same if want(f)]
            if found:
                return max(found, key=lambda f: (f.loads, f.vllm_version)), label
        return None, "none"


def family_key(shape: ModelShape, quantization: str | None) -> str:
    return f"{shape.family or 'unknown'}/{quantization or 'bf16'}"


def families_path() -> Path:
    return resources_dir() / "calibration" / "families.json"


def parse_families(data: Any, where: str) -> FamilyCalibration:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{where}: not a family calibration of format {FORMAT}")
    fits = []
    for item in data.get("fits", []):
        fits.append(
            FamilyFit(
                gpu=str(item["gpu"]),
                vllm_version=str(item["vllm_version"]),
                family=str(item["family"]),
                weights_scale=float(item.get("weights_scale", 1.0)),
                activation_scale=float(item.get("activation_scale", 1.0)),
                graphs_scale=float(item["graphs_scale"]) if item.get("graphs_scale") else None,
                loads=int(item.get("loads", 0)),
                compile_extra_bytes=int(item["compile_extra_bytes"]) if "compile_extra_bytes" in item else None,
            )
        )
    return FamilyCalibration(
        fits=tuple(fits),
        non_torch_bytes=int(data.get("non_torch_bytes", 0.22 * GiB)),
        compile_extra_bytes=int(data.get("compile_extra_bytes", 0.34 * GiB)),
        source=str(data.get("source", "")),
        path=where,
    )


@lru_cache(maxsize=4)
def _load(path: str, mtime_ns: int) -> FamilyCalibration:
    return parse_families(json.loads(Path(path).read_text(encoding="utf-8")), path)


def family_calibration(path: Path | None = None) -> FamilyCalibration:
    """The shipped family calibration (an empty one when the file is missing)."""
    p = path or families_path()
    if not p.is_file():
        return FamilyCalibration()
    return _load(str(p), p.stat().st_mtime_ns)


def fit_families(records: list[dict[str, Any]], estimate: Any) -> dict[str, Any]:
    """The family calibration document fitted from measured loads. ``records``: fit_check.py's
    lines (each with ``gpu``, ``vllm_version``, ``config``, ``engine_args``, ``report``, ``mode``);
    ``estimate(record) -> (weights_bytes, activation_bytes, graphs_bytes)``: the planner's own
    estimates for the record (uncalibrated), so the scales are in the planner's terms."""
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    non_torch: list[float] = []
    for r in records:
        rep = r["report"]
        if rep.get("weights_gib") is None or rep.get("peak_activation_gib") is None:
            continue
        shape = ModelShape.from_hf_config(r["config"], r.get("shape", ""))
        quant = r["engine_args"].get("quantization")
        key = (r["gpu"], r["vllm_version"], family_key(shape, _family_of_quant(quant) or shape.quantization))
        groups.setdefault(key, []).append(r)
        if rep.get("non_torch_gib") is not None:
            non_torch.append(float(rep["non_torch_gib"]))
    pairs = _compile_pairs(records)
    by_family: dict[str, float] = {}
    for family, extra_gib in pairs:
        by_family[family] = max(extra_gib, by_family.get(family, 0.0))
    values = sorted(v for _, v in pairs)
    compile_extra = values[(len(values) - 1) // 2] if values else 0.34  # the median pair (the lower of two)
    fits = []
    for (gpu, version, family), rs in sorted(groups.items()):
        w_meas = w_est = a_meas = a_est = g_meas = g_est = 0.0
        for r in rs:
            rep = r["report"]
            w, a, g = estimate(r)
            w_meas += rep["weights_gib"] * GiB
            w_est += w
            extra = (
                by_family.get(family, compile_extra) * GiB * r["engine_args"]["max_num_batched_tokens"] / 8192
                if r["mode"] == "compiled"
                else 0
            )
            a_meas += rep["peak_activation_gib"] * GiB - extra
            a_est += a
            if r["mode"] == "compiled" and rep.get("cuda_graph_gib"):
                g_meas += rep["cuda_graph_gib"] * GiB
                g_est += g
        fits.append(
            {
                "gpu": gpu,
                "vllm_version": version,
                "family": family,
                "weights_scale": round(w_meas / w_est, 4),
                "activation_scale": round(a_meas / a_est, 4),
                **({"graphs_scale": round(g_meas / g_est, 4)} if g_est else {}),
                **({"compile_extra_bytes": int(by_family[family] * GiB)} if family in by_family else {}),
                "loads": len(rs),
            }
        )
    return {
        "format": FORMAT,
        "non_torch_bytes": int(max(non_torch, default=0.22) * GiB),
        "compile_extra_bytes": int(compile_extra * GiB),
        "compile_extra_pairs_gib": [round(p, 3) for _, p in pairs],
        "fits": fits,
    }


def _family_of_quant(name: str | None) -> str | None:
    """The planner's quantization family of an engine argument ("awq_marlin" -> "awq")."""
    if not name:
        return None
    for family in ("awq", "gptq", "fp8", "mxfp4"):
        if family in name.lower():
            return family
    return name


def _compile_pairs(records: list[dict[str, Any]]) -> list[tuple[str, float]]:
    """(family key, peak activation compiled minus eager in GiB per 8,192 batched tokens) for the
    loads measured both ways."""
    by: dict[tuple[str, int, int], dict[str, float]] = {}
    families: dict[tuple[str, int, int], str] = {}
    for r in records:
        a = r["engine_args"]
        shape = ModelShape.from_hf_config(r["config"], r.get("shape", ""))
        quant = _family_of_quant(a.get("quantization")) or shape.quantization
        key = (f"{r.get('shape')}/{quant}", a["max_num_batched_tokens"], a["max_num_seqs"])
        families[key] = family_key(shape, quant)
        if r["report"].get("peak_activation_gib") is not None:
            by.setdefault(key, {})[r["mode"]] = float(r["report"]["peak_activation_gib"]) * 8192 / key[1]
    return [(families[k], m["compiled"] - m["eager"]) for k, m in by.items() if "compiled" in m and "eager" in m]


__all__ = ["FamilyCalibration", "FamilyFit", "family_calibration", "family_key", "fit_families", "parse_families"]
