"""Answers that loop: a small model can repeat one paragraph, or one sentence, until its context is
full (measured on the bundled SmolLM2: benchmarks/README.md, "First answers of the bundled
model"). Pure text functions, no engine: :class:`RepetitionGuard` watches a streaming answer so
the chat can stop it once it repeats itself; :func:`repeated_paragraph`,
:func:`repeating_tail` and :func:`longest_repeated_span` say the same of a whole text
(benchmarks/first_answer.py).

Two shapes of loop are caught:

* a paragraph said :data:`LOOP_TIMES` times, anywhere in the answer. A paragraph is a line of at
  least :data:`MIN_PARAGRAPH_CHARS` characters (whitespace collapsed, case ignored): short lines
  (a list's "- apples", a code block's ``return x``) repeat in good answers and are never counted;
* an answer that ends in :data:`LOOP_TIMES` or more copies, back to back, of one run of words,
  together at least :data:`MIN_LOOP_WORDS` words ("la femme, la femme, ...", or one sentence
  again and again inside a single paragraph)."""

from __future__ import annotations

import re
from collections import Counter

#: Lines shorter than this (whitespace collapsed) are not paragraphs.
MIN_PARAGRAPH_CHARS = 40
#: How many times one paragraph (or one run of words back to back) may appear before the answer
#: counts as looping.
LOOP_TIMES = 3
#: The fewest words a back-to-back repetition covers before it counts (a short refrain is not a loop).
MIN_LOOP_WORDS = 50
#: The longest run of words looked for as a back-to-back repetition.
MAX_LOOP_PERIOD = 200
#: The finish reason saved for an answer the chat stopped because it repeated itself.
REPEATING = "repeat"

_SPACE = re.compile(r"\s+")


def _norm(line: str) -> str:
    return _SPACE.sub(" ", line).strip().lower()


def paragraphs(text: str, min_chars: int = MIN_PARAGRAPH_CHARS) -> list[str]:
    """The complete lines of ``text`` long enough to be paragraphs, normalised (whitespace
    collapsed, lower case). A last line without its newline is still being written: left out."""
    return [n for n in (_norm(line) for line in text.split("\n")[:-1]) if len(n) >= min_chars]


def repeated_paragraph(text: str, times: int = LOOP_TIMES, min_chars: int = MIN_PARAGRAPH_CHARS) -> str | None:
    """The first paragraph of ``text`` that appears ``times`` times or more (normalised), else None."""
    for para, n in Counter(paragraphs(text + "\n", min_chars)).items():
        if n >= times:
            return para
    return None


def most_repeated_paragraph(text: str, min_chars: int = MIN_PARAGRAPH_CHARS) -> int:
    """How often the most frequent paragraph of ``text`` appears (0 when it has none)."""
    return max(Counter(paragraphs(text + "\n", min_chars)).values(), default=0)


def repeating_tail(
    words: list[str], times: int = LOOP_TIMES, min_words: int = MIN_LOOP_WORDS, max_period: int = MAX_LOOP_PERIOD
) -> int:
    """The length (in words) of the run that ``words`` ends repeating, back to back, at least
    ``times`` times and over at least ``min_words`` words; 0 when it does not."""
    n = len(words)
    for period in range(1, min(max_period, n // times) + 1):
        run = 0  # how many words, from the end, equal the word one period before
        while run < n - period and words[n - 1 - run] == words[n - 1 - run - period]:
            run += 1
        covered = run + period
        if covered >= times * period and covered >= min_words:
            return period
    return 0


def longest_repeated_span(text: str) -> int:
    """The length, in words, of the longest run of words that appears at least twice in ``text``
    (overlapping allowed): a looping answer has hundreds, a good one a handful."""
    words = text.split()

    def repeats(n: int) -> bool:
        seen: set[tuple[str, ...]] = set()
        for i in range(len(words) - n + 1):
            gram = tuple(words[i : i + n])
            if gram in seen:
                return True
            seen.add(gram)
        return False

    lo, hi = 0, max(0, len(words) - 1)  # repeats(lo) holds (0 words trivially); find the largest
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if repeats(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


class RepetitionGuard:
    """Watches an answer as it streams: :meth:`feed` each delta; it returns True once the answer
    loops (either shape, see the module). Each complete line is counted once; the back-to-back
    check runs every :attr:`CHECK_EVERY` new words over the last words only, so a long answer
    costs little."""

    CHECK_EVERY = 8

    def __init__(self, times: int = LOOP_TIMES, min_chars: int = MIN_PARAGRAPH_CHARS) -> None:
        self.times = times
        self.min_chars = min_chars
        self._line = ""  # the line being written
        self._word = ""  # the word being written
        self._words: list[str] = []  # the last complete words
        self._since_check = 0
        self._counts: Counter[str] = Counter()
        #: what repeated (a normalised paragraph, or the repeated run of words), once :meth:`feed`
        #: has returned True
        self.repeated: str | None = None

    def feed(self, delta: str) -> bool:
        """Add ``delta`` (the next piece of the answer); True when the answer now loops."""
        if self.repeated is None:
            self.repeated = self._lines(delta) or self._tail(delta)
        return self.repeated is not None

    def _lines(self, delta: str) -> str | None:
        if "\n" not in delta:
            self._line += delta
            return None
        *done, self._line = (self._line + delta).split("\n")
        for line in done:
            norm = _norm(line)
            if len(norm) >= self.min_chars:
                self._counts[norm] += 1
                if self._counts[norm] >= self.times:
                    return norm
        return None

    def _tail(self, delta: str) -> str | None:
        text = self._word + delta
        done = text.split()
        self._word = done.pop() if done and not text[-1].isspace() else ""  # a word still being written
        if not done:
            return None
        self._words.extend(done)
        del self._words[: -self.times * MAX_LOOP_PERIOD]
        self._since_check += len(done)
        if self._since_check < self.CHECK_EVERY:
            return None
        self._since_check = 0
        period = repeating_tail(self._words, self.times)
        return " ".join(self._words[-period:]) if period else None
