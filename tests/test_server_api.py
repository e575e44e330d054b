"""The Server tab's server on the local network, the routes it offers, and a reasoning model's
thinking read from it, against one real vLLM server: the CPU build's api_server started by the
Server tab's core (``SharingController`` behind a real ``EngineSwitch``) on the Qwen3 family fixture,
so it runs vLLM's ``--reasoning-parser qwen3`` as the export writes it, bound to every address with
an API key.

The weights are random: greedy and a regular expression make the model write a thinking block and
then an answer. vLLM applies a request's structured output after the thinking unless its
``enable_in_reasoning`` is set, so the test's server gets that one flag on top of the tab's
command; everything else is the tab's.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Iterator

import httpx
import pytest

from console.config import EngineConfig
from console.sampling import SamplingSettings
from console.engine import serving
from console.engine.child_server import free_port
from console.engine.serving import ALL_ADDRESSES, LanNeedsKey, SharedServer, SharingController, new_api_key
from console.engine.types import RequestFinished, TokenDelta

pytestmark = pytest.mark.engine

THINK_THEN_ANSWER = r"<think>\n[a-z]{3,12}\n</think>\n\n[a-z]{3,12}"
FORCED = {"structured_outputs": {"regex": THINK_THEN_ANSWER}}
GREEDY = SamplingSettings(temperature=0.0, max_tokens=24)
WORD = re.compile(r"[a-z]{3,12}")
#: The thinking as vLLM's qwen3 parser returns it: its streaming side keeps the opening marker the
#: model wrote, its whole-answer side drops it.
THOUGHT = re.compile(r"(<think>)?\n?[a-z]{3,12}\n?")


class _ThinkingInGrammar(SharedServer):
    """The tab's server with the structured output applied from the first token (see above)."""

    def server_command(self, yaml_path: Path, port: int) -> list[str]:
        return [
            *super().server_command(yaml_path, port),
            "--structured-outputs-config",
            '{"enable_in_reasoning": true}',
        ]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SharingController, str]]:
    from console.engine.switch import EngineSwitch
    from tests.conftest import FAMILY_KV_BYTES
    from tests.fixtures.families import make_family

    folder = make_family("qwen3", tmp_path_factory.mktemp("served") / "qwen3")
    config = EngineConfig(model=str(folder), kv_cache_memory_bytes=FAMILY_KV_BYTES, max_model_len=512, device="cpu")
    switch = EngineSwitch()
    controller = SharingController(switch, log_dir=tmp_path_factory.mktemp("server-logs"))
    key = new_api_key()
    patch = pytest.MonkeyPatch()
    patch.setattr(serving, "SharedServer", _ThinkingInGrammar)
    try:
        port = free_port()
        controller.start(config, "qwen3", port, key, lan=True).result(timeout=600)
        yield controller, key
    finally:
        patch.undo()
        controller.stop()
        switch.close()


def test_the_server_runs_the_reasoning_parser_on_every_address_with_its_key(
    served: tuple[SharingController, str],
) -> None:
    controller, key = served
    server = controller.server
    assert server is not None and server.host == ALL_ADDRESSES
    assert server.argv[server.argv.index("--reasoning-parser") + 1] == "qwen3"
    info = controller.endpoint()
    assert info is not None and info.url.startswith("http://127.0.0.1:") and info.api_key == key
    assert info.lan_url is not None and info.lan_url.endswith(f":{server.port}/v1")
    models = info.lan_url + "/models"
    assert httpx.get(models, timeout=10).status_code == 401  # the key guards /v1
    assert httpx.get(models, headers={"Authorization": f"Bearer {key}"}, timeout=10).status_code == 200


def test_a_streamed_chat_keeps_the_servers_thinking_apart_and_saves_it(
    served: tuple[SharingController, str], tmp_path: Path
) -> None:
    from console.chat.session import ChatSession
    from console.cli.chat_thinking import ThinkingPrinter
    from console.chat.conversations import ConversationStore
    from console.engine.openai_body import request_fields

    controller, _ = served
    engine = controller.switch
    session = ChatSession(ConversationStore(tmp_path / "c.sqlite3"))
    request = session.send("Capital of France?", GREEDY, **request_fields(FORCED, GREEDY))
    printer = ThinkingPrinter(None, out=(out := _Text()), err=(err := _Text()))
    events = list(engine.stream(request, timeout=120))
    for ev in events:
        if isinstance(ev, TokenDelta):
            printer.add(ev.text, ev.num_tokens, ev.token_ids, ev.reasoning)
    final = events[-1]
    assert isinstance(final, RequestFinished), final
    deltas = [e for e in events if isinstance(e, TokenDelta)]
    thinking = "".join(d.reasoning for d in deltas)
    assert final.reasoning is not None and final.reasoning.strip() == thinking.strip()
    assert THOUGHT.fullmatch(final.reasoning) and WORD.fullmatch(final.text.strip()), (final.reasoning, final.text)
    assert "<think>" not in final.text and "</think>" not in final.text  # the server split it
    thought, content = printer.finish(final.text, final)
    assert thought is not None and thought.text == final.reasoning and content == final.text
    assert thought.tokens and 0 < thought.tokens < final.output_tokens
    assert out.text.strip() == final.text.strip()
    assert "[thinking]" in err.text and final.reasoning.strip() in err.text and "[thought" in err.text
    saved = session.record_answer(content, final, model="qwen3", thought=thought)
    assert saved is not None and saved.reasoning == final.reasoning and saved.content == final.text
    assert saved.reasoning_tokens == thought.tokens


def test_a_batch_through_the_server_keeps_its_thinking(served: tuple[SharingController, str], tmp_path: Path) -> None:
    from console.batch.formats import parse_jsonl
    from console.batch.results import iter_output
    from console.batch.runner import run_batch

    controller, _ = served
    lines = [
        json.dumps({"custom_id": f"q{i}", "messages": [{"role": "user", "content": q}], **FORCED})
        for i, q in enumerate(["Capital of France?", "Capital of Italy?"])
    ]
    parsed = parse_jsonl("\n".join(lines), GREEDY)
    assert not parsed.errors
    summary = run_batch(controller.switch, parsed.requests, tmp_path / "out.jsonl", concurrency=2)
    assert summary.succeeded == 2, summary.engine_error
    rows = {row["custom_id"]: row for row in iter_output(tmp_path / "out.jsonl")}
    for row in rows.values():
        message = row["response"]["body"]["choices"][0]["message"]
        assert THOUGHT.fullmatch(message["reasoning"]) and WORD.fullmatch(message["content"].strip()), message


def test_the_routes_the_server_offers_are_listed_with_examples_that_work(
    served: tuple[SharingController, str],
) -> None:
    controller, key = served
    routes = {r.path: r for r in controller.routes()}
    # what this vLLM offers for a text model, read from its /openapi.json
    assert set(routes) == {"/v1/completions", "/v1/responses", "/v1/messages"}
    info = controller.endpoint()
    assert info is not None and info.lan_url is not None
    for route in routes.values():
        assert route.curl.startswith(f"curl {info.lan_url[: -len('/v1')]}{route.path}")
        assert f"Bearer {key}" in route.curl and '"model": "qwen3"' in route.curl
    if shutil.which("curl") is None:
        pytest.skip("no curl on this machine to run the examples")
    for path in ("/v1/completions", "/v1/messages"):  # the examples as the user copies them
        done = subprocess.run(
            ["bash", "-c", routes[path].curl + " -sS --fail-with-body --max-time 120"],
            capture_output=True,
            text=True,
            timeout=150,
        )
        assert done.returncode == 0, (path, done.stdout, done.stderr)
        answer = json.loads(done.stdout)
        assert answer.get("choices") or answer.get("content"), answer


def test_serving_beyond_this_machine_needs_a_key() -> None:
    from console.engine.switch import EngineSwitch

    switch = EngineSwitch()
    controller = SharingController(switch)
    try:
        with pytest.raises(LanNeedsKey, match="needs an API key"):
            controller.check_port(8123, lan=True, api_key=None)
        with pytest.raises(LanNeedsKey):
            controller.start(EngineConfig(model="m", device="cpu"), "m", 8123, None, lan=True)
        assert switch.backend is not None and controller.server is None  # nothing switched
        assert controller.bind_host(False, None) == "127.0.0.1"
        assert controller.bind_host(True, "sk-x") == ALL_ADDRESSES
    finally:
        switch.close()


class _Text:
    """A text stream that keeps what is written (not a terminal)."""

    def __init__(self) -> None:
        self.text = ""

    def write(self, text: str) -> int:
        self.text += text
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False
