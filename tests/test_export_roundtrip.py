"""Round trip of every shipped preset through vLLM's own `vllm serve` parser.

For each preset: export the YAML and the one-line command, parse them with vLLM's
FlexibleArgumentParser + make_arg_parser and AsyncEngineArgs.from_cli_args, and compare every
setting of the console's EngineConfig with what vLLM read. Presets are listed when the tests are
collected, so presets added later are covered without touching this file.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from console.config import SPECULATIVE_FIELDS, EngineConfig
from console.engine.serve_options import ServeOptions
from console.engine.serve_args import command_tokens, serve_arguments, serve_command, serve_yaml
from console.export.validate import check_yaml, parse_with_vllm
from console.paths import presets_dir
from console.presets import load_preset_file

SHIPPED = sorted(presets_dir().glob("*.toml"))
BOOL_FIELDS = [
    "enable_prefix_caching",
    "enable_chunked_prefill",
    "enforce_eager",
    "trust_remote_code",
    "enable_sleep_mode",
]


def assert_vllm_reads(
    config: EngineConfig,
    args: object,
    engine: object,
    *,
    model: str | None = None,
    host: str = "127.0.0.1",
    port: int = 8000,
) -> None:
    """Independent of console.export.validate: every engine field, compared by hand."""
    kwargs = config.engine_kwargs()
    assert kwargs, "nothing to compare"
    for name, value in kwargs.items():
        got = getattr(engine, name)
        if name == "model":
            value = model or value
        if name == "served_model_name":
            assert got == [value], name
        elif isinstance(value, float):
            assert got == pytest.approx(value), name
        else:
            assert got == value and type(got) is type(value), f"{name}: wrote {value!r}, vLLM read {got!r}"
    assert (args.host, args.port) == (host, port)


def test_presets_exist() -> None:
    assert {"cpu-default", "gpu-default"} <= {p.stem for p in SHIPPED}


@pytest.mark.parametrize("preset_file", SHIPPED, ids=[p.stem for p in SHIPPED])
def test_preset_yaml_and_command_round_trip(preset_file: Path, tmp_path: Path, tiny_model: Path) -> None:
    preset = load_preset_file(preset_file)
    config = preset.apply(str(tiny_model))
    config.served_model_name = "tiny"
    options = ServeOptions(usage_stats=False)
    text = serve_yaml(config, options)
    assert "device" not in text and "_" not in "".join(k for k in serve_arguments(config, options))
    path = tmp_path / "serve.yaml"
    path.write_text(text)

    args, engine = parse_with_vllm(["--config", str(path)])
    assert_vllm_reads(config, args, engine)
    assert check_yaml(path, config, options) == []

    # `vllm serve MODEL --config FILE`, as the README tells the operator to run it
    args, engine = parse_with_vllm([str(tiny_model), "--config", str(path)])
    assert_vllm_reads(config, args, engine)

    tokens = shlex.split(serve_command(config, options))
    # The usage-statistics choice comes first as env assignments (console.privacy).
    assert tokens[:5] == ["VLLM_NO_USAGE_STATS=1", "DO_NOT_TRACK=1", "vllm", "serve", str(tiny_model)]
    args, engine = parse_with_vllm(tokens[4:])
    assert_vllm_reads(config, args, engine)


@pytest.mark.parametrize("value", [True, False])
def test_every_boolean_takes_effect_both_ways(value: bool, tmp_path: Path, tiny_model: Path) -> None:
    config = EngineConfig(model=str(tiny_model), **{name: value for name in BOOL_FIELDS})
    path = tmp_path / "serve.yaml"
    path.write_text(serve_yaml(config, ServeOptions()))
    _, engine = parse_with_vllm(["--config", str(path)])
    for name in BOOL_FIELDS:
        assert getattr(engine, name) is value, name
    _, engine = parse_with_vllm(command_tokens(serve_arguments(config, ServeOptions()))[2:])
    for name in BOOL_FIELDS:
        assert getattr(engine, name) is value, name


def test_every_engine_field_is_exported(tmp_path: Path, tiny_model: Path) -> None:
    """Each EngineConfig field set away from vLLM's default survives (none silently dropped)."""
    config = EngineConfig(
        model=str(tiny_model),
        served_model_name="tiny-served",
        tokenizer=str(tiny_model),
        dtype="bfloat16",
        quantization="fp8",
        kv_cache_dtype="fp8_e5m2",
        max_model_len=2048,
        gpu_memory_utilization=0.55,
        max_num_seqs=17,
        max_num_batched_tokens=4096,
        enable_prefix_caching=False,
        enable_chunked_prefill=False,
        enforce_eager=True,
        tensor_parallel_size=2,
        pipeline_parallel_size=3,
        kv_cache_memory_bytes=123_456_789,
        cpu_offload_gb=1.5,
        block_size=32,
        load_format="dummy",
        seed=7,
        trust_remote_code=True,
        device="cuda",
        enable_lora=True,
        max_loras=3,
        max_lora_rank=64,
        max_cpu_loras=5,
        lora_modules={"style": str(tiny_model)},
        # the speed settings: the speculative fields travel as one --speculative-config mapping
        speculative_method="eagle",
        num_speculative_tokens=3,
        speculative_model=str(tiny_model),
        kv_offloading_size=6.5,
        enable_sleep_mode=True,
        max_cudagraph_capture_size=64,
        limit_mm_per_prompt={"image": 2},
        mm_processor_kwargs={"max_pixels": 802816},
        allowed_local_media_path=str(tmp_path),
    )  # auto-tune captures graphs up to the workload's batch
    exported = {name for name in config.engine_kwargs()}
    # lora_modules is a `vllm serve` option (checked in tests/test_lora.py), not an engine argument
    assert exported == (
        set(EngineConfig.field_names())
        - {"device", "lora_modules", "prompt_lookup_max", "prompt_lookup_min"}
        - set(SPECULATIVE_FIELDS)
    ) | {"speculative_config"}
    path = tmp_path / "serve.yaml"
    options = ServeOptions(host="0.0.0.0", port=9123, api_key="k-123")
    path.write_text(serve_yaml(config, options))
    args, engine = parse_with_vllm(["--config", str(path)])
    assert_vllm_reads(config, args, engine, host="0.0.0.0", port=9123)
    assert args.api_key == ["k-123"]
    assert check_yaml(path, config, options) == []
    text = path.read_text()
    assert "WARNING: the server will listen on 0.0.0.0:9123" in text
    assert "trust-remote-code is ON" in text


def test_checker_catches_a_setting_vllm_drops(tmp_path: Path, tiny_model: Path) -> None:
    """The FIELD_NOTES trap: underscores + false is silently dropped by vLLM; the check must see it."""
    config = EngineConfig(model=str(tiny_model), enable_prefix_caching=False)
    path = tmp_path / "serve.yaml"
    path.write_text(serve_yaml(config, ServeOptions()).replace("enable-prefix-caching", "enable_prefix_caching"))
    problems = check_yaml(path, config, ServeOptions())
    assert len(problems) == 1 and problems[0].startswith("enable-prefix-caching: written False")


def test_ray_layout_adds_the_ray_backend(tmp_path: Path, tiny_model: Path) -> None:
    config = EngineConfig(model=str(tiny_model), tensor_parallel_size=4, pipeline_parallel_size=2)
    options = ServeOptions(nodes=2)
    path = tmp_path / "serve.yaml"
    path.write_text(serve_yaml(config, options))
    args, engine = parse_with_vllm(["--config", str(path)])
    assert engine.distributed_executor_backend == "ray"
    assert (engine.tensor_parallel_size, engine.pipeline_parallel_size) == (4, 2)
    assert check_yaml(path, config, options) == []
    # one node, one GPU: no Ray
    assert "distributed-executor-backend" not in serve_yaml(EngineConfig(model=str(tiny_model)), ServeOptions())


def test_a_reasoning_models_server_gets_its_reasoning_parser(tmp_path: Path, tiny_model: Path) -> None:
    """A model whose chat template is Qwen3's is exported with ``--reasoning-parser
    qwen3`` (YAML and command); vLLM's own argument parser reads it back and its parser registry
    has a parser of that name. A ChatML model (no reasoning) gets no flag."""
    import shutil

    from vllm.reasoning import ReasoningParserManager

    from tests.fixtures.families import QWEN3_TEMPLATE

    options = ServeOptions(usage_stats=False)
    plain = EngineConfig(model=str(tiny_model))
    assert "reasoning-parser" not in serve_arguments(plain, options)
    assert "reasoning-parser" not in serve_yaml(plain, options)

    folder = tmp_path / "qwen3-like"
    shutil.copytree(tiny_model, folder)
    (folder / "chat_template.jinja").write_text(QWEN3_TEMPLATE, encoding="utf-8")
    config = EngineConfig(model=str(folder))
    assert serve_arguments(config, options)["reasoning-parser"] == "qwen3"
    # the console's own server (--engine serve) keeps the thinking in the answer: the console splits it
    assert "reasoning-parser" not in serve_arguments(config, options, reasoning=False)
    path = tmp_path / "serve.yaml"
    path.write_text(serve_yaml(config, options))
    assert "reasoning-parser: qwen3" in path.read_text()
    assert check_yaml(path, config, options) == []
    args, engine = parse_with_vllm(["--config", str(path)])
    tokens = shlex.split(serve_command(config, options))
    assert tokens[tokens.index("--reasoning-parser") + 1] == "qwen3"
    cargs, cengine = parse_with_vllm(tokens[4:])
    for parsed in (args, engine, cargs, cengine):
        name = getattr(parsed, "reasoning_parser", None)
        if name is not None:
            assert name == "qwen3" and ReasoningParserManager.get_reasoning_parser(name) is not None
    assert engine.reasoning_parser == cengine.reasoning_parser == "qwen3"
