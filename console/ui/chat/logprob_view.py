"""Answers with their log-probabilities: each token coloured by its probability (red unlikely,
green likely) with its alternatives on hover, and ``n`` answers side by side.

:class:`ChoicesView` shows a finished request's :class:`~console.engine.choices.Choice` objects;
it stays hidden for a plain one-answer request without logprobs.
"""

from __future__ import annotations

import html
import math
from typing import Sequence

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QTextBrowser, QToolTip, QVBoxLayout, QWidget

from console.engine.choices import Choice, TokenLogprob


def probability_colour(logprob: float | None) -> str:
    """Background for a token: hue from red (p=0) to green (p=1), light enough to read on."""
    if logprob is None:
        return "#e0e0e0"
    p = min(max(math.exp(logprob), 0.0), 1.0)
    hue = int(120 * p)
    from PySide6.QtGui import QColor

    return QColor.fromHsl(hue, 170, 205).name()


def alternatives_text(step: TokenLogprob) -> str:
    """The hover text of a token: its probability, then each alternative's."""

    def pct(v: float | None) -> str:
        return "?" if v is None else f"{100 * math.exp(v):.1f}%"

    lines = [f"{step.token!r}: {pct(step.logprob)}"]
    lines += [f"  {t!r}: {pct(v)}" for t, v in step.top if t != step.token]
    return "\n".join(lines)


def tokens_html(steps: Sequence[TokenLogprob]) -> str:
    spans = []
    for i, s in enumerate(steps):
        text = html.escape(s.token).replace("\n", "↵<br>")
        spans.append(
            f'<a name="t{i}" style="background-color:{probability_colour(s.logprob)}; color:#000; '
            f'text-decoration:none">{text}</a>'
        )
    return "<p style='white-space:pre-wrap'>" + "".join(spans) + "</p>"


class TokenView(QTextBrowser):
    """One answer; coloured tokens when logprobs came with it. Hover shows the alternatives."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.steps: list[TokenLogprob] = []
        self.viewport().installEventFilter(self)

    def show_choice(self, choice: Choice) -> None:
        self.steps = list(choice.logprobs or [])
        if self.steps:
            self.setHtml(tokens_html(self.steps))
        else:
            self.setPlainText(choice.text)

    def step_at(self, x: int, y: int) -> TokenLogprob | None:
        from PySide6.QtCore import QPoint

        cursor = self.cursorForPosition(QPoint(x, y))
        name = cursor.charFormat().anchorNames()
        if name and name[0].startswith("t"):
            i = int(name[0][1:])
            return self.steps[i] if 0 <= i < len(self.steps) else None
        return None

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.viewport() and event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            step = self.step_at(event.pos().x(), event.pos().y())
            if step is not None:
                QToolTip.showText(event.globalPos(), alternatives_text(step), self)
            else:
                QToolTip.hideText()
            return True
        return super().eventFilter(watched, event)


class ChoicesView(QWidget):
    """The last answer's choices side by side (hidden when there is nothing beyond plain text)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel(self)
        self.row = QHBoxLayout()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addLayout(self.row, 1)
        self.views: list[TokenView] = []
        self.hide()

    def show_choices(self, choices: Sequence[Choice]) -> None:
        interesting = len(choices) > 1 or any(c.logprobs for c in choices)
        for v in self.views:
            self.row.removeWidget(v)
            v.deleteLater()
        self.views = []
        if not interesting:
            self.hide()
            return
        for c in choices:
            v = TokenView(self)
            v.show_choice(c)
            v.setToolTip("")
            self.row.addWidget(v)
            self.views.append(v)
        logprobs = any(c.logprobs for c in choices)
        text = self.tr("{n} answers side by side").format(n=len(choices)) if len(choices) > 1 else self.tr("Answer")
        if logprobs:
            text += self.tr(" — tokens coloured by probability (red unlikely, green likely); hover for alternatives")
        self.title.setText(text)
        self.show()
