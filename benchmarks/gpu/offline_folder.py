"""Pieces the GPU vision checks share to build a model folder offline (no hub): the published
config pair of a curated checkpoint, and a word-level tokenizer holding the real special-token ids
(vLLM's profile run needs a processor to make its dummy inputs; the words never matter for memory).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from console.planner.published import published_config


def published_pair(repo: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the text model's config, the vision model's config) as published for ``repo``."""
    text, vision = published_config(repo, text_only=True), published_config(repo)
    assert text is not None and vision is not None, f"no published config for {repo}"
    return text, vision


def write_json(path: Path, data: dict[str, Any]) -> None:
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")


def save_word_level(
    folder: Path,
    vocab: dict[str, int],
    special: dict[int, str],
    config: dict[str, Any],
    words: dict[int, str] | None = None,
) -> None:
    """``folder``'s tokenizer: ``tokenizer.json``, a word-level tokenizer over ``vocab`` (which must
    hold "<unk>"), ``special`` added as special tokens and ``words`` as plain added ones, at their
    ids; ``tokenizer_config.json`` (``config``) and ``special_tokens_map.json`` (its bos, eos, pad
    and unk tokens that are set)."""
    from tokenizers import AddedToken, Tokenizer, models, pre_tokenizers

    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in special.values()])
    if words:
        tok.add_tokens([AddedToken(t, special=False, normalized=False) for t in words.values()])
    tok.save(str(folder / "tokenizer.json"))
    write_json(folder / "tokenizer_config.json", config)
    roles = ("bos_token", "eos_token", "pad_token", "unk_token")
    write_json(folder / "special_tokens_map.json", {k: config[k] for k in roles if config.get(k) is not None})
