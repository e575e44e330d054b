"""The engine flags ``chat``, ``batch`` and ``bench`` share: the engine knobs and speed settings
(``add_engine_args``, ``engine_overrides``), the sampling flags (``add_sampling_args``,
``sampling_from_args``), starting the engine they ask for (``start_engine``), and refusing the
in-process flags when the engine is a server someone else runs (``refuse_engine_flags``).
"""

from __future__ import annotations

import argparse
import sys

from console.cli.speed_args import SPEED_KEYS, add_speed_args, speed_overrides
from console.cli.common import CliError, quiet_engine_logs
from console.cli.knob_flags import add_knob_flags, given_knobs
from console.config import EngineConfig
from console.sampling import SERVER_DEFAULTS, SamplingSettings, summary
from console.engine.factory import parse_engine_choice, make_engine
from console.engine.interface import Engine, require_loader
from console.engine.types import EngineError, EngineInfo, EngineStatus
from console.launch import default_model_name, engine_config_for
from console.models.adapters import lora_modules_for
from console.models.lora import AdapterError
from console.models.store import ModelStore, StoreError
from console.presets import PresetError, validate_overrides


#: The engine knobs chat, batch and bench take (knob flags, ``knob_flags.py``) besides the speed ones.
ENGINE_KNOBS = (
    "max_model_len",
    "max_num_seqs",
    "max_num_batched_tokens",
    "gpu_memory_utilization",
    "kv_cache_dtype",
    "quantization",
    "kv_cache_memory_bytes",
    "enforce_eager",
    "device",
    "limit_mm_per_prompt",
    "mm_processor_kwargs",
    "allowed_local_media_path",
)


def add_engine_args(p: argparse.ArgumentParser) -> None:
    """Where the engine runs, model, preset and the engine knobs, by vLLM's names (shared by chat,
    batch, bench)."""
    p.add_argument(
        "--engine",
        default="local",
        metavar="local|serve|URL",
        help="where the engine runs: local (in this process, default), serve (a vLLM server the "
        "console starts on 127.0.0.1 and stops at exit), or the URL of a running vLLM server "
        "(e.g. http://gpu-box:8000; its own model and settings are used)",
    )
    p.add_argument(
        "--api-key", help="API key of a remote server (default: $INFERENCE_CONSOLE_API_KEY, then $VLLM_API_KEY)"
    )
    p.add_argument(
        "--ca-cert",
        metavar="PATH",
        help="CA bundle that signed a remote server's TLS certificate (certificates are always verified)",
    )
    p.add_argument("--model", help="model name in the store (default: the bundled smollm2)")
    p.add_argument("--preset", help="preset name (default: cpu-default, or gpu-default with a GPU)")
    add_knob_flags(p, ENGINE_KNOBS)
    add_speed_args(p)
    p.add_argument(
        "--adapter",
        action="append",
        default=[],
        metavar="NAME",
        help="LoRA adapter from the store to load with the model (repeatable; chat answers "
        "with the first one, batch lines pick one with their `model` field)",
    )


#: What add_engine_args adds for the engine the console builds (argparse dests): a server someone
#: else started (``--engine URL``) keeps its own, so these are refused there, never dropped. Not
#: --allowed-local-media-path: with a server the console reads those pictures itself and sends them.
ENGINE_FLAGS = ("model", "preset", *(k for k in ENGINE_KNOBS if k != "allowed_local_media_path"), *SPEED_KEYS)


def refuse_engine_flags(args: argparse.Namespace, url: str, also: tuple[str, ...] = ()) -> None:
    """CliError naming the engine flags given with ``--engine URL`` (and the command's own ``also``),
    with the way out: they belong on the server's own command line. chat, batch and bench share it."""
    given = [
        f"--{dest.replace('_', '-')}"
        for dest in (*ENGINE_FLAGS, *also)
        if getattr(args, dest, None) not in (None, [], "")
    ]
    if given:
        raise CliError(
            f"{', '.join(given)} cannot change the server at {url}: a server the console did not start "
            "runs with its own model and settings. Set them on the server's own command line (e.g. "
            "`vllm serve MODEL --max-model-len 4096`), use --engine serve to have the console start "
            "one with them, or leave them out."
        )


def check_server_adapters(engine: Engine, names: list[str], url: str) -> None:
    """``--adapter`` with ``--engine URL`` picks adapters the server serves (``/v1/models``); one it
    does not serve is refused, since the console cannot load it there."""
    served = engine.adapters()
    missing = [n for n in names if n not in served]
    if missing:
        have = f"it serves {', '.join(sorted(served))}" if served else "it serves none"
        raise CliError(
            f"--adapter {', '.join(missing)}: the server at {url} serves no such LoRA adapter ({have}). "
            "A server the console did not start loads its own adapters: add them to its command line "
            "(`vllm serve MODEL --enable-lora --lora-modules NAME=PATH`)."
        )


def add_sampling_args(p: argparse.ArgumentParser, fixed: SamplingSettings | None = None) -> None:
    """The sampling flags, defaulting to the window's chat (``SamplingSettings()``, the one default:
    what is not given is the loaded model's own, its generation_config.json as vLLM reads it), or
    to the values of ``fixed`` (batch: fixed, bounded answers)."""
    d = fixed or SamplingSettings()

    def own(value: float | None) -> str:
        return "the model's own (its generation_config.json), else vLLM's" if value is None else f"{value:g}"

    p.add_argument(
        "--temperature",
        type=float,
        default=d.temperature,
        help=f"sampling temperature (default: {own(d.temperature)}; 0 = greedy)",
    )
    p.add_argument("--top-p", type=float, default=d.top_p, help=f"(default: {own(d.top_p)})")
    p.add_argument("--top-k", type=int, default=d.top_k, help=f"0 = off (default: {own(d.top_k)})")
    max_tokens = d.max_tokens
    tokens = max_tokens
    p.add_argument(
        "--max-tokens",
        type=int,
        default=tokens,
        help=f"longest answer in tokens (default {tokens}; 0 = as long as the context allows)",
    )
    p.add_argument(
        "--repetition-penalty", type=float, default=d.repetition_penalty, help=f"(default: {own(d.repetition_penalty)})"
    )
    p.add_argument("--seed", type=int)
    p.add_argument("--stop", action="append", default=[], help="stop string (repeatable)")


def sampling_from_args(args: argparse.Namespace) -> SamplingSettings:
    """The sampling flags as settings: a flag not given is None, left to the loaded model."""
    s = SamplingSettings(
        temperature=args.temperature,
        top_p=args.top_p,
        top_k=args.top_k,
        max_tokens=args.max_tokens,
        repetition_penalty=args.repetition_penalty,
        seed=args.seed,
        stop=list(args.stop),
    )
    s.validate()
    return s


def sampling_note(info: EngineInfo, sampling: SamplingSettings) -> str:
    """The line the terminal chat prints once at start: the sampling its answers use and where
    the defaults came from (the flags given win)."""
    defaults = info.sampling_defaults
    if defaults is None:  # a server: its own defaults, unknown here; only the flags are sent
        return f"[sampling] {summary(sampling)}: {SERVER_DEFAULTS}"
    given = sampling.explicit()
    mine = f"; yours: {', '.join(k.replace('_', '-') for k in given)}" if given else ""
    return f"[sampling] {summary(sampling.resolved(defaults))} ({defaults.describe()}{mine})"


def engine_overrides(args: argparse.Namespace) -> dict[str, object]:
    """The engine flags given, by EngineConfig field, checked by the schema presets pass through
    (a bad value: one line naming the flag, e.g. ``'--max-num-seqs' = 0 is out of range [1, 65536]``)."""
    values = {**given_knobs(args, ENGINE_KNOBS), **speed_overrides(args)}
    try:
        validate_overrides(values, {k: "--" + k.replace("_", "-") for k in values})
    except PresetError as exc:
        raise CliError(str(exc)) from None
    return values


class StatusPrinter:
    """The engine's load on stderr: each stage once, and each of vLLM's phases as it ends
    ("[engine] Weights 3.1 s (15.0 GiB)")."""

    def __init__(self) -> None:
        self._stage = ""
        self._phases = 0

    def __call__(self, status: EngineStatus) -> None:
        if status.stage and status.stage != self._stage:
            print(f"[engine] {status.stage}", file=sys.stderr)
        self._stage = status.stage
        done = status.phases.done if status.phases is not None else ()
        for phase in done[self._phases :]:
            detail = f" ({phase.detail})" if phase.detail else ""
            print(f"[engine] {phase.label} {phase.seconds:.1f} s{detail}", file=sys.stderr)
        self._phases = len(done)


def start_engine(args: argparse.Namespace, config: EngineConfig | None = None, name: str | None = None) -> Engine:
    """Start (or connect to) the chosen engine and wait, printing the stages, until it is ready.
    ``config``/``name`` default to ``--model`` and ``--preset`` from the store."""
    quiet_engine_logs(getattr(args, "verbose", False))
    try:
        choice = parse_engine_choice(getattr(args, "engine", "local"))
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if choice.kind == "remote" and not getattr(args, "compare_local", False):  # bench's own engine takes them
        refuse_engine_flags(args, str(choice.url))
    if choice.needs_model and config is None:
        name = args.model or default_model_name()
        store = ModelStore()
        config = engine_config_for(store, name, args.preset, **engine_overrides(args))
        if getattr(args, "adapter", None):
            try:
                config = config.replace(lora_modules=lora_modules_for(store, name, args.adapter))
            except (AdapterError, StoreError) as exc:
                raise CliError(str(exc)) from None
    engine = make_engine(
        choice,
        api_key=getattr(args, "api_key", None),
        verify=getattr(args, "ca_cert", None) or True,
        media_folder=getattr(args, "allowed_local_media_path", None),
    )
    engine.add_status_listener(StatusPrinter())
    try:
        if choice.kind == "remote":
            info = engine.connect().result()  # type: ignore[attr-defined]
            check_server_adapters(engine, getattr(args, "adapter", None) or [], str(choice.url))
        else:
            assert config is not None
            info = require_loader(engine, "Chat").load(config, name).result()
    except EngineError as exc:
        engine.close()
        raise CliError(str(exc)) from None
    except CliError:
        engine.close()
        raise
    where = info.device
    kv = f", KV cache {info.kv_cache_tokens} tokens" if info.kv_cache_tokens else ""
    print(
        f"[engine] ready: {info.model} on {where} in {info.load_seconds:.0f}s, max_model_len {info.max_model_len}{kv}",
        file=sys.stderr,
    )
    return engine
