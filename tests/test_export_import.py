"""Import a `vllm serve` YAML or command back into a preset, and the `export` CLI end to end."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

import pytest
import yaml

from console.cli.main import main
from console.config import EngineConfig
from console.export.importer import import_command, import_yaml, save_preset
from console.engine.serve_options import ServeOptions
from console.engine.serve_args import serve_command, serve_yaml
from console.models.store import ModelStore
from console.presets import PresetError, load_presets


def full_config(model: str) -> EngineConfig:
    return EngineConfig(
        model=model,
        served_model_name="tiny",
        dtype="bfloat16",
        kv_cache_dtype="fp8",
        max_model_len=2048,
        gpu_memory_utilization=0.85,
        max_num_seqs=32,
        max_num_batched_tokens=4096,
        enable_prefix_caching=False,
        enable_chunked_prefill=True,
        enforce_eager=True,
        tensor_parallel_size=2,
        pipeline_parallel_size=1,
        cpu_offload_gb=2.5,
        block_size=16,
        seed=3,
    )


def _engine_of(config: EngineConfig) -> dict[str, object]:
    return {k: v for k, v in config.engine_kwargs().items() if k not in ("model", "served_model_name")}


def test_yaml_and_command_round_trip_into_a_preset(home: Path, tmp_path: Path) -> None:
    config = full_config("/srv/models/tiny")
    path = tmp_path / "serve.yaml"
    path.write_text(serve_yaml(config, ServeOptions(port=9001)))
    from_yaml = import_yaml(path)
    assert from_yaml.preset.engine == _engine_of(config)
    assert from_yaml.model == "/srv/models/tiny" and from_yaml.serving["port"] == 9001
    assert from_yaml.unknown == {} and from_yaml.warnings == []
    from_cmd = import_command(serve_command(config, ServeOptions(port=9001)))
    assert from_cmd.preset.engine == _engine_of(config)
    assert from_cmd.model == "/srv/models/tiny"

    saved = save_preset(from_yaml)
    assert saved.parent == home / "presets"
    preset = load_presets()[from_yaml.preset.name]
    assert preset.apply("/srv/models/tiny", served_model_name="tiny") == config
    with pytest.raises(PresetError, match="exists"):
        save_preset(from_yaml)


def test_unknown_keys_are_reported_not_dropped(tmp_path: Path) -> None:
    path = tmp_path / "server.yml"
    spec = {"method": "ngram", "num_speculative_tokens": 3}  # imported (console fields)
    path.write_text(
        yaml.safe_dump(
            {
                "model": "m",
                "max-num-seqs": 8,
                "speculative-config": spec,
                "enable_prefix_caching": False,
                "swap-space": 4,
                "api-key": "x",
            }
        )
    )
    result = import_yaml(path, name="mine")
    assert result.preset.name == "mine"
    assert result.preset.engine == {
        "max_num_seqs": 8,
        "enable_prefix_caching": False,
        "speculative_method": "ngram",
        "num_speculative_tokens": 3,
    }
    assert result.unknown == {"swap-space": 4}
    assert any("underscores" in w for w in result.warnings)
    lines = "\n".join(result.report_lines())
    assert "NOT imported" in lines and "swap-space=4" in lines and "api-key=***" in lines


def test_command_forms(tmp_path: Path) -> None:
    cfg = tmp_path / "base.yaml"
    cfg.write_text("max-model-len: 8192\nenforce-eager: true\n")
    result = import_command(
        "VLLM_USE_V1=1 vllm serve meta/Llama --config base.yaml -tp 4 --max-model-len=4096 "
        "--no-enable-prefix-caching --served-model-name a b --gpu_memory_utilization 0.8 --foo bar",
        base=tmp_path,
    )
    assert result.preset.engine == {
        "max_model_len": 4096,
        "enforce_eager": True,
        "tensor_parallel_size": 4,
        "enable_prefix_caching": False,
        "gpu_memory_utilization": 0.8,
    }
    assert result.unknown == {"foo": "bar"} and result.serving["served-model-name"] == ["a", "b"]
    py = import_command("python -m vllm.entrypoints.openai.api_server --model m --max-num-seqs 4 --enforce-eager")
    assert py.model == "m" and py.preset.engine == {"max_num_seqs": 4, "enforce_eager": True}
    # a rank from the command line is the number vLLM reads ("16" did not match the
    # Literal of ranks, and a YAML true passed as the rank 1)
    lora = import_command("vllm serve m --enable-lora --max-lora-rank 16 --max-loras 2")
    assert lora.preset.engine == {"enable_lora": True, "max_lora_rank": 16, "max_loras": 2}


@pytest.mark.parametrize(
    "bad, message",
    [
        ("vllm serve m --max-num-seqs lots", "max-num-seqs' must be a whole number"),
        ("vllm serve m --gpu-memory-utilization 3", "out of range"),
        ("vllm serve m --kv-cache-dtype int3", "not one of"),
        ("vllm serve m --max-lora-rank 12", "'max-lora-rank' = '12' is not one of 1, 8, 16"),
    ],
)
def test_bad_values_are_refused_with_the_key(bad: str, message: str) -> None:
    with pytest.raises(PresetError, match=message):
        import_command(bad)


def test_a_yaml_boolean_is_no_number(tmp_path: Path) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text("max-lora-rank: true\n")
    with pytest.raises(PresetError, match="'max-lora-rank' must be a number, not True"):
        import_yaml(cfg)
    cfg.write_text("max-num-seqs: true\n")
    with pytest.raises(PresetError, match="'max-num-seqs' must be a number, not True"):
        import_yaml(cfg)


# -- the CLI ---------------------------------------------------------------------------------------
@pytest.fixture()
def store_model(home: Path, tiny_model: Path) -> str:
    ModelStore().add_reference("tiny", tiny_model)
    return "tiny"


def test_cli_yaml_validated(store_model: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "serve.yaml"
    assert (
        main(
            [
                "export",
                "--preset",
                "cpu-default",
                "--model",
                store_model,
                "--format",
                "yaml",
                "-o",
                str(out),
                "--tensor-parallel-size",
                "2",
            ]
        )
        == 0
    )
    err = capsys.readouterr().err
    assert "every setting reads back as written" in err
    data = yaml.safe_load(out.read_text())
    assert data["host"] == "127.0.0.1" and data["tensor-parallel-size"] == 2 and "device" not in data
    assert data["served-model-name"] == "tiny" and data["trust-remote-code"] is False


def test_cli_cmd_stdout_and_exposure_warning(store_model: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", "--model", store_model, "--format", "cmd", "--host", "0.0.0.0", "--no-validate"]) == 0
    captured = capsys.readouterr()
    # The usage-statistics choice leads the line (console.privacy).
    assert re.match(r"VLLM_NO_USAGE_STATS=[01] DO_NOT_TRACK=[01] vllm serve ", captured.out)
    assert "--host 0.0.0.0" in captured.out
    assert "warning: the server will listen on 0.0.0.0:8000" in captured.err


def test_cli_trust_remote_code_follows_the_store_entry(store_model: str, capsys: pytest.CaptureFixture[str]) -> None:
    ModelStore().update(store_model, trust_remote_code=True)
    assert main(["export", "--model", store_model, "--format", "yaml", "--no-validate"]) == 0
    captured = capsys.readouterr()
    assert yaml.safe_load(captured.out)["trust-remote-code"] is True
    assert "trust_remote_code is ON" in captured.err


def test_cli_bundle_and_import(store_model: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bench = tmp_path / "bench.json"
    bench.write_text(json.dumps({"gpu": "H200", "tokens_per_s": 99.5}))
    target = tmp_path / "deploy.zip"
    assert (
        main(
            [
                "export",
                "--model",
                store_model,
                "--format",
                "bundle",
                "-o",
                str(target),
                "--bench",
                str(bench),
                "-tp",
                "2",
            ]
        )
        == 0
    )
    with zipfile.ZipFile(target) as zf:
        names = set(zf.namelist())
        assert {"deploy/k8s.yaml", "deploy/ray/rayservice.yaml", "deploy/bench.json", "deploy/README.md"} <= names
        served = zf.read("deploy/serve.yaml").decode()
    path = tmp_path / "back.yaml"
    path.write_text(served)
    assert main(["export", "import", str(path), "--name", "from-bundle"]) == 0
    preset = load_presets()["from-bundle"]
    assert preset.engine["tensor_parallel_size"] == 2 and preset.engine["enable_prefix_caching"] is True


def test_cli_errors_are_messages(store_model: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", "--model", "nope", "--format", "yaml"]) == 2
    assert "neither a model in the store" in capsys.readouterr().err
    assert main(["export", "--model", store_model, "--format", "k8s", "--nodes", "2", "--no-validate"]) == 2
    assert "--format ray" in capsys.readouterr().err
    bad = tmp_path / "bench.json"
    bad.write_text("{not json")
    assert (
        main(
            [
                "export",
                "--model",
                store_model,
                "--format",
                "bundle",
                "-o",
                str(tmp_path / "x"),
                "--bench",
                str(bad),
                "--no-validate",
            ]
        )
        == 2
    )
    assert "not readable JSON" in capsys.readouterr().err
    assert main(["export", "import"]) == 2
    assert "either a YAML file or --command" in capsys.readouterr().err
