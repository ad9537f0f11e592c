"""Answer keys a student could game: warnings for `attn-tui validate`.

Shuffling options per student (content.shuffle) hides a key's position in the app, but
an exported quiz (GIFT, Moodle XML) keeps the file's order, and "pick the longest" (or
"pick the shortest") works whatever the order. So the file itself should spread its keys.
"""

from __future__ import annotations

from collections import Counter
from typing import assert_never

from tui_course.content.models import Kind, Quiz

MIN_QUESTIONS = 4  # fewer single-choice questions than this cannot show a pattern
SHARE = 0.5  # more than this share of keys on one position (longest, shortest) is a warning


def key_warnings(quiz: Quiz) -> list[str]:
    """One line per pattern: keys clustered on one option number, mostly the longest, or
    mostly the shortest."""
    keys, multi_keys = _option_keys(quiz)
    warnings = _multi_warnings(multi_keys)
    if len(keys) < MIN_QUESTIONS:
        return warnings
    position, count = Counter(answer for answer, _ in keys).most_common(1)[0]
    if count > SHARE * len(keys):
        warnings.append(
            f"{count} of {len(keys)} single-choice keys are option {position}:"
            f" pressing {position} scores well; spread the keys over the positions"
        )
    for extreme, fix in (
        ("longest", "make the wrong options as full as the key"),
        ("shortest", "make the key as full as the wrong options"),
    ):
        count = sum(1 for answer, options in keys if strictly(extreme, answer, options))
        if count > SHARE * len(keys):
            warnings.append(
                f"{count} of {len(keys)} single-choice keys are the {extreme} option:"
                f" picking the {extreme} scores well; {fix}"
            )
    return warnings


def strictly(extreme: str, answer: int, options: tuple[str, ...]) -> bool:
    """The key is longer ("longest") or shorter ("shortest") than every other option."""
    key = len(options[answer - 1])
    others = [len(option) for number, option in enumerate(options, 1) if number != answer]
    return (
        all(key > other for other in others)
        if extreme == "longest"
        else all(key < other for other in others)
    )


def leading(answer: frozenset[int] | set[int] | tuple[int, ...]) -> bool:
    """A multi-select key made of the first options (1 and 2 of four): in an export that
    keeps the file's order, "tick the top ones" finds it."""
    return set(answer) == set(range(1, len(set(answer)) + 1))


def _option_keys(
    quiz: Quiz,
) -> tuple[list[tuple[int, tuple[str, ...]]], list[frozenset[int]]]:
    """The single-choice keys with their options, and the multi-select keys: the ones a
    position or a length could give away."""
    single: list[tuple[int, tuple[str, ...]]] = []
    several: list[frozenset[int]] = []
    for question in quiz.questions:
        match question.kind:
            case Kind.CHOICE:
                single.append((question.answer, question.options))
            case Kind.MULTI:
                several.append(question.answer)
            case Kind.NUMERIC | Kind.TEXT | Kind.CODE | Kind.ORDER:
                pass  # no options picked (an order's lines are shuffled per student)
            case _:
                assert_never(question.kind)
    return single, several


def _multi_warnings(keys: list[frozenset[int]]) -> list[str]:
    count = sum(1 for answer in keys if leading(answer))
    if len(keys) < 2 or count <= SHARE * len(keys):
        return []
    return [
        f"{count} of {len(keys)} multi-select keys are the first options: ticking the top ones"
        " scores well in an export (GIFT keeps the file's order); spread the keys"
    ]
