"""The transcript's fenced code blocks, highlighted: each on its style's background, under a header
row with its language and a Copy link that puts exactly its code on the clipboard.

A QTextBrowser holds no widgets, so a block is a table in the document: the header row (the label,
the link ``copy-code:<n>``) over one cell of code, its runs (``console/chat/code_blocks.py``: the
fences, the language, Pygments' runs) inserted with their formats. :attr:`CodeWriter.codes` keeps
each block's code by ``n``. The style is the light or the dark one as the view's palette is.

A streaming answer is a :class:`Tail`: written again on each update from its first changed part
only; a code block that is still growing gets only its changed runs replaced (re-lexing 300 lines
costs ~15 ms, re-inserting them all ~35 ms more). Positions are kept as QTextCursors, which follow
the edits made before them (the Copy link's "Copied")."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt, QTimer
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontDatabase,
    QGuiApplication,
    QPalette,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextFrameFormat,
    QTextLength,
    QTextTableCellFormat,
    QTextTableFormat,
)
from PySide6.QtWidgets import QTextEdit

from console.chat.code_blocks import Fence, Prose, Run, background, code_style, foreground, language, runs, split_fences

#: The link scheme of a code block's Copy link: ``copy-code:<n>``, n its index in ``codes``.
COPY_SCHEME = "copy-code"
#: How long the link says "Copied" (ms).
COPIED_MS = 1500


def is_dark(palette: QPalette) -> bool:
    """Whether the palette's text background (Base) is dark."""
    return palette.color(QPalette.ColorRole.Base).lightness() < 128


@dataclass
class _Shown:
    """A part of the markdown as written: where it starts; a code block's label, lexer, runs,
    where its code starts and its index in ``codes``."""

    part: Prose | Fence
    start: QTextCursor
    label: str = ""
    lexer: Any = None
    runs: list[Run] = field(default_factory=list)
    code_at: QTextCursor | None = None
    index: int = -1


@dataclass
class Tail:
    """Markdown written from ``start`` to the document's end, which can be written again in place."""

    start: QTextCursor
    shown: list[_Shown]


class CodeWriter:
    """Writes markdown into ``view``'s document, its fenced code blocks highlighted."""

    def __init__(self, view: QTextEdit) -> None:
        self.view = view
        self.codes: list[str] = []  # each block's code, by the n of its link
        self._links: dict[int, tuple[QTextCursor, str]] = {}  # n -> (at its link text, that text)
        self._dark: bool | None = None
        self._style: Any = None
        self._formats: dict[tuple[str | None, bool, bool], QTextCharFormat] = {}

    # -- writing ---------------------------------------------------------------------------------
    def clear(self) -> None:
        """Empty the document (and the codes); take the style from the palette as it is now."""
        self.view.document().clear()
        self.codes.clear()
        self._links.clear()
        dark = is_dark(self.view.palette())
        if dark != self._dark or self._style is None:
            self._dark, self._style = dark, code_style(dark)
            self._formats.clear()

    def write(self, markdown: str) -> Tail:
        """Append the markdown at the document's end."""
        parts = split_fences(markdown)
        shown: list[_Shown] = []
        if parts and isinstance(parts[0], Prose) and self.view.document().isEmpty():
            self.view.setMarkdown(parts[0].text)  # as fast as before for a transcript without code
            shown.append(_Shown(parts.pop(0), self._mark(0)))
        cursor = self._end()
        start = 0 if shown else cursor.position()
        cursor.beginEditBlock()
        shown.extend(self._write_part(cursor, part) for part in parts)
        cursor.endEditBlock()
        return Tail(self._mark(start), shown)

    def rewrite(self, tail: Tail, markdown: str) -> None:
        """Make the tail show ``markdown``: its parts from the first that changed written again (a
        code block still growing only from its first changed run)."""
        parts = split_fences(markdown)
        old = tail.shown
        i = 0
        while i < len(old) and i < len(parts) and old[i].part == parts[i]:
            i += 1
        if i == len(old) == len(parts):
            return
        cursor = QTextCursor(self.view.document())
        cursor.beginEditBlock()
        start = tail.start.position()
        if i == len(old) - 1 and i < len(parts) and self._update_code(cursor, old[i], parts[i]):
            i += 1
        else:
            at = start if i == 0 else old[i].start.position() if i < len(old) else None
            cut = next((s.index for s in old[i:] if s.index >= 0), len(self.codes))
            del self.codes[cut:]
            for n in [n for n in self._links if n >= cut]:
                del self._links[n]
            del old[i:]
            if at is not None:
                cursor.setPosition(at)
                cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
                cursor.removeSelectedText()
        cursor.movePosition(QTextCursor.MoveOperation.End)
        old.extend(self._write_part(cursor, part) for part in parts[i:])
        cursor.endEditBlock()
        tail.start = self._mark(start)  # a mark where text was inserted has moved past it

    def _write_part(self, cursor: QTextCursor, part: Prose | Fence) -> _Shown:
        start = cursor.position()
        if isinstance(part, Prose):
            cursor.insertMarkdown(part.text)
            cursor.movePosition(QTextCursor.MoveOperation.End)
            return _Shown(part, self._mark(start))
        return self._write_fence(cursor, part, start)

    def _write_fence(self, cursor: QTextCursor, fence: Fence, start: int) -> _Shown:
        label, lexer = language(fence)
        if cursor.block().length() > 1:
            cursor.insertBlock(QTextBlockFormat(), QTextCharFormat())
        table = cursor.insertTable(2, 1, self._table_format())
        table.cellAt(0, 0).setFormat(self._header_format())
        # the header: the label at the left, the link at the right, in a table without lines
        head = table.cellAt(0, 0).firstCursorPosition().insertTable(1, 2, self._header_table_format())
        n = len(self.codes)
        self.codes.append(fence.code)
        head.cellAt(0, 0).firstCursorPosition().insertText(label, self._label_format())
        at = head.cellAt(0, 1).firstCursorPosition()
        right = QTextBlockFormat()
        right.setAlignment(Qt.AlignmentFlag.AlignRight)
        at.setBlockFormat(right)
        link = at.position()
        text = QCoreApplication.translate("ChatPanel", "Copy")
        at.insertText(text, self._link_format(n))
        self._links[n] = (self._mark(link), text)
        at = table.cellAt(1, 0).firstCursorPosition()
        code_block = QTextBlockFormat()
        code_block.setNonBreakableLines(True)
        at.setBlockFormat(code_block)
        code_at = at.position()
        shown_runs = runs(fence.code, lexer, self._style)
        self._insert_runs(at, shown_runs)  # then the mark: one at code_at would move with the insertion
        cursor.movePosition(QTextCursor.MoveOperation.End)
        return _Shown(fence, self._mark(start), label, lexer, shown_runs, self._mark(code_at), n)

    def _update_code(self, cursor: QTextCursor, shown: _Shown, fence: Prose | Fence) -> bool:
        """Replace a written block's code by ``fence``'s, from its first changed run; False (and
        nothing done) when it is not a code block of the same language."""
        if not isinstance(fence, Fence) or not isinstance(shown.part, Fence) or shown.code_at is None:
            return False
        if language(fence) != (shown.label, shown.lexer):
            return False
        new = runs(fence.code, shown.lexer, self._style)
        k = 0
        while k < len(shown.runs) and k < len(new) and shown.runs[k] == new[k]:
            k += 1
        code_at = shown.code_at.position()
        cursor.setPosition(code_at + sum(len(r.text) for r in shown.runs[:k]))
        cursor.setPosition(code_at + len(shown.part.code), QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()
        self._insert_runs(cursor, new[k:])
        shown.part, shown.runs, shown.code_at = fence, new, self._mark(code_at)
        self.codes[shown.index] = fence.code
        return True

    def _insert_runs(self, cursor: QTextCursor, shown_runs: list[Run]) -> None:
        for run in shown_runs:
            cursor.insertText(run.text, self._code_format(run))

    # -- Copy ------------------------------------------------------------------------------------
    def copy(self, n: int) -> None:
        """Put block ``n``'s code on the clipboard; its link says "Copied" for a moment."""
        if not 0 <= n < len(self.codes):
            return
        QGuiApplication.clipboard().setText(self.codes[n])
        copied = QCoreApplication.translate("ChatPanel", "Copied")
        self._relabel(n, copied)
        QTimer.singleShot(
            COPIED_MS, self.view, lambda: self._relabel(n, QCoreApplication.translate("ChatPanel", "Copy"))
        )

    def _relabel(self, n: int, text: str) -> None:
        entry = self._links.get(n)
        if entry is None or entry[1] == text:
            return
        at = entry[0].position()
        cursor = QTextCursor(self.view.document())
        cursor.setPosition(at)
        cursor.setPosition(at + len(entry[1]), QTextCursor.MoveMode.KeepAnchor)
        if cursor.selectedText() != entry[1]:
            return  # not that link any more
        cursor.insertText(text, self._link_format(n))
        self._links[n] = (self._mark(at), text)

    # -- looks -----------------------------------------------------------------------------------
    def _background(self) -> QColor:
        return QColor(background(self._style))

    def _text_color(self) -> QColor:
        color = foreground(self._style)
        return QColor(color) if color else self.view.palette().color(QPalette.ColorRole.Text)

    def _table_format(self) -> QTextTableFormat:
        f = QTextTableFormat()
        f.setBackground(self._background())
        f.setBorder(1)
        f.setBorderStyle(QTextFrameFormat.BorderStyle.BorderStyle_Solid)
        f.setBorderBrush(self.view.palette().color(QPalette.ColorRole.Mid))
        f.setBorderCollapse(True)
        f.setCellSpacing(0)
        f.setCellPadding(6)
        f.setTopMargin(4)
        f.setBottomMargin(4)
        f.setWidth(QTextLength(QTextLength.Type.PercentageLength, 100))
        return f

    def _header_format(self) -> QTextTableCellFormat:
        f = QTextTableCellFormat()
        bg = self._background()
        f.setBackground(bg.lighter(150) if self._dark else bg.darker(106))
        f.setTopPadding(2)
        f.setBottomPadding(2)
        return f

    @staticmethod
    def _header_table_format() -> QTextTableFormat:
        f = QTextTableFormat()
        f.setBorder(0)
        f.setCellSpacing(0)
        f.setCellPadding(0)
        f.setMargin(0)
        f.setWidth(QTextLength(QTextLength.Type.PercentageLength, 100))
        return f

    def _label_format(self) -> QTextCharFormat:
        f = QTextCharFormat()
        f.setForeground(self._text_color())
        f.setFontPointSize(max(self.view.font().pointSizeF() * 0.85, 6.0))
        return f

    def _link_format(self, n: int) -> QTextCharFormat:
        f = self._label_format()
        f.setForeground(self.view.palette().color(QPalette.ColorRole.Link))
        f.setAnchor(True)
        f.setAnchorHref(f"{COPY_SCHEME}:{n}")
        return f

    def _code_format(self, run: Run) -> QTextCharFormat:
        key = (run.color, run.bold, run.italic)
        f = self._formats.get(key)
        if f is None:
            f = QTextCharFormat()
            f.setFontFamilies(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont).families())
            f.setFontFixedPitch(True)
            f.setForeground(QColor(run.color) if run.color else self._text_color())
            if run.bold:
                f.setFontWeight(QFont.Weight.Bold)
            if run.italic:
                f.setFontItalic(True)
            self._formats[key] = f
        return f

    # -- positions -------------------------------------------------------------------------------
    def _end(self) -> QTextCursor:
        cursor = QTextCursor(self.view.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        return cursor

    def _mark(self, position: int) -> QTextCursor:
        """A cursor kept at ``position``: it follows the edits made before it."""
        cursor = QTextCursor(self.view.document())
        cursor.setPosition(position)
        return cursor
