"""The pure part of the chat's code blocks (console/chat/code_blocks.py): fenced blocks split out of
markdown as CommonMark reads them, an unclosed one (an answer still streaming) running to the end;
the language from the fence, else Pygments' guess only when it is confident; the code as coloured
runs that join back to it exactly."""

from __future__ import annotations

from console.chat.code_blocks import Fence, Prose, code_style, language, runs, split_fences


def test_fences_split_from_prose_with_their_language_and_code() -> None:
    md = "Intro:\n\n```python\nx = 1\n\nprint(x)\n```\n\nBetween.\n~~~\n```not a close\n~~~\nEnd."
    assert split_fences(md) == [
        Prose("Intro:\n\n"),
        Fence("x = 1\n\nprint(x)", "python", True),
        Prose("\nBetween.\n"),
        Fence("```not a close", "", True),
        Prose("End."),
    ]


def test_an_unclosed_fence_runs_to_the_end_and_a_shorter_fence_does_not_close_it() -> None:
    assert split_fences("Text\n````js\nlet a = 1;\n```\nlet b") == [
        Prose("Text\n"),
        Fence("let a = 1;\n```\nlet b", "js", False),
    ]
    assert split_fences("```py") == [Fence("", "py", False)]


def test_an_indented_fence_loses_its_indent_and_quoted_or_inline_ones_stay_prose() -> None:
    assert split_fences("1. Run:\n   ```sh\n   ls -l\n     x\n   ```\n") == [
        Prose("1. Run:\n"),
        Fence("ls -l\n  x", "sh", True),
    ]
    assert split_fences("> ```python\n> x\n> ```\n") == [Prose("> ```python\n> x\n> ```\n")]
    assert split_fences("```inline``` code") == [Prose("```inline``` code")]


def test_language_is_the_fences_else_a_confident_guess_else_none() -> None:
    label, lexer = language(Fence("x = 1", "Python", True))
    assert label == "Python" and lexer is not None and "python" in lexer.aliases
    assert language(Fence("graph TD; A-->B", "mermaid-ish", True)) == ("mermaid-ish", None)
    label, lexer = language(Fence("#!/usr/bin/env python3\nimport os\nprint(os.getcwd())", "", True))
    assert label == "python" and lexer is not None
    assert language(Fence("Just some words,\nnothing like code.", "", True)) == ("", None)
    assert language(Fence("#!/usr/bin/env python3\nimport os", "", False)) == ("", None)  # still streaming


def test_runs_colour_keywords_and_strings_apart_and_join_back_to_the_code() -> None:
    code = "def f():\n    return 'hi'  # done\n"
    for dark in (False, True):
        out = runs(code, language(Fence(code, "python", True))[1], code_style(dark))
        assert "".join(r.text for r in out) == code
        keyword = next(r for r in out if r.text.startswith("def"))
        string = next(r for r in out if r.text.startswith("'hi'"))
        assert keyword.color and string.color and keyword.color != string.color
    assert runs("plain text", None, code_style(False))[0].text == "plain text"
    assert runs("", None, code_style(False)) == []
