"""A tuned configuration as a ``trtllm-serve`` server: its ``--config`` YAML, command line and container.

TensorRT-LLM's ``trtllm-serve`` runs a Hugging Face checkpoint on its PyTorch backend (no engine
build) and reads a YAML whose keys are ``TorchLlmArgs`` fields (``--config``, also spelled
``--extra_llm_api_options``). :func:`translate` maps every field of the console's
:class:`~console.config.EngineConfig` to one of three outcomes, so nothing is dropped silently:
a key of that YAML (:attr:`Translation.config`), a ``trtllm-serve`` option
(:attr:`Translation.options`), or a line saying why there is no equivalent
(:attr:`Translation.unmapped`). The YAML is checked against the offline configuration model of the
release it names (:mod:`console.export.trtllm_schema`) before it is written.

The KV cache's size is the one knob that differs in kind: vLLM takes a share of the GPU's whole
memory (``gpu_memory_utilization``), TensorRT-LLM a share of the memory still free once the
weights and the activations are in place (``kv_cache_config.free_gpu_memory_fraction``). The
planner's figures for the same layout give that share (:func:`kv_fraction`).
"""

from __future__ import annotations

import math
import shlex
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

import yaml

from console.config import VLLM_GPU_MEMORY_UTILIZATION, EngineConfig
from console.engine.serve_options import CONTAINER_MODEL_ROOT, MULTICAST_OFF, ExportError, ServeOptions
from console.export.plan_report import planner_report
from console.engine.serve_args import reasoning_arguments, served_name
from console.export.trtllm_schema import RELEASE, check, load_schema
from console.engine.tool_calls import tool_call_arguments

#: NVIDIA's TensorRT-LLM release container (NGC); pin the tag of the release the schema names.
TRTLLM_IMAGE = "nvcr.io/nvidia/tensorrt-llm/release:1.1.0rc5"
CONTAINER_CONFIG = "/config/trtllm.yaml"
#: The largest share of free memory the export gives the KV cache: the rest holds CUDA graphs and
#: the allocator's slack that the planner counts as margin.
MAX_FRACTION = 0.95
#: kv_cache_dtype values TensorRT-LLM's PyTorch backend reads as FP8 (e4m3, the Ada/Hopper format).
_FP8_KV = {"fp8", "fp8_e4m3"}
#: EngineConfig fields that name the checkpoint or the console's own choices: placed by hand.
_BY_HAND = {"model", "served_model_name", "device", "tokenizer", "trust_remote_code"}


@dataclass
class Translation:
    """One EngineConfig as TensorRT-LLM sees it: the YAML mapping, the serve options, the gaps."""

    config: dict[str, Any] = field(default_factory=dict)
    #: ``trtllm-serve`` options (without dashes), e.g. ``{"host": "127.0.0.1"}``.
    options: dict[str, Any] = field(default_factory=dict)
    #: ``(console field, value, why there is no equivalent)``, one per knob not carried over.
    unmapped: list[tuple[str, Any, str]] = field(default_factory=list)
    #: ``(console field(s), TensorRT-LLM key, how it was mapped)`` for the README's table.
    mapped: list[tuple[str, str, str]] = field(default_factory=list)
    #: what the operator must do about the checkpoint (quantization), in plain words.
    checkpoint: str = ""


def kv_fraction(config: EngineConfig, options: ServeOptions) -> tuple[float | None, str]:
    """(``free_gpu_memory_fraction``, how it was computed) from the planner's per-GPU figures:
    the KV cache's bytes over the memory left after the weights, the CUDA context and the
    activation peak. ``None`` when the planner cannot plan this layout (the reason says why)."""
    report = planner_report(config, options)
    per_gpu = report.get("per_gpu") if report.get("available") else None
    if not per_gpu:
        return None, str(report.get("reason", "planner unavailable"))
    gpu = per_gpu[0]
    overheads = gpu.get("overheads_gib") or {}
    free = gpu["capacity_gib"] - gpu["weights_gib"] - overheads.get("cuda_context", 0.0)
    free -= overheads.get("activation_peak", 0.0)
    if free <= 0 or gpu["kv_cache_gib"] <= 0:
        return None, "the planner leaves no memory for the KV cache on this GPU"
    fraction = min(MAX_FRACTION, math.floor(100 * gpu["kv_cache_gib"] / free) / 100)
    how = (
        f"planner: KV cache {gpu['kv_cache_gib']:.2f} GiB of the {free:.2f} GiB free after weights "
        f"{gpu['weights_gib']:.2f} GiB, CUDA context and activation peak on a {gpu['capacity_gib']:.1f} GiB GPU"
    )
    return fraction, how


def _cuda_graphs(config: EngineConfig, t: Translation) -> None:
    if config.enforce_eager:
        t.config["cuda_graph_config"] = None  # null turns CUDA graphs off
        t.mapped.append(("enforce_eager", "cuda_graph_config: null", "eager mode: no CUDA graphs"))
        return
    cap = config.max_cudagraph_capture_size or config.max_num_seqs or 128
    sizes = sorted({s for s in [1, 2, 4, *range(8, cap + 1, 8)] if s <= cap} | {cap})
    t.config["cuda_graph_config"] = {"batch_sizes": sizes, "enable_padding": True}
    t.mapped.append(
        (
            "enforce_eager, max_cudagraph_capture_size",
            "cuda_graph_config.batch_sizes, enable_padding",
            f"vLLM's capture sizes (1, 2, 4, then steps of 8) up to {cap}; a batch pads up to the next one, as in vLLM",
        )
    )


def _speculative(config: EngineConfig, t: Translation) -> None:
    method = config.speculative_method
    if not method:
        return
    tokens = config.num_speculative_tokens
    if method == "ngram":
        spec: dict[str, Any] = {"decoding_type": "NGram", "max_draft_len": tokens or 4}
        spec["max_matching_ngram_size"] = config.prompt_lookup_max or 4
        t.config["speculative_config"] = spec
        t.mapped.append(
            (
                "speculative_method=ngram, num_speculative_tokens, prompt_lookup_max",
                "speculative_config (NGram): max_draft_len, max_matching_ngram_size",
                "prompt lookup from the context",
            )
        )
        if config.prompt_lookup_min is not None:
            t.unmapped.append(
                ("prompt_lookup_min", config.prompt_lookup_min, "NGram matches from the longest size down; no minimum")
            )
    elif method == "eagle3":
        t.config["speculative_config"] = {
            "decoding_type": "Eagle",
            "max_draft_len": tokens or 3,
            "speculative_model_dir": config.speculative_model,
            "eagle3_one_model": True,
        }
        t.mapped.append(
            ("speculative_method=eagle3, speculative_model", "speculative_config (Eagle)", "EAGLE-3 draft head")
        )
    else:
        t.unmapped.append(
            ("speculative_method", method, "the PyTorch backend's Eagle decoding is EAGLE-3; an EAGLE-1 head has none")
        )
    for name in ("num_speculative_tokens", "speculative_model", "prompt_lookup_max"):
        if method not in ("ngram", "eagle3") and getattr(config, name) is not None:
            t.unmapped.append((name, getattr(config, name), f"goes with speculative_method={method}"))


def _parsers(config: EngineConfig, t: Translation) -> None:
    """The vLLM export's reasoning and tool-call parsers (from the model's family): trtllm-serve
    has ``--reasoning_parser`` and ``--tool_parser`` with names of its own, so they are listed."""

    reasoning = reasoning_arguments(config).get("reasoning-parser")
    if reasoning:
        t.unmapped.append(
            ("reasoning parser", reasoning, "trtllm-serve's --reasoning_parser has its own names: set it by hand")
        )
    tools = tool_call_arguments(config.model).get("tool-call-parser")
    if tools:
        t.unmapped.append(("tool-call parser", tools, "trtllm-serve's --tool_parser has its own names: set it by hand"))


def checkpoint_advice(config: EngineConfig) -> str:
    """Which checkpoint TensorRT-LLM needs for the preset's quantization, said plainly."""
    q = config.quantization
    if q is None:
        return (
            "Unquantized 16-bit checkpoint: serve the same Hugging Face folder as vLLM. For FP8 on an "
            "Ada card (RTX 4090), use an NVIDIA ModelOpt FP8 checkpoint instead (see below)."
        )
    if q == "fp8":
        return (
            "vLLM quantizes this 16-bit checkpoint to FP8 when it loads it; TensorRT-LLM does not. Serve "
            "an FP8 checkpoint made by NVIDIA ModelOpt: a published one (the `nvidia/<model>-FP8` repositories "
            "on Hugging Face) or your own (`python examples/llm_ptq/hf_ptq.py --qformat fp8` in ModelOpt, "
            "`--export_fmt hf`). FP8 runs on Ada (RTX 4090, SM 8.9), Hopper and Blackwell."
        )
    if q in ("awq", "awq_marlin", "gptq", "gptq_marlin", "compressed-tensors"):
        return (
            f"This preset serves a {q} checkpoint (AutoAWQ/GPTQ/llm-compressor layout) that vLLM reads. "
            "TensorRT-LLM's 4-bit path expects an NVIDIA ModelOpt W4A16 AWQ checkpoint "
            "(`hf_ptq.py --qformat int4_awq`), not vLLM's AWQ files: quantize the 16-bit model with ModelOpt. "
            "NVFP4 (`--qformat nvfp4`) needs a Blackwell GPU; an RTX 4090 runs FP8 or W4A16 AWQ."
        )
    return f"Quantization {q!r}: TensorRT-LLM reads the quantization from a ModelOpt checkpoint; make one."


def translate(config: EngineConfig, options: ServeOptions, *, model: str | None = None) -> Translation:
    """The whole mapping; every EngineConfig field that is set ends up in one of the three lists."""
    options.validate()
    t = Translation()
    t.options = {"model": model or config.model, "host": options.host, "port": options.port, "backend": "pytorch"}
    if config.tokenizer and config.tokenizer != config.model:
        t.options["tokenizer"] = config.tokenizer
    if config.trust_remote_code:
        t.options["trust_remote_code"] = True
    simple = {
        "max_num_seqs": ("max_batch_size", "requests scheduled together"),
        "max_num_batched_tokens": ("max_num_tokens", "tokens in one batch (prefill and decode)"),
        "max_model_len": ("max_seq_len", "prompt plus answer of one request"),
        "tensor_parallel_size": ("tensor_parallel_size", "GPUs a layer is split over"),
        "pipeline_parallel_size": ("pipeline_parallel_size", "GPUs the layers are staged over"),
        "enable_chunked_prefill": ("enable_chunked_prefill", "long prompts prefilled in chunks"),
    }
    for name, (key, what) in simple.items():
        value = getattr(config, name)
        if value is not None:
            t.config[key] = value
            t.mapped.append((name, key, what))
    if config.enable_chunked_prefill is None:  # vLLM's engine prefills in chunks unless told not to
        t.config["enable_chunked_prefill"] = True
        t.mapped.append(
            ("enable_chunked_prefill", "enable_chunked_prefill", "on, as vLLM's default (TensorRT-LLM's is off)")
        )
    if config.dtype not in (None, "auto"):
        t.config["dtype"] = {"half": "float16", "float": "float32"}.get(config.dtype, config.dtype)
        t.mapped.append(("dtype", "dtype", "weights' and activations' type"))
    if config.load_format == "dummy":
        t.config["load_format"] = "dummy"
        t.mapped.append(("load_format", "load_format", "random weights (benchmarks)"))
    elif config.load_format is not None:
        t.unmapped.append(("load_format", config.load_format, "TensorRT-LLM detects the format from the checkpoint"))
    kv: dict[str, Any] = {}
    fraction, how = kv_fraction(config, options)
    if fraction is not None:
        kv["free_gpu_memory_fraction"] = fraction
        t.mapped.append(("gpu_memory_utilization", "kv_cache_config.free_gpu_memory_fraction", how))
    elif config.gpu_memory_utilization is not None:
        t.unmapped.append(
            (
                "gpu_memory_utilization",
                config.gpu_memory_utilization,
                f"no planner figures ({how}); {VLLM_GPU_MEMORY_UTILIZATION} default kept",
            )
        )
    if config.kv_cache_memory_bytes is not None:
        kv["max_gpu_total_bytes"] = config.kv_cache_memory_bytes
        t.mapped.append(("kv_cache_memory_bytes", "kv_cache_config.max_gpu_total_bytes", "KV cache size in bytes"))
    if config.kv_cache_dtype in _FP8_KV:
        kv["dtype"] = "fp8"
        t.mapped.append(("kv_cache_dtype", "kv_cache_config.dtype", "FP8 (e4m3) KV cache"))
    elif config.kv_cache_dtype not in (None, "auto"):
        t.unmapped.append(("kv_cache_dtype", config.kv_cache_dtype, "TensorRT-LLM's FP8 KV cache is e4m3 only"))
    if config.enable_prefix_caching is not None:
        kv["enable_block_reuse"] = bool(config.enable_prefix_caching)
        t.mapped.append(("enable_prefix_caching", "kv_cache_config.enable_block_reuse", "prefix caching"))
    if config.block_size is not None:
        kv["tokens_per_block"] = config.block_size
        t.mapped.append(("block_size", "kv_cache_config.tokens_per_block", "tokens per KV block"))
    if config.kv_offloading_size:
        kv["host_cache_size"] = int(config.kv_offloading_size * 1024**3)
        t.mapped.append(("kv_offloading_size", "kv_cache_config.host_cache_size", "GiB -> bytes of host KV blocks"))
    if kv:
        t.config["kv_cache_config"] = kv
    _cuda_graphs(config, t)
    _speculative(config, t)
    # The Monitor reads trtllm-serve's /metrics, which holds iteration statistics only with this on.
    t.config["enable_iter_perf_stats"] = True
    no_equivalent = {
        "quantization": "read from the checkpoint by TensorRT-LLM: see Checkpoint",
        "cpu_offload_gb": "TensorRT-LLM does not offload weights to host memory",
        "seed": "a per-request sampling seed in TensorRT-LLM (send `seed` with the request)",
        "enable_lora": "LoRA is configured through lora_config, whose fields this release defines outside llm_args.py",
        "max_loras": "see enable_lora",
        "max_lora_rank": "see enable_lora",
        "max_cpu_loras": "see enable_lora",
        "lora_modules": "see enable_lora",
        "enable_sleep_mode": "trtllm-serve has no sleep/wake endpoint",
        "limit_mm_per_prompt": "this release's LlmArgs has no per-prompt image limit",
        "mm_processor_kwargs": "the image processor's options come from the checkpoint's preprocessor_config.json",
        "allowed_local_media_path": "trtllm-serve loads the image URLs a request names itself; no allowed folder",
    }
    for name, why in no_equivalent.items():
        value = getattr(config, name)
        if value not in (None, False, {}, ""):
            t.unmapped.append((name, value, why))
    handled = (
        _BY_HAND
        | {k for k in simple}
        | {
            "dtype",
            "load_format",
            "gpu_memory_utilization",
            "kv_cache_memory_bytes",
            "kv_cache_dtype",
            "enable_prefix_caching",
            "block_size",
            "kv_offloading_size",
            "enforce_eager",
            "max_cudagraph_capture_size",
            "speculative_method",
            "num_speculative_tokens",
            "speculative_model",
            "prompt_lookup_max",
            "prompt_lookup_min",
            *no_equivalent,
        }
    )
    missed = [f for f in config.__dataclass_fields__ if f not in handled]
    if missed:  # a new EngineConfig field: refuse rather than drop it
        raise ExportError(f"the TensorRT-LLM export does not know the field(s) {', '.join(missed)} yet")
    _parsers(config, t)
    t.checkpoint = checkpoint_advice(config)
    if options.api_key:
        t.unmapped.append(
            ("served API key", "(set)", "trtllm-serve has no API key: put it behind a proxy that checks one")
        )
    return t


def validated(t: Translation) -> Translation:
    """``t`` after checking its YAML mapping and options against the release's model."""
    schema = load_schema()
    problems = check(t.config, schema)
    flags = schema.serve_flags()
    problems += [
        f"trtllm-serve --{k}: no such option in {schema.release}"
        for k in t.options
        if k != "model" and f"--{k}" not in flags
    ]
    if problems:
        raise ExportError(
            f"the trtllm-serve configuration does not fit TensorRT-LLM {schema.release}:\n  " + "\n  ".join(problems)
        )
    return t


def config_yaml(t: Translation, options: ServeOptions) -> str:
    head = [
        f"# trtllm-serve MODEL --config trtllm.yaml   (TensorRT-LLM {RELEASE}, PyTorch backend)",
        "# written by inference-console export; checked against TensorRT-LLM's TorchLlmArgs of that release",
    ]
    if not options.loopback:
        head.append(f"# WARNING: the server listens on {options.host}:{options.port}; trtllm-serve has no API key")
    return "\n".join(head) + "\n" + yaml.safe_dump(t.config, sort_keys=False, default_flow_style=None)


def command_tokens(t: Translation, config_path: str) -> list[str]:
    tokens = ["trtllm-serve", str(t.options["model"])]
    for key, value in t.options.items():
        if key == "model":
            continue
        if value is True:
            tokens.append(f"--{key}")
        else:
            tokens += [f"--{key}", str(value)]
    return tokens + ["--config", config_path]


def serve_command(t: Translation, config_path: str = "trtllm.yaml") -> str:
    return shlex.join(command_tokens(t, config_path))


def container_translation(config: EngineConfig, options: ServeOptions) -> Translation:
    """The same server inside NVIDIA's container: model under /models/<served name>, 0.0.0.0.

    ``trtllm-serve`` names the model after its folder in ``/v1/models``, so the mount point is the
    name clients ask for."""
    inner = ServeOptions(**{**options.__dict__, "host": "0.0.0.0", "api_key": None})
    return translate(config, inner, model=f"{CONTAINER_MODEL_ROOT}/{served_name(config, options)}")


def dockerfile(config: EngineConfig, options: ServeOptions, image: str = TRTLLM_IMAGE) -> str:
    t = validated(container_translation(config, options))
    command = command_tokens(t, CONTAINER_CONFIG)
    name = served_name(config, options)
    host = "127.0.0.1" if options.loopback else options.host
    return "\n".join(
        [
            f"# TensorRT-LLM {RELEASE} serving {name} (written by inference-console export).",
            "# docker build -t trtllm-" + _slug(name) + " .",
            "# docker run --gpus all --ipc host --ulimit memlock=-1 --ulimit stack=67108864 \\",
            f"#   -p {host}:{options.port}:{options.port} \\",
            f"#   -v {PurePosixPath(config.model)}:{CONTAINER_MODEL_ROOT}/{name}:ro trtllm-{_slug(name)}",
            f"FROM {image}",
            "COPY trtllm.container.yaml " + CONTAINER_CONFIG,
            "ENV HF_HUB_OFFLINE=1",
            *(f"ENV {k}={v}" for k, v in server_env(config).items()),
            f"EXPOSE {options.port}",
            f"HEALTHCHECK --start-period=600s CMD curl -fs http://127.0.0.1:{options.port}/health || exit 1",
            "CMD " + _json_list(command),
            "",
        ]
    )


def server_env(config: EngineConfig) -> dict[str, str]:
    """NVLink multicast off when the server spans GPUs (its workers talk over NCCL), as the vLLM
    exports do; nothing for one GPU."""
    gpus = (config.tensor_parallel_size or 1) * (config.pipeline_parallel_size or 1)
    return dict(MULTICAST_OFF) if gpus > 1 else {}


def _json_list(tokens: list[str]) -> str:
    import json

    return json.dumps(tokens)


def _slug(name: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in name.lower()).strip("-") or "model"
