"""The Mistral-Small-3.1 folder of the GPU vision check (``benchmarks/gpu/vision_mistral.py``),
without a GPU: the offline tokenizer holds Tekken's special-token ids where the processor and vLLM
read them, the processor files agree with the published config, transformers' own Pixtral image
processing (its PIL backend: this venv has no torchvision) gives the planner's token counts, the
published W4A16 skip list leaves every tower and projector linear 16-bit and the text layers 4-bit
under vLLM's compressed-tensors rule (checked against the layer names transformers builds), and the
GPU run's shim for vLLM 0.26's pixtral.py gives transformers' own rope. The processor itself and
vLLM 0.26's dummy picture are checked on the GPU machine's packages by
``benchmarks/gpu/vision_mistral_check.py``."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks" / "gpu"))
import vision_mistral  # noqa: E402

from console.planner.vision import image_tokens_at, max_image_tokens  # noqa: E402

NAME = "mistral-small-3.1-24b-w4a16"
#: vLLM's Mistral3 (mistral3.py): fused layers and the checkpoint -> vLLM prefix mapping, copied here
#: (importing the model module pulls in transformers' Pixtral names that moved).
VLLM_PACKED = {"qkv_proj": ["q_proj", "k_proj", "v_proj"], "gate_up_proj": ["gate_proj", "up_proj"]}
VLLM_PREFIXES = {
    "model.language_model.": "language_model.model.",
    "model.vision_tower.": "vision_tower.",
    "model.multi_modal_projector.": "multi_modal_projector.",
    "lm_head.": "language_model.lm_head.",
}


def _configs() -> tuple[dict[str, Any], dict[str, Any]]:
    return vision_mistral.shapes()[NAME]


def test_the_offline_tokenizer_holds_tekkens_special_ids(tmp_path: Path) -> None:
    from tokenizers import Tokenizer

    text, config = _configs()
    vision_mistral.write_processor(tmp_path, config)
    tok = Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    assert tok.get_vocab_size() == 131072 == config["text_config"]["vocab_size"] == text["vocab_size"]
    named = {"<unk>": 0, "<s>": 1, "</s>": 2, "[INST]": 3, "[/INST]": 4, "[IMG]": 10, "<pad>": 11}
    named |= {"[IMG_BREAK]": 12, "[IMG_END]": 13, "[SYSTEM_PROMPT]": 17, "<SPECIAL_20>": 20, "<SPECIAL_999>": 999}
    assert {t: tok.token_to_id(t) for t in named} == named
    assert tok.token_to_id("<SPECIAL_1000>") is None  # id 1000 is the first ordinary word
    ids = tok.encode("<s>[INST][IMG][IMG_BREAK][IMG][IMG_END]What is it?[/INST]").ids
    assert ids[:6] == [1, 3, config["image_token_index"], 12, 10, 13] and ids[-1] == 4
    processor = json.loads((tmp_path / "processor_config.json").read_text(encoding="utf-8"))
    assert processor["patch_size"] == config["vision_config"]["patch_size"] == 14
    assert processor["spatial_merge_size"] == config["spatial_merge_size"] == 2
    assert [processor[k] for k in ("image_token", "image_break_token", "image_end_token")] == [
        "[IMG]",
        "[IMG_BREAK]",
        "[IMG_END]",
    ]
    image = json.loads((tmp_path / "preprocessor_config.json").read_text(encoding="utf-8"))
    assert image["size"] == {"longest_edge": config["vision_config"]["image_size"]} == {"longest_edge": 1540}
    assert image["patch_size"] == {"height": 28, "width": 28}  # the merged patch, as the processor hands it
    assert "[IMG]" in (tmp_path / "chat_template.jinja").read_text(encoding="utf-8")
    tconfig = json.loads((tmp_path / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert (tconfig["bos_token"], tconfig["eos_token"], tconfig["pad_token"]) == ("<s>", "</s>", "<pad>")


@pytest.mark.parametrize("wrong", [{"image_token_index": 11}, {"spatial_merge_size": 1}])
def test_a_config_that_disagrees_with_the_processor_is_refused(wrong: dict[str, int], tmp_path: Path) -> None:
    config = _configs()[1] | wrong
    with pytest.raises(AssertionError, match=next(iter(wrong))):
        vision_mistral.write_processor(tmp_path, config)


@pytest.mark.parametrize("side", [1024, 990, 700, 1540, 4096])
def test_transformers_pixtral_image_processing_gives_the_planners_tokens(side: int) -> None:
    import numpy as np
    from transformers.models.pixtral.image_processing_pil_pixtral import PixtralImageProcessorPil

    config = _configs()[1]
    image = {
        k: v for k, v in vision_mistral.PIXTRAL_IMAGE.items() if not k.endswith("_type") and k != "processor_class"
    }
    processor = PixtralImageProcessorPil(**image)
    picture = np.full((side, side * 3 // 4, 3), 128, dtype=np.uint8)  # a portrait picture, 3:4
    out = processor(picture, return_tensors="np")
    height, width = (int(v) for v in out["image_sizes"][0])
    rows, cols = height // 28, width // 28
    assert rows * cols + rows == image_tokens_at(config, side * 3 // 4, side)  # [IMG] a token, a break a row
    if side == 1024:
        assert (rows, cols, image_tokens_at(config, 1024, 1024)) == (37, 28, 37 * 37 + 37)
    assert max_image_tokens(config) == 55 * 55 + 55 == 3080


def _hf_linears(config: dict[str, Any]) -> set[str]:
    import torch
    import transformers

    bare = {k: v for k, v in config.items() if k != "quantization_config"}
    with torch.device("meta"):
        model = getattr(transformers, bare["architectures"][0])(transformers.AutoConfig.for_model(**bare))
    return {n for n, m in model.named_modules() if isinstance(m, torch.nn.Linear)}


def _vllm_name(hf: str) -> str:
    for old, new in VLLM_PREFIXES.items():
        if hf.startswith(old):
            hf = new + hf[len(old) :]
            break
    head, _, last = hf.rpartition(".")
    fused = {"q_proj": "qkv_proj", "k_proj": "qkv_proj", "v_proj": "qkv_proj", "gate_proj": "gate_up_proj"}
    return f"{head}.{fused.get(last, {'up_proj': 'gate_up_proj'}.get(last, last))}"


def test_the_w4a16_skip_list_leaves_the_tower_16_bit_and_the_text_model_4_bit() -> None:
    from vllm.model_executor.layers.quantization import get_quantization_config
    from vllm.model_executor.layers.quantization.compressed_tensors.utils import should_ignore_layer
    from vllm.model_executor.models.utils import WeightsMapper

    config = _configs()[1]  # as published: the skip list is the published config's own
    qc = config["quantization_config"]
    quant = get_quantization_config(qc["quant_method"]).from_config(qc)
    quant.packed_modules_mapping = dict(VLLM_PACKED)
    quant.apply_vllm_mapper(WeightsMapper(orig_to_new_prefix=dict(VLLM_PREFIXES)))
    linears = _hf_linears(config)
    # vLLM's patch merger is a plain torch Linear (never quantized); every other one is a vLLM linear
    vision = {_vllm_name(n) for n in linears if ".vision_tower." in n or ".multi_modal_projector." in n}
    vision -= {"multi_modal_projector.patch_merger.merging_layer"}
    text = {_vllm_name(n) for n in linears if n.startswith("model.language_model.")}
    layers = config["vision_config"]["num_hidden_layers"]
    assert len(vision) == 4 * layers + 2 and len(text) == 4 * config["text_config"]["num_hidden_layers"]

    def ignored(prefix: str) -> bool:
        return bool(should_ignore_layer(prefix, ignore=quant.ignore, fused_mapping=quant.packed_modules_mapping))

    assert [p for p in sorted(vision) if not ignored(p)] == []
    assert [p for p in sorted(text) if ignored(p)] == []
    assert "vision_tower.transformer.layers.23.attention.qkv_proj" in vision
    assert "language_model.model.layers.39.mlp.gate_up_proj" in text


def test_the_gpu_runs_pixtral_shim_gives_transformers_own_rope() -> None:
    import torch
    from transformers import PixtralVisionConfig
    from transformers.models.pixtral import modeling_pixtral

    path = ROOT / "benchmarks" / "gpu" / "pixtral_compat_sitecustomize.py"
    spec = importlib.util.spec_from_file_location("pixtral_compat_probe", path)
    assert spec is not None and spec.loader is not None
    shim = importlib.util.module_from_spec(spec)
    before = list(sys.meta_path)
    try:
        spec.loader.exec_module(shim)
    finally:
        sys.meta_path[:] = before  # the hook is the GPU run's, not this process's
    old = type("Old", (), {})()  # an old transformers module: the names vLLM 0.26 imports get added
    shim._patch(old)
    vision = {k: v for k, v in _configs()[1]["vision_config"].items() if k != "model_type"}
    vc = PixtralVisionConfig(**vision)
    rows, cols, side = 37, 55, vc.image_size // vc.patch_size
    flat = old.position_ids_in_meshgrid([torch.zeros(1, 1, rows, cols)], max_width=side)
    assert flat[:3].tolist() == [0, 1, 2] and int(flat[cols]) == side  # row 1 starts one grid row on
    grid = torch.meshgrid(torch.arange(rows), torch.arange(cols), indexing="ij")
    pairs = torch.stack([grid[0].flatten(), grid[1].flatten()], dim=-1)
    x = torch.zeros(1)
    cos_old, sin_old = old.PixtralRotaryEmbedding(vc, None)(x, flat)
    cos_new, sin_new = modeling_pixtral.PixtralVisionRotaryEmbedding(vc)(x, pairs)
    assert cos_old.shape == cos_new.shape == (rows * cols, vc.head_dim)
    assert torch.equal(cos_old, cos_new) and torch.equal(sin_old, sin_new)
