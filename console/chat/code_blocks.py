"""Fenced code blocks in a chat message's markdown, for the transcript to show highlighted.

The markdown is split into prose and fenced blocks (```` ```lang ```` or ``~~~``, as CommonMark
reads them at the top level; a fence still open at the end, as in an answer that is streaming, runs
to the end). A block's language is its fence's word; without one, Pygments' guess when Pygments is
confident (a score of at least :data:`GUESS_SCORE`; a block still streaming is not guessed); else
none, and the block is plain. Its text is cut into coloured runs by Pygments' lexer and style: a
light style or a dark one, as the caller's palette asks. No Qt: the transcript lays the runs out
(``console/ui/chat/code_blocks.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pygments.lexers import get_lexer_by_name, guess_lexer
from pygments.styles import get_style_by_name
from pygments.token import Token
from pygments.util import ClassNotFound

#: Pygments' score (0 to 1) from which its guess of a block's language is taken.
GUESS_SCORE = 0.5
#: The guess reads the first this many characters of a block (Pygments' analysers look at the start;
#: ~3 ms here where the whole of a 300-line block took ~25 ms).
GUESS_CHARS = 2000
#: The Pygments styles of the code on a light background and on a dark one.
LIGHT_STYLE = "default"
DARK_STYLE = "github-dark"

# An opening fence: up to 3 spaces, 3+ backticks or tildes, the info string (a backtick fence's has
# no backtick). A closing one: the same character, at least as many, nothing after but blanks.
_OPEN = re.compile(r"^( {0,3})(`{3,}(?=[^`]*$)|~{3,})(.*)$")
_CLOSE = re.compile(r"^ {0,3}(`{3,}|~{3,})[ \t]*$")
_LEXER_OPTIONS: dict[str, Any] = {"stripnl": False, "ensurenl": False}  # runs join back to the code


@dataclass(frozen=True)
class Prose:
    """Markdown between code blocks."""

    text: str


@dataclass(frozen=True)
class Fence:
    """A fenced code block: its code (without the fences), its fence's first word ("" when none),
    and whether its closing fence has come."""

    code: str
    info: str
    closed: bool


@dataclass(frozen=True)
class Run:
    """Code of one look: ``color`` "#rrggbb" (None: the block's text colour)."""

    text: str
    color: str | None = None
    bold: bool = False
    italic: bool = False


def split_fences(markdown: str) -> list[Prose | Fence]:
    """The markdown as prose and fenced code blocks, in order (prose that is only blank left out)."""
    parts: list[Prose | Fence] = []
    prose: list[str] = []
    lines = markdown.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        opening = _OPEN.match(lines[i].rstrip("\r\n"))
        if opening is None:
            prose.append(lines[i])
            i += 1
            continue
        indent, marker, info = len(opening[1]), opening[2], opening[3].strip()
        code: list[str] = []
        closed = False
        i += 1
        while i < len(lines):
            line = lines[i].rstrip("\r\n")
            i += 1
            closing = _CLOSE.match(line)
            if closing is not None and closing[1][0] == marker[0] and len(closing[1]) >= len(marker):
                closed = True
                break
            code.append(_dedent(line, indent))
        if "".join(prose).strip():
            parts.append(Prose("".join(prose)))
        prose = []
        parts.append(Fence("\n".join(code), info.split()[0] if info else "", closed))
    if "".join(prose).strip():
        parts.append(Prose("".join(prose)))
    return parts


def _dedent(line: str, indent: int) -> str:
    """A code line of a fence indented by ``indent`` spaces: that many leading spaces off, at most."""
    n = len(line) - len(line.lstrip(" "))
    return line[min(n, indent) :]


def language(fence: Fence) -> tuple[str, Any]:
    """(the label shown over the block, its Pygments lexer or None): the fence's word, with its
    lexer when Pygments knows it; without a word, Pygments' confident guess of a closed block;
    else ("", None)."""
    if fence.info:
        return fence.info, _lexer_named(fence.info.lower())
    if not fence.closed or not fence.code.strip():
        return "", None
    return _guess(fence.code[:GUESS_CHARS])


@lru_cache(maxsize=64)
def _lexer_named(name: str) -> Any:
    try:
        return get_lexer_by_name(name, **_LEXER_OPTIONS)
    except ClassNotFound:
        return None


@lru_cache(maxsize=256)
def _guess(code: str) -> tuple[str, Any]:
    try:
        lexer = guess_lexer(code, **_LEXER_OPTIONS)
    except ClassNotFound:
        return "", None
    if type(lexer).analyse_text(code) < GUESS_SCORE:
        return "", None
    return (lexer.aliases[0] if lexer.aliases else lexer.name), lexer


def code_style(dark: bool) -> Any:
    """The Pygments style (a class) for code on a dark background or a light one."""
    return get_style_by_name(DARK_STYLE if dark else LIGHT_STYLE)


def background(style: Any) -> str:
    """The style's background, "#rrggbb"."""
    return str(style.background_color)


def foreground(style: Any) -> str | None:
    """The style's plain-text colour, "#rrggbb"; None when it leaves that to the page."""
    return _color(style.style_for_token(Token.Text)["color"])


def runs(code: str, lexer: Any, style: Any) -> list[Run]:
    """The code as runs of the style's looks (adjacent tokens of one look joined); one plain run
    without a lexer, or when the lexer's tokens do not give the code back exactly."""
    if lexer is None or not code:
        return [Run(code)] if code else []
    out: list[Run] = []
    for kind, value in lexer.get_tokens(code):
        if not value:
            continue
        look = style.style_for_token(kind)
        run = Run(value, _color(look["color"]), bool(look["bold"]), bool(look["italic"]))
        last = out[-1] if out else None
        if last is not None and (value.isspace() or (last.color, last.bold, last.italic) == look_of(run)):
            out[-1] = Run(last.text + value, last.color, last.bold, last.italic)  # blanks show in any look
        else:
            out.append(run)
    if "".join(r.text for r in out) != code:
        return [Run(code)]
    return out


def look_of(run: Run) -> tuple[str | None, bool, bool]:
    """A run's look: (colour, bold, italic)."""
    return run.color, run.bold, run.italic


def _color(value: str | None) -> str | None:
    if not value:
        return None
    return value if value.startswith("#") else "#" + value
