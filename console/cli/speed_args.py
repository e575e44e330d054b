"""The speed options (speculative decoding, KV offload, sleep mode) on the command line (chat,
batch, bench and plan share them): knob flags of EngineConfig's fields (``knob_flags.py``), so one
conversion serves the engine and the planner."""

from __future__ import annotations

import argparse
from typing import Any

from console.cli.knob_flags import add_knob_flags, given_knobs
from console.config import with_ngram_tokens

SPEED_KEYS = (
    "speculative_method",
    "num_speculative_tokens",
    "speculative_model",
    "kv_offloading_size",
    "enable_sleep_mode",
)


def add_speed_args(p: argparse.ArgumentParser, *, sleep: bool = True) -> None:
    add_knob_flags(
        p,
        SPEED_KEYS if sleep else SPEED_KEYS[:-1],
        notes={"speculative_method": "eagle/eagle3: with --speculative-model; off: turns a preset's off"},
    )


def speed_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """EngineConfig fields from the options given ("off" turns a preset's speculation off)."""
    out = given_knobs(args, SPEED_KEYS)
    if out.get("speculative_method") == "off":
        out["speculative_method"] = ""
    return with_ngram_tokens(out)
