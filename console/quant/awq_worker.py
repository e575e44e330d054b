"""Child-process entry point of an AWQ job: ``python -m console.quant.awq_worker SPEC.json``.

The spec (written by :mod:`console.quant.job`) names the source folder, the destination folder and
the AWQ parameters. One JSON object per line goes to stdout:
``{"type": "progress", "stage", "fraction", "message"}``, ``{"type": "log", "line"}``,
``{"type": "error", "message"}`` (then a non-zero exit) and ``{"type": "done", "seconds"}``.
Running AutoAWQ in its own process keeps its memory and any crash away from the console, and makes
cancel a plain kill.
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path
from typing import Any, Iterable, Iterator
from console.quant import awq_patch


def _emit(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def _progress(stage: str, fraction: float, message: str = "") -> None:
    _emit({"type": "progress", "stage": stage, "fraction": round(fraction, 4), "message": message})


def _log(line: str) -> None:
    _emit({"type": "log", "line": line})


# Share of the whole job per phase: loading and calibration, then the layers, then saving.
_LAYERS_START, _LAYERS_END = 0.10, 0.92


def _layer_progress(iterable: Iterable[Any], desc: str | None = None, **_: Any) -> Iterator[Any]:
    """Stands in for tqdm inside AutoAWQ's quantizer: one progress line per decoder layer."""
    items = list(iterable)
    n = max(len(items), 1)
    started = time.monotonic()
    for i, item in enumerate(items):
        done = time.monotonic() - started
        eta = done / i * (n - i) if i else None
        msg = f"ETA {eta:.0f} s" if eta is not None else ""
        _progress(f"{desc or 'AWQ'}: layer {i + 1}/{n}", _LAYERS_START + (_LAYERS_END - _LAYERS_START) * i / n, msg)
        yield item
        _log(f"{desc or 'AWQ'}: layer {i + 1}/{n} done after {time.monotonic() - started:.1f} s")


def _limit_clip_tokens(quantizer_cls: Any, n_tokens: int) -> None:
    """The clipping search compares every output channel on up to 512 sampled tokens, elementwise
    (no matmul): on two CPU cores that is minutes per layer. 128 tokens cut it 4x; the grid of
    clipping ratios tried stays the same."""
    original = quantizer_cls._compute_best_clip

    def compute_best_clip(self: Any, w: Any, input_feat: Any, *args: Any, **kwargs: Any) -> Any:
        kwargs["n_sample_token"] = n_tokens
        return original(self, w, input_feat, *args, **kwargs)

    quantizer_cls._compute_best_clip = compute_best_clip


def _calibration_texts(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return [p.strip() for p in text.split("\n\n") if p.strip()]


def run(spec: dict[str, Any]) -> None:
    import torch

    t0 = time.monotonic()
    src, dst = Path(spec["source"]), Path(spec["dest"])
    _progress("loading AutoAWQ", 0.01)
    if spec.get("apply_fix", True):
        awq_patch.apply()
        _log("AutoAWQ CPU scale-search fix applied (console/quant/awq_patch.py)")
    import awq.quantize.quantizer as awq_quantizer
    from awq import AutoAWQForCausalLM
    from transformers import AutoTokenizer

    awq_quantizer.tqdm = _layer_progress  # per-layer progress instead of a terminal bar
    clip_tokens = int(spec.get("clip_tokens", 128))
    _limit_clip_tokens(awq_quantizer.AwqQuantizer, clip_tokens)

    _progress("loading the model", 0.03)
    dtype = getattr(torch, spec.get("compute_dtype", "float16"))
    model = AutoAWQForCausalLM.from_pretrained(str(src), torch_dtype=dtype, low_cpu_mem_usage=True)
    tokenizer = AutoTokenizer.from_pretrained(str(src))
    texts = _calibration_texts(Path(spec["calib_file"]))
    seq_len = int(spec.get("max_seq_len", 256))
    # Tokenize ourselves and hand AutoAWQ blocks of exactly seq_len tokens: it would silently drop
    # every paragraph longer than seq_len, and cut the rest at block boundaries anyway.
    eos = tokenizer.eos_token_id
    stream: list[int] = []
    for t in texts:
        stream.extend(tokenizer.encode(t, add_special_tokens=False))
        if eos is not None:
            stream.append(int(eos))
    blocks = [stream[i : i + seq_len] for i in range(0, len(stream) - seq_len + 1, seq_len)]
    max_blocks = spec.get("max_blocks")
    if max_blocks and len(blocks) > int(max_blocks):  # spread the kept blocks over the whole corpus
        step = len(blocks) / int(max_blocks)
        blocks = [blocks[int(i * step)] for i in range(int(max_blocks))]
    if not blocks:
        raise ValueError(f"the calibration text gives {len(stream)} tokens; at least {seq_len} are needed")
    _log(f"calibration: {len(texts)} paragraphs, {len(stream)} tokens; using {len(blocks)} blocks of {seq_len} tokens")

    quant_config = {
        "w_bit": int(spec.get("w_bit", 4)),
        "q_group_size": int(spec.get("group_size", 128)),
        "zero_point": bool(spec.get("zero_point", True)),
        "version": spec.get("version", "GEMM"),
    }
    _log(f"quantizing with {quant_config}")
    _progress("calibrating", 0.06)
    model.quantize(
        tokenizer,
        quant_config=quant_config,
        calib_data=blocks,
        max_calib_samples=len(blocks),
        max_calib_seq_len=seq_len,
        apply_clip=bool(spec.get("clip", True)),
    )

    _progress("saving the checkpoint", _LAYERS_END)
    model.model.to(torch.float16)  # norms and embeddings follow the fp16 scales vLLM's AWQ path expects
    model.save_quantized(str(dst))
    tokenizer.save_pretrained(str(dst))
    for extra in ("chat_template.jinja", "generation_config.json"):
        if (src / extra).is_file() and not (dst / extra).is_file():
            shutil.copy2(src / extra, dst / extra)
    if (src / "generation_config.json").is_file():  # AutoAWQ forces do_sample=True; keep the source's
        shutil.copy2(src / "generation_config.json", dst / "generation_config.json")
    seconds = time.monotonic() - t0
    _progress("done", 1.0)
    _emit({"type": "done", "seconds": round(seconds, 1)})


def main(argv: list[str]) -> int:
    spec = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    try:
        run(spec)
    except Exception as exc:  # reported to the parent as one clear line
        import traceback

        for line in traceback.format_exc().splitlines():
            _log(line)
        _emit({"type": "error", "message": f"{type(exc).__name__}: {exc}"})
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
