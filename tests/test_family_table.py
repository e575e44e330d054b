"""The family table: each family fixture's template is recognised as its family, and
answers are split into reasoning and content by vLLM's own reasoning parser for Qwen3 and the R1
distill, with Qwen3's thinking switch honoured. Tokenizers only: no engine."""

from __future__ import annotations

from typing import Any

import pytest

from tests.fixtures import families
from console.models.family_table import FAMILY_TABLE, family_by_name, family_of
from console.engine.thinking import split_reasoning

_TOKENIZERS: dict[str, Any] = {}


def _tokenizer(name: str) -> Any:
    if name not in _TOKENIZERS:
        if name == "chatml":
            import tempfile
            from pathlib import Path

            from tests.fixtures.synthetic import build_tokenizer

            _TOKENIZERS[name] = build_tokenizer(Path(tempfile.mkdtemp()))
        else:
            _TOKENIZERS[name] = families.TOKENIZERS[name]()
    return _TOKENIZERS[name]


@pytest.mark.parametrize("name", families.FAMILIES)
def test_each_fixture_template_is_recognised_as_its_family(name: str) -> None:
    family = family_of(_tokenizer(name).chat_template)
    assert family is not None and family.name == name
    assert family.quirks and family.preset_4090


def test_families_that_think_have_a_reasoning_parser_and_the_switch_is_known() -> None:
    assert family_by_name("qwen3").think_switch and family_by_name("qwen3").reasoning_parser == "qwen3"
    assert family_by_name("r1").reasoning_parser == "deepseek_r1"
    assert family_by_name("llama3").reasoning_parser is None
    assert family_of("{{ messages }}") is None and family_of(None) is None
    assert len({f.name for f in FAMILY_TABLE}) == len(FAMILY_TABLE)


@pytest.mark.parametrize("name", ["qwen3", "r1"])
def test_reasoning_is_split_by_vllms_parser(name: str) -> None:
    family, tok = family_by_name(name), _tokenizer(name)
    assert split_reasoning(family, tok, "<think>\nParis is in France.\n</think>\n\nParis.") == (
        "\nParis is in France.\n",
        "\n\nParis.",
    )
    # R1 distills open the block in the prompt: the answer holds only its end
    assert split_reasoning(family, tok, "Let me think.</think>Paris.") == ("Let me think.", "Paris.")


def test_qwen3_thinking_switched_off_leaves_the_answer_whole() -> None:
    family, tok = family_by_name("qwen3"), _tokenizer("qwen3")
    assert split_reasoning(family, tok, "Paris.", {"enable_thinking": False}) == (None, "Paris.")
    assert split_reasoning(family_by_name("llama3"), _tokenizer("llama3"), "<think>x</think>y") == (
        None,
        "<think>x</think>y",
    )
