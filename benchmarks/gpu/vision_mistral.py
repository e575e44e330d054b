"""Mistral-Small-3.1 (Mistral3ForConditionalGeneration, a Pixtral tower) for ``vision_fit.py``: the
published configurations and an offline processor folder (no hub).

vLLM 0.26 loads the HF-format checkpoint (``tokenizer_mode`` auto: no ``tekken.json`` in the folder,
so not the mistral tokenizer) and its ``mistral3.py`` builds transformers' ``PixtralProcessor`` from
the folder: the image processor resizes a picture to fit 1,540 px (``longest_edge``) and pads it to
whole merged patches; the processor writes one ``[IMG]`` a 28 x 28 px token (14 px patches, 2 x 2
merged) and ``[IMG_BREAK]`` after each row, ``[IMG_END]`` after the last. vLLM counts the same
(``PixtralHFEncoderInfo``: patch 14 x ``spatial_merge_size`` 2) and checks the processor against it.
The processor hands its image processor ``patch_size`` x ``spatial_merge_size`` (28) at call time
(``PixtralProcessor._process_images``); the folder's ``preprocessor_config.json`` says 28 as well, so
a processor that does not would still round to whole merged patches (a 14 px rounding gives vLLM's
count only where the patches come out even: 1,024 and 1,540 px do, 990 px does not).

A picture takes at most 55 x 55 + 55 = 3,080 tokens (1,540 / 28 = 55), so there is no capped load:
vLLM's profile run encodes one 1,540 px dummy picture (``get_image_size_with_most_features``).

The tokenizer is word-level and built offline: Tekken's special-token ids as Mistral-Small-3.1's
``tokenizer_config.json`` has them (0 ``<unk>`` ... 19 ``[TOOL_CONTENT]``, then ``<SPECIAL_20>`` to
``<SPECIAL_999>``), every other id of the 131,072 a placeholder word (its words never matter for
memory). ``vision_mistral_check.py`` checks the folder against transformers and vLLM without a GPU.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from offline_folder import published_pair, save_word_level, write_json

#: name in vision_fit.py -> curated repository.
MISTRAL_REPOS = {"mistral-small-3.1-24b-w4a16": "RedHatAI/Mistral-Small-3.1-24B-Instruct-2503-quantized.w4a16"}
VOCAB = 131072
#: Tekken's named special tokens (Mistral-Small-3.1's tokenizer_config.json added_tokens_decoder);
#: ids 20 to 999 are <SPECIAL_n>.
TEKKEN_SPECIAL = {
    0: "<unk>",
    1: "<s>",
    2: "</s>",
    3: "[INST]",
    4: "[/INST]",
    5: "[AVAILABLE_TOOLS]",
    6: "[/AVAILABLE_TOOLS]",
    7: "[TOOL_RESULTS]",
    8: "[/TOOL_RESULTS]",
    9: "[TOOL_CALLS]",
    10: "[IMG]",
    11: "<pad>",
    12: "[IMG_BREAK]",
    13: "[IMG_END]",
    14: "[PREFIX]",
    15: "[MIDDLE]",
    16: "[SUFFIX]",
    17: "[SYSTEM_PROMPT]",
    18: "[/SYSTEM_PROMPT]",
    19: "[TOOL_CONTENT]",
}
SPECIAL_COUNT = 1000
IMG, IMG_BREAK, IMG_END = 10, 12, 13

#: Mistral-Small-3.1's preprocessor_config.json (CLIP's normalisation, bicubic, 1,540 px at most),
#: its patch the merged one (see the module's note).
PIXTRAL_IMAGE: dict[str, Any] = {
    "image_processor_type": "PixtralImageProcessor",
    "processor_class": "PixtralProcessor",
    "do_convert_rgb": True,
    "do_normalize": True,
    "do_rescale": True,
    "do_resize": True,
    "image_mean": [0.48145466, 0.4578275, 0.40821073],
    "image_std": [0.26862954, 0.26130258, 0.27577711],
    "patch_size": {"height": 28, "width": 28},
    "resample": 3,
    "rescale_factor": 1 / 255,
    "size": {"longest_edge": 1540},
}
#: processor_config.json: the ViT's patch and the merge, the three image tokens.
PIXTRAL_PROCESSOR: dict[str, Any] = {
    "processor_class": "PixtralProcessor",
    "patch_size": 14,
    "spatial_merge_size": 2,
    "image_token": "[IMG]",
    "image_break_token": "[IMG_BREAK]",
    "image_end_token": "[IMG_END]",
}
#: Mistral-Small-3.1's chat template, shortened: system prompt, [INST] turns, [IMG] a picture.
CHAT_TEMPLATE = (
    "{{ bos_token }}{% for message in messages %}"
    "{% if message['role'] == 'system' %}[SYSTEM_PROMPT]"
    "{% if message['content'] is string %}{{ message['content'] }}"
    "{% else %}{% for c in message['content'] %}{{ c['text'] }}{% endfor %}{% endif %}[/SYSTEM_PROMPT]"
    "{% elif message['role'] == 'user' %}[INST]"
    "{% if message['content'] is string %}{{ message['content'] }}{% else %}"
    "{% for c in message['content'] %}{% if c['type'] == 'image' or c['type'] == 'image_url' %}[IMG]"
    "{% elif c['type'] == 'text' %}{{ c['text'] }}{% endif %}{% endfor %}{% endif %}[/INST]"
    "{% elif message['role'] == 'assistant' %}"
    "{% if message['content'] is string %}{{ message['content'] }}"
    "{% else %}{% for c in message['content'] %}{{ c['text'] }}{% endfor %}{% endif %}{{ eos_token }}"
    "{% endif %}{% endfor %}"
)


def special_tokens() -> dict[int, str]:
    """id -> token for Tekken's first 1,000 ids (all special)."""
    return {i: TEKKEN_SPECIAL.get(i, f"<SPECIAL_{i}>") for i in range(SPECIAL_COUNT)}


def shapes() -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    """name -> (text config, vision config) as published (``console/planner/published*.py``)."""
    return {name: published_pair(repo) for name, repo in MISTRAL_REPOS.items()}


def check_config(config: dict[str, Any]) -> None:
    """The config agrees with the tokenizer and the processor (AssertionError otherwise): the image
    token id, the vocabulary, the ViT patch and the merge."""
    assert config.get("model_type") == "mistral3", f"not a Mistral-3 config: {config.get('model_type')!r}"
    assert config.get("image_token_index") == IMG, f"image_token_index {config.get('image_token_index')} != {IMG}"
    vocab = config["text_config"].get("vocab_size")
    assert vocab == VOCAB, f"text_config vocab_size {vocab} != Tekken's {VOCAB}"
    patch, merge = config["vision_config"].get("patch_size"), config.get("spatial_merge_size")
    assert patch == PIXTRAL_PROCESSOR["patch_size"], f"vision_config patch_size {patch} != the processor's 14"
    assert merge == PIXTRAL_PROCESSOR["spatial_merge_size"], f"spatial_merge_size {merge} != the processor's 2"
    size = config["vision_config"].get("image_size")
    assert size == PIXTRAL_IMAGE["size"]["longest_edge"], f"vision_config image_size {size} != 1540"


def write_processor(folder: Path, config: dict[str, Any]) -> None:
    """The processor files beside ``config.json``: tokenizer (offline, Tekken's special ids), image
    processor and processor configs, the chat template."""
    check_config(config)
    special = special_tokens()
    vocab = {special.get(i, f"<w{i}>"): i for i in range(VOCAB)}
    tconfig = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "bos_token": "<s>",
        "eos_token": "</s>",
        "pad_token": "<pad>",
        "unk_token": "<unk>",
        "add_bos_token": True,
        "add_eos_token": False,
        "model_max_length": 131072,
        "processor_class": "PixtralProcessor",
    }
    save_word_level(folder, vocab, special, tconfig)
    write_json(folder / "preprocessor_config.json", PIXTRAL_IMAGE)
    write_json(folder / "processor_config.json", PIXTRAL_PROCESSOR)
    (folder / "chat_template.jinja").write_text(CHAT_TEMPLATE, encoding="utf-8")
