"""What each engine knob of the window does, its RTX 4090 default and why, and which device it
applies to: one table, read by the Models panel's knobs (their tooltips, which rows show on this
device, which sit under "Advanced") and extracted for translation by ``console.ui.i18n`` (context
:data:`HELP_CONTEXT`), as the shipped presets' descriptions are.

The 4090 defaults are those of the ``gpu-default`` preset (``presets/gpu-default.toml``) and of
vLLM's offline scheduler on a 24 GB card (``planner/defaults.py``); ``tests/test_ui_knobs.py``
checks the table against both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from console.planner.defaults import OFFLINE_DEFAULTS_GPU

#: The translation context of the texts below.
HELP_CONTEXT = "KnobHelp"

Applies = Literal["any", "gpu", "cpu"]


@dataclass(frozen=True)
class KnobHelp:
    """One knob: the engine field it sets, what it does, its value on a 4090 and why."""

    key: str  # the EngineConfig field (kv_cache_memory_bytes: the CPU KV cache size)
    what: str
    default_4090: str
    why: str
    applies: Applies = "any"  # "gpu": hidden on the CPU engine; "cpu": hidden on a GPU
    advanced: bool = False  # a speed knob: under the collapsed "Advanced" section


_BATCHED, _SEQS = OFFLINE_DEFAULTS_GPU

KNOB_HELP: dict[str, KnobHelp] = {
    k.key: k
    for k in (
        KnobHelp(
            "max_model_len",
            "The longest prompt plus answer one request may have, in tokens. Each request reserves KV cache "
            "for it, so a shorter context leaves room for more users or a larger model.",
            "the model's own (128k for Llama-3.1-8B)",
            "The planner's first suggestion shortens it when the KV cache cannot hold one full request.",
        ),
        KnobHelp(
            "kv_cache_dtype",
            "The number format of the KV cache. FP8 halves its size, doubling the tokens it holds, "
            "at a small cost in accuracy.",
            "auto (the model's 16-bit)",
            "Full precision until the context or the users asked for need the room.",
        ),
        KnobHelp(
            "gpu_memory_utilization",
            "The share of the card vLLM may use for weights, activations, CUDA graphs and the KV cache; "
            "the rest is left to the desktop and other programs.",
            "0.9",
            "About 2.4 GB of a 24 GB card stays free for the display and the CUDA context.",
            applies="gpu",
        ),
        KnobHelp(
            "kv_cache_memory_bytes",
            "Memory set aside for the KV cache of the CPU engine, in GiB; it decides how many tokens "
            "all requests together can hold.",
            "not used (the GPU sizes its cache from the memory share)",
            "The CPU engine needs an explicit size, or it takes a fraction of RAM and may refuse to start.",
            applies="cpu",
        ),
        KnobHelp(
            "max_num_seqs",
            "The most requests the engine runs at once; more are queued.",
            f"{_SEQS:,}",
            "vLLM's offline default on a 24 GB card: enough for batch work, and the KV cache limits it anyway.",
            advanced=True,
        ),
        KnobHelp(
            "max_num_batched_tokens",
            "The most tokens one engine step processes (prompt chunks and answers together). Larger helps "
            "long prompts start sooner, smaller keeps answers of other users flowing.",
            f"{_BATCHED:,}",
            "vLLM's offline default on a 24 GB card, a balance of prompt speed and activation memory.",
            advanced=True,
        ),
        KnobHelp(
            "enforce_eager",
            "Eager mode runs the model step by step instead of replaying captured CUDA graphs "
            "(torch.compile on the CPU): faster to load, slower to answer, and no graph memory.",
            "off (CUDA graphs on)",
            "Graphs speed up each answer token, for some seconds of loading and the memory they are captured in "
            "(the planner counts it).",
            advanced=True,
        ),
        KnobHelp(
            "enable_prefix_caching",
            "Reuses the KV cache of a prompt's beginning already seen (the system prompt, the chat so far), "
            "so a follow-up question starts sooner.",
            "on",
            "Chats resend their whole history every turn: reusing it saves most of the prompt work.",
            advanced=True,
        ),
        KnobHelp(
            "speculative_method",
            "Speculative decoding proposes several tokens and the model checks them in one step. n-gram copies "
            "them from the prompt: it pays off for code editing, rewriting and summarising; EAGLE heads come "
            "from a preset that names one.",
            "off",
            "It speeds up answers that repeat the prompt and slows down the others; the 4090 presets with "
            "'ngram' in their name turn it on.",
            advanced=True,
        ),
        KnobHelp(
            "num_speculative_tokens",
            "How many tokens speculative decoding proposes per step.",
            "4 with n-gram",
            "More tokens win more when guesses are right and waste a step's work when they are wrong.",
            advanced=True,
        ),
        KnobHelp(
            "kv_offloading_size",
            "Host memory for KV blocks moved out of the GPU, reused on later prefix-cache hits, in GiB; "
            "the planner checks it against this machine's RAM.",
            "off",
            "It helps many long conversations that come back, and costs host memory.",
            applies="gpu",
            advanced=True,
        ),
        KnobHelp(
            "enable_sleep_mode",
            "Lets a loaded model sleep and wake without a reload when switching models.",
            "off",
            "Sleeping keeps the weights in host memory: worth it only when switching often.",
            applies="gpu",
            advanced=True,
        ),
    )
}


def applies_to(key: str, gpu: bool) -> bool:
    """Whether ``key``'s knob means anything on this device (a GPU, or else the CPU engine)."""
    where = KNOB_HELP[key].applies
    return where == "any" or (where == "gpu") == gpu


def help_texts() -> list[str]:
    """Every text of the table, for the translation catalogue."""
    return [t for k in KNOB_HELP.values() for t in (k.what, k.default_4090, k.why)]
