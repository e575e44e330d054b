"""The front end's own start work, done while vLLM's engine core starts instead of after it.

A load spends most of its time waiting: vLLM's engine core loads the weights, profiles and
captures graphs in its child process while this process waits for its handshake. What the
console's front end needs besides (the model's tokenizer, and the modules of vLLM's chat renderer
that the first chat message would otherwise import) used to run after that wait, on the way to
the first token: measured on the CPU engine with SmolLM2 (benchmarks/gpu/README-startup.md), the
tokenizer 0.2-0.7 s after the build and the first message 0.5 s slower than the next.

:class:`FrontEndPrep` runs that work on a thread once the engine core's process exists (so its
imports do not race the build's own in this process), and hands the tokenizer over when the
build is done. Any failure there is not the load's: :meth:`FrontEndPrep.tokenizer` then loads it
as before, on the caller's thread. :class:`ChatWarmUp` renders one chat once the load is done (vLLM
resolves the template's content format on the first chat it renders), before the user's first.
"""

from __future__ import annotations

import asyncio
import concurrent.futures as cf
import logging
import threading
import time
from typing import Any, Callable, TypeVar

from console import vllm_compat
from console.engine import reaper
from console.engine.types import GenerationRequest

log = logging.getLogger(__name__)

#: How long the thread waits for the engine core's process before it starts anyway.
WAIT_FOR_CHILD_S = 60.0
#: The chat rendered once after a load (:class:`ChatWarmUp`): never sent to the engine.
WARM_CHAT = GenerationRequest(messages=[{"role": "user", "content": "Hello"}], stream=False)
T = TypeVar("T")


def load_tokenizer(model: str, trust_remote_code: bool) -> Any:
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(model, trust_remote_code=trust_remote_code)


def import_chat_renderer() -> None:
    """Import what the first chat message's rendering imports (vLLM's OnlineRenderer)."""
    vllm_compat.chat_renderer_class()


class FrontEndPrep:
    """The tokenizer and the chat renderer's imports, on a thread of their own while the engine
    core starts. ``before``: this process's children before the build (the engine core is the
    new one); ``load`` and ``warm`` are the work (replaceable in tests)."""

    def __init__(
        self,
        model: str,
        trust_remote_code: bool,
        before: set[int],
        *,
        load: Callable[[str, bool], Any] = load_tokenizer,
        warm: Callable[[], None] = import_chat_renderer,
        wait_s: float = WAIT_FOR_CHILD_S,
    ) -> None:
        self._model, self._trust = model, trust_remote_code
        self._before, self._load, self._warm, self._wait_s = before, load, warm, wait_s
        self._stop = threading.Event()
        self._done: cf.Future[Any] = cf.Future()
        self.seconds: float | None = None  # the thread's own work, once done
        self._thread = threading.Thread(target=self._run, name="console-front-end-prep", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        deadline = time.monotonic() + self._wait_s
        while not self._stop.is_set() and time.monotonic() < deadline:
            if reaper.new_children(self._before):
                break
            self._stop.wait(0.1)
        if self._stop.is_set():
            self._done.cancel()
            return
        t0 = time.monotonic()
        try:
            tokenizer = self._load(self._model, self._trust)
            try:
                self._warm()
            except Exception as exc:  # the first message imports it instead
                log.debug("warming the chat renderer failed: %s", exc)
            self.seconds = time.monotonic() - t0
            self._done.set_result(tokenizer)
        except BaseException as exc:
            self._done.set_exception(exc)

    def beside(self, build: Callable[[], T]) -> T:
        """``build()`` (vLLM's engine build) while the thread works; a failed build cancels it."""
        try:
            return build()
        except BaseException:
            self.cancel()
            raise

    def tokenizer(self) -> Any:
        """The tokenizer, once the build is done: the thread's (waiting for it to finish), or where
        it failed or never ran, loaded here as before (its error is then the load's)."""
        self._stop.set()  # a thread still waiting for the child gives up; one at work finishes
        try:
            return self._done.result()
        except cf.CancelledError:
            pass
        except Exception as exc:
            log.debug("loading the tokenizer beside the build failed (%s); loading it now", exc)
        return self._load(self._model, self._trust)

    def cancel(self) -> None:
        """The build failed: nothing is needed (a thread at work finishes in the background)."""
        self._stop.set()


class ChatWarmUp:
    """One chat rendered right after a load, as the first message would be: vLLM resolves the
    template's content format then, loading the model's processor (0.3 s on the CPU engine with
    SmolLM2), while the user is still typing. A template that refuses it costs nothing: the first
    message gets vLLM's own words. Runs on the engine's loop; ``task`` is None when none runs."""

    def __init__(self) -> None:
        self.task: asyncio.Task[None] | None = None

    def start(self, prompts: Any, engine: Any, tokenizer: Any, in_use: Callable[[], Any]) -> None:
        """Render with ``prompts`` (the engine's ``ChatPrompts``); ``in_use()``: the engine loaded now."""
        self.task = asyncio.get_running_loop().create_task(self._render(prompts, engine, tokenizer, in_use))

    @staticmethod
    async def _render(prompts: Any, engine: Any, tokenizer: Any, in_use: Callable[[], Any]) -> None:
        if tokenizer is None or not getattr(tokenizer, "chat_template", None):
            return
        try:
            await prompts.engine_input(engine, tokenizer, WARM_CHAT)
        except Exception as exc:
            log.debug("warming the chat renderer: %s", exc)
        if in_use() is not engine:  # unloaded meanwhile: keep no renderer of it
            prompts.forget()

    def cancel(self) -> None:
        if self.task is not None:
            self.task.cancel()
            self.task = None


__all__ = ["ChatWarmUp", "FrontEndPrep", "WARM_CHAT", "import_chat_renderer", "load_tokenizer"]
