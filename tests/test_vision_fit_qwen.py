"""The Qwen-VL folders of the GPU vision check (``benchmarks/gpu/vision_qwen.py``), without a GPU:
the offline tokenizer holds Qwen's real special-token ids, the processor configs agree with the
published vision config, the cap is 1,280 tokens an image in each family's pixels, and the skip list
the dummy load gets leaves every linear layer of the tower 16-bit under vLLM's own rule (checked
against the layer names transformers builds). The processors' token counts and vLLM 0.26's dummy
image are checked on the GPU machine's packages by ``benchmarks/gpu/vision_qwen_check.py``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks" / "gpu"))
import vision_qwen  # noqa: E402

from console.planner.published import published_config  # noqa: E402
from console.planner.published_vision import qwen_vl_tower_linears  # noqa: E402

REPOS = sorted(vision_qwen.QWEN_REPOS.values())
#: vLLM's Qwen-VL models (qwen2_5_vl.py, qwen3_vl.py): their fused layers and the tower's prefix
#: mapping ("model.visual." -> "visual."), copied here: importing the model modules needs torchvision.
VLLM_PACKED = {"qkv_proj": ["q_proj", "k_proj", "v_proj"], "gate_up_proj": ["gate_proj", "up_proj"], "qkv": ["qkv"]}


def _vision(repo: str) -> dict[str, Any]:
    config = published_config(repo)
    assert config is not None
    return config


@pytest.mark.parametrize("repo", REPOS)
def test_the_offline_tokenizer_holds_qwens_special_ids(repo: str, tmp_path: Path) -> None:
    from tokenizers import Tokenizer

    config = _vision(repo)
    vision_qwen.write_processor(tmp_path, config)
    tok = Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    assert tok.token_to_id("<|endoftext|>") == 151643 and tok.token_to_id("<|file_sep|>") == 151664
    ids = tok.encode("<|im_start|>user\n<|vision_start|><|image_pad|><|vision_end|>hi<|im_end|>").ids
    assert ids[:1] == [151644] and ids[-1] == 151645
    picture = [config["vision_start_token_id"], config["image_token_id"], config["vision_end_token_id"]]
    assert ids[ids.index(151652) : ids.index(151652) + 3] == picture == [151652, 151655, 151653]
    assert tok.token_to_id("<|video_pad|>") == config["video_token_id"] == 151656
    qwen3 = config["model_type"] == "qwen3_vl"
    assert (tok.token_to_id("</think>") == 151668) is qwen3  # Qwen3's vocabulary goes on past 151664
    image = json.loads((tmp_path / "preprocessor_config.json").read_text(encoding="utf-8"))
    assert image["patch_size"] == config["vision_config"]["patch_size"] == (16 if qwen3 else 14)
    assert image["merge_size"] == config["vision_config"]["spatial_merge_size"] == 2
    assert "<|vision_start|><|image_pad|><|vision_end|>" in (tmp_path / "chat_template.jinja").read_text()
    video = json.loads((tmp_path / "video_preprocessor_config.json").read_text(encoding="utf-8"))
    assert video["video_processor_type"] == ("Qwen3VLVideoProcessor" if qwen3 else "Qwen2VLVideoProcessor")


def test_a_config_whose_ids_differ_from_the_tokenizer_is_refused(tmp_path: Path) -> None:
    config = _vision("Qwen/Qwen2.5-VL-7B-Instruct-AWQ") | {"image_token_id": 151654}
    with pytest.raises(AssertionError, match="image_token_id"):
        vision_qwen.write_processor(tmp_path, config)


def test_the_cap_is_1280_tokens_in_each_familys_pixels() -> None:
    qwen25, qwen3 = (_vision(r) for r in vision_qwen.QWEN_REPOS.values())
    assert vision_qwen.capped_kwargs(qwen25) == {"max_pixels": 1003520}  # 1,280 x 28 x 28
    assert vision_qwen.capped_kwargs(qwen3) == {"max_pixels": 1310720}  # 1,280 x 32 x 32
    assert vision_qwen.image_sizes(qwen3)["max_pixels"] // 1024 == 16384 == 12845056 // 784


def _transformers_linears(config: dict[str, Any]) -> set[str]:
    import torch
    import transformers

    bare = {k: v for k, v in config.items() if k != "quantization_config" and not k.startswith("_")}
    with torch.device("meta"):
        model = getattr(transformers, bare["architectures"][0])(transformers.AutoConfig.for_model(**bare))
    return {n for n, m in model.named_modules() if isinstance(m, torch.nn.Linear) and n.startswith("model.visual.")}


@pytest.mark.parametrize("repo", REPOS)
def test_the_dummy_load_leaves_every_tower_linear_16_bit_in_vllm(repo: str) -> None:
    from vllm.model_executor.layers.quantization import get_quantization_config
    from vllm.model_executor.layers.quantization.utils.quant_utils import is_layer_skipped
    from vllm.model_executor.models.utils import WeightsMapper

    config = _vision(repo)  # as published: the skip list is the published config's own
    linears = qwen_vl_tower_linears(config["vision_config"], vision_qwen.family(config))
    assert set(linears) == _transformers_linears(config)  # the checkpoint's names, as transformers has them
    qc = config["quantization_config"]
    quant = get_quantization_config(qc["quant_method"]).from_config(qc)
    quant.packed_modules_mapping = dict(VLLM_PACKED)
    quant.apply_vllm_mapper(WeightsMapper(orig_to_new_prefix={"model.visual.": "visual."}))
    skip = list(getattr(quant, "modules_to_not_convert", None) or getattr(quant, "ignored_layers", None) or [])
    fused = {"gate_proj": "gate_up_proj", "up_proj": "gate_up_proj"}  # vLLM's fused MLP input in 2.5-VL
    prefixes = {n.replace("model.visual.", "visual.", 1) for n in linears}
    prefixes = {".".join(p.split(".")[:-1] + [fused.get(p.split(".")[-1], p.split(".")[-1])]) for p in prefixes}
    substr = qc["quant_method"] == "awq"
    kept = [p for p in sorted(prefixes) if not _skipped(is_layer_skipped, quant, skip, p, substr)]
    assert not kept, kept[:4]
    # the text model's layers stay quantized
    assert not _skipped(is_layer_skipped, quant, skip, "language_model.model.layers.0.mlp.down_proj", substr)


def _skipped(rule: Any, quant: Any, skip: list[str], prefix: str, substr: bool) -> bool:
    """vLLM's skip rule as its quantization config calls it: AWQ by substring, FP8 by its own mode
    (exact in 0.26; the keyword changed name after 0.26, so both spellings)."""
    import inspect

    if "skip_with_substr" in inspect.signature(rule).parameters:  # vLLM 0.26 (the GPU run)
        return bool(rule(prefix, skip, quant.packed_modules_mapping, skip_with_substr=substr))
    mode = "substring" if substr else getattr(quant, "ignored_layers_match_mode", "exact")
    return bool(rule(prefix, skip, quant.packed_modules_mapping, match_mode=mode))
