"""The speed settings (speculative decoding, KV offload, sleep mode) through presets, the
`vllm serve` export, vLLM's own parser and the import back. No engine is built here: the CPU
engine's side is in tests/test_speed_engine.py."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from console.config import EngineConfig
from console.export.importer import import_command, import_yaml
from console.engine.serve_options import ServeOptions
from console.engine.serve_args import serve_command, serve_yaml
from console.export.validate import check_command, check_yaml, parse_with_vllm
from console.paths import presets_dir
from console.presets import PresetError, load_preset_file, parse_preset
from console.speed import capability_refusal, describe, speed_problems


def test_the_ngram_preset_says_when_it_pays_and_turns_speculation_on(tiny_model: Path) -> None:
    preset = load_preset_file(presets_dir() / "cpu-ngram.toml")
    text = preset.description.lower()
    assert "code editing" in text and "summaris" in text
    spec = preset.apply(str(tiny_model)).speculative_config()
    assert spec == {"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_max": 4, "prompt_lookup_min": 2}
    # the command the text tells the user to run exists
    from console.cli.main import build_parser

    command = preset.description.split("inference-console ", 1)[1].rstrip(".").split()
    args = build_parser().parse_args(command)
    assert args.speculation_speedup and args.preset == "cpu-ngram"


@pytest.mark.parametrize(
    "speed",
    [
        {"speculative_method": "ngram", "num_speculative_tokens": 5},
        {"speculative_method": "eagle3", "num_speculative_tokens": 2, "speculative_model": "/heads/eagle3-8b"},
        {"kv_offloading_size": 12.5, "enable_sleep_mode": True},
    ],
    ids=["ngram", "eagle3", "offload-sleep"],
)
def test_speed_settings_round_trip_through_vllms_parser(speed: dict, tmp_path: Path, tiny_model: Path) -> None:
    config = EngineConfig(model=str(tiny_model), **speed)
    options = ServeOptions()
    path = tmp_path / "serve.yaml"
    path.write_text(serve_yaml(config, options))
    args, engine = parse_with_vllm(["--config", str(path)])
    assert engine.speculative_config == config.speculative_config()
    if "speculative_method" in speed:
        assert engine.speculative_config["method"] == speed["speculative_method"]
        assert engine.speculative_config["num_speculative_tokens"] == speed["num_speculative_tokens"]
    assert engine.kv_offloading_size == speed.get("kv_offloading_size")
    assert engine.enable_sleep_mode is speed.get("enable_sleep_mode", False)
    assert check_yaml(path, config, options) == []
    command = serve_command(config, options)
    assert check_command(shlex.join(shlex.split(command)[2:]), config, options) == []

    # ...and back: an imported export is the same configuration
    for imported in (import_yaml(path), import_command(command)):
        back = imported.preset.apply(str(tiny_model))
        assert back.speculative_config() == config.speculative_config()
        assert (back.kv_offloading_size, back.enable_sleep_mode) == (
            config.kv_offloading_size,
            config.enable_sleep_mode,
        )


def test_an_imported_speculative_key_the_console_lacks_is_refused_not_dropped(tmp_path: Path) -> None:
    spec = json.dumps({"method": "ngram", "num_speculative_tokens": 3, "draft_tensor_parallel_size": 1})
    path = tmp_path / "serve.yaml"
    path.write_text(f"model: /m\nspeculative-config: '{spec}'\n")
    with pytest.raises(PresetError, match="draft_tensor_parallel_size"):
        import_yaml(path)


@pytest.mark.parametrize(
    ("engine", "needle"),
    [
        ({"speculative_method": "ngram"}, "needs num_speculative_tokens"),
        ({"num_speculative_tokens": 4}, "without speculative_method"),
        ({"speculative_method": "eagle", "num_speculative_tokens": 3}, "needs a draft head"),
        (
            {"speculative_method": "ngram", "num_speculative_tokens": 3, "speculative_model": "/d"},
            "uses no draft model",
        ),
        (
            {
                "speculative_method": "ngram",
                "num_speculative_tokens": 3,
                "prompt_lookup_min": 5,
                "prompt_lookup_max": 2,
            },
            "above prompt_lookup_max",
        ),
        ({"speculative_method": "medusa", "num_speculative_tokens": 3}, "not one of ngram, eagle, eagle3"),
        ({"speculative_method": "ngram", "num_speculative_tokens": 40}, "out of range"),
    ],
)
def test_presets_refuse_speed_settings_that_cannot_work(engine: dict, needle: str) -> None:
    with pytest.raises(PresetError, match=needle):
        parse_preset({"name": "x", "engine": engine}, "x.toml")


def test_the_cpu_capability_check_names_what_the_cpu_build_cannot_do(tiny_model: Path) -> None:
    base = EngineConfig(model=str(tiny_model), device="cpu")
    assert capability_refusal(base.replace(speculative_method="ngram", num_speculative_tokens=4), "cpu") is None
    sleep = capability_refusal(base.replace(enable_sleep_mode=True), "cpu")
    assert sleep is not None and "CUDA only" in sleep
    assert capability_refusal(base.replace(enable_sleep_mode=True), "cuda") is None
    offload = capability_refusal(base.replace(kv_offloading_size=4.0), "cpu")
    assert offload is not None and "kv_cache_memory_bytes" in offload
    missing = capability_refusal(
        base.replace(
            speculative_method="eagle", num_speculative_tokens=2, speculative_model=str(tiny_model / "no-head")
        ),
        "cuda",
    )
    assert missing is not None and "no-head" in missing
    assert speed_problems({}) == []
    assert describe(base) == [] and len(describe(base.replace(kv_offloading_size=2.0, enable_sleep_mode=True))) == 2
