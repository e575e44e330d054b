"""The speed options (speculative decoding, KV offload, sleep mode) on the command line (chat,
batch, bench and plan share them), named as EngineConfig's fields so one conversion serves the
engine and the planner."""

from __future__ import annotations

import argparse
from typing import Any

from console.config import SPECULATIVE_METHODS

SPEED_KEYS = (
    "speculative_method",
    "num_speculative_tokens",
    "speculative_model",
    "kv_offloading_size",
    "enable_sleep_mode",
)


def add_speed_args(p: argparse.ArgumentParser, *, sleep: bool = True) -> None:
    p.add_argument(
        "--speculative-method",
        choices=[*SPECULATIVE_METHODS, "off"],
        help="speculative decoding: ngram (no draft model; pays off for code editing and "
        "summarising), eagle/eagle3 (a draft head, --speculative-model), off (over a preset)",
    )
    p.add_argument("--num-speculative-tokens", type=int, help="draft tokens proposed per step")
    p.add_argument("--speculative-model", metavar="DIR", help="the EAGLE draft head's folder")
    p.add_argument(
        "--kv-offloading-size",
        type=float,
        metavar="GIB",
        help="host RAM for KV blocks offloaded from the GPU (GPU only)",
    )
    if sleep:
        p.add_argument(
            "--enable-sleep-mode",
            action=argparse.BooleanOptionalAction,
            default=None,
            help="let the model sleep and wake without a reload (CUDA only)",
        )


def speed_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """EngineConfig fields from the options given ("off" turns a preset's speculation off)."""
    out = {k: getattr(args, k, None) for k in SPEED_KEYS}
    if out["speculative_method"] == "off":
        out["speculative_method"] = ""
    elif out["speculative_method"] == "ngram" and out["num_speculative_tokens"] is None:
        out["num_speculative_tokens"] = 4
    return {k: v for k, v in out.items() if v is not None}
