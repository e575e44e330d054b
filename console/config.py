"""The console's typed description of an engine (a request's sampling is :mod:`console.sampling`'s).

:class:`EngineConfig` uses vLLM's own argument names, so a preset, the planner's output, the
in-process engine and the server exports all speak the same vocabulary. Fields left at ``None`` mean
"vLLM's default" and are not passed on.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Literal

from console.knobs import Knob, check, checks_of, knob, knobs_of

Device = Literal["auto", "cuda", "cpu"]

#: The KV-cache dtypes the console offers and accepts (vLLM's names); the planner sizes the fp8
#: ones at 1 byte per value and the others at the model's dtype.
KV_CACHE_DTYPES = ("auto", "fp8", "fp8_e4m3", "fp8_e5m2", "bfloat16")

#: The ranks vLLM accepts for ``max_lora_rank`` (``vllm.config.lora.MaxLoRARanks``, 0.26-0.33).
VLLM_LORA_RANKS = (1, 8, 16, 32, 64, 128, 256, 320, 512)

#: Fields of EngineConfig that are console settings, not vLLM engine arguments.
CONSOLE_ONLY_FIELDS = frozenset({"device"})
#: Fields that are `vllm serve` front-end options, not engine arguments: exported to the server's
#: command line, kept out of ``AsyncEngineArgs`` (the in-process engine reads them itself).
SERVER_ONLY_FIELDS = frozenset({"lora_modules"})

# --- speed features: speculative decoding, KV offload, sleep mode -------------------
#: Speculative methods the console offers: "ngram" needs no draft model (prompt lookup); the
#: EAGLE ones need a draft head (``speculative_model``) from the store.
SPECULATIVE_METHODS = ("ngram", "eagle", "eagle3")
#: EngineConfig fields that vLLM takes folded into one ``speculative_config`` mapping
#: (``--speculative-config JSON``), by the console field -> SpeculativeConfig key.
SPECULATIVE_FIELDS = {
    "speculative_method": "method",
    "num_speculative_tokens": "num_speculative_tokens",
    "speculative_model": "model",
    "prompt_lookup_max": "prompt_lookup_max",
    "prompt_lookup_min": "prompt_lookup_min",
}

#: vLLM's own ``gpu_memory_utilization`` when none is given: the share of the card it takes.
VLLM_GPU_MEMORY_UTILIZATION = 0.9
#: The checkpoint quantizations the console offers and accepts (vLLM's names; mxfp4: gpt-oss's
#: experts; compressed-tensors: llm-compressor's builds, whose bits the checkpoint's config says).
QUANTIZATIONS = ("awq", "awq_marlin", "gptq", "gptq_marlin", "fp8", "compressed-tensors", "mxfp4")
#: The model dtypes vLLM accepts.
DTYPES = ("auto", "bfloat16", "float16", "half", "float32", "float")


@dataclass
class EngineConfig:
    """An engine, by vLLM's argument names. The fields with :func:`~console.knobs.knob` metadata are
    the knobs the console offers (its CLI flags, the settings' knobs and the window's rows are
    generated from that metadata, :func:`engine_knobs`)."""

    model: str
    served_model_name: str | None = None
    tokenizer: str | None = None
    dtype: str = field(default="auto", metadata=check(choices=DTYPES))
    quantization: str | None = field(
        default=None, metadata=knob(help="the checkpoint's quantization", choices=QUANTIZATIONS)
    )
    kv_cache_dtype: str = field(
        default="auto",
        metadata=knob(
            help="The number format of the KV cache. FP8 halves its size, doubling the tokens it holds, "
            "at a small cost in accuracy.",
            window=True,
            label="KV cache dtype:",
            unset="auto",
            choices=KV_CACHE_DTYPES,
            default_4090="auto (the model's 16-bit)",
            why="Full precision until the context or the users asked for need the room.",
        ),
    )
    max_model_len: int | None = field(
        default=None,
        metadata=knob(
            help="The longest prompt plus answer one request may have, in tokens. Each request reserves KV "
            "cache for it, so a shorter context leaves room for more users or a larger model.",
            window=True,
            label="Context length:",
            step=1024,
            unset="model",
            ge=16,
            le=10_000_000,
            default_4090="the model's own (128k for Llama-3.1-8B)",
            why="The planner's first suggestion shortens it when the KV cache cannot hold one full request.",
        ),
    )
    gpu_memory_utilization: float | None = field(
        default=None,
        metadata=knob(
            help="The share of the card vLLM may use for weights, activations, CUDA graphs and the KV cache; "
            "the rest is left to the desktop and other programs.",
            device="gpu",
            window=True,
            label="GPU memory utilisation:",
            step=0.05,
            unset="—",
            gt=0,
            le=1,
            default_4090=str(VLLM_GPU_MEMORY_UTILIZATION),
            why="About 2.4 GB of a 24 GB card stays free for the display and the CUDA context.",
        ),
    )
    max_num_seqs: int | None = field(
        default=None,
        metadata=knob(
            help="The most requests the engine runs at once; more are queued.",
            window=True,
            advanced=True,
            label="Max sequences:",
            ge=1,
            le=65_536,
            default_4090="256",  # planner/defaults.py OFFLINE_DEFAULTS_GPU (the tests check it)
            why="vLLM's offline default on a 24 GB card: enough for batch work, and the KV cache limits it anyway.",
        ),
    )
    max_num_batched_tokens: int | None = field(
        default=None,
        metadata=knob(
            help="The most tokens one engine step processes (prompt chunks and answers together). Larger helps "
            "long prompts start sooner, smaller keeps answers of other users flowing.",
            window=True,
            advanced=True,
            label="Max batched tokens:",
            step=1024,
            ge=16,
            le=10_000_000,
            default_4090="8,192",
            why="vLLM's offline default on a 24 GB card, a balance of prompt speed and activation memory.",
        ),
    )
    enable_prefix_caching: bool | None = field(
        default=None,
        metadata=knob(
            help="Reuses the KV cache of a prompt's beginning already seen (the system prompt, the chat so far), "
            "so a follow-up question starts sooner.",
            window=True,
            advanced=True,
            label="Prefix caching:",
            default_4090="on",
            why="Chats resend their whole history every turn: reusing it saves most of the prompt work.",
        ),
    )
    enable_chunked_prefill: bool | None = None
    enforce_eager: bool | None = field(
        default=None,
        metadata=knob(
            help="Eager mode runs the model step by step instead of replaying captured CUDA graphs "
            "(torch.compile on the CPU): faster to load, slower to answer, and no graph memory.",
            window=True,
            advanced=True,
            label="Eager mode (no graphs):",
            default_4090="off (CUDA graphs on)",
            why="Graphs speed up each answer token, for some seconds of loading and the memory they are "
            "captured in (the planner counts it).",
        ),
    )
    tensor_parallel_size: int | None = field(
        default=None,
        metadata=knob(help="GPUs each layer is split across (tensor parallelism)", short="-tp", ge=1, le=1024),
    )
    pipeline_parallel_size: int | None = field(
        default=None,
        metadata=knob(
            help="GPUs the layers are spread over in stages (pipeline parallelism)", short="-pp", ge=1, le=1024
        ),
    )
    kv_cache_memory_bytes: int | None = field(
        default=None,
        metadata=knob(
            help="Memory set aside for the KV cache, which decides how many tokens all requests together can "
            "hold. The CPU engine needs it; a GPU sizes its cache from the memory share unless it is set.",
            unit="bytes",
            device="cpu",
            window=True,
            label="KV cache size (CPU):",
            step=0.5,
            unset="—",
            ge=1,
            le=4096 * 1024**3,
            default_4090="not used (the GPU sizes its cache from the memory share)",
            why="The CPU engine needs an explicit size, or it takes a fraction of RAM and may refuse to start.",
            settings_name="kv_cache_gib",
            settings_unit="GiB",
        ),
    )
    cpu_offload_gb: float | None = field(default=None, metadata=check(ge=0, le=1 << 20))
    block_size: int | None = field(default=None, metadata=check(ge=1, le=1024))
    load_format: str | None = None  # "dummy": random weights of the model's shape (benchmarks)
    seed: int | None = None
    trust_remote_code: bool = False
    # LoRA: slots for adapters over this base; vLLM reserves max_loras x max_lora_rank
    # on the device and keeps up to max_cpu_loras adapters in host memory.
    enable_lora: bool | None = None
    max_loras: int | None = field(
        default=None, metadata=knob(help="LoRA adapters served in one batch (slots on the device)", ge=1, le=1024)
    )
    max_lora_rank: int | None = field(
        default=None, metadata=knob(help="largest adapter rank the slots hold", choices=VLLM_LORA_RANKS)
    )
    max_cpu_loras: int | None = field(default=None, metadata=check(ge=1, le=1 << 20))
    #: adapters served with this model, name -> PEFT folder (`vllm serve --lora-modules name=path`)
    lora_modules: dict[str, str] | None = None
    device: Device = field(
        default="auto", metadata=knob(help="where the engine runs: auto (a GPU when there is one), cuda or cpu")
    )
    # --- speed features; kept together for merges ------------------------------------------------
    speculative_method: str | None = field(  # one of SPECULATIVE_METHODS
        default=None,
        metadata=knob(
            help="Speculative decoding proposes several tokens and the model checks them in one step. n-gram "
            "copies them from the prompt, with no draft model: it pays off for code editing, rewriting and "
            "summarising; EAGLE needs a draft head (a preset's speculative_model).",
            window=True,
            advanced=True,
            label="Speculative decoding:",
            unset="off",
            choices=SPECULATIVE_METHODS,
            window_choices=("", "ngram"),  # "" is "off" over a preset; EAGLE needs a preset's draft head
            choice_labels=(("", "off"), ("ngram", "n-gram (no draft model)")),
            default_4090="off",
            why="It speeds up answers that repeat the prompt and slows down the others; the 4090 presets with "
            "'ngram' in their name turn it on.",
            cli_choices=(*SPECULATIVE_METHODS, "off"),  # off: over a preset that has it
        ),
    )
    num_speculative_tokens: int | None = field(
        default=None,
        metadata=knob(
            help="How many tokens speculative decoding proposes per step.",
            window=True,
            advanced=True,
            label="Draft tokens per step:",
            unset="—",
            ge=1,
            le=16,
            default_4090="4 with n-gram",
            why="More tokens win more when guesses are right and waste a step's work when they are wrong.",
        ),
    )
    speculative_model: str | None = field(  # the EAGLE draft head's folder
        default=None, metadata=knob(help="the EAGLE draft head's folder", metavar="DIR")
    )
    prompt_lookup_max: int | None = field(  # n-gram window (longest match looked up in the context)
        default=None, metadata=check(ge=1, le=64)
    )
    prompt_lookup_min: int | None = field(default=None, metadata=check(ge=1, le=64))
    kv_offloading_size: float | None = field(  # GiB of host memory for offloaded KV blocks
        default=None,
        metadata=knob(
            help="Host memory for KV blocks moved out of the GPU, reused on later prefix-cache hits, in GiB; "
            "the planner checks it against this machine's RAM.",
            unit="GiB",
            device="gpu",
            window=True,
            advanced=True,
            label="KV offload (host):",
            step=1.0,
            decimals=1,
            unset="off",
            ge=0,
            le=4096,
            default_4090="off",
            why="It helps many long conversations that come back, and costs host memory.",
            settings_name="kv_offloading_gib",
        ),
    )
    enable_sleep_mode: bool | None = field(  # vLLM sleep/wake (CUDA only): switch models without a reload
        default=None,
        metadata=knob(
            help="Lets a loaded model sleep and wake without a reload when switching models.",
            device="gpu",
            window=True,
            advanced=True,
            label="Sleep mode:",
            unset="off",
            default_4090="off",
            why="Sleeping keeps the weights in host memory: worth it only when switching often.",
        ),
    )
    #: the largest batch CUDA graphs are captured for (vLLM: min(2 x max_num_seqs, 512)); auto-tune
    #: sets it to the batch its workload runs, so a load captures fewer graphs
    max_cudagraph_capture_size: int | None = field(default=None, metadata=check(ge=1, le=65_536))
    # --- images (vision-language models) ----------------------------------------------------------
    limit_mm_per_prompt: dict[str, int] | None = field(
        default=None,
        metadata=knob(
            help='The most images (by kind, e.g. {"image": 2}) one prompt may carry; vLLM refuses more and its '
            "profile run reserves memory for that many. 0 turns a kind off.",
            metavar="JSON",
        ),
    )
    mm_processor_kwargs: dict[str, Any] | None = field(
        default=None,
        metadata=knob(
            help="Options for the model's image processor, e.g. a size limit that sets how many tokens an "
            'image costs ({"max_pixels": 802816} for Qwen2.5-VL).',
            metavar="JSON",
        ),
    )
    allowed_local_media_path: str | None = field(
        default=None,
        metadata=knob(
            help="A folder whose files requests may name as images (file:// URLs); files elsewhere are refused.",
            metavar="DIR",
        ),
    )

    def engine_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``vllm.AsyncEngineArgs`` (``None`` fields omitted)."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            if f.name in CONSOLE_ONLY_FIELDS or f.name in SERVER_ONLY_FIELDS or f.name in SPECULATIVE_FIELDS:
                continue
            value = getattr(self, f.name)
            if value is None:
                continue
            out[f.name] = value
        spec = self.speculative_config()
        if spec is not None:
            out["speculative_config"] = spec
        return out

    def speculative_config(self) -> dict[str, Any] | None:
        """vLLM's ``speculative_config`` mapping, or ``None`` when speculation is off.

        n-gram without a window gets vLLM's usual one (lookup 1..4 tokens): vLLM requires
        ``prompt_lookup_max`` for that method in some versions and defaults it in others."""
        return speculative_config_of({name: getattr(self, name) for name in SPECULATIVE_FIELDS})

    def replace(self, **changes: Any) -> "EngineConfig":
        return dataclasses.replace(self, **changes)

    @classmethod
    def field_names(cls) -> list[str]:
        return [f.name for f in dataclasses.fields(cls)]


def engine_knobs() -> dict[str, Knob]:
    """Each EngineConfig field that is a knob -> its description, in field order: the one source of
    the CLI's knob flags, the settings' knobs and the window's knob rows."""
    return knobs_of(EngineConfig)


def window_knobs() -> dict[str, Knob]:
    """The knobs the window offers (a row each) and the settings keep (:class:`console.settings.Knobs`)."""
    return {name: k for name, k in engine_knobs().items() if k.window}


def limits_of(cls: type) -> dict[str, dict[str, float]]:
    """The ranges (pydantic bounds: ge, gt, le, lt) of dataclass ``cls``'s fields, by field name,
    from their metadata (:func:`~console.knobs.knob`, :func:`~console.knobs.check`)."""
    return {name: c.bounds() for name, c in checks_of(cls).items() if c.bounds()}


def choices_of(cls: type) -> dict[str, tuple[Any, ...]]:
    """The values each field of dataclass ``cls`` accepts, by field name, from the same metadata."""
    return {name: c.choices for name, c in checks_of(cls).items() if c.choices}


#: Ranges the console checks before vLLM does, by field name (:func:`limits_of` EngineConfig);
#: console.schema applies them wherever a field of that name is validated (presets, settings).
#: A field without one is checked by its type hint alone.
ENGINE_LIMITS: dict[str, dict[str, float]] = limits_of(EngineConfig)
#: The values a field accepts, by field name (:func:`choices_of` EngineConfig; a ``Literal`` hint,
#: such as ``device``'s, works too).
ENGINE_CHOICES: dict[str, tuple[Any, ...]] = choices_of(EngineConfig)


def speculative_config_of(values: dict[str, Any]) -> dict[str, Any] | None:
    """vLLM's ``speculative_config`` from engine values by field name (a preset's ``[engine]``
    table or an EngineConfig's fields); see :meth:`EngineConfig.speculative_config`."""
    if not values.get("speculative_method"):
        return None
    spec = {key: values[name] for name, key in SPECULATIVE_FIELDS.items() if values.get(name) not in (None, "")}
    if spec["method"] == "ngram":
        spec.setdefault("prompt_lookup_max", 4)
        spec.setdefault("prompt_lookup_min", 1)
    return spec


#: Draft tokens per step when n-gram speculation is chosen over a preset that names none.
NGRAM_DRAFT_TOKENS = 4


def with_ngram_tokens(overrides: dict[str, Any]) -> dict[str, Any]:
    """Engine overrides (by field) with :data:`NGRAM_DRAFT_TOKENS` filled in where they choose n-gram
    speculation and leave its draft tokens to a preset that may have none."""
    if overrides.get("speculative_method") == "ngram" and overrides.get("num_speculative_tokens") is None:
        return {**overrides, "num_speculative_tokens": NGRAM_DRAFT_TOKENS}
    return overrides
