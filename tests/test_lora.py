"""LoRA adapters without an engine: reading PEFT folders, the base and rank checks, the
store's import, the planner's slot memory, and the `vllm serve` export checked by vLLM's parser.

The adapters are real PEFT folders written by peft on the tiny model (``lora_adapters``)."""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path

import pytest

from console.config import EngineConfig
from console.engine.adapters import lora_settings
from console.engine.serve_options import ServeOptions
from console.engine.serve_args import serve_command, serve_yaml
from console.export.validate import check_command, check_yaml, parse_with_vllm
from console.models.adapters import import_adapter, list_adapters, remove_adapter
from console.models.lora import AdapterError, check_base, check_rank, inspect_adapter
from console.planner.lora import slot_bytes
from console.models.store import ModelStore, StoreError
from console.planner.core import PlanRequest, compute
from console.planner.engine_args import engine_args
from console.presets import PresetError, validate_engine_values


def test_inspect_reads_rank_targets_base_and_size(lora_adapters: dict[str, Path], tiny_model: Path) -> None:
    a = inspect_adapter(lora_adapters["a"])
    assert (a.rank, a.alpha, sorted(a.target_modules)) == (8, 16.0, ["q_proj", "v_proj"])
    assert a.base_model == str(tiny_model) and a.num_layers == 2
    assert a.size_bytes == sum(p.stat().st_size for p in lora_adapters["a"].iterdir() if p.is_file())
    b = inspect_adapter(lora_adapters["b"])
    assert b.rank == 4 and len(b.target_modules) == 7
    # shapes as peft wrote them: A is rank x in, B is out x rank (q_proj of hidden 128, 2 heads of 64)
    assert a.shapes[(0, "q_proj", "A")] == (8, 128) and a.shapes[(1, "v_proj", "B")] == (64, 8)


def test_base_check_refuses_an_adapter_of_another_model(lora_adapters: dict[str, Path], tiny_model: Path) -> None:
    check_base(inspect_adapter(lora_adapters["a"]), tiny_model, "tiny")  # its own base: accepted
    with pytest.raises(
        AdapterError,
        match=r"does not fit 'tiny' \(it was trained on .*other-base\): "
        r"layer 0 q_proj has input width 64, 'tiny' has 128",
    ):
        check_base(inspect_adapter(lora_adapters["other"]), tiny_model, "tiny")


def test_rank_above_the_engine_slots_is_refused_with_the_fix(lora_adapters: dict[str, Path]) -> None:
    wide = inspect_adapter(lora_adapters["wide"])
    check_rank(wide, 16)
    with pytest.raises(
        AdapterError,
        match="rank is 16, larger than this engine's max_lora_rank 8: load the model with max_lora_rank 16 or more",
    ):
        check_rank(wide, 8)


@pytest.mark.parametrize(
    "damage, message",
    [
        ("no-config", "has no adapter_config.json"),
        ("bad-json", "adapter_config.json is not valid JSON"),
        ("no-rank", "no usable rank 'r'"),
        ("not-lora", "is a PREFIX_TUNING adapter; vLLM serves LoRA adapters only"),
        ("no-weights", "has no adapter_model.safetensors"),
        ("bad-header", "corrupt safetensors header"),
        ("truncated", "adapter_model.safetensors is truncated"),
        # what PEFT trains and vLLM does not serve: refused at import, not at the first request
        ("bias", "trains biases \\(bias = 'all'\\); vLLM serves LoRA adapters with bias 'none' only"),
        ("lora-bias", "has LoRA biases \\(lora_bias\\); vLLM does not serve them"),
        ("modules-to-save", "carries whole trained copies of lm_head, embed_tokens \\(modules_to_save\\)"),
    ],
)
def test_corrupt_adapters_are_refused_with_the_reason(
    lora_adapters: dict[str, Path], tmp_path: Path, damage: str, message: str
) -> None:
    folder = tmp_path / "broken"
    shutil.copytree(lora_adapters["a"], folder)
    cfg, weights = folder / "adapter_config.json", folder / "adapter_model.safetensors"
    data = json.loads(cfg.read_text())
    if damage == "no-config":
        cfg.unlink()
    elif damage == "bad-json":
        cfg.write_text(cfg.read_text()[:-20])
    elif damage == "no-rank":
        cfg.write_text(json.dumps({**data, "r": 0}))
    elif damage == "not-lora":
        cfg.write_text(json.dumps({**data, "peft_type": "PREFIX_TUNING"}))
    elif damage == "no-weights":
        weights.unlink()
    elif damage == "bad-header":
        raw = bytearray(weights.read_bytes())
        raw[8:12] = b"\xff\xfe{{"
        weights.write_bytes(bytes(raw))
    elif damage == "truncated":
        weights.write_bytes(weights.read_bytes()[:-100])
    elif damage == "bias":
        cfg.write_text(json.dumps({**data, "bias": "all"}))
    elif damage == "lora-bias":
        cfg.write_text(json.dumps({**data, "lora_bias": True}))
    elif damage == "modules-to-save":
        cfg.write_text(json.dumps({**data, "modules_to_save": ["lm_head", "embed_tokens"]}))
    with pytest.raises(AdapterError, match=message):
        inspect_adapter(folder)


def test_store_imports_an_adapter_against_its_base_and_refuses_the_others(
    lora_adapters: dict[str, Path], tiny_model: Path, tmp_path: Path
) -> None:
    store = ModelStore(tmp_path / "store")
    with pytest.raises(AdapterError, match="not in the store: say which store model it adapts with --base"):
        import_adapter(store, lora_adapters["a"], "a")
    store.add_reference("tiny", tiny_model)
    entry = import_adapter(store, lora_adapters["a"], "a")  # the base found from the adapter's own record
    assert (entry.base, entry.rank, sorted(entry.target_modules)) == ("tiny", 8, ["q_proj", "v_proj"])
    assert entry.trained_on == str(tiny_model) and entry.available and entry.managed
    assert (Path(entry.path) / "adapter_model.safetensors").read_bytes() == (
        lora_adapters["a"] / "adapter_model.safetensors"
    ).read_bytes()
    by_ref = import_adapter(store, lora_adapters["b"], "b", base="tiny", copy=False)
    assert by_ref.path == str(lora_adapters["b"].resolve()) and not by_ref.managed
    assert [e.name for e in list_adapters(store, base="tiny")] == ["a", "b"]

    with pytest.raises(AdapterError, match="does not fit 'tiny'"):
        import_adapter(store, lora_adapters["other"], "other", base="tiny")
    with pytest.raises(StoreError, match="already exists"):
        import_adapter(store, lora_adapters["a"], "tiny", base="tiny")
    assert [e.name for e in list_adapters(store)] == ["a", "b"]  # nothing half-registered
    assert not (store.root / "adapters" / "other").exists()

    removed = remove_adapter(store, "a")
    assert not Path(removed.path).exists() and lora_adapters["a"].is_dir()
    remove_adapter(store, "b")
    assert lora_adapters["b"].is_dir()  # a reference: the user's folder stays


def _recording(adapter: Path, folder: Path, base: str, revision: str | None = None) -> Path:
    """A copy of ``adapter`` that records ``base`` (and ``revision``) as the model it was trained on."""
    shutil.copytree(adapter, folder)
    cfg = json.loads((folder / "adapter_config.json").read_text())
    (folder / "adapter_config.json").write_text(
        json.dumps({**cfg, "base_model_name_or_path": base, "revision": revision})
    )
    return folder


def test_the_recorded_base_is_matched_exactly_and_an_override_warns(
    lora_adapters: dict[str, Path], tiny_model: Path, tmp_path: Path
) -> None:
    """An adapter of Llama-3.1-8B bound to Llama-3.1-8B-Instruct (the base was matched by
    substring, and the two have the same shapes, so the shape check cannot tell)."""
    store = ModelStore(tmp_path / "store")
    store.add_reference(
        "llama-instruct", tiny_model, source="Hugging Face meta-llama/Llama-3.1-8B-Instruct@abcdef123456"
    )
    for_base = _recording(lora_adapters["a"], tmp_path / "for-base", "meta-llama/Llama-3.1-8B")
    with pytest.raises(AdapterError, match="trained on 'meta-llama/Llama-3.1-8B', which is not in the store"):
        import_adapter(store, for_base, "x")
    store.add_reference("llama", tiny_model, source="Hugging Face meta-llama/Llama-3.1-8B@abcdef123456")
    entry = import_adapter(store, for_base, "x")
    assert entry.base == "llama" and entry.base_warning is None
    # the recorded revision must be the store copy's commit where both are known
    other_rev = _recording(lora_adapters["a"], tmp_path / "rev", "meta-llama/Llama-3.1-8B", revision="0123456789ab")
    with pytest.raises(AdapterError, match="not in the store"):
        import_adapter(store, other_rev, "y")
    same_rev = _recording(lora_adapters["a"], tmp_path / "rev2", "meta-llama/Llama-3.1-8B", revision="abcdef1")
    assert import_adapter(store, same_rev, "y2").base == "llama"
    # the user's override: bound where --base says, with a warning that stays with the entry
    forced = import_adapter(store, for_base, "z", base="llama-instruct")
    assert forced.base == "llama-instruct"
    assert (
        forced.base_warning is not None
        and "records 'meta-llama/Llama-3.1-8B' as its base, not 'llama-instruct'" in forced.base_warning
    )
    assert list_adapters(store, base="llama-instruct")[0].base_warning == forced.base_warning  # read back
    assert import_adapter(store, for_base, "w", base="llama").base_warning is None  # --base naming its own base


def test_cli_shows_the_override_warning(
    lora_adapters: dict[str, Path], tiny_model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from console.cli.main import main

    def cli(*argv: str) -> tuple[int, str, str]:  # in this process: an import reads files, no engine
        rc = main(["--home", str(tmp_path / "home"), *argv])
        out = capsys.readouterr()
        return rc, out.out, out.err

    assert cli("models", "import", str(tiny_model), "--name", "tiny-instruct", "--reference")[0] == 0
    for_base = _recording(lora_adapters["a"], tmp_path / "for-base", "org/tiny")
    rc, _, err = cli("models", "import", str(for_base), "--name", "x")
    assert rc == 2 and "trained on 'org/tiny', which is not in the store" in err
    rc, _, err = cli("models", "import", str(for_base), "--name", "x", "--base", "tiny-instruct")
    assert rc == 0, err
    assert "warning: the adapter records 'org/tiny' as its base, not 'tiny-instruct'" in err
    assert "tiny-instruct (--base, not its recorded base)" in cli("models", "list")[1]


def _moe_base(folder: Path, **extra: int) -> Path:
    folder.mkdir()
    (folder / "config.json").write_text(
        json.dumps(
            {
                "architectures": ["Qwen2MoeForCausalLM"],
                "model_type": "qwen2_moe",
                "hidden_size": 64,
                "num_attention_heads": 4,
                "num_key_value_heads": 4,
                "num_hidden_layers": 1,
                "intermediate_size": 256,
                **extra,
            }
        )
    )
    return folder


def _moe_adapter(folder: Path, inter: int, shared: int) -> Path:
    import numpy as np
    from safetensors.numpy import save_file

    pre = "base_model.model.model.layers.0.mlp"
    tensors = {}
    for where, width in ((f"{pre}.experts.0", inter), (f"{pre}.experts.7", inter), (f"{pre}.shared_expert", shared)):
        for proj, (fan_in, fan_out) in {
            "gate_proj": (64, width),
            "up_proj": (64, width),
            "down_proj": (width, 64),
        }.items():
            tensors[f"{where}.{proj}.lora_A.weight"] = np.zeros((4, fan_in), dtype=np.float32)
            tensors[f"{where}.{proj}.lora_B.weight"] = np.zeros((fan_out, 4), dtype=np.float32)
    folder.mkdir()
    save_file(tensors, str(folder / "adapter_model.safetensors"))
    (folder / "adapter_config.json").write_text(
        json.dumps(
            {
                "peft_type": "LORA",
                "r": 4,
                "lora_alpha": 8,
                "bias": "none",
                "task_type": "CAUSAL_LM",
                "target_modules": ["gate_proj", "up_proj", "down_proj"],
                "base_model_name_or_path": "org/moe",
            }
        )
    )
    return folder


def test_moe_expert_adapters_are_checked_against_the_expert_width(tmp_path: Path) -> None:
    """Expert projections were taken as intermediate_size wide, so every MoE expert
    adapter was refused; they are moe_intermediate_size wide (shared experts: their own width)."""
    base = _moe_base(tmp_path / "moe", moe_intermediate_size=32, shared_expert_intermediate_size=128)
    good = inspect_adapter(_moe_adapter(tmp_path / "good", inter=32, shared=128))
    assert good.shapes[(0, "experts.gate_proj", "B")] == (32, 4)
    check_base(good, base, "moe")
    with pytest.raises(AdapterError, match="layer 0 experts.down_proj has input width 48, 'moe' has 32"):
        check_base(inspect_adapter(_moe_adapter(tmp_path / "wide", inter=48, shared=128)), base, "moe")
    with pytest.raises(AdapterError, match="layer 0 shared_expert.down_proj has input width 32, 'moe' has 128"):
        check_base(inspect_adapter(_moe_adapter(tmp_path / "shared", inter=32, shared=32)), base, "moe")
    # DeepSeek-style: shared experts are n_shared_experts experts side by side
    deepseek = _moe_base(tmp_path / "ds", moe_intermediate_size=32, n_shared_experts=2)
    check_base(inspect_adapter(_moe_adapter(tmp_path / "ds-ad", inter=32, shared=64)), deepseek, "ds")


def test_lora_modules_turn_lora_on_with_a_rank_that_holds_them(
    lora_adapters: dict[str, Path], tiny_model: Path, tmp_path: Path
) -> None:
    config = lora_settings(EngineConfig(model=str(tiny_model), lora_modules={"a": str(lora_adapters["a"])}))
    assert config.enable_lora is True and config.max_lora_rank is None  # rank 8 fits vLLM's default 16
    assert "lora_modules" not in config.engine_kwargs()  # a server option, not an engine argument
    big = tmp_path / "rank40"  # the rank comes from adapter_config.json: vLLM's next slot size is 64
    shutil.copytree(lora_adapters["a"], big)
    cfg = json.loads((big / "adapter_config.json").read_text())
    (big / "adapter_config.json").write_text(json.dumps({**cfg, "r": 40}))
    config = lora_settings(
        EngineConfig(model=str(tiny_model), lora_modules={"a": str(lora_adapters["a"]), "big": str(big)})
    )
    assert (config.enable_lora, config.max_lora_rank) == (True, 64)


def test_export_writes_lora_flags_that_vllm_reads_back(
    lora_adapters: dict[str, Path], tiny_model: Path, tmp_path: Path
) -> None:
    config = EngineConfig(
        model=str(tiny_model),
        served_model_name="tiny",
        enable_lora=True,
        max_loras=2,
        max_lora_rank=8,
        max_cpu_loras=4,
        lora_modules={"a": str(lora_adapters["a"]), "b": str(lora_adapters["b"])},
    )
    options = ServeOptions(usage_stats=False)
    path = tmp_path / "serve.yaml"
    path.write_text(serve_yaml(config, options))
    args, engine = parse_with_vllm(["--config", str(path)])
    assert (engine.enable_lora, engine.max_loras, engine.max_lora_rank, engine.max_cpu_loras) == (True, 2, 8, 4)
    assert [(m.name, m.path) for m in args.lora_modules] == [
        ("a", str(lora_adapters["a"])),
        ("b", str(lora_adapters["b"])),
    ]
    assert check_yaml(path, config, options) == []
    command = serve_command(config, options)
    assert f"--lora-modules a={lora_adapters['a']} b={lora_adapters['b']}" in command
    assert "--enable-lora" in shlex.split(command)
    assert check_command(command.split(" ", 2)[2], config, options) == []
    # the checker sees an adapter vLLM did not get
    path.write_text(serve_yaml(config, options).replace(f"- b={lora_adapters['b']}\n", ""))
    assert check_yaml(path, config, options) == [
        f"lora-modules: written ['a={lora_adapters['a']}', 'b={lora_adapters['b']}'], "
        f"vLLM read ['a={lora_adapters['a']}']"
    ]


def test_container_exports_mount_the_adapters_or_say_they_cannot(
    lora_adapters: dict[str, Path], tiny_model: Path, tmp_path: Path
) -> None:
    """compose mounts each adapter at /adapters/<name> and the container's serve.yaml points there
    (vLLM's parser reads it back); Kubernetes and KubeRay, whose model comes from a volume claim the
    console does not fill with adapters, refuse with the way out; a bundle skips them and says why."""
    import yaml

    from console.export.bundle import bundle_files
    from console.export.compose import compose_dict, container_serve_yaml
    from console.export.k8s import k8s_yaml
    from console.engine.serve_options import ExportError
    from console.export.ray import rayservice_yaml

    config = EngineConfig(
        model=str(tiny_model),
        served_model_name="tiny",
        enable_lora=True,
        max_loras=2,
        max_lora_rank=8,
        lora_modules={"a": str(lora_adapters["a"])},
    )
    options = ServeOptions(usage_stats=False)
    (service,) = compose_dict(config, options, str(tiny_model))["services"].values()
    binds = {v["target"]: v["source"] for v in service["volumes"]}
    assert binds["/adapters/a"] == str(lora_adapters["a"])
    inner = tmp_path / "serve.yaml"
    inner.write_text(container_serve_yaml(config, options, "here"))
    args, _ = parse_with_vllm(["--config", str(inner)])
    assert [(m.name, m.path) for m in args.lora_modules] == [("a", "/adapters/a")]
    assert str(lora_adapters["a"]) not in inner.read_text()
    for write in (
        lambda: k8s_yaml(config, options, str(tiny_model)),
        lambda: rayservice_yaml(config, options, str(tiny_model)),
    ):
        with pytest.raises(ExportError, match="--format compose"):
            write()
    files = bundle_files(config, options, model_dir=str(tiny_model))
    assert "docker-compose.yaml" in files and "k8s.yaml" not in files
    assert "LoRA adapters" in yaml.safe_load(files["manifest.json"])["skipped"]["k8s.yaml"]


def test_planner_counts_the_lora_slots(tiny_model: Path) -> None:
    base = compute(PlanRequest(shape="llama-3.1-8b", gpu="rtx-4090"))
    lora = compute(PlanRequest(shape="llama-3.1-8b", gpu="rtx-4090", max_loras=4, max_lora_rank=64))
    slots = lora.overheads["lora_slots"].bytes
    # Llama-3.1-8B: 32 layers x (q 4096+4096, k 4096+1024, v 4096+1024, o 4096+4096, gate/up 4096+14336
    # each, down 14336+4096) = 32 x 81,920 values per rank, x 64 x 4 slots x 2 bytes
    assert slots == 32 * 81_920 * 64 * 4 * 2
    assert base.overheads["lora_slots"].bytes == 0
    assert lora.per_gpu[0].kv_budget_bytes == base.per_gpu[0].kv_budget_bytes - slots
    cfg = json.loads((tiny_model / "config.json").read_text())
    assert (
        slot_bytes(cfg, 2, 8, 2)
        == 2 * (128 + 128 + 128 + 64 + 128 + 64 + 128 + 128 + 128 + 256 + 128 + 256 + 256 + 128) * 8 * 2 * 2
    )
    args = engine_args(lora.request)
    assert {k: args[k] for k in ("enable_lora", "max_loras", "max_lora_rank")} == {
        "enable_lora": True,
        "max_loras": 4,
        "max_lora_rank": 64,
    }
    assert "enable_lora" not in engine_args(base.request)


def test_presets_take_the_lora_settings_and_refuse_bad_ones() -> None:
    assert validate_engine_values({"enable_lora": True, "max_loras": 4, "max_lora_rank": 64}, "p.toml")
    with pytest.raises(PresetError, match="'max_lora_rank' = 12 is not one of 1, 8, 16"):
        validate_engine_values({"max_lora_rank": 12}, "p.toml")
    with pytest.raises(PresetError, match="unknown engine key 'lora_modules'"):
        validate_engine_values({"lora_modules": {"a": "/x"}}, "p.toml")


@pytest.mark.engine
def test_cli_imports_lists_exports_and_refuses_adapters(
    lora_adapters: dict[str, Path], tiny_model: Path, tmp_path: Path
) -> None:
    from test_cli import run_cli

    home = tmp_path / "home"
    assert run_cli(home, "models", "import", str(tiny_model), "--name", "tiny", "--reference").returncode == 0
    r = run_cli(home, "models", "import", str(lora_adapters["a"]), "--name", "style-a")
    assert r.returncode == 0, r.stderr
    assert "imported adapter 'style-a' for 'tiny': rank 8" in r.stdout
    r = run_cli(home, "models", "import", str(lora_adapters["other"]), "--name", "x", "--base", "tiny")
    assert r.returncode == 2 and "does not fit 'tiny'" in r.stderr and "Traceback" not in r.stderr
    listed = run_cli(home, "models", "list").stdout
    assert "LoRA adapters" in listed and "style-a" in listed.split("LoRA adapters")[1]
    r = run_cli(
        home,
        "export",
        "--model",
        "tiny",
        "--preset",
        "cpu-default",
        "--format",
        "cmd",
        "--adapter",
        "style-a",
        "--max-loras",
        "2",
    )
    assert r.returncode == 0, r.stderr
    tokens = shlex.split(r.stdout)
    assert "--enable-lora" in tokens and tokens[tokens.index("--max-loras") + 1] == "2"
    assert tokens[tokens.index("--lora-modules") + 1] == f"style-a={home / 'models' / 'adapters' / 'style-a'}"
    assert "every setting reads back as written" in r.stderr  # checked with vLLM's own parser
    r = run_cli(home, "chat", "--model", "tiny", "--adapter", "nope", "hi")
    assert r.returncode == 2 and "No adapter named 'nope'" in r.stderr and "Traceback" not in r.stderr


def test_remote_engines_read_a_servers_adapters_from_its_model_cards() -> None:
    """The cards as vLLM's own /v1/models builds them (its ModelCard model, serialized as served):
    the base card first, then one card per --lora-modules adapter with the base as parent."""
    from vllm.entrypoints.serve.engine.protocol import ModelCard

    from console.engine.remote import split_model_cards

    cards = [
        ModelCard(id="tiny", root="/models/tiny", max_model_len=1024),
        ModelCard(id="style-a", root="/adapters/a", parent="tiny"),
        ModelCard(id="style-b", root="/adapters/b", parent="tiny"),
    ]
    data = [json.loads(c.model_dump_json()) for c in cards]
    base, adapters = split_model_cards(data)
    assert base["id"] == "tiny" and adapters == {"style-a": "/adapters/a", "style-b": "/adapters/b"}
    base, adapters = split_model_cards(list(reversed(data)))  # order does not matter
    assert base["id"] == "tiny" and set(adapters) == {"style-a", "style-b"}
    assert split_model_cards(data[:1]) == (data[0], {})
