"""The core's messages in the UI's language.

The core (no Qt) says things the window shows as :class:`console.messages.Message` values: a
template and its arguments. :func:`translate_core_text` looks the template up in the catalogue
(context "CoreText"; ``python -m console.ui.i18n`` finds every template in the core's
``Message("...")`` calls) and fills in the arguments, translating those that are messages
themselves; what else an argument carries (a file name, a count, a library's own error) is
shown as written. Text that is not a message (a library's own error, a user's name) is shown as
written too. ``tests/test_i18n_core_text.py`` makes each message with the core itself and checks
it comes out translated, with the same placeholders in the translation as in the template.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from console.messages import CONTEXT, Message, message_of


def translate_core_text(text: str) -> str:
    """``text`` in the UI's language when it is a :class:`Message`, else ``text`` as written.
    The catalogue is read at each call, so the one installed at start is the one used."""
    if not isinstance(text, Message):
        return text
    translation = QCoreApplication.translate(CONTEXT, text.template)
    if not text.args:
        return translation
    return translation.format(*(translate_core_text(a) for a in text.args))


def translate_error(exc: BaseException) -> str:
    """What ``exc`` says, in the UI's language when it carries a message."""
    return translate_core_text(message_of(exc))
