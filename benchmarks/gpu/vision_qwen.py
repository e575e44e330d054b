"""Qwen2.5-VL and Qwen3-VL for ``vision_fit.py``: the published configurations, an offline processor
folder for each (no hub), and the image-size cap of the "vision-capped" loads.

Qwen-VL images take a number of tokens that grows with their size, so vLLM's profile run encodes one
dummy image of the largest size the processor allows (``max_pixels``): 16,384 tokens by default for
both families (Qwen2.5-VL: 12,845,056 px over 28 x 28 px a token; Qwen3-VL: 16,777,216 px over
32 x 32). The capped loads pass vLLM ``mm_processor_kwargs`` that bring one image down to at most
``CAP_TOKENS`` tokens: ``max_pixels``, which vLLM 0.26 reads for its own count
(``Qwen2VLProcessingInfo._get_vision_info`` reads ``size``, ``min_pixels``, ``max_pixels``) and hands
transformers' processor when it builds it (transformers 5.17's ``Qwen2VLImageProcessor.__init__``
takes ``max_pixels`` alone; at call time it takes it only together with ``min_pixels``, or as a
``size`` dict: ``_standardize_kwargs``). Both families' image processors are that class.

The tokenizer is word-level and built offline: the real special-token ids of Qwen's vocabulary
(151643 ``<|endoftext|>`` to 151664, and Qwen3's four after it), every other id a placeholder word
(the profile run needs the processor to build its dummy prompt; the words never matter for memory).
``vision_qwen_check.py`` checks these folders against transformers and vLLM without a GPU.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from offline_folder import published_pair, save_word_level, write_json

#: name in vision_fit.py -> curated repository.
QWEN_REPOS = {
    "qwen2.5-vl-7b-awq": "Qwen/Qwen2.5-VL-7B-Instruct-AWQ",
    "qwen3-vl-8b-fp8": "Qwen/Qwen3-VL-8B-Instruct-FP8",
}
#: The capped loads: at most this many tokens an image (Qwen2.5-VL's max_pixels 1,003,520 = 1280 x 28 x 28).
CAP_TOKENS = 1280

#: Qwen2's special tokens (tokenizer_config.json's added_tokens_decoder), the same in every Qwen2.5/3 vocabulary.
QWEN_SPECIAL = {
    151643: "<|endoftext|>",
    151644: "<|im_start|>",
    151645: "<|im_end|>",
    151646: "<|object_ref_start|>",
    151647: "<|object_ref_end|>",
    151648: "<|box_start|>",
    151649: "<|box_end|>",
    151650: "<|quad_start|>",
    151651: "<|quad_end|>",
    151652: "<|vision_start|>",
    151653: "<|vision_end|>",
    151654: "<|vision_pad|>",
    151655: "<|image_pad|>",
    151656: "<|video_pad|>",
    151657: "<tool_call>",
    151658: "</tool_call>",
    151659: "<|fim_prefix|>",
    151660: "<|fim_middle|>",
    151661: "<|fim_suffix|>",
    151662: "<|fim_pad|>",
    151663: "<|repo_name|>",
    151664: "<|file_sep|>",
}
#: Qwen3's vocabulary (Qwen3-VL's too) goes on with these four (not special: they are words in a reply).
QWEN3_EXTRA = {151665: "<tool_response>", 151666: "</tool_response>", 151667: "<think>", 151668: "</think>"}
#: The ids the processors and the config must agree on.
VISION_IDS = {"vision_start_token_id": 151652, "vision_end_token_id": 151653}
VISION_IDS |= {"image_token_id": 151655, "video_token_id": 151656}

#: Qwen2.5-VL's preprocessor_config.json (CLIP's normalisation, 14 px patches, 3,136 to 12,845,056 px).
QWEN25_IMAGE: dict[str, Any] = {
    "min_pixels": 3136,
    "max_pixels": 12845056,
    "patch_size": 14,
    "temporal_patch_size": 2,
    "merge_size": 2,
    "image_mean": [0.48145466, 0.4578275, 0.40821073],
    "image_std": [0.26862954, 0.26130258, 0.27577711],
    "image_processor_type": "Qwen2VLImageProcessor",
    "processor_class": "Qwen2_5_VLProcessor",
}
QWEN25_VIDEO = {**QWEN25_IMAGE, "video_processor_type": "Qwen2VLVideoProcessor"}
del QWEN25_VIDEO["image_processor_type"]
#: Qwen3-VL's preprocessor_config.json and video_preprocessor_config.json (16 px patches).
QWEN3_IMAGE: dict[str, Any] = {
    "size": {"longest_edge": 16777216, "shortest_edge": 65536},
    "patch_size": 16,
    "temporal_patch_size": 2,
    "merge_size": 2,
    "image_mean": [0.5, 0.5, 0.5],
    "image_std": [0.5, 0.5, 0.5],
    "processor_class": "Qwen3VLProcessor",
    "image_processor_type": "Qwen2VLImageProcessorFast",
}
QWEN3_VIDEO: dict[str, Any] = {
    **{k: v for k, v in QWEN3_IMAGE.items() if k != "image_processor_type"},
    "size": {"longest_edge": 25165824, "shortest_edge": 4096},
    "video_processor_type": "Qwen3VLVideoProcessor",
}
#: Qwen2.5-VL's chat template (the vision markers around each picture's pad token).
CHAT_TEMPLATE = (
    "{% set image_count = namespace(value=0) %}{% set video_count = namespace(value=0) %}"
    "{% for message in messages %}{% if loop.first and message['role'] != 'system' %}"
    "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n{% endif %}"
    "<|im_start|>{{ message['role'] }}\n{% if message['content'] is string %}"
    "{{ message['content'] }}<|im_end|>\n{% else %}{% for content in message['content'] %}"
    "{% if content['type'] == 'image' or 'image' in content or 'image_url' in content %}"
    "{% set image_count.value = image_count.value + 1 %}"
    "{% if add_vision_id %}Picture {{ image_count.value }}: {% endif %}"
    "<|vision_start|><|image_pad|><|vision_end|>"
    "{% elif content['type'] == 'video' or 'video' in content %}"
    "{% set video_count.value = video_count.value + 1 %}"
    "{% if add_vision_id %}Video {{ video_count.value }}: {% endif %}"
    "<|vision_start|><|video_pad|><|vision_end|>"
    "{% elif 'text' in content %}{{ content['text'] }}{% endif %}{% endfor %}<|im_end|>\n{% endif %}"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def family(config: dict[str, Any]) -> str:
    """The family: qwen2_5_vl or qwen3_vl (the config's model_type)."""
    kind = str(config.get("model_type", ""))
    if kind not in ("qwen2_5_vl", "qwen3_vl"):
        raise ValueError(f"not a Qwen-VL config: model_type {kind!r}")
    return kind


def image_sizes(config: dict[str, Any]) -> dict[str, int]:
    """The image processor's pixel bounds and pixels a token for this family."""
    fam = family(config)
    unit = int(config["vision_config"]["patch_size"]) * int(config["vision_config"]["spatial_merge_size"])
    if fam == "qwen2_5_vl":
        low, high = QWEN25_IMAGE["min_pixels"], QWEN25_IMAGE["max_pixels"]
    else:
        low, high = QWEN3_IMAGE["size"]["shortest_edge"], QWEN3_IMAGE["size"]["longest_edge"]
    return {"min_pixels": low, "max_pixels": high, "pixels_a_token": unit * unit}


def capped_kwargs(config: dict[str, Any], tokens: int = CAP_TOKENS) -> dict[str, Any]:
    """``mm_processor_kwargs`` for at most ``tokens`` tokens an image: ``max_pixels`` (Qwen2.5-VL:
    1,003,520; Qwen3-VL: 1,310,720, its tokens being 32 x 32 px), see the module's note."""
    return {"max_pixels": tokens * image_sizes(config)["pixels_a_token"]}


def shapes() -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    """name -> (text config, vision config): the text model and the vision model as published
    (``console/planner/published.py``; the FP8 build's skip list names every tower linear, as
    Qwen's does: vLLM's FP8 skips a layer only on its exact name)."""
    return {name: published_pair(repo) for name, repo in QWEN_REPOS.items()}


def check_ids(config: dict[str, Any]) -> None:
    """The config's vision token ids are the tokenizer's (AssertionError otherwise): image, video and
    vision-start must be there (vLLM reads them); vision-end where given."""
    need = ("image_token_id", "video_token_id", "vision_start_token_id")
    wrong = {k: config.get(k) for k, v in VISION_IDS.items() if config.get(k) != v and (k in need or k in config)}
    assert not wrong, f"config.json's vision token ids differ from Qwen's tokenizer: {wrong}"


def write_processor(folder: Path, config: dict[str, Any]) -> None:
    """The processor files beside ``config.json``: tokenizer (offline, real special-token ids), image
    and video processor configs as published, the chat template."""
    check_ids(config)
    fam = family(config)
    special = dict(QWEN_SPECIAL)
    words = QWEN3_EXTRA if fam == "qwen3_vl" else {}
    top = max(special | words)
    vocab = {special.get(i, words.get(i, f"<w{i}>")): i for i in range(top + 1)}
    vocab["<unk>"] = vocab.pop("<w0>")  # Qwen has no unknown token; the word-level model needs one
    processor = "Qwen2_5_VLProcessor" if fam == "qwen2_5_vl" else "Qwen3VLProcessor"
    tconfig = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "bos_token": None,
        "eos_token": "<|im_end|>",
        "pad_token": "<|endoftext|>",
        "unk_token": "<unk>",
        "model_max_length": 131072,
        "errors": "replace",
        "split_special_tokens": False,
        "processor_class": processor,
    }
    save_word_level(folder, vocab, special, tconfig, words)
    image, video = (QWEN25_IMAGE, QWEN25_VIDEO) if fam == "qwen2_5_vl" else (QWEN3_IMAGE, QWEN3_VIDEO)
    vision = config["vision_config"]
    for key, ours in (("patch_size", "patch_size"), ("spatial_merge_size", "merge_size")):
        assert vision.get(key) == image[ours], f"vision_config {key} {vision.get(key)} != processor's {image[ours]}"
    write_json(folder / "preprocessor_config.json", image)
    write_json(folder / "video_preprocessor_config.json", video)
    (folder / "chat_template.jinja").write_text(CHAT_TEMPLATE, encoding="utf-8")
