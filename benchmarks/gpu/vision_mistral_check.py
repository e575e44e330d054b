#!/usr/bin/env python3
"""Checks the Mistral-Small-3.1 folder of ``vision_fit.py`` without a GPU: transformers'
PixtralProcessor and vLLM 0.26's own multimodal processing (the profile run's dummy picture and its
tokens) on the CPU, and vLLM's compressed-tensors skip rule on the published W4A16 config.

Usage, with the GPU machine's packages importable (torch 2.11, torchvision 0.26, transformers 5.17
and vLLM 0.26's CUDA build, which imports without a GPU):

    mkdir -p /tmp/compat && cp benchmarks/gpu/pixtral_compat_sitecustomize.py /tmp/compat/sitecustomize.py
    PYTHONPATH=/tmp/compat:$PYTHONPATH python3 benchmarks/gpu/vision_mistral_check.py OUTDIR

Writes the vision folder (published config.json + processor) under ``OUTDIR/models`` and prints one
JSON line: the tokens transformers' AutoProcessor gives a 1024, 990, 1540 and 4096 px square picture
(the planner's ``image_tokens_at`` for each), the same with the image processor told 14 px patches
(the processor hands it 28 at call time); whether transformers has the names vLLM 0.26's pixtral.py
imports and the shim's rope against transformers' own; vLLM's largest tokens a picture (the [IMG]
embeddings, not the breaks), its dummy picture and the tokens vLLM's processor puts in a prompt for
it and for a 1024 and a 990 px one; the profile run's encoder budget and dummy pictures at once; the
tower/projector linears vLLM would quantize. Exit status 1 if a count is not the expected one.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))

import vision_mistral  # noqa: E402  (beside this file)
from vision_qwen_check import budget, check_steps  # noqa: E402

from console.planner.vision import image_tokens_at, max_image_tokens  # noqa: E402

SIDES = (1024, 990, 1540, 4096)


def folder_for(out: Path, name: str, config: dict[str, Any]) -> Path:
    folder = out / "models" / f"{name}-vision"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(config, indent=1), encoding="utf-8")
    vision_mistral.write_processor(folder, config)
    return folder


def _tokens(ids: list[int]) -> int:
    return sum(ids.count(t) for t in (vision_mistral.IMG, vision_mistral.IMG_BREAK, vision_mistral.IMG_END))


def hf_counts(folder: Path, config: dict[str, Any]) -> dict[str, Any]:
    from PIL import Image
    from transformers import AutoProcessor

    out: dict[str, Any] = {}
    message = [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": "What is it?"}]}]
    for label in ("hf", "hf_patch14"):
        proc = AutoProcessor.from_pretrained(str(folder))
        if label == "hf_patch14":  # the image processor told 14 px: the processor still hands it 28 at call time
            proc.image_processor.patch_size = {"height": 14, "width": 14}
        out[f"{label}_processor"] = type(proc).__name__ + "/" + type(proc.image_processor).__name__
        prompt = proc.apply_chat_template(message, add_generation_prompt=True, tokenize=False)
        out["prompt"] = prompt
        for side in SIDES:
            picture = Image.new("RGB", (side, side), (120, 30, 200))
            ids = proc(text=[prompt], images=[picture], return_tensors="pt")["input_ids"][0].tolist()
            out[f"{label}_{side}"] = _tokens(ids)
            if side == 1024 and label == "hf":
                out["hf_1024_img_tokens"] = ids.count(config["image_token_index"])
                out["hf_1024_starts"] = ids[:3]
    return out


def vllm_counts(folder: Path, config: dict[str, Any]) -> dict[str, Any]:
    from PIL import Image
    from vllm.config import ModelConfig
    from vllm.multimodal import MULTIMODAL_REGISTRY
    from vllm.multimodal.processing import TimingContext
    from vllm.multimodal.processing.inputs import ProcessorInputs

    out: dict[str, Any] = {}
    mc = ModelConfig(model=str(folder), max_model_len=8192, limit_mm_per_prompt={"image": 1}, seed=0)
    out["vllm_tokenizer_mode"] = mc.tokenizer_mode
    processor = MULTIMODAL_REGISTRY.create_processor(mc)
    from vllm.multimodal.encoder_budget import get_mm_max_toks_per_item

    out["vllm_own_max_tokens"] = processor.info.get_mm_max_tokens_per_item(seq_len=8192, mm_counts={"image": 1})
    per_item = get_mm_max_toks_per_item(mc, MULTIMODAL_REGISTRY, processor, {"image": 1})  # the budget's count
    out["vllm_max_tokens_per_image"] = int(per_item["image"])
    size = processor.info.get_image_size_with_most_features()
    out["vllm_dummy_image"] = [size.width, size.height]
    dummy = MULTIMODAL_REGISTRY.get_dummy_mm_inputs(mc, mm_counts={"image": 1}, processor=processor)
    holders = dummy["mm_placeholders"]["image"]
    out["vllm_dummy_tokens"] = sum(p.length for p in holders)
    out["vllm_dummy_embeds"] = sum(p.get_num_embeds() for p in holders)
    pixels = dummy["mm_kwargs"]["image"][0]["pixel_values"].data
    out["vllm_dummy_pixel_values"] = list(pixels.shape)
    for side in (1024, 990):  # vLLM checks the HF processor's tokens against its own count
        items = processor.info.parse_mm_data({"image": [Image.new("RGB", (side, side), (9, 9, 9))]})
        got = processor.apply(
            ProcessorInputs("[INST][IMG]What is it?[/INST]", items), timing_ctx=TimingContext(enabled=False)
        )
        out[f"vllm_{side}_tokens"] = sum(p.length for p in got["mm_placeholders"]["image"])
    out.update(budget(mc, "default"))
    return out


def shim_rope(folder: Path, config: dict[str, Any]) -> dict[str, Any]:
    """Whether transformers has the names vLLM 0.26's pixtral.py imports (without the shim it has
    not: run this with ``pixtral_compat_sitecustomize.py`` as sitecustomize first on PYTHONPATH), and
    the shim's rope against transformers' own PixtralVisionRotaryEmbedding on a 37 x 55 patch grid."""
    import torch
    from transformers import PixtralVisionConfig
    from transformers.models.pixtral import modeling_pixtral as m

    shim = getattr(sys.modules.get("sitecustomize"), "_NAME", "")
    out: dict[str, Any] = {"shim_active": shim == "transformers.models.pixtral.modeling_pixtral"}
    out["pixtral_names_present"] = all(hasattr(m, n) for n in ("PixtralRotaryEmbedding", "position_ids_in_meshgrid"))
    if not out["pixtral_names_present"]:
        return out
    vc = PixtralVisionConfig(**{k: v for k, v in config["vision_config"].items() if k != "model_type"})
    h, w, side = 37, 55, vc.image_size // vc.patch_size
    old = m.position_ids_in_meshgrid([torch.zeros(1, 1, h, w)], max_width=side)
    grid = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")
    new = torch.stack([grid[0].flatten(), grid[1].flatten()], dim=-1)
    x = torch.zeros(1)
    (c1, s1), (c2, s2) = m.PixtralRotaryEmbedding(vc, None)(x, old), m.PixtralVisionRotaryEmbedding(vc)(x, new)
    out["shim_rope_max_diff"] = float(max((c1 - c2).abs().max(), (s1 - s2).abs().max()))
    return out


def tower_prefixes(config: dict[str, Any]) -> list[str]:
    """vLLM's names of the tower's and the projector's parallel linears (pixtral.py, mistral3.py)."""
    block = ["attention.qkv_proj", "attention.o_proj", "feed_forward.gate_up_proj", "feed_forward.down_proj"]
    layers = int(config["vision_config"]["num_hidden_layers"])
    names = [f"vision_tower.transformer.layers.{i}.{b}" for i in range(layers) for b in block]
    return names + ["multi_modal_projector.linear_1", "multi_modal_projector.linear_2"]


def quant_skips(folder: Path, config: dict[str, Any]) -> dict[str, Any]:
    """What vLLM 0.26 quantizes under the published quantization_config: its CompressedTensorsConfig
    with Mistral3's packed modules and name mapping, and its should_ignore_layer rule."""
    from vllm.model_executor.layers.quantization import get_quantization_config
    from vllm.model_executor.layers.quantization.compressed_tensors.utils import should_ignore_layer
    from vllm.model_executor.models.mistral3 import Mistral3ForConditionalGeneration as model

    qc = config["quantization_config"]
    quant = get_quantization_config(qc["quant_method"]).from_config(qc)
    quant.packed_modules_mapping = dict(model.packed_modules_mapping)
    quant.apply_vllm_mapper(model.hf_to_vllm_mapper)

    def ignored(p: str) -> bool:
        return bool(should_ignore_layer(p, ignore=quant.ignore, fused_mapping=quant.packed_modules_mapping))

    missed = [p for p in tower_prefixes(config) if not ignored(p)]
    text = [f"language_model.model.layers.0.{n}" for n in ("self_attn.qkv_proj", "mlp.down_proj")]
    return {
        "quant_class": type(quant).__name__,
        "quant_ignore_mapped": list(quant.ignore),
        "vision_quantized": missed[:8],
        "vision_quantized_count": len(missed),
        "text_ignored": [p for p in text if ignored(p)],
        "lm_head_ignored": ignored("language_model.lm_head"),
    }


def verdicts(config: dict[str, Any], r: dict[str, Any]) -> list[str]:
    most = max_image_tokens(config)  # 55 x 55 + 55 = 3,080
    want: dict[str, Any] = {f"hf_{s}": image_tokens_at(config, s, s) for s in SIDES}
    want |= {
        "hf_1024": 1406,
        "hf_1024_img_tokens": 37 * 37,
        "hf_1024_starts": [1, 3, 10],
        "vllm_max_tokens_per_image": 55 * 55,  # vLLM counts the [IMG] embeddings, not the breaks
        "vllm_default_encoder_budget": 8192,
        "vllm_default_profile_images": 8192 // (55 * 55),
        "vllm_dummy_image": [1540, 1540],
        "vllm_dummy_tokens": most,
        "vllm_dummy_embeds": 55 * 55,
        "vllm_1024_tokens": 1406,
        "vllm_990_tokens": image_tokens_at(config, 990, 990),
        "vision_quantized_count": 0,
        "pixtral_names_present": True,
        "shim_rope_max_diff": 0.0,
        "text_ignored": [],
    }
    assert most == 3080
    return [f"{k}: {r.get(k)} != {v}" for k, v in want.items() if k in r and r[k] != v]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--skip-vllm", action="store_true")
    a = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    bad = 0
    for name, (_text, config) in vision_mistral.shapes().items():
        steps = (hf_counts,) + (() if a.skip_vllm else (shim_rope, vllm_counts, quant_skips))
        bad += check_steps(name, folder_for(a.out, name, config), config, steps, verdicts)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
