"""An engine that is a vLLM server reached over HTTP (OpenAI-compatible API).

``RemoteEngine(url, api_key)`` satisfies :class:`~console.engine.interface.Engine` (not
``Loader``: a server someone else started keeps its own configuration): ``connect()`` connects
(``/health``, ``/v1/models`` for the served name and ``max_model_len``, ``/metrics`` for the
KV-cache figures), ``submit()`` sends ``/v1/chat/completions`` (messages) or
``/v1/completions`` (prompt or token ids), streaming server-sent events into the same
``TokenDelta`` / ``RequestFinished`` / ``RequestFailed`` events as the in-process engine (the
thinking a server's reasoning parser split off travels apart: ``TokenDelta.reasoning``,
``RequestFinished.reasoning``);
``stream=False`` requests use one non-streaming call. Cancelling closes the HTTP stream, and vLLM
aborts a request whose client went away. A request's ``file://`` pictures are read here and sent
as ``data:`` URLs, only from the folder the user allows (``remote_media.py``).

Like the in-process engine, one thread owns an asyncio loop and an ``httpx.AsyncClient``; callers on
any thread get futures and sink calls. A monitor task polls ``/metrics`` (see
``console/metrics/scrape.py``) into the same :class:`MetricsStore` series the in-process engine feeds.

Failures are the normal case for a server: unreachable, refused key (401), server errors (5xx),
a stream that drops. A transport failure turns the status to ``FAILED`` with stage
``"reconnecting"`` (so a batch stops as for a dead engine; finished lines are on disk), the monitor
then polls ``/health`` and brings the engine back to ``READY`` when the server answers again.
TLS certificates are verified unless ``verify=False`` (or a CA bundle path) is given.
"""

from __future__ import annotations

import asyncio
import concurrent.futures as cf
import dataclasses
import logging
import time
from typing import Any, TypeVar

import httpx

from console import net
from console.engine.chat_prompt import transcript
from console.engine.choices import OpenAIChoiceCollector
from console.engine.loop_engine import LoopEngine, RequestHandle
from console.metrics.store import MetricsStore
from console.engine.remote_errors import ServerError, http_error, normalize_url, transport_message
from console.engine.remote_media import MediaRefused, inline_local_images, text_only_refusal
from console.engine.remote_wire import (
    TOKENIZE_FIELDS,
    choice_reasoning,
    choice_text,
    request_body,
    split_model_cards,
    stream_chunks,
)
from console.metrics.scrape import MetricsPoller, ServerPoller, cache_info, parse
from console.metrics.trtllm_stats import poller_for
from console.engine.types import (
    EngineError,
    EngineInfo,
    EngineNotReady,
    EngineState,
    EngineStatus,
    EventSink,
    GenerationRequest,
    RequestFailed,
    RequestFinished,
    ServerKind,
    TokenDelta,
)

log = logging.getLogger(__name__)
T = TypeVar("T")

#: Environment variables holding the API key when none is given (first set wins).
API_KEY_ENV = ("INFERENCE_CONSOLE_API_KEY", "VLLM_API_KEY")
RECONNECTING = "reconnecting"


RemoteHandle = RequestHandle  # the same handle as the in-process engine's


class HttpEngine(LoopEngine):
    """An engine that talks to any OpenAI-compatible server at ``url`` over HTTP (requests, metrics
    polling, reconnection). How the server comes to be there is the subclass's business:
    :class:`RemoteEngine` connects to one someone else started,
    :class:`~console.engine.child_server.ChildServer` starts one as its child and owns it."""

    kind = "server"

    def __init__(
        self,
        url: str | None = None,
        api_key: str | None = None,
        *,
        metrics: MetricsStore | None = None,
        verify: bool | str = True,
        poll_interval_s: float = 1.0,
        request_timeout_s: float = 600.0,
        server: ServerKind = "auto",
    ) -> None:
        self.url = normalize_url(url) if url else ""
        #: "vllm" or "trtllm" once connected ("auto": told apart by the body of /metrics).
        self.server: ServerKind = server
        self.api_key = api_key
        self.verify = verify
        self.poll_interval_s = poll_interval_s
        self.request_timeout_s = request_timeout_s
        super().__init__(metrics)
        self._client: httpx.AsyncClient | None = None
        self._monitor: asyncio.Task[None] | None = None
        self._poller: ServerPoller = MetricsPoller(self.metrics)
        self._served: str = ""
        self._lora: dict[str, str] = {}  # the server's LoRA adapters
        self._info: EngineInfo | None = None

    # -- status ----------------------------------------------------------------------------------
    @property
    def served_model(self) -> str:
        return self._served

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = net.async_client(
                self.request_timeout_s,
                verify=self.verify,  # a CA bundle for a private server
                headers=self._headers(),
                limits=httpx.Limits(max_connections=None, max_keepalive_connections=64),
            )
        return self._client

    # -- connect / disconnect ------------------------------------------------------------------
    async def _connect_or_fail(self, name: str | None) -> EngineInfo:
        t0 = time.monotonic()
        try:
            info = await self._connect(t0)
        except Exception as exc:
            message = str(exc) if isinstance(exc, EngineError) else transport_message(self.url, exc)
            self._set_status(EngineStatus(EngineState.FAILED, name or self.url, "", message))
            raise EngineError(message) from exc
        self._start_monitor()
        self._set_status(EngineStatus(EngineState.READY, info.model, "", None, info))
        return info

    async def _get(self, path: str, timeout: float = 10.0) -> httpx.Response:
        resp = await self._http().get(self.url + path, timeout=timeout)
        if resp.status_code != 200:
            raise http_error(self.url, resp.status_code, resp.content)
        return resp

    async def _connect(self, t0: float, clear: bool = True) -> EngineInfo:
        """Ask the server what it serves; raises :class:`ServerError` or httpx errors. ``clear``
        empties the metrics history (a new connection; not a reconnection to the same server)."""
        try:
            await self._get("/health")
        except ServerError as exc:
            if exc.status != 404:  # not every OpenAI-compatible server has /health
                raise
        data = (await self._get("/v1/models")).json().get("data") or []
        if not data:
            raise ServerError(f"The server at {self.url} serves no model (/v1/models is empty)")
        card, self._lora = split_model_cards(data)
        self._served = str(card.get("id"))
        version = "?"
        try:
            version = str((await self._get("/version", timeout=5.0)).json().get("version", "?"))
        except Exception:
            pass
        blocks = block_size = None
        if clear:
            self.metrics.clear()
        self._poller.reset()
        try:
            body = (await self._get("/metrics", timeout=5.0)).text
            self._poller, self.server = poller_for(self.server, body, self.metrics)
            blocks, block_size = cache_info(self._poller.feed(body))
        except Exception:  # a server without /metrics still chats; the monitor stays empty
            log.info("no /metrics at %s", self.url)
        if self.server == "trtllm":
            version = f"TensorRT-LLM {version}"
        self._info = EngineInfo(
            model=self._served,
            model_path=str(card.get("root") or self._served),
            device=self.device_label(),
            max_model_len=int(card.get("max_model_len") or 0),
            num_kv_blocks=blocks,
            block_size=block_size,
            load_seconds=time.monotonic() - t0,
            vllm_version=version,
        )
        return self._info

    def adapters(self) -> dict[str, str]:
        """The server's LoRA adapters (``/v1/models`` cards with a parent), name -> path on the server."""
        return dict(self._lora)

    def device_label(self) -> str:
        return f"{'TensorRT-LLM ' if self.server == 'trtllm' else ''}server {self.url}"

    def _start_monitor(self) -> None:
        if self._monitor is None or self._monitor.done():
            self._monitor = asyncio.get_running_loop().create_task(self._watch())

    async def _watch(self) -> None:
        """Poll /metrics while READY; poll /health while reconnecting."""
        while True:
            await asyncio.sleep(self.poll_interval_s)
            state = self._status.state
            if state == EngineState.READY:
                try:
                    resp = await self._http().get(self.url + "/metrics", timeout=10.0)
                    if resp.status_code == 200:
                        self._poller.feed(resp.text)
                    elif resp.status_code >= 500:
                        raise http_error(self.url, resp.status_code, resp.content)
                except httpx.TimeoutException:
                    log.info("%s/metrics was slow to answer; skipping this poll", self.url)  # busy, not gone
                except (httpx.TransportError, ServerError) as exc:
                    if self._status.state == EngineState.READY:
                        self._lost(
                            transport_message(self.url, exc) if isinstance(exc, httpx.TransportError) else str(exc)
                        )
                except Exception:
                    log.exception("reading %s/metrics failed", self.url)
            elif state == EngineState.FAILED and self._status.stage == RECONNECTING:
                await self._try_reconnect()
            else:
                return

    async def _try_reconnect(self) -> None:
        try:
            resp = await self._http().get(self.url + "/health", timeout=5.0)
            if resp.status_code not in (200, 404):
                return
            info = await self._connect(time.monotonic(), clear=False)
        except Exception:
            return
        if self._status.state == EngineState.FAILED and self._status.stage == RECONNECTING:
            log.info("server %s is back", self.url)
            self._set_status(EngineStatus(EngineState.READY, info.model, "", None, info))

    def _lost(self, message: str) -> None:
        """The server went away: FAILED + reconnecting (the monitor brings it back)."""
        if self._status.state in (EngineState.STOPPED, EngineState.STOPPING):
            return
        if not (self._status.state == EngineState.FAILED and self._status.stage == RECONNECTING):
            log.warning("lost the server: %s", message)
            self._set_status(
                EngineStatus(EngineState.FAILED, self._status.model, RECONNECTING, message, self._status.info)
            )
        self._start_monitor()

    async def _disconnect(self) -> None:
        name = self._status.model
        if self._status.state != EngineState.STOPPED:
            self._set_status(EngineStatus(EngineState.STOPPING, name, "disconnecting"))
        await self._cancel_all()
        self._set_status(EngineStatus(EngineState.STOPPED))

    async def _cancel_all(self) -> None:
        current = asyncio.current_task()
        tasks = [t for t in self._tasks.values() if t is not current]
        if self._monitor is not None and self._monitor is not current:
            tasks.append(self._monitor)
        self._monitor = None
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _shutdown(self) -> None:
        await self._cancel_all()
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    # -- requests ------------------------------------------------------------------------------
    def format_prompt(self, request: GenerationRequest) -> Any:
        """What the server will see, for counting tokens only (the server applies its own
        template): token ids and text as they are, a chat as the plain transcript the in-process
        path gives a model without a template (``chat_prompt.transcript``): the console holds no
        tokenizer of a server's model, and ``count_prompt_tokens`` asks the server first."""
        if request.prompt_token_ids is not None:
            return {"prompt_token_ids": list(request.prompt_token_ids)}
        if request.prompt is not None:
            return request.prompt
        assert request.messages is not None
        return transcript(request.messages, request.continue_final)

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` by the server's tokenizer (vLLM's ``/tokenize``), or a local one."""
        if self._tokenizer is not None:
            return len(self._tokenizer.encode(text, add_special_tokens=False))
        if self._status.state != EngineState.READY:
            raise EngineNotReady("not connected to a server")

        async def ask() -> int:
            resp = await self._http().post(
                self.url + "/tokenize",
                timeout=10.0,
                json={"model": self._served, "prompt": text, "add_special_tokens": False},
            )
            if resp.status_code != 200:
                raise http_error(self.url, resp.status_code, resp.content)
            return int(resp.json()["count"])

        loop = self._ensure_loop()  # raises when closed, before a coroutine exists to leak
        return asyncio.run_coroutine_threadsafe(ask(), loop).result(15)

    def count_prompt_tokens(self, request: GenerationRequest) -> int:
        """Prompt tokens of ``request`` as the server builds them: its own ``/tokenize`` renders a
        chat with the request's template fields (vLLM's chat preprocessing); a server without that
        endpoint is counted locally."""
        if request.messages is None or self._status.state != EngineState.READY:
            return self.count_tokens(str(self.format_prompt(request)))
        fields = request.openai_fields or {}
        body: dict[str, Any] = {"model": self._served, **{k: fields[k] for k in TOKENIZE_FIELDS if k in fields}}

        async def ask() -> int:
            body["messages"] = (await self._outgoing(request)).messages  # local pictures read here
            resp = await self._http().post(self.url + "/tokenize", timeout=10.0, json=body)
            if resp.status_code != 200:
                raise http_error(self.url, resp.status_code, resp.content)
            return int(resp.json()["count"])

        try:
            return asyncio.run_coroutine_threadsafe(ask(), self._ensure_loop()).result(15)
        except (ServerError, MediaRefused):
            return self.count_tokens(str(self.format_prompt(request)))

    async def _outgoing(self, request: GenerationRequest) -> GenerationRequest:
        """``request`` as the server is sent it (a :class:`RemoteEngine` reads local pictures for it)."""
        return request

    def _not_ready_message(self) -> str:
        return self._status.error or f"The engine is {self._status.state.value}: connect first"

    async def _run(self, request: GenerationRequest, sink: EventSink | None, handle: RemoteHandle) -> None:
        rid = request.request_id
        parts: list[str] = []
        t0 = time.perf_counter()
        first: float | None = None
        usage: dict[str, int] = {}
        finish_reason: str | None = None
        prompt_logprobs: list[Any] | None = None

        emit, finish = self._emitters(sink, handle)

        try:
            path, body = request_body(await self._outgoing(request), self._served)
            client = self._http()
            collected = OpenAIChoiceCollector()
            if not request.stream:
                resp = await client.post(self.url + path, json=body)
                if resp.status_code != 200:
                    raise http_error(self.url, resp.status_code, resp.content)
                data = resp.json()
                collected.add(data.get("choices") or [])
                choice = (data.get("choices") or [{}])[0]
                parts = [choice_text(choice)]
                finish_reason = choice.get("finish_reason")
                prompt_logprobs = choice.get("prompt_logprobs") or data.get("prompt_logprobs")
                usage = data.get("usage") or {}
            else:
                async with client.stream("POST", self.url + path, json=body) as resp:
                    if resp.status_code != 200:
                        raise http_error(self.url, resp.status_code, await resp.aread())
                    done = False
                    seen_tokens = 0
                    async for chunk in stream_chunks(resp):
                        if chunk is None:  # [DONE]
                            done = True
                            break
                        if chunk.get("usage"):
                            usage = chunk["usage"]
                        collected.add(chunk.get("choices") or [])
                        for choice in chunk.get("choices") or []:
                            if int(choice.get("index") or 0) != 0:
                                continue  # n > 1: the other answers arrive with the final event
                            text, thinking = choice_text(choice), choice_reasoning(choice)
                            if choice.get("finish_reason"):
                                finish_reason = choice["finish_reason"]
                            # continuous_usage_stats gives the running token count; a delta may
                            # carry tokens whose text is empty (special tokens), as in-process.
                            n_total = int(usage.get("completion_tokens") or 0)
                            n = n_total - seen_tokens if n_total else (1 if text or thinking else 0)
                            seen_tokens = max(seen_tokens, n_total)
                            if text or thinking or n > 0:
                                if first is None:
                                    first = time.perf_counter()
                                parts.append(text)
                                emit(TokenDelta(rid, text, max(n, 0), reasoning=thinking))
                                if self.abort_requested(rid):  # Stop: no more tokens, close the stream
                                    raise asyncio.CancelledError
                    if not done and finish_reason is None:
                        raise httpx.RemoteProtocolError("the stream ended before the answer did")
            finish(
                RequestFinished(
                    rid,
                    "".join(parts),
                    str(finish_reason or "stop"),
                    int(usage.get("prompt_tokens") or 0),
                    int(usage.get("completion_tokens") or 0),
                    None if first is None else first - t0,
                    time.perf_counter() - t0,
                    prompt_logprobs,
                    collected.choices(),
                )
            )
        except asyncio.CancelledError:
            # Leaving the `async with` closed the connection: vLLM aborts the request.
            finish(
                RequestFinished(
                    rid,
                    "".join(parts),
                    "abort",
                    int(usage.get("prompt_tokens") or 0),
                    int(usage.get("completion_tokens") or 0),
                    None if first is None else first - t0,
                    time.perf_counter() - t0,
                )
            )
        except httpx.TransportError as exc:
            message = transport_message(self.url, exc, "".join(parts))
            self._lost(message)  # before the event: a batch checks the status when it sees the failure
            finish(RequestFailed(rid, message, "".join(parts)))
        except MediaRefused as exc:  # a picture refused before sending: this request alone fails
            finish(RequestFailed(rid, str(exc), ""))
        except ServerError as exc:
            if exc.status >= 500 and not await self._healthy():
                self._lost(str(exc))
            refused = text_only_refusal(str(exc), request.messages, self._served)  # a text-only model's
            finish(RequestFailed(rid, refused or str(exc), "".join(parts)))
        except Exception as exc:
            finish(RequestFailed(rid, f"{type(exc).__name__}: {exc}", "".join(parts)))
        finally:
            self._tasks.pop(rid, None)

    async def _healthy(self) -> bool:
        try:
            resp = await self._http().get(self.url + "/health", timeout=5.0)
            return resp.status_code in (200, 404)
        except Exception:
            return False

    def fetch_metrics_snapshot(self) -> Any:
        """The server's /metrics parsed now (for tools and tests)."""

        async def get() -> Any:
            return parse((await self._get("/metrics")).text)

        return self.run_coroutine(get()).result(15)


class RemoteEngine(HttpEngine):
    """A vLLM server someone else started. ``connect()`` asks it what it serves; ``disconnect()``
    leaves it running. It has no ``load``: its configuration is the server's, so it is not a
    :class:`~console.engine.interface.Loader`."""

    kind = "remote"
    #: The folder whose files requests may name as pictures (``file://`` URLs): the console reads
    #: them and sends ``data:`` URLs, which the server can read (None: every such file is refused).
    allowed_local_media_path: str | None = None

    async def _outgoing(self, request: GenerationRequest) -> GenerationRequest:
        if request.messages is None:
            return request
        messages = await asyncio.to_thread(inline_local_images, request.messages, self.allowed_local_media_path)
        return request if messages is request.messages else dataclasses.replace(request, messages=messages)

    def connect(self, name: str | None = None) -> cf.Future[EngineInfo]:
        """Connect to the server (``/health``, ``/v1/models``, ``/metrics``)."""
        if not self.url:
            raise EngineError("No server URL: give one (e.g. http://127.0.0.1:8000)")
        self._set_status(EngineStatus(EngineState.LOADING, name or self.url, f"connecting to {self.url}"))
        return self.run_coroutine(self._connect_or_fail(name))

    def disconnect(self) -> cf.Future[None]:
        return self.run_coroutine(self._disconnect())


def api_key_from_env() -> str | None:
    import os

    for name in API_KEY_ENV:
        if os.environ.get(name):
            return os.environ[name]
    return None


__all__ = [
    "RemoteEngine",
    "RemoteHandle",
    "HttpEngine",
    "ServerError",
    "api_key_from_env",
    "normalize_url",
    "transport_message",
]
