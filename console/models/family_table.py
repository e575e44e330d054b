"""What the console knows per model family, in one table: template quirks, vLLM's reasoning and
tool-call parsers for it, the RTX 4090 preset that fits its common sizes, and the sampling its
model cards recommend (the fallback for a checkpoint without its own generation config). The
model picker's curated list (``resources/models/curated-v<N>.json``) names each checkpoint's family
by its key here (``Family.name``) and shows its ``label``.

A loaded model's family is recognised from its chat template (the markers each family's template
writes), not from its name: a fine-tune keeps its base's template. The parser names are vLLM's own
(``--reasoning-parser``, ``--tool-call-parser``); the reasoning split itself is vLLM's parser
(``console.engine.thinking.split_reasoning``), so ``reasoning_content`` is what ``vllm serve --reasoning-parser``
returns.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Family:
    name: str
    label: str
    #: substrings of the chat template that mark this family (all must be present)
    markers: tuple[str, ...]
    quirks: str
    reasoning_parser: str | None = None
    tool_parser: str | None = None
    #: the template has a thinking switch (``chat_template_kwargs={"enable_thinking": ...}``)
    think_switch: bool = False
    #: what fits a 24 GB RTX 4090 (``inference-console plan`` shows the arithmetic)
    preset_4090: str = ""
    #: the family's recommended sampling (its model cards'), by vLLM ``SamplingParams`` name: the
    #: chat's defaults for a checkpoint whose generation_config.json names none (a fine-tune that
    #: dropped it); the model's own generation config comes first (``console/engine/params.py``)
    sampling: tuple[tuple[str, float], ...] = ()


#: Most specific first: the first family whose markers are all in the template wins.
FAMILY_TABLE: tuple[Family, ...] = (
    Family(
        "gpt-oss",
        "gpt-oss (harmony)",
        ("<|channel|>",),
        "harmony format: vLLM renders it itself (the template is not used), reasoning in the analysis channel",
        reasoning_parser="openai_gptoss",
        tool_parser="openai",
        preset_4090="gpt-oss-20b MXFP4, 32k context, 4 users",
    ),
    Family(
        "qwen-vl",
        "Qwen-VL (vision)",
        ("<|im_start|>", "<|vision_start|>"),
        "ChatML; a picture is <|vision_start|><|image_pad|>...<|vision_end|>, one token per 28 x 28 px (Qwen2.5-VL) "
        "or 32 x 32 px (Qwen3-VL), up to 16,384 a picture: cap it with mm_processor_kwargs max_pixels",
        tool_parser="hermes",
        preset_4090="Qwen2.5-VL-7B AWQ or Qwen3-VL-8B FP8, 32k context",
    ),
    Family(
        "qwen3",
        "Qwen3",
        ("<|im_start|>", "enable_thinking"),
        "ChatML; thinking on by default, enable_thinking=false closes an empty <think> block",
        reasoning_parser="qwen3",
        tool_parser="hermes",
        think_switch=True,
        # Qwen3's model cards, thinking mode (the default): "Temperature=0.6, TopP=0.95, TopK=20,
        # MinP=0"; greedy is warned against there (endless repetitions)
        sampling=(("temperature", 0.6), ("top_p", 0.95), ("top_k", 20), ("min_p", 0.0)),
        preset_4090="Qwen3-8B FP8 or Qwen3-14B AWQ, 32k context; Qwen3-30B-A3B GPTQ, 8k",
    ),
    Family(
        "r1",
        "DeepSeek-R1 distill",
        ("<｜Assistant｜>",),
        "template writes the start token (the tokenizer adds it too); reasoning in <think>…</think>",
        reasoning_parser="deepseek_r1",
        preset_4090="DeepSeek-R1-Distill-Qwen-14B AWQ, 16k context",
    ),
    Family(
        "llama3",
        "Llama 3",
        ("<|start_header_id|>",),
        "template writes <|begin_of_text|> (the tokenizer adds it too)",
        tool_parser="llama3_json",
        preset_4090="Llama-3.1-8B FP8, 32k context",
    ),
    Family(
        "gemma",
        "Gemma",
        ("<start_of_turn>",),
        "template writes <bos>; no system role (put before the first user turn); roles must alternate; "
        "Gemma 3 (4B and up) takes pictures: 256 tokens each, at 896 x 896 px",
        preset_4090="Gemma-3-12B FP8 or Gemma-3-27B AWQ, 8k context",
    ),
    Family(
        "mistral3",
        "Mistral Small 3.1 (vision)",
        ("[INST]", "[IMG]"),
        "template writes <s>; the system prompt goes in [SYSTEM_PROMPT]; a picture is one [IMG] token per "
        "28 x 28 px with [IMG_BREAK] after each row, up to 1,540 px a side (3,080 tokens)",
        tool_parser="mistral",
        preset_4090="Mistral-Small-3.1-24B W4A16, 8k context",
    ),
    Family(
        "mistral",
        "Mistral",
        ("[INST]",),
        "template writes <s>; the system text goes into the last user turn; roles must alternate",
        tool_parser="mistral",
        preset_4090="Mistral-Small-24B AWQ, 16k context",
    ),
    Family(
        "chatml",
        "ChatML",
        ("<|im_start|>",),
        "no start token; <|im_end|> ends a turn",
        tool_parser="hermes",
        preset_4090="SmolLM2 / Qwen2.5 sizes up to 14B AWQ",
    ),
)


def family_of(chat_template: str | None) -> Family | None:
    """The family whose template markers ``chat_template`` carries; None when none does."""
    if not chat_template:
        return None
    return next((f for f in FAMILY_TABLE if all(m in chat_template for m in f.markers)), None)


def folder_chat_template(folder: str | Path) -> str | None:
    """The chat template a model folder ships (``chat_template.jinja``, else the
    ``tokenizer_config.json`` entry; the default of a list of named templates); None when there
    is none or ``folder`` is not a local folder (a hub id)."""
    path = Path(folder)
    jinja = path / "chat_template.jinja"
    try:
        if jinja.is_file():
            return jinja.read_text(encoding="utf-8")
        config = json.loads((path / "tokenizer_config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    template = config.get("chat_template")
    if isinstance(template, list):  # [{"name": "default", "template": ...}, ...]
        named = {t.get("name"): t.get("template") for t in template if isinstance(t, dict)}
        template = named.get("default") or next(iter(named.values()), None)
    return template if isinstance(template, str) else None


def family_of_folder(folder: str | Path) -> Family | None:
    """The family of the model in ``folder``, read from the chat template it ships."""
    return family_of(folder_chat_template(folder))


def family_by_name(name: str) -> Family:
    for f in FAMILY_TABLE:
        if f.name == name:
            return f
    raise KeyError(f"no family {name!r}; known: {', '.join(f.name for f in FAMILY_TABLE)}")


__all__ = [
    "FAMILY_TABLE",
    "Family",
    "family_by_name",
    "family_of",
    "family_of_folder",
    "folder_chat_template",
]
