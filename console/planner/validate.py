"""Engine arguments checked by vLLM itself: built into ``vllm serve`` flags and run through vLLM's
own parser and ``AsyncEngineArgs.from_cli_args``, so no preset or plan can hold a value vLLM
would reject. Needs vLLM installed, no GPU (a few seconds: the parser imports vLLM)."""

from __future__ import annotations

import contextlib
import io
import json
from typing import Any

from console.config import CONSOLE_ONLY_FIELDS, SPECULATIVE_FIELDS, speculative_config_of
from console import vllm_compat


class EngineArgsError(ValueError):
    """vLLM refused these engine arguments; the message quotes vLLM."""


def serve_argv(engine: dict[str, Any], model: str) -> list[str]:
    """``vllm serve`` flags for ``engine`` (vLLM's names; booleans as --flag / --no-flag)."""
    argv = ["--model", model]
    for key, value in engine.items():
        if key in CONSOLE_ONLY_FIELDS or key in SPECULATIVE_FIELDS or value is None:
            continue
        flag = key.replace("_", "-")
        if isinstance(value, bool):
            argv.append(f"--{flag}" if value else f"--no-{flag}")
        else:
            argv += [f"--{flag}", str(value)]
    spec = speculative_config_of(engine)  # one JSON flag, as the export writes it
    if spec is not None:
        argv += ["--speculative-config", json.dumps(spec)]
    return argv


def validate_with_vllm(engine: dict[str, Any], model: str = "validation/model", where: str = "") -> Any:
    """vLLM's ``AsyncEngineArgs`` for ``engine``, or :class:`EngineArgsError` with vLLM's complaint."""

    argv = serve_argv(engine, model)
    label = f"{where}: " if where else ""
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            args = vllm_compat.parse_serve_args(argv)
    except SystemExit:
        lines = [x for x in err.getvalue().splitlines() if "error:" in x]
        why = lines[-1].split("error:", 1)[1].strip() if lines else err.getvalue()[-300:]
        raise EngineArgsError(f"{label}vLLM's parser refused {' '.join(argv[2:])}: {why}") from None
    try:
        return vllm_compat.engine_args_from_cli(args)
    except Exception as exc:  # vLLM raises ValueError/TypeError/pydantic errors here
        raise EngineArgsError(f"{label}vLLM's EngineArgs refused {' '.join(argv[2:])}: {exc}") from None
