"""The transcript shows fenced code blocks highlighted (Pygments), on a background, under their
language and a Copy link that puts exactly the block's code on the clipboard; a fence still open
while an answer streams renders and keeps the text before it; a dark palette gets the dark style.

About rendering only: the transcript widget alone, given saved messages and a streaming text as the
chat panel gives them; no engine is needed (the panel's streaming is tested in test_ui_chat.py)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QUrl
from PySide6.QtGui import QColor, QPalette, QTextCursor, QTextDocument
from PySide6.QtWidgets import QApplication

from console.chat.conversations import Message
from console.ui.chat.transcript import TranscriptView

CODE = "def greet(name):\n    return 'hello ' + name  # say it\n\n\nprint(greet('you'))"
ANSWER = f"Here it is:\n\n```python\n{CODE}\n```\n\nCall `greet`."


def _message(i: int, role: str, content: str) -> Message:
    return Message(i, 1, i, role, content, "", model="tiny" if role == "assistant" else None)


def _view(qtbot: Any, dark: bool = False) -> TranscriptView:
    view = TranscriptView()
    qtbot.addWidget(view)
    if dark:
        palette = view.palette()
        for role, color in ((QPalette.ColorRole.Base, "#1e1e1e"), (QPalette.ColorRole.Text, "#e0e0e0")):
            palette.setColor(role, QColor(color))
        with qtbot.waitSignal(view.restyled, timeout=1000):  # the owner renders again, in the new style
            view.setPalette(palette)
    view.resize(700, 500)
    view.show()
    return view


def _found(view: TranscriptView, text: str) -> QTextCursor:
    cursor = view.document().find(text, 0, QTextDocument.FindFlag.FindCaseSensitively)
    assert not cursor.isNull(), f"{text!r} is not shown"
    return cursor


def _color(view: TranscriptView, text: str) -> QColor:
    return _found(view, text).charFormat().foreground().color()


def test_a_python_block_is_highlighted_under_its_label_and_a_copy_link(qtbot: Any) -> None:
    view = _view(qtbot)
    view.show_conversation([_message(1, "user", "greet me in Python"), _message(2, "assistant", ANSWER)])
    assert _color(view, "return") != _color(view, "'hello '")  # a keyword and a string in two colours
    assert _found(view, "python").block().text() == "python"  # the label, a line of its own
    assert "```" not in view.toPlainText()
    link = _found(view, view.tr("Copy")).charFormat()
    assert link.isAnchor() and link.anchorHref() == "copy-code:0"
    table = _found(view, "def greet").currentTable()
    assert table is not None and table.format().background().color().isValid()  # the block's background


def test_the_copy_link_puts_exactly_the_code_on_the_clipboard_and_says_copied(qtbot: Any) -> None:
    view = _view(qtbot)
    view.show_conversation([_message(1, "assistant", ANSWER + "\n\n```\nsecond block\n```")])
    QApplication.clipboard().clear()
    view.anchorClicked.emit(QUrl("copy-code:0"))
    assert QApplication.clipboard().text() == CODE
    assert "Copied" in view.toPlainText()
    view.anchorClicked.emit(QUrl("copy-code:1"))
    assert QApplication.clipboard().text() == "second block"


def test_an_unclosed_fence_while_streaming_renders_and_keeps_the_text_before_it(qtbot: Any) -> None:
    view = _view(qtbot)
    history = [_message(1, "user", "and now?")]
    view.show_conversation(history, ("req", "Before the code.\n\n```python\ndef f("), model="tiny")
    assert "Before the code." in view.toPlainText() and "def f(" in view.toPlainText()
    grown = ANSWER.replace("Here it is:", "Before the code.")
    for end in [*range(len("Before the code.\n\n```python\ndef f("), len(grown), 7), len(grown)]:
        assert view.can_update_stream("req")
        view.update_stream(grown[:end])
        assert "Before the code." in view.toPlainText() and "and now?" in view.toPlainText()
    streamed = (view.document().toHtml(), view.code.codes)
    view.show_conversation(history, ("req", grown), model="tiny")  # rendered at once: the same
    assert (view.document().toHtml(), view.code.codes) == streamed
    view.anchorClicked.emit(QUrl("copy-code:0"))
    assert QApplication.clipboard().text() == CODE


def test_a_dark_palette_gets_the_dark_style_and_a_light_one_the_light_style(qtbot: Any) -> None:
    for dark in (False, True):
        view = _view(qtbot, dark)
        view.show_conversation([_message(1, "assistant", ANSWER)])
        table = _found(view, "greet(name)").currentTable()
        assert table is not None
        block = table.format().background().color().lightness()
        text = _color(view, "name").lightness()
        assert (block < text) if dark else (block > text), (dark, block, text)


def test_copied_in_the_history_while_an_answer_streams_leaves_the_answer_whole(qtbot: Any) -> None:
    """ "Copied" is longer than "Copy": the streaming answer, written after it, must still be
    replaced exactly (its start follows the edit)."""
    view = _view(qtbot)
    history = [_message(1, "assistant", ANSWER), _message(2, "user", "again")]
    view.show_conversation(history, ("req", "Sure:\n\n```python\nx = 1"), model="tiny")
    view.anchorClicked.emit(QUrl("copy-code:0"))
    view.anchorClicked.emit(QUrl("copy-code:1"))
    assert QApplication.clipboard().text() == "x = 1"
    final = "Sure:\n\n```python\nx = 1\ny = 2\n```\n\nDone."
    view.update_stream("Sure:\n\n```python\nx = 1\ny")
    view.update_stream(final)
    streamed = view.toPlainText()
    assert streamed.count("Copied") == 2
    view.show_conversation(history, ("req", final), model="tiny")
    assert streamed.replace(view.tr("Copied"), view.tr("Copy")) == view.toPlainText()
    assert view.code.codes == [CODE, "x = 1\ny = 2"]
