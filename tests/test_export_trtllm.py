"""The TensorRT-LLM export: every shipped preset validates against the offline configuration model
of the release it names, a key that release does not know (or a value of the wrong type) is
refused, every knob a preset sets is either mapped or listed, and the model itself is what
``resources/trtllm/regenerate.py`` reads from TensorRT-LLM's source."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import pytest
import yaml

from console.engine.serve_options import ExportError, ServeOptions
from console.export.trtllm import translate, validated
from console.export.trtllm_readme import trtllm_files
from console.export.trtllm_schema import RELEASE, check, load_schema, schema_path
from console.paths import presets_dir, resources_dir
from console.presets import load_preset_file

SHIPPED = sorted(presets_dir().glob("*.toml"))
#: EngineConfig fields that are the model or the console's own, not engine knobs.
NOT_KNOBS = {"model", "served_model_name", "device", "tokenizer", "trust_remote_code"}


def _config(preset_file: Path, model: Path):  # type: ignore[no-untyped-def]
    config = load_preset_file(preset_file).apply(str(model))
    config.served_model_name = "tiny"
    return config


@pytest.mark.parametrize("preset_file", SHIPPED, ids=[p.stem for p in SHIPPED])
def test_every_preset_exports_and_validates(preset_file: Path, tiny_model: Path) -> None:
    config = _config(preset_file, tiny_model)
    files = trtllm_files(config, ServeOptions(usage_stats=False))
    assert set(files) == {"trtllm.yaml", "trtllm-serve.sh", "trtllm.container.yaml", "Dockerfile", "README.md"}
    for name in ("trtllm.yaml", "trtllm.container.yaml"):
        assert check(yaml.safe_load(files[name])) == [], name
    # Every knob the preset sets is in the README: mapped, or listed with its reason.
    t = translate(config, ServeOptions(usage_stats=False))
    listed = " ".join(a for a, _, _ in t.mapped) + " " + " ".join(a for a, _, _ in t.unmapped)
    for name, value in vars(config).items():
        if name not in NOT_KNOBS and value not in (None, False, {}, "auto"):
            assert name in listed, f"{preset_file.stem}: {name}={value!r} neither mapped nor listed"
            assert f"`{name}" in files["README.md"] or name in files["README.md"]


def test_the_knobs_land_where_tensorrt_llm_reads_them(tiny_model: Path) -> None:
    config = _config(presets_dir() / "4090-fp8-kv8.toml", tiny_model).replace(
        max_num_batched_tokens=4096, tensor_parallel_size=2, kv_cache_memory_bytes=8 << 30
    )
    data = yaml.safe_load(trtllm_files(config, ServeOptions(usage_stats=False))["trtllm.yaml"])
    assert data["max_batch_size"] == 32 and data["max_num_tokens"] == 4096 and data["max_seq_len"] == 32768
    assert data["tensor_parallel_size"] == 2
    files = trtllm_files(config, ServeOptions(usage_stats=False))  # two GPUs: NVLink multicast off, as for vLLM
    assert "ENV NCCL_NVLS_ENABLE=0" in files["Dockerfile"] and "export NCCL_NVLS_ENABLE=0" in files["trtllm-serve.sh"]
    kv = data["kv_cache_config"]
    assert kv["dtype"] == "fp8" and kv["enable_block_reuse"] is True and kv["max_gpu_total_bytes"] == 8 << 30
    assert 0 < kv["free_gpu_memory_fraction"] <= 0.95
    assert data["cuda_graph_config"]["batch_sizes"][:4] == [1, 2, 4, 8] and data["cuda_graph_config"]["enable_padding"]
    assert data["enable_iter_perf_stats"] is True and data["enable_chunked_prefill"] is True  # vLLM's default
    eager = trtllm_files(config.replace(enforce_eager=True), ServeOptions(usage_stats=False))
    assert yaml.safe_load(eager["trtllm.yaml"])["cuda_graph_config"] is None


def test_kv_share_follows_the_planner(tiny_model: Path) -> None:
    """A smaller vLLM budget gives a smaller share of free memory, as the planner computes it."""
    base = _config(presets_dir() / "4090-fp8-kv8.toml", tiny_model)
    shares = []
    for utilization in (0.5, 0.9):
        t = translate(base.replace(gpu_memory_utilization=utilization), ServeOptions(usage_stats=False))
        shares.append(t.config["kv_cache_config"]["free_gpu_memory_fraction"])
    assert shares[0] < shares[1]


def test_checkpoint_advice_per_quantization(tiny_model: Path) -> None:
    awq = translate(_config(presets_dir() / "4090-8b-awq-32k.toml", tiny_model), ServeOptions(usage_stats=False))
    assert "ModelOpt W4A16 AWQ" in awq.checkpoint and "not vLLM's AWQ" in awq.checkpoint
    fp8 = translate(_config(presets_dir() / "4090-fp8.toml", tiny_model), ServeOptions(usage_stats=False))
    assert "ModelOpt" in fp8.checkpoint and "FP8" in fp8.checkpoint


def test_round_trip_refuses_unknown_and_mistyped_keys(tiny_model: Path) -> None:
    config = _config(presets_dir() / "4090-ngram.toml", tiny_model)
    good = yaml.safe_load(trtllm_files(config, ServeOptions(usage_stats=False))["trtllm.yaml"])
    assert check(good) == []

    unknown = copy.deepcopy(good)
    unknown["kv_cache_config"]["enable_block_reus"] = True  # a typo the release does not know
    problems = check(unknown)
    assert len(problems) == 1 and "kv_cache_config.enable_block_reus" in problems[0]
    assert "enable_block_reuse" in problems[0]  # the nearest known key is offered

    top = dict(good, max_num_seqs=8)  # vLLM's spelling at the top level
    assert any(p.startswith("max_num_seqs:") for p in check(top))

    mistyped = copy.deepcopy(good)
    mistyped["max_batch_size"] = "eight"
    assert any("max_batch_size" in p and "int" in p for p in check(mistyped))
    wrong_fraction = copy.deepcopy(good)
    wrong_fraction["kv_cache_config"]["free_gpu_memory_fraction"] = "0.9"
    assert any("free_gpu_memory_fraction" in p for p in check(wrong_fraction))
    flag = copy.deepcopy(good)
    flag["enable_iter_perf_stats"] = 1  # an int is not a bool
    assert any("enable_iter_perf_stats" in p for p in check(flag))

    spec = copy.deepcopy(good)
    spec["speculative_config"]["decoding_type"] = "Ngram"
    assert any("decoding_type" in p for p in check(spec))
    spec = copy.deepcopy(good)
    spec["speculative_config"]["prompt_lookup_min"] = 2  # vLLM's key inside TensorRT-LLM's NGram
    assert any("speculative_config.prompt_lookup_min" in p for p in check(spec))


def test_export_refuses_what_the_release_does_not_know(tiny_model: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The writer's own check: a translation with a key the release lacks is not written."""
    config = _config(presets_dir() / "gpu-default.toml", tiny_model)
    t = translate(config, ServeOptions(usage_stats=False))
    t.config["gpu_memory_utilization"] = 0.9
    with pytest.raises(ExportError, match="gpu_memory_utilization"):
        validated(t)
    t = translate(config, ServeOptions(usage_stats=False))
    t.options["served_model_name"] = "tiny"  # trtllm-serve has no such option
    with pytest.raises(ExportError, match="served_model_name"):
        validated(t)


def test_the_model_names_its_release_and_how_to_regenerate_it() -> None:
    schema = load_schema()
    data = json.loads(schema_path().read_text())
    assert schema.release == RELEASE == data["release"] and schema_path().name == f"llm_args-{RELEASE}.json"
    assert "resources/trtllm/regenerate.py" in data["regenerate"] and data["source_note"]
    assert "--free_gpu_memory_fraction" in schema.serve_flags() and "--config" in schema.serve_flags()
    kv = schema.fields("KvCacheConfig")
    assert {"free_gpu_memory_fraction", "enable_block_reuse", "dtype", "max_gpu_total_bytes"} <= set(kv)
    assert {"max_batch_size", "max_num_tokens", "cuda_graph_config", "speculative_config"} <= set(
        schema.fields(schema.root)
    )
    assert (resources_dir() / "trtllm" / "README.md").is_file()


SOURCE = """
class StrictBaseModel(BaseModel):
    pass

class Policy(StrEnum):
    FAST = "FAST"
    SAFE = "SAFE"

class Inner(StrictBaseModel):
    size: int = Field(default=4, description="x")
    mode: Policy = Field(default=Policy.SAFE)

class BaseLlmArgs(StrictBaseModel):
    model: str = Field(description="required")
    inner: Inner = Field(default_factory=Inner, status="beta")
    ratio: Optional[float] = 0.5
    _private: int = PrivateAttr(default=0)

class TorchLlmArgs(BaseLlmArgs):
    extra: List[int] = Field(default=None)
    kind: ClassVar[str] = "torch"
"""
SERVE = """
@click.command("serve")
@click.argument("model", type=str)
@click.option("--tp_size", "--tensor_parallel_size", type=int, default=1)
@click.option("--trust_remote_code", is_flag=True, default=False)
def serve(model, tp_size, trust_remote_code):
    pass
"""


def test_regenerate_reads_fields_types_and_defaults(tmp_path: Path) -> None:
    """regenerate.py on a small source in TensorRT-LLM's layout: fields, bases, enums, options."""
    (tmp_path / "tensorrt_llm/llmapi").mkdir(parents=True)
    (tmp_path / "tensorrt_llm/commands").mkdir(parents=True)
    (tmp_path / "tensorrt_llm/llmapi/llm_args.py").write_text(SOURCE)
    (tmp_path / "tensorrt_llm/commands/serve.py").write_text(SERVE)
    sys.path.insert(0, str(resources_dir() / "trtllm"))
    try:
        import regenerate
    finally:
        sys.path.pop(0)
    out = tmp_path / "model.json"
    assert regenerate.main([str(tmp_path), "--release", "9.9", "--output", str(out), "--note", "test"]) == 0
    data = json.loads(out.read_text())
    assert data["release"] == "9.9" and data["source_note"] == "test" and "--release 9.9" in data["regenerate"]
    torch = data["classes"]["TorchLlmArgs"]
    assert torch["bases"] == ["BaseLlmArgs"] and torch["classvars"] == {"kind": "torch"}
    base = data["classes"]["BaseLlmArgs"]["fields"]
    assert base["model"] == {"type": "str", "required": True}
    assert base["inner"] == {"type": "Inner", "default_factory": "Inner", "status": "beta"}
    assert base["ratio"] == {"type": "Optional[float]", "default": 0.5} and "_private" not in base
    assert data["classes"]["Policy"]["enum"] == ["FAST", "SAFE"]
    assert data["trtllm_serve_options"]["tp_size"]["flags"] == ["--tp_size", "--tensor_parallel_size"]
    assert data["trtllm_serve_options"]["trust_remote_code"]["is_flag"] is True
    # the checker reads the regenerated model the same way
    from console.export.trtllm_schema import Schema

    schema = Schema(
        release="9.9",
        root="TorchLlmArgs",
        classes=data["classes"],
        aliases=data["aliases"],
        serve_options=data["trtllm_serve_options"],
        regenerate=data["regenerate"],
    )
    assert check({"model": "m", "inner": {"size": 2, "mode": "FAST"}, "extra": [1]}, schema) == []
    assert check({"inner": {"mode": "SLOW"}}, schema) == ["inner.mode: 'SLOW' is not one of ['FAST', 'SAFE']"]
    assert check({"inner": {"size": 2.5}}, schema)[0].startswith("inner.size: expected int")


def test_cli_writes_the_folder_and_prints_without_one(
    home: Path, tiny_model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from console.cli.main import main
    from console.models.store import ModelStore

    ModelStore().add_reference("tiny", tiny_model)
    out = tmp_path / "trt"
    argv = ["export", "--preset", "4090-fp8-kv8", "--model", "tiny", "--format", "trtllm"]
    assert main([*argv, "-o", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == sorted(
        ["trtllm.yaml", "trtllm-serve.sh", "trtllm.container.yaml", "Dockerfile", "README.md"]
    )
    assert check(yaml.safe_load((out / "trtllm.yaml").read_text())) == []
    assert "FROM nvcr.io/nvidia/tensorrt-llm/release:" in (out / "Dockerfile").read_text()
    capsys.readouterr()
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert yaml.safe_load(printed)["kv_cache_config"]["dtype"] == "fp8"
    assert "# trtllm-serve " in printed and "--config trtllm.yaml" in printed


def test_the_families_parsers_are_listed_not_dropped(tmp_path: Path) -> None:
    """The vLLM export gives a Qwen3 server its reasoning and tool-call parsers; trtllm-serve names
    its own, so the TensorRT-LLM export lists both for the operator."""
    from tests.fixtures.families import make_family

    model = make_family("qwen3", tmp_path / "qwen3")
    config = load_preset_file(presets_dir() / "gpu-default.toml").apply(str(model))
    t = translate(config, ServeOptions(usage_stats=False))
    listed = {name: value for name, value, _ in t.unmapped}
    assert listed.get("reasoning parser") == "qwen3" and listed.get("tool-call parser")
    assert "reasoning parser" in readme_of(config)


def readme_of(config) -> str:  # type: ignore[no-untyped-def]
    return trtllm_files(config, ServeOptions(usage_stats=False))["README.md"]
