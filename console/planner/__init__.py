"""The memory planner: will this model, at this context and concurrency, fit this GPU, how fast
can it go, and which engine knobs get there. Pure arithmetic, no Qt, no engine.

    from console.planner import PlanRequest, plan, shape_for
    p = plan(PlanRequest(shape_for("Qwen2.5-14B"), gpu="rtx-4090", max_model_len=32768, concurrency=8))
    p.verdict, [s.summary for s in p.suggestions]
"""

from console.planner.auto import GOALS, AutoConfigError, auto_config, auto_plan, request_from_engine
from console.planner.calibration import Calibration, CalibrationError, find_calibration, parse_calibration
from console.planner.core import Plan, PlanRequest, compute
from console.planner.engine_args import engine_args
from console.planner.gpus import GPU_PROFILES, GpuProfile, get_gpu
from console.planner.shapes import KNOWN_SHAPES, ModelShape, ShapeError
from console.planner.shape_lookup import shape_for
from console.planner.suggest import Suggestion
from console.planner.verdict import plan

__all__ = [
    "AutoConfigError",
    "Calibration",
    "CalibrationError",
    "GOALS",
    "GPU_PROFILES",
    "GpuProfile",
    "KNOWN_SHAPES",
    "ModelShape",
    "Plan",
    "PlanRequest",
    "ShapeError",
    "Suggestion",
    "auto_config",
    "auto_plan",
    "request_from_engine",
    "compute",
    "engine_args",
    "find_calibration",
    "get_gpu",
    "parse_calibration",
    "plan",
    "shape_for",
]
