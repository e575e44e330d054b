"""``inference-console plan``: will a model fit a GPU at this context and concurrency, and if
not, what to change. Flags carry vLLM's own names where vLLM has one."""

from __future__ import annotations

import argparse
import math
import re
from pathlib import Path
from typing import Any

from console.cli.common import CliError, print_json, print_table
from console.cli.flags import deprecated_alias
from console.cli.knob_flags import add_knob_flags
from console.cli.speed_args import add_speed_args, speed_overrides
from console.config import KV_CACHE_DTYPES, QUANTIZATIONS, VLLM_GPU_MEMORY_UTILIZATION
from console.models.fit_table import with_local_in_use
from console.models.store import shape_of
from console.planner import GOALS, GPU_PROFILES, KNOWN_SHAPES, Plan, PlanRequest, auto_plan, plan
from console.planner.shapes import SHIPPED_QUANTIZATIONS
from console.planner.calibration import CalibrationError, load_calibration_file
from console.planner.gpus import GiB
from console.planner.selfcal import last_load_text
from console.planner.shapes import ShapeError
from console.planner.speed import request_fields
from console.planner.validate import serve_argv

_VERDICT_TEXT = {
    "fits": "FITS",
    "fits-with-changes": "FITS ONLY WITH CHANGES",
    "does-not-fit": "DOES NOT FIT ON THIS GPU",
}


#: The checkpoint quantizations the planner sizes: the engine's, less compressed-tensors, a format
#: whose bits only a checkpoint's config says (the planner reads them there).
PLAN_QUANTIZATIONS = tuple(q for q in QUANTIZATIONS if q != "compressed-tensors")
#: plan's defaults for the knobs it takes: what the planner assumes when a flag is not given.
_PLAN_DEFAULTS: dict[str, Any] = {
    "kv_cache_dtype": "auto",
    "gpu_memory_utilization": VLLM_GPU_MEMORY_UTILIZATION,
    "tensor_parallel_size": 1,
    "pipeline_parallel_size": 1,
    "enforce_eager": False,
    "max_loras": 0,
    "max_lora_rank": 16,
}


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "plan",
        help="will a model fit a GPU at this context and concurrency? what to change if not",
        description="Memory and speed plan for a model on a GPU. Example: "
        "inference-console plan --model Qwen2.5-14B --gpu rtx-4090 "
        "--max-model-len 32768 --users 8",
    )
    p.add_argument(
        "--model",
        required=True,
        help=f"a model in the store, a folder with config.json, or a known shape: {', '.join(KNOWN_SHAPES)}",
    )
    p.add_argument("--gpu", default="rtx-4090", help=f"{', '.join(GPU_PROFILES)} or cpu:RAM_GIB (default rtx-4090)")
    add_knob_flags(p, ["max_model_len"], notes={"max_model_len": "default: the model's maximum"})
    p.add_argument("--users", type=int, default=1, help="users served at once, each at max-model-len (default 1)")
    deprecated_alias(p, "--concurrency", "--users", "users", type=int)  # batch's meant requests in flight
    add_knob_flags(
        p,
        [
            "quantization",
            "kv_cache_dtype",
            "gpu_memory_utilization",
            "max_num_seqs",
            "max_num_batched_tokens",
            "tensor_parallel_size",
            "pipeline_parallel_size",
            "kv_cache_memory_bytes",
            "enforce_eager",
        ],
        defaults=_PLAN_DEFAULTS,
        choices={"quantization": PLAN_QUANTIZATIONS, "kv_cache_dtype": KV_CACHE_DTYPES},
        notes={
            "quantization": "mxfp4: gpt-oss's experts",
            "kv_cache_memory_bytes": "on CPU the KV budget, default 2 GiB",
        },
    )
    add_speed_args(p, sleep=False)  # a draft head on the GPU, KV offload on the host
    add_knob_flags(
        p, ["max_loras", "max_lora_rank"], defaults=_PLAN_DEFAULTS, notes={"max_loras": "default 0: LoRA off"}
    )
    add_knob_flags(p, ["limit_mm_per_prompt", "mm_processor_kwargs"])  # a vision model's pictures
    p.add_argument(
        "--in-use-gib",
        type=float,
        metavar="GIB",
        help="memory other programs already hold on the card (default: on this machine's GPU, what NVML "
        "reports when the plan is for it; else 0)",
    )
    p.add_argument(
        "--vllm-version",
        metavar="X.Y[.Z]",
        help="plan by this vLLM release's memory rules (default: the installed one on its device, else what the "
        "gpu extra installs), e.g. for a server that runs another vLLM",
    )
    p.add_argument("--goal", choices=GOALS, help="let the planner pick the knobs for this goal (the 'auto' preset)")
    p.add_argument("--calibration", type=Path, help="a calibration JSON file to use instead of the shipped one")
    p.add_argument("--no-calibration", action="store_true", help="raw estimates, no calibration file")
    p.add_argument("--formulas", action="store_true", help="show the formula behind every figure")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_plan)


def _speed_fields(args: argparse.Namespace) -> dict[str, Any]:
    """The speed options share their names with EngineConfig's fields: one conversion for both."""
    import psutil

    values = argparse.Namespace(**{**vars(args), **speed_overrides(args)})  # "off" -> ""
    return request_fields(values, int(psutil.virtual_memory().total) if args.kv_offloading_size else None)


def request_from_args(args: argparse.Namespace) -> PlanRequest:
    try:
        shape = shape_of(args.model)
    except ShapeError as exc:
        raise CliError(str(exc)) from None
    calibration: Any = not args.no_calibration
    if args.calibration:
        try:
            calibration = load_calibration_file(args.calibration)
        except (OSError, CalibrationError) as exc:
            raise CliError(f"calibration file: {exc}") from None
    try:
        req = PlanRequest(
            shape,
            gpu=args.gpu,
            quantization=args.quantization,
            kv_cache_dtype=args.kv_cache_dtype,
            max_model_len=args.max_model_len,
            concurrency=args.users,
            gpu_memory_utilization=args.gpu_memory_utilization,
            tensor_parallel_size=args.tensor_parallel_size,
            pipeline_parallel_size=args.pipeline_parallel_size,
            max_num_batched_tokens=args.max_num_batched_tokens,
            enforce_eager=args.enforce_eager,
            kv_cache_memory_bytes=args.kv_cache_memory_bytes,
            max_num_seqs=args.max_num_seqs,
            calibration=calibration,
            max_loras=args.max_loras,
            max_lora_rank=args.max_lora_rank,
            limit_mm_per_prompt=args.limit_mm_per_prompt,
            mm_processor_kwargs=args.mm_processor_kwargs,
            vllm_version=_vllm_version(args.vllm_version),
            **_speed_fields(args),
        )
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if args.in_use_gib is None:
        return with_local_in_use(req)  # this machine's card: what NVML reports
    if args.in_use_gib < 0:
        raise CliError("--in-use-gib must not be negative")
    return req.with_changes(in_use_bytes=int(args.in_use_gib * GiB))


def _vllm_version(text: str | None) -> str | None:
    """``0.26`` -> ``0.26.0`` (as calibrations name releases); None: the default rules."""
    if text is None:
        return None
    found = re.fullmatch(r"v?(\d+)\.(\d+)(?:\.(\d+))?(\S*)", text.strip())
    if found is None:
        raise CliError(f"--vllm-version '{text}': write a vLLM release such as 0.26.0")
    major, minor, patch, rest = found.groups()
    return f"{major}.{minor}.{patch or 0}{rest}"


def cmd_plan(args: argparse.Namespace) -> int:
    req = request_from_args(args)
    if args.goal:
        try:
            p = auto_plan(req.shape, req.profile, args.goal)
        except ValueError as exc:
            raise CliError(str(exc)) from None
    else:
        p = plan(req)
    if args.json:
        print_json(p.to_dict())
    else:
        print_plan(p, show_formulas=args.formulas, goal=args.goal)
    return 0 if p.verdict != "does-not-fit" else 1


def _x(conc: float) -> str:
    """Concurrency truncated, not rounded: 3.996x must not read as 4.00x."""
    return f"{math.floor(conc * 100) / 100:.2f}x"


def _g(n: float) -> str:
    return f"{n / GiB:.2f}"


def _in_use_text(req: PlanRequest) -> str:
    """What other programs hold on the card, and the largest of them by name where NVML names them."""
    named = [
        f"{name or 'pid'} ({pid}){f' {_g(used)} GiB' if used is not None else ''}" for pid, name, used in req.in_use_by
    ]
    shown = ", ".join(named[:5]) + (f", and {len(named) - 5} more" if len(named) > 5 else "")
    return f"other programs hold {_g(req.in_use_bytes or 0)} GiB of the card" + (f": {shown}" if shown else "")


def print_plan(p: Plan, show_formulas: bool = False, goal: str | None = None) -> None:
    req, s, g = p.request, p.request.shape, p.request.profile
    weights = req.quantization.upper() if req.quantization else "16-bit"
    layout = ""
    if req.world_size > 1:
        layout = f" x{req.world_size} (TP={req.tensor_parallel_size}, PP={req.pipeline_parallel_size})"
    print(f"{s.name or 'model'} ({s.params / 1e9:.2f}B) on {g.label}{layout}")
    if s.is_moe:
        print(
            f"  MoE: {s.num_experts} experts per layer, {s.experts_per_token} per token: all resident in memory, "
            f"{s.active_params / 1e9:.2f}B parameters read per token"
        )
    shipped = SHIPPED_QUANTIZATIONS.get(s.name)
    if shipped and not req.quantization:
        print(f"  published quantized as: {', '.join(q.upper() for q in shipped)} (--quantization)")
    print(
        f"  {req.context:,} tokens of context x {req.concurrency} users, {weights} weights, "
        f"KV {req.kv_cache_dtype}, "
        + ("eager" if req.enforce_eager or g.is_cpu else "CUDA graphs")
        + ("" if g.is_cpu else f", gpu_memory_utilization {req.gpu_memory_utilization:g}")
        + (f"  [auto: {goal}]" if goal else "")
    )
    if req.in_use_bytes:
        print(f"  {_in_use_text(req)}")
    print(f"\nVERDICT: {_VERDICT_TEXT[p.verdict]}")
    for problem in p.problems:
        print(f"  - {problem}")

    m = p.per_gpu[0]
    bits = "16-bit" if not req.quantization else f"{req.quantization.upper()}: 16-bit embeddings + quantized linears"
    src = p.calibration.get("sources", {})
    rows = [
        [
            "weights",
            _g(m.weights_bytes),
            bits
            + (" (this GPU's share)" if req.world_size > 1 else "")
            + (f"; {src['weights']}" if "weights" in src else ""),
        ]
    ]
    for name, o in p.overheads.items():
        if g.is_cpu:  # no CUDA: the "context" is the engine process itself, outside the KV budget
            label = {"cuda_context": "engine process"}.get(name, name)
            rows.append([label, _g(o.bytes), o.source + ", in RAM beside the KV cache"])
            continue
        value = p.held_back_bytes if name == "margin" else o.bytes
        rows.append([name, _g(value), o.source + ("" if o.inside_vllm_budget else ", outside vLLM's budget")])
    rows.append(
        [
            "KV cache",
            _g(max(0, m.kv_budget_bytes)),
            f"{p.kv_tokens:,} tokens in {p.kv_blocks:,} blocks of {p.block_size}"
            + (
                f" (vLLM's KV cache size at this length: {p.kv_cache_size_tokens:,})"
                if p.kv_cache_size_tokens != p.kv_tokens
                else ""
            )
            + (f"; {src['kv_tokens']}" if "kv_tokens" in src else ""),
        ]
    )
    speed = p.to_dict()["speed"]  # the draft inside the weights row, offload on the host
    if speed.get("speculative", {}).get("draft_weights_gib"):
        rows.insert(
            1,
            [
                "  of which draft",
                f"{speed['speculative']['draft_weights_gib']:.2f}",
                f"{req.speculative_method} head, 16-bit",
            ],
        )
    rows.append(["total", _g(m.used_bytes), f"of {_g(m.capacity_bytes)} GiB"])
    if "kv_offload" in speed:
        off = speed["kv_offload"]
        rows.append(
            [
                "host: KV offload",
                f"{off['host_gib']:.2f}",
                f"{off['host_tokens']:,} tokens in RAM"
                + (f" of {off['host_memory_gib']} GiB" if off["host_memory_gib"] else ""),
            ]
        )
    print()
    print_table(rows, ["MEMORY" + (" (per GPU)" if req.world_size > 1 else ""), "GiB", "NOTE"])
    if p.calibration:
        print(f"\nCALIBRATION: {p.calibration['status']}")
        if p.calibration.get("constants", "none") != "none":
            print(f"  vLLM memory constants: {p.calibration['constants']}")
        last = last_load_text(p.calibration)
        if last:
            print(f"  {last}")
    print(
        f"\nKV per token {p.kv_bytes_per_token:,} B, per block {p.kv_bytes_per_block:,} B; "
        f"max concurrency at {req.context:,} tokens: {_x(p.max_concurrency)}"
    )
    if p.vllm_kv_tokens != p.kv_cache_size_tokens:
        print(
            f"vLLM itself would size the cache to {p.vllm_kv_tokens:,} tokens (the plan keeps room for what "
            "vLLM leaves out of its budget and holds back its margin)"
        )
    if p.rules:
        print(f"RULES: {p.rules['vllm']}; KV cache: {p.rules['kv_cache']}")
        print(f"  longest max_model_len one request gets: {p.longest_context:,}")

    if p.suggestions:
        print("\nCHANGES THAT MAKE IT FIT (smallest first):")
        for i, sug in enumerate(p.suggestions, 1):
            print(f"  {i}. {sug.summary}")
            print(
                f"     -> {sug.users} users at {sug.max_model_len:,} tokens (KV {sug.kv_tokens:,} tokens, "
                f"max concurrency {_x(sug.max_concurrency)})"
            )
    r = p.roofline
    print(
        f"\nROOFLINE: single-stream decode <= {r['decode_tok_s_single_stream']:,.0f} tok/s "
        f"({r['decode_tok_s_single_stream_full_context']:,.0f} at full context); "
        f"{r['batched_sequences']} sequences <= {r['batched_tok_s_bound']:,.0f} tok/s "
        f"(memory {r['batched_tok_s_memory_bound']:,.0f}, compute {r['batched_tok_s_compute_bound']:,.0f})"
    )
    argv = serve_argv(p.engine_args, "MODEL")
    print("\nvLLM FLAGS FOR THIS PLAN: " + " ".join(argv[2:]))
    for note in p.notes:
        print(f"note: {note}")
    if show_formulas:
        print("\nFORMULAS:")
        for name, text in {**p.formulas, **r["formulas"]}.items():
            print(f"  {name}: {text}")
    else:
        print("(--formulas shows the arithmetic behind every figure; --json for all of it)")
