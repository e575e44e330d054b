"""``plan(request)``: the figures, the verdict, the changes that make it fit and the roofline."""

from __future__ import annotations

from console.messages import Message
from console.planner.core import Plan, PlanRequest, compute, resolve_calibration
from console.planner.engine_args import engine_args
from console.planner.formulas import formulas
from console.planner.calibration import Calibration
from console.planner.roofline import roofline
from console.planner.selfcal import provenance
from console.planner.speed import notes as speed_notes
from console.planner.shape_lookup import shape_for
from console.planner.suggest import Suggestion, suggest


def replanned_fits(req: PlanRequest, suggestion: Suggestion) -> bool:
    """``suggestion`` applied to ``req`` and planned again from scratch fits."""
    changes = dict(suggestion.changes)
    model = changes.pop("model", None)
    if model is not None:
        changes["shape"] = shape_for(str(model))
    try:
        return compute(req.with_changes(**changes)).fits
    except (ValueError, TypeError):
        return False


def plan(req: PlanRequest) -> Plan:
    """Pure and fast (well under 50 ms): no files are read but the (cached) calibration."""
    if req.calibration is True:  # find the file once, not once per candidate change in suggest()
        req = req.with_changes(calibration=resolve_calibration(req) or False)
    p = compute(req)
    p.formulas = formulas(p, req.calibration if isinstance(req.calibration, Calibration) else None)
    if p.problems:
        p.verdict, suggestions = suggest(req, p)
        p.suggestions = [s for s in suggestions if replanned_fits(req, s)]  # a fix that does not fit is never offered
        if not p.suggestions:
            p.verdict = "does-not-fit"
    else:
        p.verdict = "fits"
    p.roofline = roofline(p)
    p.engine_args = engine_args(req)
    p.calibration = provenance(p)
    p.notes += speed_notes(req, p.kv_bytes_per_token)
    if req.quantization in ("awq", "gptq") and req.shape.quantization is None:
        p.notes.append(
            Message(
                "{0} needs a checkpoint quantized that way (inference-console quantize, or a published one)",
                req.quantization.upper(),
            )
        )
    if req.quantization == "fp8" and not req.profile.native_fp8 and not req.profile.is_cpu:
        p.notes.append(
            Message("{0} has no FP8 tensor cores: FP8 weights save memory, compute stays 16-bit", req.profile.name)
        )
    return p
