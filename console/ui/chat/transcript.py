"""The Chat tab's transcript: the conversation as markdown, with the answer that streams now
re-rendered on its own (the history can be long: setMarkdown of a 15,000-character transcript
costs ~12 ms, the streaming tail ~1 ms), and the figures line under each answer.

A reasoning model's thinking is shown apart, above its answer: a collapsed "Thinking"
line with its tokens and time, a link that expands it (the thinking as a quote) and collapses it.
A user message's pictures show as thumbnails under its text (``chatimage:<id>`` images, made off
the GUI thread by ``pictures.py`` ``Thumbnails``). Fenced code blocks are highlighted, with their
language and a Copy link (``code_blocks.py``)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QCoreApplication, QEvent, QUrl, Signal
from PySide6.QtGui import QTextCursor, QTextDocument
from PySide6.QtWidgets import QTextBrowser, QWidget

from console.chat.conversations import Message
from console.chat.repetition import REPEATING
from console.engine.types import RequestFinished
from console.ui.chat.code_blocks import COPY_SCHEME, CodeWriter, Tail
from console.ui.chat.pictures import Thumbnails
from console.ui.formatting import format_count, format_number


def figures_text(m: Message | RequestFinished) -> str:
    """The figures line under an answer, translated."""
    tr = QCoreApplication.translate
    parts = []
    ttft = m.ttft_s
    tps = m.tokens_per_s
    tokens = m.output_tokens
    if ttft is not None:
        parts.append(tr("ChatPanel", "TTFT {0} s").format(format_number(ttft, 2)))
    if tps is not None:
        parts.append(tr("ChatPanel", "{0} tok/s").format(format_number(tps, 1)))
    if tokens is not None:
        parts.append(tr("ChatPanel", "{0} tokens").format(format_count(tokens)))
    reason = m.finish_reason
    if reason == "abort":
        parts.append(tr("ChatPanel", "stopped"))
    elif reason == "length":
        parts.append(tr("ChatPanel", "stopped at max tokens: Continue goes on"))
    elif reason == REPEATING:
        parts.append(tr("ChatPanel", "stopped: the answer started repeating itself"))
    elif reason == "error":
        parts.append(tr("ChatPanel", "failed"))
    return " · ".join(parts)


#: The link scheme of a thinking block's header: ``think:<message id>`` (``think:stream`` while streaming).
THINK_SCHEME = "think"
STREAM_KEY = "stream"
#: The image scheme of a saved picture's thumbnail: ``chatimage:<picture id>``.
IMAGE_SCHEME = "chatimage"


def thinking_markdown(
    key: str, text: str, tokens: int | None, seconds: float | None, expanded: bool, live: bool = False
) -> str:
    """A thinking block: its header (a link that expands or collapses it) and, expanded, the
    thinking as a quote. ``live``: still thinking."""
    tr = QCoreApplication.translate
    parts = [tr("ChatPanel", "Thinking…") if live else tr("ChatPanel", "Thinking")]
    if tokens is not None:
        parts.append(tr("ChatPanel", "{0} tokens").format(format_count(tokens)))
    if seconds is not None:
        parts.append(tr("ChatPanel", "{0} s").format(format_number(seconds, 1)))
    head = f"[{'▾' if expanded else '▸'} {' · '.join(parts)}]({THINK_SCHEME}:{key})"
    if not expanded or not text.strip():
        return head
    return head + "\n\n" + "\n".join("> " + line for line in text.strip().split("\n"))


def transcript_markdown(
    messages: list[Message],
    streaming: str | None = None,
    model: str | None = None,
    expanded: frozenset[str] | set[str] = frozenset(),
) -> str:
    """The conversation as markdown, each answer headed by the model that gave it; ``streaming``:
    the text of an answer still arriving ("" for its heading alone), from ``model``. An answer's
    thinking shows collapsed unless its key (the message id) is in ``expanded``."""
    tr = QCoreApplication.translate
    you, assistant = tr("ChatPanel", "You"), tr("ChatPanel", "Assistant")
    parts: list[str] = []
    for m in messages:
        if m.role == "system":
            continue
        content = m.content
        if m.reasoning is not None:
            key = str(m.id)
            block = thinking_markdown(key, m.reasoning, m.reasoning_tokens, m.reasoning_s, key in expanded)
            content = f"{block}\n\n{content}" if content else block
        if m.images:  # the pictures under the text, on one line
            pictures = " ".join(f"![{_escaped(i.name)}]({IMAGE_SCHEME}:{i.id})" for i in m.images)
            content = f"{content}\n\n{pictures}" if content else pictures
        part = f"**{you if m.role == 'user' else _escaped(m.model) or assistant}**\n\n{content}"
        figures = figures_text(m) if m.role == "assistant" else ""
        parts.append(f"{part}\n\n*{figures}*" if figures else part)
    if streaming is not None:
        parts.append(f"**{_escaped(model) or assistant}**" + (f"\n\n{streaming}" if streaming else ""))
    return "\n\n---\n\n".join(parts) if parts else ""


def _escaped(name: str | None) -> str:
    """A model name as literal markdown text (names such as ``org/model_v2*`` hold markup)."""
    return "".join("\\" + ch if ch in "\\`*_[]<>#|" else ch for ch in name or "")


class TranscriptView(QTextBrowser):
    """Shows a conversation; while an answer streams, remembers where that answer starts so only
    it is replaced as it grows. Keeps the view at the end when it was there.

    Signals: ``thinkingToggled(str)``: a thinking block's header was clicked (its key is now in
    :attr:`expanded`, or no longer); the owner renders again. ``restyled()``: the palette changed
    (a light or dark theme): the owner renders again, the code in the style that reads on it."""

    thinkingToggled = Signal(str)
    restyled = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenExternalLinks(False)
        self.setOpenLinks(False)  # links are the thinking blocks' switches; nothing navigates away
        self.anchorClicked.connect(self._on_anchor_clicked)
        self._stream: tuple[str, Tail] | None = None  # (request id, its answer as written)
        self.code = CodeWriter(self)  # the code blocks: written highlighted, their codes for Copy
        self.expanded: set[str] = set()  # the thinking blocks shown open
        self.thumbnails = Thumbnails(self)  # its ``ready`` asks the owner to render again
        self._pictures: dict[str, str] = {}  # picture id -> its file, of the conversation shown

    def loadResource(self, kind: int, name: QUrl | str) -> Any:
        url = QUrl(name)
        if kind == QTextDocument.ResourceType.ImageResource.value and url.scheme() == IMAGE_SCHEME:
            path = self._pictures.get(url.path())
            return self.thumbnails.get(path) if path is not None else None
        return super().loadResource(kind, name)

    def toggle_thinking(self, key: str) -> None:
        self.expanded ^= {key}
        self.thinkingToggled.emit(key)

    def _on_anchor_clicked(self, url: QUrl) -> None:
        if url.scheme() == THINK_SCHEME:
            self.toggle_thinking(url.path())
        elif url.scheme() == COPY_SCHEME and url.path().isdigit():
            self.code.copy(int(url.path()))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self.restyled.emit()

    def show_conversation(
        self, messages: list[Message], stream: tuple[str, str] | None = None, model: str | None = None
    ) -> None:
        """Render it all; ``stream``: (request id, text so far) of an answer still arriving from
        ``model``."""
        self._pictures = {str(i.id): i.path for m in messages for i in m.images}
        with self._kept_at_end():
            self._stream = None
            self.code.clear()
            if stream is None:
                self.code.write(transcript_markdown(messages, expanded=self.expanded))
                return
            self.code.write(transcript_markdown(messages, streaming="", model=model, expanded=self.expanded))
            cursor = QTextCursor(self.document())
            cursor.movePosition(QTextCursor.MoveOperation.End)
            cursor.insertBlock()
            self._stream = (stream[0], self.code.write(stream[1] or "…"))

    def can_update_stream(self, request_id: str | None) -> bool:
        """Whether :meth:`update_stream` can replace that request's answer in place."""
        return self._stream is not None and self._stream[0] == request_id

    def update_stream(self, text: str) -> None:
        """Replace only the streaming answer's text (from its first part that changed)."""
        assert self._stream is not None
        with self._kept_at_end():
            self.code.rewrite(self._stream[1], text or "…")

    def _kept_at_end(self) -> "_AtEnd":
        return _AtEnd(self)


class _AtEnd:
    """Scroll back to the end after a change when the view was at the end before it."""

    def __init__(self, view: QTextBrowser) -> None:
        self.bar = view.verticalScrollBar()

    def __enter__(self) -> None:
        self.at_end = self.bar.value() >= self.bar.maximum() - 4

    def __exit__(self, *_: object) -> None:
        if self.at_end:
            self.bar.setValue(self.bar.maximum())
