"""The planner calibrates itself from the user's own loads.

Every engine start on a GPU leaves a :class:`LoadRecord`: the GPU, the vLLM version, the model's
shape, the engine arguments, vLLM's own memory report (:mod:`console.planner.loadlog`), the KV
tokens it sized and NVML's peak. The records of one GPU model live in
``<data home>/calibration/<gpu>/loads.jsonl``; after each one the calibration of that GPU and vLLM
version is refitted from all of its records and written to ``<gpu>/vllm-<version>.json``, which
the planner then prefers to the shipped ``resources/calibration/<gpu>.json`` (see
:func:`console.planner.calibration.find_calibration`).

The fit, in the planner's own terms (so a prediction uses exactly what was fitted):

* ``device_total_bytes``: the total CUDA reports, which vLLM multiplies by the utilization.
* ``weights_scale``: vLLM's weight figure over the planner's estimate (ratio of sums).
* ``activation_peak``: what vLLM took from its budget beside the weights (requested - weights -
  KV: peak activation + non-torch) against the planner's estimate; least squares with 3+ loads
  that differ, else the starting file's slope (none: a constant) with the intercept fitted.
* ``cuda_graphs``: the largest logged / estimated ratio, so no load is under-counted.
* ``cuda_context``: NVML's peak minus everything vLLM accounted for, the largest; without NVML
  figures the starting file's rule is kept.

The starting point is the shipped file: whatever the user's loads cannot determine comes from it.
"""

from __future__ import annotations

import json
import logging
import math
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from console.atomic import atomic_write_text
from console.messages import Message
from console.planner.calibration import (
    Calibration,
    find_calibration,
    own_calibration_dir,
    parse_calibration,
    calibration_dirs,
)
from console.planner.core import compute, Plan, PlanRequest, resolve_calibration
from console.planner.gpus import GPU_PROFILES, GiB, get_gpu
from console.planner.defaults import RECORDED_LOAD_DEFAULTS
from console.planner.loadlog import MemoryReport
from console.planner.shapes import ModelShape

log = logging.getLogger(__name__)
RECORD_FORMAT = 1
MAX_FIT_LOADS = 200  # the newest loads only: a driver or vLLM patch update shifts the figures over time
_ENGINE_KEYS = (
    "quantization",
    "kv_cache_dtype",
    "max_model_len",
    "gpu_memory_utilization",
    "max_num_seqs",
    "max_num_batched_tokens",
    "enforce_eager",
    "kv_cache_memory_bytes",
    "tensor_parallel_size",
    "pipeline_parallel_size",
)


def gpu_key(name: str) -> str:
    """The planner's profile name for an NVML device name ("NVIDIA H200" -> "h200"), else a slug."""
    try:
        return get_gpu(name).name
    except ValueError:
        pass
    slug = "-".join("".join(c if c.isalnum() else " " for c in name.lower()).split())
    for key in GPU_PROFILES:  # "nvidia-h100-80gb-hbm3" -> "h100-80gb"
        if key != "cpu" and (f"-{key}-" in f"-{slug}-"):
            return key
    return slug.removeprefix("nvidia-") or "gpu"


@dataclass(frozen=True)
class LoadRecord:
    gpu: str  # the planner's profile name (or a slug of the device name)
    vllm_version: str
    shape: dict[str, Any]  # ModelShape.to_dict()
    engine_args: dict[str, Any]  # vLLM's names, as the engine ran (see _ENGINE_KEYS)
    report: MemoryReport
    kv_tokens: int
    block_size: int | None = None
    gpu_name: str = ""
    model: str = ""
    time: str = field(default_factory=lambda: datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))
    nvml_peak_used_bytes: float | None = None
    nvml_idle_used_bytes: float | None = None
    device: str = "cuda"
    #: a load vLLM refused (its KV memory, the length it asked for and the longest it named):
    #: kept beside the loads it calibrates from, never fitted as one (kv_tokens is 0)
    refusal: dict[str, Any] | None = None

    @property
    def name(self) -> str:
        return f"{self.model or self.shape.get('name') or 'model'} @ {self.time}"

    def request(self, calibration: Calibration | bool = False) -> PlanRequest:
        shape = ModelShape(**self.shape)
        values = {k: self.engine_args[k] for k in _ENGINE_KEYS if self.engine_args.get(k) is not None}
        values = {**RECORDED_LOAD_DEFAULTS, **values}
        gpu = "cpu" if self.device == "cpu" else self.gpu
        version = self.vllm_version if self.vllm_version and self.vllm_version != "?" else None
        return PlanRequest(shape, gpu=gpu, calibration=calibration, vllm_version=version, **values)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["report"] = self.report.to_dict()
        d["format"] = RECORD_FORMAT
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "LoadRecord":
        d = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        d["report"] = MemoryReport.from_dict(dict(data.get("report") or {}))
        return cls(**d)


# -- storage -----------------------------------------------------------------------------------
def loads_path(gpu: str) -> Path:
    return own_calibration_dir(gpu) / "loads.jsonl"


def read_loads(gpu: str) -> list[LoadRecord]:
    """This machine's records for ``gpu``, oldest first (unreadable lines are skipped)."""
    path = loads_path(gpu)
    out: list[LoadRecord] = []
    if not path.is_file():
        return out
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            out.append(LoadRecord.from_dict(json.loads(line)))
        except (ValueError, TypeError, KeyError):
            log.warning("%s: skipped an unreadable load record", path)
    return out


def record_load(record: LoadRecord) -> Calibration | None:
    """Append ``record`` and refit this GPU and vLLM version's calibration from all its loads.
    Returns the new calibration (None when the record cannot calibrate: CPU, incomplete report)."""
    path = loads_path(record.gpu)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as f:
        f.write(json.dumps(record.to_dict()) + "\n")
    if record.device == "cpu" or not record.report.complete:
        return None  # the CPU engine's KV budget is exact (kv_cache_memory_bytes): nothing to fit
    same = [r for r in read_loads(record.gpu) if r.vllm_version == record.vllm_version and r.report.complete]
    same = same[-MAX_FIT_LOADS:]
    prior = shipped_calibration(record.gpu)
    target = own_calibration_dir(record.gpu) / f"vllm-{record.vllm_version}.json"
    # what the planner said before this load (out of sample): the fit so far, else the shipped file
    before = prior
    if target.is_file():
        try:
            before = parse_calibration(json.loads(target.read_text(encoding="utf-8")), str(target))
        except (OSError, ValueError):  # damaged: refit from the records, compare with the shipped file
            log.warning("%s is unreadable; refitting it from the recorded loads", target)
    data = fit(same, prior, record.gpu, record.vllm_version)
    predicted = predict(record, before)
    data["last_load"].update(
        predicted_before=predicted, error_before=round(predicted / record.kv_tokens - 1, 5), before=status_text(before)
    )
    atomic_write_text(target, json.dumps(data, indent=2) + "\n")
    return parse_calibration(data, str(target))


def shipped_calibration(gpu: str) -> Calibration | None:
    return find_calibration(gpu, dirs=calibration_dirs()[:1])


# -- the fit -----------------------------------------------------------------------------------
def _estimates(record: LoadRecord) -> dict[str, int]:
    p = compute(record.request(calibration=False))
    return {"weights": p.per_gpu[0].weights_bytes, **{k: o.bytes for k, o in p.overheads.items()}}


def _line(xs: list[float], ys: list[float], prior_scale: float | None) -> tuple[float, float]:
    """(scale, add) of y = scale x + add: least squares when 3+ points spread, else the prior slope."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    if n >= 3 and sxx > (0.05 * GiB) ** 2 * n:
        scale = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
        scale = min(max(scale, 0.0), 2.0)
    else:
        scale = prior_scale if prior_scale is not None else 0.0
    return scale, max(0.0, my - scale * mx)


def _plannable(record: LoadRecord) -> bool:
    try:
        record.request()
    except ValueError:
        return False
    return True


def fit(records: list[LoadRecord], prior: Calibration | None, gpu: str, vllm_version: str) -> dict[str, Any]:
    """The calibration file (format 1, user origin) fitted from ``records`` (complete GPU reports)."""
    records = [r for r in records if _plannable(r)]
    if not records:
        raise ValueError("no complete load records to fit")
    est = [_estimates(r) for r in records]
    rep = [r.report for r in records]
    totals = sorted(r.device_total_gib for r in rep if r.device_total_gib)
    total = int(totals[len(totals) // 2] * GiB)
    w_est = sum(e["weights"] for e in est)
    w_log = sum((r.weights or 0.0) * GiB for r in rep)
    w_scale = w_log / w_est if w_est and w_log else 1.0
    prior_act = prior.overheads.get("activation_peak", {}) if prior else {}
    prior_name = Path(prior.path).name if prior and prior.path else "the shipped calibration"
    inherited: dict[str, str] = {}
    act_scale, act_add = _line(
        [e["activation_peak"] for e in est], [(r.outside_kv_gib or 0.0) * GiB for r in rep], prior_act.get("scale")
    )
    overheads: dict[str, dict[str, float]] = {
        "activation_peak": {"scale": round(act_scale, 4), "add_bytes": int(act_add)}
    }
    ratios = [
        r.cuda_graph_gib * GiB / e["cuda_graphs"]
        for r, e in zip(rep, est)
        if r.cuda_graph_gib is not None and e["cuda_graphs"]
    ]
    if ratios:
        overheads["cuda_graphs"] = {"scale": round(max(ratios), 4)}
    elif prior and "cuda_graphs" in prior.overheads:
        overheads["cuda_graphs"] = dict(prior.overheads["cuda_graphs"])
        inherited["cuda_graphs"] = prior_name
    outside = [
        rec.nvml_peak_used_bytes
        - ((r.weights or 0) + (r.outside_kv_gib or 0) + (r.cuda_graph_gib or 0) + (r.kv_budget_gib or 0)) * GiB
        for rec, r in zip(records, rep)
        if rec.nvml_peak_used_bytes
    ]
    if outside and max(outside) > 0:
        overheads["cuda_context"] = {"bytes": int(math.ceil(max(outside) / 2**20)) * 2**20}
    elif prior and "cuda_context" in prior.overheads:
        overheads["cuda_context"] = dict(prior.overheads["cuda_context"])
        inherited["cuda_context"] = prior_name
    n = len(records)
    data: dict[str, Any] = {
        "format": 1,
        "gpu": gpu,
        "origin": "user",
        "vllm_version": vllm_version,
        "loads": n,
        "source": (
            f"Fitted on this machine from {n} load(s) with vLLM {vllm_version}"
            + (f", starting from {Path(prior.path).name}" if prior and prior.path else "")
        ),
        "device_total_bytes": total,
        "weights_scale": round(w_scale, 5),
        "overheads": overheads,
        "inherited": inherited,
        "points": [_point(r) for r in records],
    }
    last = records[-1]
    predicted = predict(last, parse_calibration(data, "fit"))
    data["last_load"] = {
        "model": last.model or last.shape.get("name", ""),
        "time": last.time,
        "measured_kv_tokens": last.kv_tokens,
        "predicted_kv_tokens": predicted,
        "error": round(predicted / last.kv_tokens - 1, 5) if last.kv_tokens else None,
    }
    return data


def _point(r: LoadRecord) -> dict[str, Any]:
    return {
        "model": r.model or r.shape.get("name", ""),
        "time": r.time,
        "shape": r.shape,
        "engine_args": {k: r.engine_args[k] for k in _ENGINE_KEYS if r.engine_args.get(k) is not None},
        "measured": {
            "kv_cache_size_tokens": r.kv_tokens,
            "block_size": r.block_size,
            "vllm_logged": r.report.to_dict(),
            "nvml_peak_used_bytes": r.nvml_peak_used_bytes,
        },
    }


def predict(record: LoadRecord, calibration: Calibration | None) -> int:
    """The KV tokens the planner predicts for ``record``'s configuration with ``calibration``."""
    # vLLM logs its KV cache size (blocks / blocks per request x max_model_len): compare like with like
    return compute(record.request(calibration=calibration if calibration is not None else False)).kv_cache_size_tokens


def leave_one_out(records: list[LoadRecord], prior: Calibration | None = None) -> list[dict[str, Any]]:
    """Hold out each record, fit on the others, predict it: out-of-sample KV-token errors."""
    out = []
    for i, held in enumerate(records):
        rest = records[:i] + records[i + 1 :]
        cal = parse_calibration(fit(rest, prior, held.gpu, held.vllm_version), "leave-one-out")
        predicted = predict(held, cal)
        out.append(
            {
                "model": held.model or held.shape.get("name", ""),
                "measured": held.kv_tokens,
                "predicted": predicted,
                "error": predicted / held.kv_tokens - 1,
            }
        )
    return out


__all__ = ["LoadRecord", "fit", "gpu_key", "leave_one_out", "loads_path", "predict", "read_loads", "record_load"]


# -- where the plan's figures came from -----------------------------------------------------------
def status_text(cal: Calibration | None) -> str:
    """One line: "calibrated on this GPU from N load(s)", "calibrated from ... shipped" or "estimate"."""
    if cal is None:
        return Message("estimate (no calibration for this GPU yet: load a model on it to calibrate)")
    if cal.origin == "user":
        return Message("calibrated on this GPU from {0} load(s) with vLLM {1}", cal.loads, cal.vllm_version)
    return Message("calibrated from {0} shipped load(s) ({1})", len(cal.points), Path(cal.path or "calibration").name)


def _comparable(req: PlanRequest) -> dict[str, Any]:
    d = req.to_dict()
    for key in ("calibration", "concurrency", "vllm_version"):
        d.pop(key, None)
    d["shape"] = {k: v for k, v in req.shape.to_dict().items() if k != "name"}
    return d


def measured_load(req: PlanRequest, cal: Calibration | None) -> dict[str, Any] | None:
    """The newest recorded load of this GPU with exactly ``req``'s configuration, if any."""
    if cal is None or cal.origin != "user":
        return None
    want = _comparable(req)
    point: dict[str, Any]
    for point in reversed(cal.points):
        try:
            shape = ModelShape(**point["shape"])
            values = {k: v for k, v in point.get("engine_args", {}).items() if k in _ENGINE_KEYS}
            have = _comparable(PlanRequest(shape, gpu=req.profile, calibration=False, **values))
        except (KeyError, TypeError, ValueError):
            continue
        if have == want:
            return point
    return None


def provenance(plan: Plan) -> dict[str, Any]:
    """Status line, the source of each figure (measured / calibrated / estimate) and the error of
    the calibration against the last load, for the CLI and the window's planner details."""

    req = plan.request
    cal = resolve_calibration(req)
    estimate = Message("estimate")
    calibrated = (
        estimate
        if cal is None
        else (
            Message("calibrated on this GPU")
            if cal.origin == "user"
            else Message("calibrated ({0})", Path(cal.path or "calibration").name)
        )
    )
    constants = plan.rules.get("constants", "none")
    own = cal is not None and cal.origin == "user" and plan.rules.get("calibration") == "exact"
    sources: dict[str, str] = {
        "weights": calibrated
        if cal is not None and cal.weights_scale and (own or constants == "none")
        else constants
        if constants != "none"
        else estimate,
        "kv_budget": calibrated if cal is not None and (cal.device_total_bytes or cal.overheads) else estimate,
    }
    if req.profile.is_cpu or req.kv_cache_memory_bytes:
        sources["kv_budget"] = Message("exact: kv_cache_memory_bytes, as given")
    for name, o in plan.overheads.items():
        sources[name] = o.source
    sources["kv_tokens"] = sources["kv_budget"]
    point = measured_load(req, cal)
    out: dict[str, Any] = {
        "status": status_text(cal),
        "constants": constants,
        "origin": cal.origin if cal else None,
        "loads": cal.loads if cal else 0,
        "path": cal.path if cal else None,
    }
    if point is not None:
        measured = point["measured"]["kv_cache_size_tokens"]
        sources["kv_tokens"] = Message("measured on this GPU ({0}): {1} tokens", point.get("time", ""), f"{measured:,}")
        out["measured_kv_tokens"] = measured
    out["sources"] = sources
    if cal is not None and cal.last_load:
        out["last_load"] = dict(cal.last_load)
    return out


def last_load_text(info: dict[str, Any]) -> str | None:
    """ "last load (model, time): predicted P, measured M KV tokens (error +E%)", or None."""
    last = info.get("last_load")
    if not last or not last.get("measured_kv_tokens"):
        return None
    err, predicted, measured = last.get("error"), f"{last['predicted_kv_tokens']:,}", f"{last['measured_kv_tokens']:,}"
    text = (
        Message("{0} after refitting, measured {1}", predicted, measured)
        if err is None
        else Message("{0} after refitting, measured {1} (error {2}%)", predicted, measured, f"{err * 100:+.2f}")
    )
    if last.get("predicted_before") is not None:
        text = Message(
            "predicted {0} KV tokens before it ({1}; error {2}%), {3}",
            f"{last['predicted_before']:,}",
            last.get("before", "?"),
            f"{last['error_before'] * 100:+.2f}",
            text,
        )
    return Message("last load ({0}, {1}): {2}", last.get("model", "?"), last.get("time", "?"), text)
