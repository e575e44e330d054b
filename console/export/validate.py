"""Check an exported ``vllm serve`` YAML or command with vLLM's own parser.

vLLM's ``FlexibleArgumentParser`` + ``make_arg_parser`` read the file exactly as ``vllm serve
--config`` does, ``AsyncEngineArgs.from_cli_args`` applies vLLM's field checks, and every setting
of the console's configuration is compared with what vLLM ended up with: a key vLLM dropped or
read differently is a problem, not a silent change.
"""

from __future__ import annotations

import contextlib
import math
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from console.config import EngineConfig
from console.engine.serve_options import ServeOptions
from console.engine.serve_args import serve_arguments
from console.vllm_compat import engine_args_from_cli, parse_serve_args

_MISSING = object()
#: Serving options live on the parsed namespace, not on the engine arguments.
_FRONTEND = {"host", "port", "api_key", "distributed_executor_backend", "lora_modules"}


def parse_with_vllm(argv: list[str]) -> tuple[Any, Any]:
    """(namespace, AsyncEngineArgs) as ``vllm serve ARGV`` would see them."""

    args = parse_serve_args(argv)
    if getattr(args, "model_tag", None):  # `vllm serve MODEL` puts the positional first
        args.model = args.model_tag
    with _model_path_not_resolved():
        return args, engine_args_from_cli(args)


@contextlib.contextmanager
def _model_path_not_resolved() -> Iterator[None]:
    """With ``HF_HUB_OFFLINE=1`` (an offline machine) vLLM's engine
    arguments look a model path that is not on this machine up in the hub cache, and a container
    path (``/models/NAME``, only inside the container) fails that look-up with a hub error, which
    would refuse the bundle and Compose exports. The check is about option names and values,
    not where the weights are, so the look-up is skipped while parsing (nothing is downloaded
    either way: with the flag off, parsing does not touch the hub)."""
    import huggingface_hub.constants as hub

    saved = hub.HF_HUB_OFFLINE
    hub.HF_HUB_OFFLINE = False
    try:
        yield
    finally:
        hub.HF_HUB_OFFLINE = saved


def _same(expected: Any, got: Any) -> bool:
    if isinstance(got, (list, tuple)) and not isinstance(expected, (list, tuple)):
        return len(got) == 1 and _same(expected, got[0])
    if isinstance(expected, bool) or isinstance(got, bool):
        return isinstance(expected, bool) and isinstance(got, bool) and expected == got
    if isinstance(expected, float) or isinstance(got, float):
        try:
            return math.isclose(float(expected), float(got), rel_tol=1e-9)
        except (TypeError, ValueError):
            return False
    return bool(expected == got)


def compare(config: EngineConfig, options: ServeOptions, args: Any, engine: Any, **kw: Any) -> list[str]:
    """Every mismatch between what the console meant and what vLLM parsed ([] when none)."""
    expected = serve_arguments(config, options, **kw)
    problems = []
    for key, value in expected.items():
        attr = key.replace("-", "_")
        source = args if attr in _FRONTEND and not hasattr(engine, attr) else engine
        got = getattr(source, attr, _MISSING)
        if got is _MISSING:
            got = getattr(args, attr, _MISSING)
        if attr == "lora_modules" and isinstance(got, list):  # vLLM's LoRAModulePath objects
            got = [f"{m.name}={m.path}" for m in got]
        if got is _MISSING:
            problems.append(f"{key}: vLLM has no such option")
        elif not _same(value, got):
            problems.append(f"{key}: written {value!r}, vLLM read {got!r}")
    # Nothing of the console's configuration may be missing from what was written.
    for name, value in config.engine_kwargs().items():
        if name.replace("_", "-") not in expected and name not in ("model", "served_model_name"):
            problems.append(f"{name}: set to {value!r} in the console but not exported")
    return problems


def check_yaml(path: str | Path, config: EngineConfig, options: ServeOptions, **kw: Any) -> list[str]:
    args, engine = parse_with_vllm(["--config", str(path)])
    return compare(config, options, args, engine, **kw)


def check_command(command: str, config: EngineConfig, options: ServeOptions, **kw: Any) -> list[str]:
    tokens = shlex.split(command)
    if tokens[:2] != ["vllm", "serve"]:
        return [f"not a `vllm serve` command: {command[:60]}"]
    args, engine = parse_with_vllm(tokens[2:])
    return compare(config, options, args, engine, **kw)
