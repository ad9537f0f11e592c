"""Answer keys a student could game: warnings for `attn-tui validate`.

Shuffling options per student (content.shuffle) hides a key's position in the app, but
an exported quiz (GIFT, Moodle XML) keeps the file's order, and "pick the longest" works
whatever the order. So the file itself should spread its keys.
"""

from __future__ import annotations

from collections import Counter

from tui_course.content.models import Kind, Quiz

MIN_QUESTIONS = 4  # fewer single-choice questions than this cannot show a pattern
SHARE = 0.5  # more than this share of keys on one position (or longest) is a warning


def key_warnings(quiz: Quiz) -> list[str]:
    """One line per pattern: keys clustered on one option number, or mostly the longest."""
    keys = [
        (question.answer, question.options)
        for question in quiz.questions
        if question.kind is Kind.CHOICE
    ]
    if len(keys) < MIN_QUESTIONS:
        return []
    warnings = []
    position, count = Counter(answer for answer, _ in keys).most_common(1)[0]
    if count > SHARE * len(keys):
        warnings.append(
            f"{count} of {len(keys)} single-choice keys are option {position}:"
            f" pressing {position} scores well; spread the keys over the positions"
        )
    longest = sum(1 for answer, options in keys if _strictly_longest(answer, options))
    if longest > SHARE * len(keys):
        warnings.append(
            f"{longest} of {len(keys)} single-choice keys are the longest option:"
            " picking the longest scores well; make the wrong options as full as the key"
        )
    return warnings


def _strictly_longest(answer: int, options: tuple[str, ...]) -> bool:
    key = len(options[answer - 1])
    return all(key > len(option) for number, option in enumerate(options, 1) if number != answer)
