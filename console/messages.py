"""Sentences the core says, as data the window can translate.

A :class:`Message` is its English text (it *is* that ``str``, so the CLI, logs, JSON files and
exceptions use it unchanged) and also carries how it was made: a ``template`` with ``{0}``,
``{1}``, ... and the ``args`` that fill them, each already written as text or itself a
:class:`Message`. The window looks the template up in the catalogue (context
:data:`CONTEXT`), then fills in the arguments, translating those that are messages; it never
reads a sentence back from its English.

Every template is written as the first argument of a ``Message(...)`` call, a string literal:
``python -m console.ui.i18n`` finds them there (in every core module) for the catalogue. Text
that the core only passes on (a library's error, a file name, a figure) is an argument, never
part of a template.

A message made into something else (``f"{m}"``, ``m + "."``, ``"; ".join(...)``) is plain
English again: build a bigger sentence as a :class:`Message` whose arguments are messages.
"""

from __future__ import annotations

#: The catalogue context of every core template.
CONTEXT = "CoreText"


class Message(str):
    """``template`` filled with ``args`` (English), with both kept for translation."""

    template: str
    args: tuple[str, ...]  # each a Message (translated in turn) or text shown as written

    def __new__(cls, template: str, *args: object) -> Message:
        kept = tuple(a if isinstance(a, Message) else str(a) for a in args)
        self = super().__new__(cls, template.format(*kept) if kept else template)
        self.template, self.args = template, kept
        return self

    def __getnewargs__(self) -> tuple[object, ...]:  # type: ignore[override]  # pickle and copy keep the template
        return (self.template, *self.args)


class MessageError(Exception):
    """An error whose text is a :class:`Message`: ``message`` for the window, ``str()`` for the
    CLI and the logs (the English)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def message_of(exc: BaseException) -> str:
    """What ``exc`` says: its :class:`Message` when it carries one, else ``str(exc)``."""
    if isinstance(exc, MessageError):
        return exc.message
    first = exc.args[0] if len(exc.args) == 1 else None
    return first if isinstance(first, Message) else str(exc)
