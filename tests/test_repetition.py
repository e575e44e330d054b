"""The loop guard's text functions (console/chat/repetition.py), without an engine: a paragraph said
three times is a loop, and so is an answer ending in one run of words over and over; short lines
(lists, code) and one repeat are not; the streaming guard sees the same thing whatever the pieces
the answer arrives in."""

from __future__ import annotations

from console.chat.repetition import (
    LOOP_TIMES,
    RepetitionGuard,
    longest_repeated_span,
    most_repeated_paragraph,
    repeated_paragraph,
    repeating_tail,
)

PARA = "The knight raised his shield as the dragon swept down over the burning village."
STORY = "Once upon a time there was a dragon.\n\n" + "\n\n".join([PARA] * 4) + "\n"
CODE = (
    "def is_prime(n):\n    if n < 2:\n        return False\n    for i in range(2, n):\n"
    "        if n % i == 0:\n            return False\n    return True\n"
)
LIST = "\n".join(f"{i}. Apple: red" for i in range(1, 11)) + "\n"


def test_a_paragraph_said_three_times_is_a_loop() -> None:
    assert repeated_paragraph(STORY) == PARA.lower()
    assert most_repeated_paragraph(STORY) == 4
    twice = "\n".join([PARA, "Something else that is long enough to count as one.", PARA]) + "\n"
    assert repeated_paragraph(twice) is None and most_repeated_paragraph(twice) == 2


def test_short_lines_and_case_or_spacing_changes() -> None:
    assert repeated_paragraph(CODE) is None and repeated_paragraph(LIST) is None  # repeated short lines
    spaced = "\n".join([PARA, PARA.upper(), "  " + PARA.replace(" ", "   ")]) + "\n"
    assert repeated_paragraph(spaced) == PARA.lower()  # one paragraph, however it is spaced or cased


def test_longest_repeated_span_in_words() -> None:
    assert longest_repeated_span("a b c d e") == 0
    assert longest_repeated_span("one two three x one two three") == 3
    assert longest_repeated_span(STORY) >= 3 * len(PARA.split())  # overlapping copies count
    assert longest_repeated_span("") == 0


def test_the_guard_trips_on_the_third_copy_whatever_the_pieces() -> None:
    for size in (1, 3, 7, 50, len(STORY)):
        guard = RepetitionGuard()
        tripped_at = None
        for i in range(0, len(STORY), size):
            if guard.feed(STORY[i : i + size]):
                tripped_at = i + size
                break
        assert tripped_at is not None, size
        # not before the third copy's line ended
        third_end = STORY.index(PARA) + (LOOP_TIMES - 1) * (len(PARA) + 2) + len(PARA)
        assert tripped_at > third_end and guard.repeated == PARA.lower()
        assert guard.feed("more") is True  # stays tripped


def test_the_guard_lets_good_answers_through() -> None:
    for text in (CODE, LIST, "\n".join([PARA, PARA]) + "\n", "\n".join([PARA, PARA]) + " " + PARA):
        guard = RepetitionGuard()
        assert not any(guard.feed(text[i : i + 5]) for i in range(0, len(text), 5)), text[:30]


SENTENCE = "He was a brave and brave knight, who was a brave and brave knight. "


def test_a_sentence_looping_inside_one_paragraph() -> None:
    """The model card's sampling looped inside one line: no paragraph repeats, the tail does."""
    looping = "Once upon a time there was a knight. " + SENTENCE * 5
    words = looping.split()
    assert repeated_paragraph(looping + "\n") is None
    assert repeating_tail(words) == len(SENTENCE.split())
    assert repeating_tail(("la femme, " * 30).split()) == 2
    assert repeating_tail(("la femme, " * 10).split()) == 0  # 20 words: under MIN_LOOP_WORDS
    assert repeating_tail((SENTENCE * 2).split()) == 0  # twice is not a loop
    assert repeating_tail(LIST.split()) == 0 and repeating_tail(CODE.split()) == 0
    for size in (1, 4, 13):
        guard = RepetitionGuard()
        assert any(guard.feed(looping[i : i + size]) for i in range(0, len(looping), size)), size
        assert guard.repeated is not None and len(guard.repeated.split()) == len(SENTENCE.split())
