#!/usr/bin/env python3
"""Checks the Qwen-VL folders of ``vision_fit.py`` without a GPU: transformers' processor and vLLM's
own multimodal processing (the profile run's dummy image and its token count) on the CPU.

Usage, with the GPU machine's packages importable (vLLM's CUDA build imports on a machine without a
GPU; the multimodal processing runs on the CPU):

    python3 benchmarks/gpu/vision_qwen_check.py OUTDIR [--only NAME,NAME]

For each Qwen shape it writes the vision folder (published config.json + processor, as the GPU run
does) under ``OUTDIR/models`` and prints one JSON line: the image tokens transformers' AutoProcessor
gives a 1024 x 1024 and a 4096 x 4096 picture, with and without the cap; vLLM's largest tokens an
image and the size of its dummy image, with and without the cap; the tokens vLLM's processor puts
in a prompt for a 4096 x 4096 picture (vLLM checks them against its own count); and the profile
run's encoder budget and the number of dummy images it encodes at once (vLLM's MultiModalBudget).
Exit status 1 if a count is not the expected one.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))

import vision_qwen  # noqa: E402  (beside this file)

#: Image tokens expected for a 1024 x 1024 picture with the published processor (smart_resize to a
#: multiple of patch x merge: 1036 / 28 = 37 -> 1,369 for Qwen2.5-VL; 1024 / 32 = 32 -> 1,024 for Qwen3-VL).
EXPECTED_1024 = {"qwen2_5_vl": 1369, "qwen3_vl": 1024}
#: vLLM's largest image: max_pixels / pixels a token (16,384 for both); under the cap CAP_TOKENS,
#: except that Qwen3-VL's cap in pixels (1280 x 1024) gives a factor pair 32 x 40 = 1,280 too.
EXPECTED_MAX = 16384


def folder_for(out: Path, name: str, config: dict[str, Any]) -> Path:
    folder = out / "models" / f"{name}-vision"
    folder.mkdir(parents=True, exist_ok=True)
    published = {k: v for k, v in config.items() if not k.startswith("_")}
    (folder / "config.json").write_text(json.dumps(published, indent=1), encoding="utf-8")
    vision_qwen.write_processor(folder, config)
    return folder


def hf_counts(folder: Path, config: dict[str, Any]) -> dict[str, Any]:
    from PIL import Image
    from transformers import AutoProcessor

    image_id = config["image_token_id"]
    out: dict[str, Any] = {}
    cap = vision_qwen.capped_kwargs(config)
    sizes = vision_qwen.image_sizes(config)
    message = [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": "What is it?"}]}]
    for label, kwargs in (("default", {}), ("capped", cap)):  # the cap given when the processor is built
        proc = AutoProcessor.from_pretrained(str(folder), **kwargs)
        out[f"hf_{label}_processor"] = type(proc).__name__ + "/" + type(proc.image_processor).__name__
        prompt = proc.apply_chat_template(message, add_generation_prompt=True, tokenize=False)
        for side in (1024, 4096):
            picture = Image.new("RGB", (side, side), (120, 30, 200))
            ids = proc(text=[prompt], images=[picture], return_tensors="pt")["input_ids"][0].tolist()
            out[f"hf_{label}_{side}"] = ids.count(image_id)
            if side == 1024 and not kwargs:
                out["vision_markers_ok"] = (
                    ids.count(config["vision_start_token_id"])
                    == 1
                    == prompt.count("<|vision_start|><|image_pad|><|vision_end|>")
                )
        if kwargs:
            continue
        # the cap given at call time: max_pixels alone (ignored by transformers 5.17), with
        # min_pixels, or as a size dict
        picture = Image.new("RGB", (4096, 4096), (1, 2, 3))
        both = {"min_pixels": sizes["min_pixels"], **cap}
        size = {"size": {"shortest_edge": sizes["min_pixels"], "longest_edge": cap["max_pixels"]}}
        for call, extra in (("max_pixels", cap), ("min_max_pixels", both), ("size", size)):
            ids = proc(text=[prompt], images=[picture], return_tensors="pt", **extra)["input_ids"][0].tolist()
            out[f"hf_call_{call}_4096"] = ids.count(image_id)
    return out


def vllm_counts(folder: Path, config: dict[str, Any]) -> dict[str, Any]:
    from PIL import Image
    from vllm.config import ModelConfig
    from vllm.multimodal import MULTIMODAL_REGISTRY
    from vllm.multimodal.processing import TimingContext
    from vllm.multimodal.processing.inputs import ProcessorInputs

    out: dict[str, Any] = {}
    cap = vision_qwen.capped_kwargs(config)
    low = vision_qwen.image_sizes(config)["min_pixels"]
    size = {"size": {"shortest_edge": low, "longest_edge": cap["max_pixels"]}}  # the other form vLLM reads
    for label, kwargs in (("default", None), ("capped", cap), ("capped_size", size)):
        mc = ModelConfig(
            model=str(folder),
            max_model_len=8192,
            limit_mm_per_prompt={"image": 1, "video": 0},
            mm_processor_kwargs=kwargs,
            seed=0,
        )
        processor = MULTIMODAL_REGISTRY.create_processor(mc)
        per_item = processor.info.get_mm_max_tokens_per_item(seq_len=8192, mm_counts={"image": 1})
        out[f"vllm_{label}_max_tokens_per_image"] = int(per_item["image"])
        size = processor.info.get_image_size_with_most_features()
        out[f"vllm_{label}_dummy_image"] = [size.width, size.height]
        dummy = MULTIMODAL_REGISTRY.get_dummy_mm_inputs(mc, mm_counts={"image": 1}, processor=processor)
        out[f"vllm_{label}_dummy_tokens"] = sum(p.get_num_embeds() for p in dummy["mm_placeholders"]["image"])
        pixels = dummy["mm_kwargs"]["image"][0]["pixel_values"].data
        out[f"vllm_{label}_dummy_pixel_values"] = list(pixels.shape)
        # a real 4096 x 4096 picture through vLLM's processor (it checks the HF processor's tokens
        # against its own count and raises where they differ)
        picture = Image.new("RGB", (4096, 4096), (9, 9, 9))
        prompt = "<|im_start|>user\n<|vision_start|><|image_pad|><|vision_end|>What is it?<|im_end|>\n"
        items = processor.info.parse_mm_data({"image": [picture]})
        got = processor.apply(ProcessorInputs(prompt, items), timing_ctx=TimingContext(enabled=False))
        out[f"vllm_{label}_4096_tokens"] = sum(p.get_num_embeds() for p in got["mm_placeholders"]["image"])
        if label != "capped_size":
            out.update(budget(mc, label))
    return out


def budget(mc: Any, label: str) -> dict[str, Any]:
    """The profile run's encoder budget and how many dummy images it encodes at once (vLLM's own
    MultiModalBudget, given the scheduler knobs of the GPU run: 8,192 batched tokens, 256
    sequences). vLLM's full VllmConfig needs a device (create_engine_config fails without a GPU),
    so the budget gets the three parts of it that it reads."""
    from types import SimpleNamespace

    from vllm.config import ParallelConfig, SchedulerConfig
    from vllm.multimodal import MULTIMODAL_REGISTRY
    from vllm.multimodal.encoder_budget import MultiModalBudget

    scheduler = SchedulerConfig(
        max_model_len=mc.max_model_len,
        is_encoder_decoder=False,
        max_num_batched_tokens=8192,
        max_num_seqs=256,
        enable_chunked_prefill=True,
    )
    config = SimpleNamespace(model_config=mc, scheduler_config=scheduler, parallel_config=ParallelConfig())
    b = MultiModalBudget(config, MULTIMODAL_REGISTRY)
    return {
        f"vllm_{label}_encoder_budget": b.get_encoder_budget(),
        f"vllm_{label}_profile_images": b.mm_max_items_per_batch.get("image"),
    }


def vision_prefixes(config: dict[str, Any]) -> list[str]:
    """vLLM's names of the vision tower's linear layers (qwen2_5_vl.py / qwen3_vl.py in 0.26)."""
    vision = config["vision_config"]
    if vision_qwen.family(config) == "qwen2_5_vl":
        block = ["attn.qkv", "attn.proj", "mlp.gate_up_proj", "mlp.down_proj"]
        tail = ["visual.merger.mlp.0", "visual.merger.mlp.2"]
    else:
        block = ["attn.qkv", "attn.proj", "mlp.linear_fc1", "mlp.linear_fc2"]
        tail = ["visual.merger.linear_fc1", "visual.merger.linear_fc2"]
        for j in range(len(vision.get("deepstack_visual_indexes", []))):
            tail += [f"visual.deepstack_merger_list.{j}.linear_fc1", f"visual.deepstack_merger_list.{j}.linear_fc2"]
    return [f"visual.blocks.{i}.{name}" for i in range(int(vision["depth"])) for name in block] + tail


def quant_skips(folder: Path, config: dict[str, Any]) -> dict[str, Any]:
    """Whether vLLM leaves the vision tower 16-bit under the config's quantization_config, as the
    published checkpoints hold it: vLLM's own quantization config class and skip rule, with the
    model's name mapping, and (AWQ) the skip list vLLM reads from the safetensors when the config
    has none, which a dummy load has not (so the GPU run quantizes what the list misses)."""
    from vllm.model_executor.layers.quantization import get_quantization_config
    from vllm.model_executor.layers.quantization.utils.quant_utils import is_layer_skipped

    qc = config.get("quantization_config")
    if not qc:
        return {"vision_quantized": []}
    if vision_qwen.family(config) == "qwen2_5_vl":
        from vllm.model_executor.models.qwen2_5_vl import Qwen2_5_VLForConditionalGeneration as model
    else:
        from vllm.model_executor.models.qwen3_vl import Qwen3VLForConditionalGeneration as model
    quant = get_quantization_config(qc["quant_method"]).from_config(qc)
    quant.packed_modules_mapping = dict(model.packed_modules_mapping)
    quant.apply_vllm_mapper(model.hf_to_vllm_mapper)
    if hasattr(quant, "maybe_update_config"):
        quant.maybe_update_config(str(folder))
    skip = list(getattr(quant, "modules_to_not_convert", None) or getattr(quant, "ignored_layers", None) or [])
    substr = qc["quant_method"] == "awq"
    missed = [
        p
        for p in vision_prefixes(config)
        if not is_layer_skipped(p, skip, quant.packed_modules_mapping, skip_with_substr=substr)
    ]
    return {"quant_class": type(quant).__name__, "vision_quantized": missed[:8], "vision_quantized_count": len(missed)}


def verdicts(config: dict[str, Any], r: dict[str, Any]) -> list[str]:
    """What differs from the expected counts (a square picture under the cap: 35 x 35 = 1,225 tokens,
    the largest square at most CAP_TOKENS; vLLM's dummy image is the 32 x 40 one, 1,280 exactly)."""
    fam = vision_qwen.family(config)
    cap = vision_qwen.CAP_TOKENS
    want = {
        "hf_default_1024": EXPECTED_1024[fam],
        "hf_default_4096": EXPECTED_MAX,
        "hf_capped_1024": 35 * 35 if fam == "qwen2_5_vl" else 1024,  # 1,048,576 px: over 2.5-VL's cap only
        "hf_capped_4096": 35 * 35,
        "hf_call_max_pixels_4096": EXPECTED_MAX,  # transformers 5.17 ignores max_pixels alone at call time
        "hf_call_min_max_pixels_4096": 35 * 35,
        "hf_call_size_4096": 35 * 35,
        "vllm_default_max_tokens_per_image": EXPECTED_MAX,
        "vllm_default_dummy_tokens": EXPECTED_MAX,
        "vllm_default_4096_tokens": EXPECTED_MAX,
        "vllm_default_encoder_budget": EXPECTED_MAX,
        "vllm_default_profile_images": 1,
        "vllm_capped_max_tokens_per_image": cap,
        "vllm_capped_dummy_tokens": cap,
        "vllm_capped_4096_tokens": 35 * 35,
        "vllm_capped_encoder_budget": 8192,
        "vllm_capped_profile_images": 8192 // cap,
        "vllm_capped_size_max_tokens_per_image": cap,
        "vllm_capped_size_4096_tokens": 35 * 35,
        "vision_markers_ok": True,
        "vision_quantized_count": 0,
    }
    return [f"{k}: {r.get(k)} != {v}" for k, v in want.items() if k in r and v is not None and r[k] != v]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--only", default="")
    ap.add_argument("--skip-vllm", action="store_true")
    a = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    only = [n for n in a.only.split(",") if n]
    bad = 0
    for name, (_text, config) in vision_qwen.shapes().items():
        if only and name not in only:
            continue
        steps = (hf_counts,) + (() if a.skip_vllm else (vllm_counts, quant_skips))
        bad += check_steps(name, folder_for(a.out, name, config), config, steps, verdicts)
    return 1 if bad else 0


def check_steps(name: str, folder: Path, config: dict[str, Any], steps: Any, verdicts: Any) -> bool:
    """Run each check step on ``folder`` (one step's failure is reported with the others), print the
    record as a JSON line; True when something is wrong."""
    record: dict[str, Any] = {"shape": name}
    for step in steps:
        try:
            record.update(step(folder, config))
        except Exception as e:  # noqa: BLE001
            record[f"{step.__name__}_error"] = f"{type(e).__name__}: {e}"[:600]
            traceback.print_exc()
    record["wrong"] = verdicts(config, record)
    print(json.dumps(record), flush=True)
    return bool(record["wrong"]) or any(k.endswith("_error") for k in record)


if __name__ == "__main__":
    raise SystemExit(main())
