"""Sampling defaults from the loaded model: the chat (window and terminal) leaves temperature,
top-p, top-k and repetition penalty to the model's generation config as vLLM reads it (else its
family's preset, else vLLM's own), the user's explicit choice wins, and a server engine is sent
only what the user set."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, Iterator

import pytest

from console.sampling import (
    FROM_FAMILY,
    FROM_GENERATION_CONFIG,
    FROM_VLLM,
    VLLM_SAMPLING_DEFAULTS,
    SamplingDefaults,
    SamplingSettings,
)
from console.engine.types import GenerationRequest

#: What the test checkpoint's generation_config.json says (none of it vLLM's or the old default)
MODEL_SAMPLING = {"temperature": 0.25, "top_p": 0.8, "top_k": 7, "repetition_penalty": 1.1}


# -- the core, no engine ----------------------------------------------------------------------------
def test_resolved_fills_only_what_the_user_left() -> None:
    defaults = SamplingDefaults(dict(MODEL_SAMPLING), FROM_GENERATION_CONFIG)
    r = SamplingSettings(temperature=0.9, max_tokens=5).resolved(defaults)
    assert (r.temperature, r.top_p, r.top_k, r.repetition_penalty, r.max_tokens) == (0.9, 0.8, 7, 1.1, 5)
    r = SamplingSettings().resolved(None)  # no model's defaults: vLLM's own
    assert (r.temperature, r.top_p, r.top_k, r.repetition_penalty) == tuple(VLLM_SAMPLING_DEFAULTS.values())
    assert SamplingSettings(top_k=0).explicit() == {"top_k": 0}  # "off" chosen is a choice


def test_vllm_defaults_are_vllms_own() -> None:
    from console import vllm_compat

    p = vllm_compat.sampling_params_class()()
    assert {k: getattr(p, k) for k in VLLM_SAMPLING_DEFAULTS} == VLLM_SAMPLING_DEFAULTS


def test_model_defaults_fall_back_to_the_family_then_vllm(tmp_path: Path) -> None:
    from console.engine.params import model_defaults
    from console.models.family_table import family_by_name

    class Config:  # vLLM's ModelConfig, as far as the console asks it
        def __init__(self, diff: dict[str, Any]) -> None:
            self.diff = diff

        def get_diff_sampling_param(self) -> dict[str, Any]:
            return self.diff

    qwen3 = tmp_path / "qwen3"
    qwen3.mkdir()
    (qwen3 / "chat_template.jinja").write_text("<|im_start|>{% if enable_thinking %}{% endif %}")
    d = model_defaults(Config({**MODEL_SAMPLING, "max_tokens": 100}), qwen3)
    assert (d.source, d.values) == (FROM_GENERATION_CONFIG, MODEL_SAMPLING)  # the model's own first
    d = model_defaults(Config({}), qwen3)
    assert (d.source, d.values) == (FROM_FAMILY, dict(family_by_name("qwen3").sampling))
    assert "Qwen3 family's preset" in d.describe()
    d = model_defaults(Config({}), tmp_path)  # no template, no generation config
    assert (d.source, d.values) == (FROM_VLLM, {}) and d.describe().startswith("vLLM defaults")


def test_params_fill_the_models_defaults() -> None:
    from console.engine.params import sampling_params

    defaults = SamplingDefaults({**MODEL_SAMPLING, "min_p": 0.05}, FROM_GENERATION_CONFIG)
    p = sampling_params(SamplingSettings(top_k=0), None, defaults=defaults)
    assert (p.temperature, p.top_p, p.top_k, p.repetition_penalty, p.min_p) == (0.25, 0.8, 0, 1.1, 0.05)


def test_server_is_sent_only_what_the_user_set() -> None:
    """A server (remote, or a ``vllm serve`` the console started) applies its own defaults (its
    model's generation_config.json) to what a request leaves out; the console used to send
    temperature 0.7 and top-p 1 on every request, overriding them."""
    from console.engine.remote_wire import request_body

    messages = [{"role": "user", "content": "hi"}]
    _, body = request_body(GenerationRequest(messages=messages), "m")
    assert not {"temperature", "top_p", "top_k", "repetition_penalty"} & set(body)
    _, body = request_body(GenerationRequest(messages=messages, sampling=SamplingSettings(temperature=0.0)), "m")
    assert body["temperature"] == 0.0 and not {"top_p", "top_k", "repetition_penalty"} & set(body)


def test_sampling_box_shows_the_models_defaults_and_keeps_the_users(qtbot: Any) -> None:
    from console.ui.chat.sampling_box import SamplingBox

    box = SamplingBox()
    qtbot.addWidget(box)
    assert box.sampling() == SamplingSettings()
    box.set_model_defaults(SamplingDefaults(dict(MODEL_SAMPLING), FROM_GENERATION_CONFIG))
    assert (box.temperature.value(), box.top_k.value()) == (0.25, 7)
    assert box.defaults_source.text() == "from the model's generation_config.json"
    assert box.sampling() == SamplingSettings() and not box.reset_defaults.isEnabled()
    box.temperature.setValue(0.9)  # the user's
    assert box.sampling().explicit() == {"temperature": 0.9} and "yours: temperature" in box.defaults_source.text()
    box.set_model_defaults(SamplingDefaults())  # another model: the user's value stays
    assert (box.temperature.value(), box.top_k.value()) == (0.9, 0)
    assert box.defaults_source.text().startswith("vLLM defaults")
    box.use_model_defaults()
    assert box.temperature.value() == 1.0 and box.sampling() == SamplingSettings()
    box.set_model_defaults(None)  # a server engine
    assert box.defaults_source.text().startswith("the server's defaults")


# -- against an engine on a checkpoint with its own generation_config.json ------------------------------
@pytest.fixture(scope="module")
def model_sampling_engine(tiny_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The tiny model, copied, with MODEL_SAMPLING in its generation_config.json."""
    from console.config import EngineConfig
    from console.engine.in_process import InProcessEngine

    from conftest import TEST_KV_BYTES

    folder = Path(shutil.copytree(tiny_model, tmp_path_factory.mktemp("gencfg") / "tiny-gencfg"))
    gen = json.loads((folder / "generation_config.json").read_text())
    (folder / "generation_config.json").write_text(json.dumps({**gen, **MODEL_SAMPLING}))
    engine = InProcessEngine()
    config = EngineConfig(model=str(folder), kv_cache_memory_bytes=TEST_KV_BYTES, max_model_len=1024, device="cpu")
    engine.load(config, "tiny-gencfg").result(timeout=600)
    yield engine
    engine.close()


@pytest.fixture()
def sent(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """vLLM's SamplingParams of each request the in-process engine runs."""
    from console.engine import in_process as in_process_module

    seen: list[Any] = []
    real = in_process_module.request_params

    def spy(*args: Any, **kwargs: Any) -> Any:
        params = real(*args, **kwargs)
        seen.append(params)
        return params

    monkeypatch.setattr(in_process_module, "request_params", spy)
    return seen


def _values(params: Any) -> dict[str, Any]:
    return {k: getattr(params, k) for k in MODEL_SAMPLING}


@pytest.mark.engine
def test_loaded_model_reports_its_generation_config(model_sampling_engine: Any) -> None:
    d = model_sampling_engine.status.info.sampling_defaults
    assert (d.source, {k: d.values[k] for k in MODEL_SAMPLING}) == (FROM_GENERATION_CONFIG, MODEL_SAMPLING)


@pytest.mark.engine
def test_window_chat_uses_the_models_generation_config(
    model_sampling_engine: Any, sent: list[Any], home: Path, qtbot: Any, connections: Any
) -> None:
    from console.ui.chat.panel import ChatPanel

    panel = ChatPanel(connections.context(engine=model_sampling_engine))  # undone at teardown: the engine is shared
    qtbot.addWidget(panel)
    assert panel.sampling_box.defaults_source.text() == "from the model's generation_config.json"
    assert panel.temperature.value() == 0.25
    panel.max_tokens.setValue(4)
    panel.input.setPlainText("Hello")
    assert panel.send()
    qtbot.waitUntil(lambda: panel.active_id is None, timeout=60_000)
    assert _values(sent[-1]) == MODEL_SAMPLING
    panel.temperature.setValue(0.9)  # the user's choice wins; the rest stays the model's
    panel.input.setPlainText("Again")
    assert panel.send()
    qtbot.waitUntil(lambda: panel.active_id is None, timeout=60_000)
    assert _values(sent[-1]) == {**MODEL_SAMPLING, "temperature": 0.9}
    panel.ctx.sampler.stop()


class _Kept:
    """The shared engine as ``start_engine`` returns it, not closed by the command."""

    def __init__(self, engine: Any) -> None:
        self._engine = engine

    def __getattr__(self, name: str) -> Any:
        return getattr(self._engine, name)

    def close(self, timeout: float = 60.0) -> None:
        pass


@pytest.mark.engine
@pytest.mark.parametrize("flags", [[], ["--temperature", "0.9"]])
def test_terminal_chat_uses_the_models_generation_config(
    model_sampling_engine: Any,
    sent: list[Any],
    home: Path,
    flags: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from console.cli import chat as cli_chat
    from console.cli.main import main

    monkeypatch.setattr(cli_chat, "start_engine", lambda args: _Kept(model_sampling_engine))
    monkeypatch.setattr(cli_chat, "check_model_and_preset", lambda args: None)
    assert main(["chat", *flags, "--max-tokens", "4", "Hello"]) == 0
    err = capsys.readouterr().err
    mine = {"temperature": 0.9} if flags else {}
    assert _values(sent[-1]) == {**MODEL_SAMPLING, **mine}
    assert err.count("[sampling]") == 1 and "(from the model's generation_config.json" in err, err
    assert ("yours: temperature" in err) == bool(flags)
