"""The in-process engine: the one owner of vLLM's AsyncLLM in this process.

A dedicated thread runs an asyncio loop for the engine's whole life (vLLM's output handler is a
task on that loop; a loop per request would kill it). Callers on any thread talk to the engine with
plain methods that return :class:`concurrent.futures.Future` objects or take an event sink; they
never block on the engine. The GUI wraps the sinks in queued Qt signals; the CLI waits on futures.

Life cycle: ``STOPPED → LOADING → READY → STOPPING → STOPPED``; any failure (bad model, refused
config, out of memory, the engine child process dying) goes to ``FAILED`` with a message, and a
new :meth:`InProcessEngine.load` starts over without restarting the program.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures as cf
import dataclasses
import gc
import logging
import os
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, TypeVar

from console import privacy, speed, vllm_compat
from console.config import EngineConfig
from console.engine import gc_pause, grouped, image_parts, load_capture, priority, reaper, tool_calls
from console.engine.front_prep import ChatWarmUp, FrontEndPrep
from console.engine.load_phases import LoadPhases
from console.engine.vllm_build import EngineBuild, stop_engine
from console.engine.adapters import Attached, AttachedAdapters, cpu_base_slot, lora_settings
from console.messages import Message
from console.models.family_table import family_of
from console.models.lora import write_null_adapter
from console.engine.chat_prompt import ChatPrompts, prompt_token_ids
from console.engine.choices import OutputCollector
from console.engine.loop_engine import RequestHandle
from console.engine.params import model_defaults, request_params
from console.engine.errors import ENGINE_DIED, NO_CPU_4BIT_KERNEL, explain
from console.engine.prepare import (  # re-exported: the rest of the console imports them from here
    cuda_available,
    dtype_note,
    engine_info,
    needs_sixteen_bit,
    prepare_config,
    resolve_device,
)
from console.engine.warm import WarmModel, keep_warm_refusal
from console.engine.in_process_warm import InProcessWarm
from console.metrics.store import MetricsStore
from console.engine.types import (
    EngineBusy,
    EngineError,
    EngineInfo,
    EngineNotReady,
    EngineState,
    EngineStatus,
    EventSink,
    GenerationRequest,
    RequestFailed,
    RequestFinished,
    TokenDelta,
)

log = logging.getLogger(__name__)

#: What a request or a count asked of an engine with no model says.
NO_MODEL_LOADED = Message("no model is loaded")
T = TypeVar("T")


class InProcessEngine(InProcessWarm):
    """vLLM's ``AsyncLLM`` in this process, owned by the engine's thread: loads a configuration, runs
    requests, keeps models warm (:class:`~console.engine.in_process_warm.InProcessWarm`)."""

    kind = "in-process"

    def __init__(self, metrics: MetricsStore | None = None) -> None:
        super().__init__(metrics)
        self._engine: Any = None
        self._watchdog: asyncio.Task[None] | None = None
        self._reaper: reaper.Reaper | None = None  # kills the engine's processes if we are killed
        # Load, unload and dead-engine cleanup each await; they must not interleave (a cleanup
        # finishing after a new load would shut the new engine down).
        self._lifecycle = asyncio.Lock()
        self._adapters = AttachedAdapters()  # LoRA adapters requests may name
        self._null_dir: tempfile.TemporaryDirectory[str] | None = None  # the CPU build's all-zero adapter
        self._info: EngineInfo | None = None  # the engine in use, as it was once READY
        self._gates: dict[str, grouped.SchedulerGate] = {}  # request id -> its group's gate (grouped.py)
        self._gate_lock: asyncio.Lock | None = None  # one group holds the scheduler at a time
        self._holds: set[asyncio.Task[None]] = set()  # the gates' scheduler holds in progress
        self.last_group: grouped.GroupTiming | None = None  # where the last held group's time went
        self._prompts = ChatPrompts()  # vLLM's chat preprocessing for the engine in use
        self._chat_warm = ChatWarmUp()  # the chat rendered once after a load (front_prep.py)
        atexit.register(self.close)

    # -- lifecycle -----------------------------------------------------------------------------
    def load(self, config: EngineConfig, name: str | None = None, *, keep_warm: bool = False) -> cf.Future[EngineInfo]:
        """Start loading ``config`` (unloading any current model first). Raises
        :class:`EngineBusy` if a load is already in progress, and :class:`EngineError` when the
        installed vLLM cannot run the configuration's speed settings on its device:
        refused before anything is unloaded, so the model in use stays loaded.

        ``keep_warm``: keep the model in use warm instead of unloading it (asleep on the GPU).
        Loading a warm model again under its name with the same config is a switch: it is woken
        (seconds) instead of built, and its :class:`EngineInfo` carries ``switch_seconds``."""
        refusal = speed.capability_refusal(config, resolve_device(config))
        if refusal:
            raise EngineError(refusal)
        name = name or Path(config.model).name
        with self._lock:
            if self._status.state in (EngineState.LOADING, EngineState.STOPPING):
                raise EngineBusy(
                    Message(
                        "The engine is {0}; wait for it to finish before loading another model",
                        self._status.state.value,
                    )
                )
            if keep_warm and self._engine is not None and self._info is not None and self._info.model != name:
                refusal = keep_warm_refusal(self._config, self._info.device)
                if refusal:
                    raise EngineError(refusal)
            self._set_status(EngineStatus(EngineState.LOADING, name, Message("starting")))
        return self.run_coroutine(self._load(config, name, keep_warm))

    async def _load(self, config: EngineConfig, name: str, keep_warm: bool = False) -> EngineInfo:
        async with self._lifecycle:
            # full GC passes over the growing heap froze the window for up to a second each
            with gc_pause.no_full_collections(), priority.window_first_while_loading():
                t0 = time.monotonic()
                warm = self._warm.pop(name, None)
                if warm is not None and warm.requested != config:  # same name, other knobs: build anew
                    await self._shutdown_parked(warm)
                    warm = None
                if self._engine is not None:
                    if keep_warm and self._info is not None and self._info.model != name:
                        try:
                            await self._park()
                        except Exception as exc:  # e.g. sleep refused: unload it as without keep_warm
                            log.warning("keeping %s warm failed (%s); unloading it", self._status.model, exc)
                            await self._shutdown_engine()
                    else:
                        await self._shutdown_engine()
                if warm is not None:
                    info = await self._wake(warm, t0)
                    if info is not None:
                        return info
                return await self._load_locked(config, name)

    async def _load_locked(self, config: EngineConfig, name: str) -> EngineInfo:
        requested = config
        t0, wall0 = time.monotonic(), time.time()  # the phases are timed by the log's clock
        build: EngineBuild | None = None
        device = ""
        try:
            self._set_status(EngineStatus(EngineState.LOADING, name, Message("importing vLLM")))
            vllm = vllm_compat.import_vllm()
            note = dtype_note(config, resolve_device(config))
            config, device = prepare_config(config)
            if device == "cpu" and needs_sixteen_bit(config) and not vllm_compat.cpu_awq_kernel():
                raise EngineError(NO_CPU_4BIT_KERNEL)  # vLLM would load it and die at the first request
            config = cpu_base_slot(lora_settings(config), device)
            self._adapters.reset(config)
            for adapter, folder in (config.lora_modules or {}).items():  # refused before the slow build
                self._adapters.attach(adapter, folder, config)
            if device == "cpu" and config.enable_lora:
                self._null_dir = tempfile.TemporaryDirectory(prefix="console-null-lora-")
                self._adapters.use_null_adapter(write_null_adapter(Path(self._null_dir.name), Path(config.model)))
            os.environ.setdefault("VLLM_WORKER_MULTIPROC_METHOD", "spawn")
            privacy.apply_to_process()  # the engine core child inherits os.environ
            if not (Path(config.model) / "config.json").is_file():
                raise EngineError(
                    Message("{0} has no config.json: the model folder is missing or incomplete", config.model)
                )
            building = Message("building the engine (weights, KV cache)")
            self._set_status(EngineStatus(EngineState.LOADING, name, building))

            before = reaper.children()
            build = EngineBuild(self.metrics, wall0, graphs=device != "cpu" and not config.enforce_eager)
            prep = FrontEndPrep(config.tokenizer or config.model, config.trust_remote_code, before)
            engine = prep.beside(lambda: build.run(config, self._on_phases))
            self._engine = engine
            self._reaper = reaper.start(reaper.new_children(before))
            if device == "cpu" and self._reaper is not None:
                priority.lower_engine(self._reaper.pids)  # the window's GUI thread gets a core first
            self._config, self._requested = config, requested
            tokenizer = Message("loading tokenizer")
            self._set_status(EngineStatus(EngineState.LOADING, name, tokenizer, phases=build.snapshot(time.time())))
            self._tokenizer = prep.tokenizer()  # loaded beside the build (front_prep.py)
            vc, seconds = engine.vllm_config, time.monotonic() - t0
            info = engine_info(name, config, device, vc, str(getattr(vllm, "__version__", "?")), note, seconds)
            info = dataclasses.replace(
                info,
                load_phases=build.phases_until(wall0 + seconds),
                sampling_defaults=model_defaults(vc.model_config, config.model),
                family=family_of(getattr(self._tokenizer, "chat_template", None)),
                tools_refusal=tool_calls.tools_refusal(getattr(self._tokenizer, "chat_template", None)),
            )
            assert build.capture is not None  # set before from_engine_args returned
            load_capture.record_load(build.capture, config, device, vc, info.vllm_version, self.metrics)
            self._watchdog = asyncio.get_running_loop().create_task(self._watch())
            # torch, transformers and vLLM leave ~600k long-lived objects; a full cyclic GC pass
            # over them takes ~290 ms here, holding the GIL -- a visible freeze of the window
            # while streaming. Move them out of the collector's sight (undone at unload).
            gc.freeze()
            self._info = info
            self._set_status(EngineStatus(EngineState.READY, name, "", None, info))
            self._chat_warm.start(self._prompts, engine, self._tokenizer, lambda: self._engine)
            return info
        except BaseException as exc:
            message = explain(exc, config, build.failed_text if build is not None else "")
            log.warning("engine load failed: %s", message)
            if build is not None and build.capture is not None:  # vLLM refused the length: a calibration point
                load_capture.record_refusal(build.capture, config, device, message)
            await self._shutdown_engine()
            self._set_status(EngineStatus(EngineState.FAILED, name, "", message))
            raise EngineError(message) from exc

    def _on_phases(self, phases: LoadPhases) -> None:
        """vLLM's log says the load moved on (``phase_watch``'s thread; the engine's waits on it)."""
        self._set_status(dataclasses.replace(self._status, phases=phases))

    async def _watch(self) -> None:
        """Notice an engine whose child process died while idle."""
        while self._engine is not None:
            await asyncio.sleep(0.5)
            engine = self._engine
            if engine is not None and engine.errored:
                await self._engine_died(engine, ENGINE_DIED)
                return

    async def _engine_died(self, engine: Any, message: str) -> None:
        async with self._lifecycle:
            if self._engine is not engine:  # already cleaned up, or a new engine took its place
                return
            name = self._status.model
            full = f"{message}. Load the model again to continue."
            self._set_status(EngineStatus(EngineState.FAILED, name, "", full))
            await self._shutdown_engine()
            self._set_status(EngineStatus(EngineState.FAILED, name, "", full))

    def unload(self) -> cf.Future[None]:
        with self._lock:
            if self._status.state == EngineState.LOADING:
                raise EngineBusy(Message("The engine is loading; wait for it to finish before unloading"))
        return self.run_coroutine(self._unload())

    async def _unload(self) -> None:
        """Unload the model in use and every warm one: Unload frees all the engine holds."""
        async with self._lifecycle:
            name = self._status.model
            if self._engine is not None or self._warm:
                self._set_status(EngineStatus(EngineState.STOPPING, name, "stopping"))
                await self._shutdown_engine()
                await self._shutdown_warm()
            self._set_status(EngineStatus(EngineState.STOPPED))

    async def _cancel_requests(self) -> None:
        """End every request in flight (each gets its ``abort`` event) and stop the watchdog."""
        current = asyncio.current_task()
        tasks = [t for t in self._tasks.values() if t is not current]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        if self._watchdog is not None and self._watchdog is not current:
            self._watchdog.cancel()
        self._watchdog = None

    async def _shutdown_engine(self) -> None:
        self._chat_warm.cancel()
        await self._cancel_requests()
        engine, self._engine = self._engine, None
        self._tokenizer = None
        self._prompts.forget()
        self._requested = self._info = None
        self._adapters.reset(None)
        if self._null_dir is not None:
            self._null_dir.cleanup()
            self._null_dir = None
        gc_pause.release_frozen()  # with the window's collector: stays frozen (see gc_pause)
        await self._stop_engine(engine)
        if self._reaper is not None:
            self._reaper.stop()
            self._reaper = None

    _stop_engine = staticmethod(stop_engine)

    async def _shutdown(self) -> None:
        await self._shutdown_engine()
        await self._shutdown_warm()

    # -- LoRA adapters ---------------------------------------------------------------------------
    def attach_adapter(self, name: str, path: str | Path) -> Attached:
        """Make the PEFT adapter at ``path`` usable by requests as ``name`` (checked first: a
        corrupt one, one for another base or one above the engine's max_lora_rank is refused
        with the reason). vLLM loads its weights at the first request that names it."""
        if self._engine is None or self._status.state != EngineState.READY:
            raise EngineNotReady(NO_MODEL_LOADED)
        return self._adapters.attach(name, path)

    def adapters(self) -> dict[str, str]:
        """The attached adapters, name -> folder."""
        return self._adapters.names()

    # -- prefix cache ----------------------------------------------------------------------------
    def reset_prefix_cache(self) -> cf.Future[bool]:
        """Empty vLLM's prefix cache; False when no engine is loaded or vLLM refused (it does
        while running requests hold cached blocks)."""
        return self.run_coroutine(self._reset_prefix_cache())

    async def _reset_prefix_cache(self) -> bool:
        engine = self._engine
        if engine is None or not hasattr(engine, "reset_prefix_cache"):
            return False
        try:
            result = await engine.reset_prefix_cache()
        except Exception:
            log.exception("resetting the prefix cache failed")
            return False
        return result is not False  # vLLM 0.26 returns None, later versions a bool

    # -- requests ------------------------------------------------------------------------------
    def _start_group(self, items: list[tuple[GenerationRequest, EventSink | None, RequestHandle]]) -> None:
        """Start a group so that it runs from one engine step: each request is prepared (rendered,
        processed) first, then the scheduler is held only while the prepared requests are added."""
        engine = self._engine
        if len(items) < 2 or engine is None or not grouped.HOLD_SCHEDULER or not vllm_compat.can_hold_scheduler(engine):
            super()._start_group(items)
            return
        self._gate_lock = self._gate_lock or asyncio.Lock()
        limits = vllm_compat.scheduler_limits(engine)
        gate = grouped.SchedulerGate(len(items), grouped.FirstStep(*limits) if limits else None)
        hold = asyncio.get_running_loop().create_task(gate.hold(engine, self._gate_lock))
        self._holds.add(hold)  # a running task needs a strong reference (asyncio keeps a weak one)
        hold.add_done_callback(self._holds.discard)
        self.last_group = gate.timing
        for request, sink, handle in items:
            self._gates[request.request_id] = gate
            self._start_task(request, sink, handle)

    def _task_done(self, request_id: str, sink: EventSink | None, handle: RequestHandle) -> None:
        gate = self._gates.pop(request_id, None)
        if gate is not None:  # cancelled before its first step: it never reached the gate
            gate.leave()
        super()._task_done(request_id, sink, handle)

    def format_prompt(self, request: GenerationRequest) -> Any:
        """What the engine is given for ``request``: a chat rendered and tokenized by vLLM's own
        chat preprocessing, as its server does (``chat_prompt.py``). Blocks; not on the engine thread."""
        return self.run_coroutine(self._prompts.engine_input(self._engine, self._tokenizer, request)).result(60)

    def count_prompt_tokens(self, request: GenerationRequest) -> int:
        """Prompt tokens ``request`` reaches the engine with (the chat's context meter)."""
        return len(prompt_token_ids(self.format_prompt(request), self._tokenizer))

    def count_tokens(self, text: str) -> int:
        tok = self._tokenizer
        if tok is None:
            raise EngineNotReady(NO_MODEL_LOADED)
        return len(tok.encode(text, add_special_tokens=False))

    async def _run(self, request: GenerationRequest, sink: EventSink | None, handle: RequestHandle) -> None:
        rid = request.request_id
        parts: list[str] = []
        t0 = time.perf_counter()
        first: float | None = None
        out_tokens = 0
        prompt_ids: tuple[int, ...] = ()
        prompt_logprobs: list[Any] | None = None
        finish_reason = "stop"
        stamps: dict[str, float | None] = {}  # vLLM's engine-core timestamps of the request

        emit, finish = self._emitters(sink, handle)
        gate = self._gates.pop(rid, None)
        joined: bool | None = None  # in a group: added while the scheduler is held (None: not yet asked)
        on_added: Callable[[], None] | None = None

        engine = self._engine
        try:
            if engine is None:
                raise EngineNotReady(NO_MODEL_LOADED)
            if gate is not None and gate.full:  # the first step is full: prepare once the held requests are in
                await gate.released()
            if self._info is not None:  # a text-only model refuses a picture before vLLM sees it
                image_parts.refuse_images(request.messages, self._info.takes_images, self._info.model)
            params = request_params(request, self._info.sampling_defaults if self._info else None)
            prompt, constraint = await self._prompts.engine_input_and_constraint(engine, self._tokenizer, request)
            if constraint is not None:  # vLLM's tool-call parser constrains the call (tool_calls.py)
                params.structured_outputs = constraint
            lora = self._adapters.request(request.adapter)
            if gate is not None:  # prepared before the hold: it lasts only the adds
                prompt = await vllm_compat.engine_core_request(engine, rid, prompt, params, lora)
                joined = gate.join(len(getattr(prompt, "prompt_token_ids", None) or ()))
                if joined:
                    on_added = grouped.once(gate.added)
                    await gate.opened()
                else:
                    await gate.released()
            collected = OutputCollector(self._tokenizer)
            async for out in grouped.generate(engine, prompt, params, rid, lora_request=lora, on_added=on_added):
                collected.add(out.outputs)
                if out.prompt_token_ids is not None and not prompt_ids:
                    prompt_ids = tuple(out.prompt_token_ids)
                if out.prompt_logprobs is not None and prompt_logprobs is None:
                    prompt_logprobs = list(out.prompt_logprobs)
                c = next((o for o in out.outputs if getattr(o, "index", 0) == 0), None)
                if c is None:  # n > 1: another answer's tokens (kept by the collector)
                    continue
                n = len(c.token_ids)
                if not request.stream:  # FINAL_ONLY: one output with everything
                    out_tokens, parts = n, [c.text]
                    latency = getattr(getattr(out, "metrics", None), "first_token_latency", 0.0)
                    if n and latency and latency > 0:
                        first = t0 + float(latency)
                elif n or c.text:
                    if first is None:
                        first = time.perf_counter()
                    out_tokens += n
                    parts.append(c.text)
                    emit(TokenDelta(rid, c.text, n, tuple(c.token_ids)))
                if out.finished:
                    finish_reason = str(c.finish_reason or "stop")
                    m = getattr(out, "metrics", None)
                    for name in ("scheduled", "queued", "first_token"):
                        stamps[f"engine_{name}_ts"] = getattr(m, f"{name}_ts", None) or None
            choices = collected.choices()
            if len(choices) > 1:  # n answers: the engine generated all their tokens
                out_tokens = sum(ch.output_tokens for ch in choices)
                finish_reason = choices[0].finish_reason
            finished = RequestFinished(
                rid,
                "".join(parts),
                finish_reason,
                len(prompt_ids),
                out_tokens,
                None if first is None else first - t0,
                time.perf_counter() - t0,
                prompt_logprobs,
                choices,
                **stamps,
                prompt_token_ids=prompt_ids,
            )
            # thinking and tool calls read here, as vLLM's server reads them, for every caller
            family = self._info.family if self._info is not None else None
            finish(tool_calls.read_answer(family, self._tokenizer, request, finished))
        except asyncio.CancelledError:
            # Cancelling the consumer aborts the request inside vLLM; keep what was streamed.
            finish(
                RequestFinished(
                    rid,
                    "".join(parts),
                    "abort",
                    len(prompt_ids),
                    out_tokens,
                    None if first is None else first - t0,
                    time.perf_counter() - t0,
                )
            )
        except image_parts.ImagesRefused as exc:
            finish(RequestFailed(rid, exc.message, ""))
        except Exception as exc:
            dead = engine is not None and engine.errored
            message = (
                "The engine process stopped while answering (killed, crashed or out of memory). "
                "Load the model again to continue."
                if dead
                else explain(exc, self._config)
            )
            finish(RequestFailed(rid, message, "".join(parts)))
            if dead:
                asyncio.get_running_loop().create_task(
                    self._engine_died(engine, "The engine process stopped unexpectedly")
                )
        finally:
            if gate is not None and joined is None:
                gate.leave()  # a request that failed before reaching the gate must not hold its group
            if on_added is not None:
                on_added()
            self._tasks.pop(rid, None)


__all__ = [
    "InProcessEngine",
    "RequestHandle",
    "WarmModel",
    "cuda_available",
    "dtype_note",
    "keep_warm_refusal",
    "prepare_config",
    "resolve_device",
]
