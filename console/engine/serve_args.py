"""The ``vllm serve`` argument list, as a ``--config`` YAML and as a one-line command.

Keys are vLLM's CLI option names with dashes. That matters: vLLM turns ``key: false`` into
``--no-key`` only when the key is dashed, and silently drops ``enable_prefix_caching: false``
(``tests/test_export_roundtrip.py``). Console-only fields (``device``) are left out; fields left at ``None`` mean
"vLLM's default" and are not written. A reasoning model's server gets its family's
``--reasoning-parser``, so its answers carry ``reasoning_content`` as the console shows
them; the family is read from the chat template the model folder ships.
"""

from __future__ import annotations

import dataclasses
import json
import shlex
from pathlib import PurePosixPath
from typing import Any

import yaml

from console.engine import tool_calls
from console.config import CONSOLE_ONLY_FIELDS, SPECULATIVE_FIELDS, EngineConfig
from console.engine.serve_options import CONTAINER_MODEL_ROOT, MULTICAST_OFF, ServeOptions
from console.models.family_table import family_of_folder

#: EngineConfig fields written by hand (first, in this order) rather than in the generic loop.
_HANDLED = {"model", "served_model_name"}


def dashed(name: str) -> str:
    return name.replace("_", "-")


def served_name(config: EngineConfig, options: ServeOptions) -> str:
    """The name clients put in ``"model": ...``: chosen, else the store name, else the folder name."""
    return options.served_model_name or config.served_model_name or PurePosixPath(config.model).name


def container_model_path(config: EngineConfig, options: ServeOptions) -> str:
    return f"{CONTAINER_MODEL_ROOT}/{served_name(config, options)}"


def serve_arguments(
    config: EngineConfig,
    options: ServeOptions,
    *,
    model: str | None = None,
    host: str | None = None,
    ray: bool = False,
    reasoning: bool = True,
) -> dict[str, Any]:
    """Ordered ``{cli-name: value}`` for ``vllm serve`` (``model`` first). ``reasoning=False``
    leaves out the reasoning parser: the console's own server returns the thinking inside the
    answer and the console splits it, as for the in-process engine."""
    options.validate()
    out: dict[str, Any] = {
        "model": model or config.model,
        "served-model-name": served_name(config, options),
        "host": host or options.host,
        "port": options.port,
    }
    for f in dataclasses.fields(config):
        if f.name in CONSOLE_ONLY_FIELDS or f.name in _HANDLED or f.name in SPECULATIVE_FIELDS:
            continue
        value = getattr(config, f.name)
        if value is None:
            continue
        if f.name == "tokenizer" and model and value == config.model:
            value = model  # the tokenizer travels with the model into the container
        if f.name == "lora_modules":
            if not value:
                continue
            value = lora_module_args(value)
        out[dashed(f.name)] = value
    out.update(_speed_arguments(config))
    if reasoning:
        out.update(reasoning_arguments(config))
    out.update(tool_calls.tool_call_arguments(config.model))  # the family's tool-call parser
    if ray or options.nodes > 1:
        out["distributed-executor-backend"] = "ray"
    if options.api_key:
        out["api-key"] = options.api_key
    return out


def reasoning_arguments(config: EngineConfig) -> dict[str, Any]:
    """``{"reasoning-parser": name}`` for a model whose family has a vLLM reasoning parser
    (``family_table.py``), read from its (or its tokenizer's) folder; ``{}`` otherwise."""

    family = family_of_folder(config.tokenizer or config.model) or family_of_folder(config.model)
    if family is None or family.reasoning_parser is None:
        return {}
    return {"reasoning-parser": family.reasoning_parser}


def _speed_arguments(config: EngineConfig) -> dict[str, Any]:
    """The speculative fields go out as one ``--speculative-config`` mapping (vLLM's
    ``--spec-method``/``--spec-tokens`` shorthands are newer than 0.26; the JSON flag is in both)."""
    spec = config.speculative_config()
    return {} if spec is None else {"speculative-config": spec}


def _flat(value: Any) -> Any:
    """A mapping as the JSON text vLLM's ``json.loads`` option type reads (YAML and command alike)."""
    return json.dumps(value, separators=(",", ":")) if isinstance(value, dict) else value


def lora_module_args(modules: dict[str, str]) -> list[str]:
    """``--lora-modules`` values, ``name=path`` each (the form vLLM 0.26-0.33 all read)."""
    return [f"{name}={path}" for name, path in modules.items()]


def _header(config: EngineConfig, options: ServeOptions, host: str) -> list[str]:
    lines = []
    note = ServeOptions(host=host, port=options.port, api_key=options.api_key).exposure_note()
    if note:
        lines.append(f"WARNING: {note}")
    else:
        lines.append(f"Listens on {host}:{options.port} only (this machine); choose another --host to expose it.")
    if config.trust_remote_code:
        lines.append("WARNING: trust-remote-code is ON: the model repository's Python code will run.")
    if options.api_key:
        lines.append("This file holds an API key: keep it private.")
    lines.append(options.usage_note)
    return lines


def serve_yaml(config: EngineConfig, options: ServeOptions, *, header: list[str] | None = None, **kw: Any) -> str:
    """The YAML for ``vllm serve --config FILE`` (the model is in it, so no positional is needed).

    ``header`` replaces the comment lines about exposure (containers publish the port themselves).
    """
    args = serve_arguments(config, options, **kw)
    head = ["# vllm serve --config serve.yaml   (written by inference-console export)"]
    lines = header if header is not None else _header(config, options, args["host"])
    head += [f"# {line}" for line in lines]
    body = yaml.safe_dump(
        {k: _flat(v) for k, v in args.items()}, sort_keys=False, default_flow_style=False, allow_unicode=True
    )
    return "\n".join(head) + "\n" + body


def command_tokens(args: dict[str, Any], program: tuple[str, ...] = ("vllm", "serve")) -> list[str]:
    """``vllm serve MODEL --key value ...``; booleans become ``--key`` / ``--no-key``."""
    tokens = [*program, str(args["model"])]
    for key, value in args.items():
        if key == "model":
            continue
        if isinstance(value, bool):
            tokens.append(f"--{key}" if value else f"--no-{key}")
        elif isinstance(value, (list, tuple)):
            tokens += [f"--{key}", *map(str, value)]
        elif isinstance(value, dict):
            tokens += [f"--{key}", _flat(value)]
        else:
            tokens += [f"--{key}", str(value)]
    return tokens


def server_env(config: EngineConfig, options: ServeOptions) -> dict[str, str]:
    """The environment an exported server sets: the usage-statistics choice, and NVLink multicast
    off when the server spans more than one GPU (tensor/pipeline parallel workers talk over NCCL)."""
    gpus = (config.tensor_parallel_size or 1) * (config.pipeline_parallel_size or 1)
    return {**options.env, **(MULTICAST_OFF if gpus > 1 else {})}


def serve_command(config: EngineConfig, options: ServeOptions, **kw: Any) -> str:
    """The same server as :func:`serve_yaml`, as one shell line (usage-statistics env first)."""
    env = [f"{k}={v}" for k, v in server_env(config, options).items()]
    return shlex.join(env + command_tokens(serve_arguments(config, options, **kw)))


def env_exports(env: dict[str, str]) -> str:
    """``export K=V ...`` for a shell script."""
    return "export " + " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())


def serve_script(config: EngineConfig, options: ServeOptions, **kw: Any) -> str:
    args = serve_arguments(config, options, **kw)
    head = [f"# {line}" for line in _header(config, options, args["host"])]
    return (
        "#!/bin/sh\n"
        + "\n".join(head)
        + "\n"
        + env_exports(server_env(config, options))
        + "\nexec "
        + shlex.join(command_tokens(args))
        + "\n"
    )
