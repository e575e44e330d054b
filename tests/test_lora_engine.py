"""LoRA adapters on the real CPU engine: one engine on the tiny model with LoRA slots,
shared by this module, and random-weight adapters made with peft (``lora_adapters``).

An adapter with random non-zero A and B visibly changes the greedy answer; the base answer on the
same engine (no adapter) stays the one the plain engine gives. A batch mixing the base and two
adapters through each line's ``model`` field gives, row by row, the answers of per-adapter runs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pytest

from conftest import TEST_KV_BYTES
from console.batch.formats import parse_jsonl
from console.batch.results import iter_output
from console.batch.runner import run_batch
from console.config import EngineConfig
from console.sampling import SamplingSettings
from console.engine.in_process import InProcessEngine
from console.engine.types import EngineError, GenerationRequest, RequestFailed, RequestFinished
from console.models.lora import AdapterError

pytestmark = pytest.mark.engine

PROMPT = "The capital of France is"
GREEDY = SamplingSettings(temperature=0.0, max_tokens=12, ignore_eos=True)


@pytest.fixture(scope="module")
def lora_engine(tiny_model: Path, lora_adapters: dict[str, Path]) -> Iterator[InProcessEngine]:
    engine = InProcessEngine()
    config = EngineConfig(
        model=str(tiny_model),
        served_model_name="tiny",
        kv_cache_memory_bytes=TEST_KV_BYTES,
        max_model_len=1024,
        device="cpu",
        max_loras=2,
        max_lora_rank=8,
        lora_modules={"a": str(lora_adapters["a"])},
    )
    engine.load(config, "tiny").result(timeout=600)
    yield engine
    engine.close()


def answer(engine: Any, adapter: str | None = None, prompt: str = PROMPT) -> str:
    event = engine.generate(GenerationRequest(prompt=prompt, sampling=GREEDY, adapter=adapter), timeout=120)
    assert isinstance(event, RequestFinished), event
    assert event.output_tokens == GREEDY.max_tokens
    return event.text


def test_an_adapter_changes_the_greedy_answer_and_the_base_stays_the_same(
    lora_engine: InProcessEngine, tiny_engine: Any, lora_adapters: dict[str, Path]
) -> None:
    assert lora_engine.config is not None and lora_engine.config.enable_lora is True
    assert lora_engine.config.max_loras == 3  # the 2 asked for + the CPU build's all-zero base slot
    assert lora_engine.adapters() == {"a": str(lora_adapters["a"].resolve())}
    base = answer(lora_engine)
    with_a = answer(lora_engine, "a")
    assert with_a != base
    assert answer(lora_engine, "a") == with_a  # greedy: the adapter's answer is reproducible
    # the base on the LoRA engine is the plain engine's answer (no adapter, no change)
    assert answer(lora_engine) == base == answer(tiny_engine)


def test_a_batch_mixing_base_and_two_adapters_matches_per_adapter_runs(
    lora_engine: InProcessEngine, lora_adapters: dict[str, Path], tmp_path: Path
) -> None:
    attached = lora_engine.attach_adapter("b", lora_adapters["b"])  # attached to the running engine
    assert attached.info.rank == 4 and set(lora_engine.adapters()) == {"a", "b"}
    prompts = ["The capital of France is", "Hello, how are you", "Tell me a story about"]
    expected = {(m, p): answer(lora_engine, None if m == "tiny" else m, p) for m in ("tiny", "a", "b") for p in prompts}
    assert len({expected[(m, prompts[0])] for m in ("tiny", "a", "b")}) == 3  # three different models
    lines = [
        json.dumps(
            {
                "custom_id": f"{m}-{i}",
                "method": "POST",
                "url": "/v1/completions",
                "body": {
                    "model": m,
                    "prompt": p,
                    "max_tokens": GREEDY.max_tokens,
                    "temperature": 0,
                    "ignore_eos": True,
                },
            }
        )
        for i, p in enumerate(prompts)
        for m in ("b", "tiny", "a")
    ]  # interleaved: mixed in one batch
    lines.append(
        json.dumps(
            {"custom_id": "x", "method": "POST", "url": "/v1/completions", "body": {"model": "c", "prompt": "hi"}}
        )
    )
    parsed = parse_jsonl("\n".join(lines), GREEDY)
    assert not parsed.errors and len(parsed.requests) == 10
    out = tmp_path / "out.jsonl"
    summary = run_batch(lora_engine, parsed.requests, out, concurrency=4)
    assert (summary.succeeded, summary.failed) == (9, 1)
    rows = {o["custom_id"]: o for o in iter_output(out)}
    for i, p in enumerate(prompts):
        for m in ("tiny", "a", "b"):
            body = rows[f"{m}-{i}"]["response"]["body"]
            assert body["choices"][0]["text"] == expected[(m, p)], (m, p)
            assert body["model"] == m
    assert rows["x"]["error"]["code"] == "model_not_found"
    message = rows["x"]["error"]["message"]
    assert "`c` is not the loaded model or one of its adapters (" in message and " a, b, tiny" in message


def test_bad_adapters_are_refused_with_the_reason(
    lora_engine: InProcessEngine, lora_adapters: dict[str, Path], tmp_path: Path, tiny_model: Path
) -> None:
    with pytest.raises(AdapterError, match="rank is 16, larger than this engine's max_lora_rank 8"):
        lora_engine.attach_adapter("wide", lora_adapters["wide"])
    with pytest.raises(AdapterError, match=r"does not fit 'tiny' \(it was trained on .*other-base\)"):
        lora_engine.attach_adapter("other", lora_adapters["other"])
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "adapter_config.json").write_text("{not json")
    with pytest.raises(AdapterError, match="not valid JSON .*the adapter is corrupt"):
        lora_engine.attach_adapter("broken", broken)
    assert set(lora_engine.adapters()) <= {"a", "b"}  # none of them attached
    event = lora_engine.generate(GenerationRequest(prompt=PROMPT, sampling=GREEDY, adapter="wide"), timeout=60)
    assert isinstance(event, RequestFailed)
    assert event.message.startswith("No adapter named 'wide' is attached to the loaded model (attached: a")
    # A load naming a corrupt adapter fails before the engine is built, with the reason.
    fresh = InProcessEngine()
    try:
        with pytest.raises(EngineError, match="not valid JSON .*the adapter is corrupt"):
            fresh.load(EngineConfig(model=str(tiny_model), device="cpu", lora_modules={"x": str(broken)})).result(
                timeout=120
            )
        assert "corrupt" in (fresh.status.error or "")
    finally:
        fresh.close()


def test_the_plain_engine_has_no_adapter_slots(tiny_engine: Any, lora_adapters: dict[str, Path]) -> None:
    assert tiny_engine.adapters() == {}
    with pytest.raises(AdapterError, match="loaded without LoRA slots"):
        tiny_engine.attach_adapter("a", lora_adapters["a"])


def test_chat_panel_answers_with_the_chosen_adapter_and_compares_with_the_base(
    lora_engine: InProcessEngine, home: Path, qtbot: Any, connections: Any
) -> None:
    from console.ui.chat.panel import ChatPanel

    panel = ChatPanel(connections.context(engine=lora_engine))
    qtbot.addWidget(panel)
    panel.temperature.setValue(0.0)
    panel.max_tokens.setValue(10)
    box = panel.adapter_box
    assert [box.combo.itemData(i) for i in range(box.combo.count())][:2] == [None, "a"]
    assert box.attach_button.isEnabled() and box.compare_button.isEnabled()
    box.select("a")
    panel.input.setPlainText("Hello there")
    assert panel.send()
    qtbot.waitUntil(lambda: panel.active_id is None, timeout=120_000)
    got = panel.store.messages(panel.conversation_id)[-1].content
    messages = [{"role": "user", "content": "Hello there"}]
    sampling = panel.sampling()
    direct = {
        name: lora_engine.generate(GenerationRequest(messages=messages, sampling=sampling, adapter=name), timeout=120)
        for name in (None, "a")
    }
    assert got == direct["a"].text != direct[None].text  # the conversation's adapter answered
    first = panel.conversation_id
    # side by side: the same prompt, base and adapter
    panel.new_conversation()
    panel.input.setPlainText("Hello there")
    box.compare_button.click()
    qtbot.waitUntil(box.compare.finished, timeout=120_000)
    assert box.compare.texts() == (direct[None].text, direct["a"].text)
    assert box.compare.isVisible() and box.compare.adapter_title.text() == "Adapter: a"
    box.compare.close()
    box.select(None)  # another conversation on the base model; reopening the first picks "a" again
    panel.input.setPlainText("Hi")
    assert panel.send()
    qtbot.waitUntil(lambda: panel.active_id is None, timeout=120_000)
    assert panel.open_conversation(first) and box.current() == "a"


def test_bench_requests_cycle_through_the_adapter_mix(lora_engine: InProcessEngine) -> None:
    """`bench --adapter a --adapter-mix base,a,x`: the requests carry the mix in turn and reach the
    engine with it — the unknown adapter's requests fail there, the base's and a's run."""
    from console.bench.runner import _requests, run_console
    from console.bench.workload import synthetic
    from console.cli.bench import adapter_mix

    assert adapter_mix(None, ["a"]) == ["a"] and adapter_mix("base, a", ["a"]) == ["", "a"]
    with pytest.raises(ValueError, match="x, not loaded"):
        adapter_mix("base,a,x", ["a"])
    workload = synthetic(6, 16, 4, 256, seed=1)
    workload.adapters = ["", "a", "x"]
    assert [r.adapter for r in _requests(workload)] == [None, "a", "x", None, "a", "x"]
    result = run_console(lora_engine, workload)
    assert (result["requests"], result["failed"], result["output_tokens"]) == (6, 2, 4 * 4)
