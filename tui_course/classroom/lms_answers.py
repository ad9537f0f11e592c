"""What GIFT and Moodle XML share: a quiz question laid out as Moodle grades it.

Moodle knows answers with a grade fraction and feedback; the app knows keys,
tolerances and targeted mistakes. `moodle_question` does that translation once so
both writers give the same grades, and says which mistakes have no place there.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

from tui_course.answers import resolve
from tui_course.content.models import Kind, Mistake, Question, Quiz
from tui_course.maths.expression import ExpressionError

# Question fields the LMS formats have no syntax for. GIFT keeps them in a comment
# Moodle ignores; import reads back only the names the quiz loader accepts (quizzes.py).
CARRIED_FIELDS = ("hints", "tries")


class ExportError(ValueError):
    """A question that cannot be written in the chosen format, said in one line."""


@dataclass(frozen=True)
class MoodleAnswer:
    """One answer row: text (or number), grade in percent, feedback."""

    text: str
    percent: float
    feedback: str = ""
    tolerance: float = 0.0  # numeric only
    number: float = 0.0  # numeric only


@dataclass(frozen=True)
class MoodleQuestion:
    kind: Kind
    prompt: str
    explanation: str
    answers: tuple[MoodleAnswer, ...]
    hints: tuple[str, ...]
    # Mistakes no answer row can hold (a multi mistake that is not "the key plus one").
    unplaced: tuple[Mistake, ...] = ()


def percent_text(value: float) -> str:
    """A grade as Moodle's import expects it: at most 5 decimals (33.33333, -50)."""
    text = f"{value:.5f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def effective_tolerance(question: Question, key: float) -> float:
    """The absolute tolerance the app grades with (rel_tolerance folded in)."""
    return max(question.tolerance, question.rel_tolerance * abs(key))


def number_text(value: float) -> str:
    """Shortest text that reads back as the same float (Python's repr)."""
    return repr(float(value))


def moodle_question(question: Question) -> MoodleQuestion:
    """The question as Moodle answer rows; numeric keys are computed first."""
    try:
        resolved = resolve(question)
    except ExpressionError as error:
        raise ExportError(f"answer_from: {error}") from None
    if resolved.kind is Kind.NUMERIC and not math.isfinite(float(resolved.answer)):
        raise ExportError(f"the key {resolved.answer} is not a finite number")
    answers: list[MoodleAnswer] = []
    unplaced: list[Mistake] = []
    if resolved.kind in (Kind.CHOICE, Kind.MULTI):
        answers, unplaced = _choice_answers(resolved)
    elif resolved.kind is Kind.NUMERIC:
        key = float(resolved.answer)
        tolerance = effective_tolerance(resolved, key)
        answers.append(MoodleAnswer(number_text(key), 100.0, "", tolerance, key))
        for other in getattr(resolved, "also_accepted", ()):  # other readings graded right
            answers.append(MoodleAnswer(number_text(other), 100.0, "", tolerance, float(other)))
        for mistake in resolved.mistakes:
            if mistake.answer is None:
                continue
            wrong = float(mistake.answer)
            answers.append(
                MoodleAnswer(number_text(wrong), 0.0, mistake.feedback, tolerance, wrong)
            )
    else:
        answers.extend(MoodleAnswer(variant, 100.0) for variant in text_keys(resolved))
        for mistake in resolved.mistakes:
            answers.extend(
                MoodleAnswer(variant, 0.0, mistake.feedback) for variant in mistake.answer
            )
    return MoodleQuestion(
        kind=resolved.kind,
        prompt=resolved.prompt,
        explanation=resolved.explanation,
        answers=tuple(answers),
        hints=resolved.hints,
        unplaced=tuple(unplaced),
    )


def quiz_questions(quiz: Quiz) -> Iterator[tuple[int, Question, MoodleQuestion]]:
    """Each question numbered from 1 with its Moodle rows; a failure names file and line."""
    for number, question in enumerate(quiz.questions, start=1):
        try:
            yield number, question, moodle_question(question)
        except ExportError as error:
            where = f"{quiz.path}:{question.line}: question {number}"
            raise ExportError(f"{where}: {error}") from None


def text_keys(question: Question) -> tuple[str, ...]:
    """Every accepted text answer (the key's variants)."""
    return tuple(str(variant) for variant in question.answer)


def multi_weights(right: int, wrong: int) -> tuple[float, float]:
    """Right options share +100 %; wrong ones share -100 %, so ticking everything scores 0."""
    return 100.0 / right, (-100.0 / wrong if wrong else 0.0)


def _choice_answers(question: Question) -> tuple[list[MoodleAnswer], list[Mistake]]:
    feedback: dict[int, str] = {}
    unplaced: list[Mistake] = []
    if question.kind is Kind.CHOICE:
        key_set = frozenset({int(question.answer)})
        for mistake in question.mistakes:
            feedback[int(mistake.answer)] = mistake.feedback
        right_percent, wrong_percent = 100.0, 0.0
    else:
        key_set = frozenset(question.answer)
        for mistake in question.mistakes:
            extra = frozenset(mistake.answer) - key_set
            # Moodle shows an option's feedback whenever it is ticked: that matches the
            # app's "the key plus this wrong option" and nothing else.
            if len(extra) == 1 and key_set <= mistake.answer and min(extra) not in feedback:
                feedback[min(extra)] = mistake.feedback
            else:
                unplaced.append(mistake)
        right_percent, wrong_percent = multi_weights(
            len(key_set), len(question.options) - len(key_set)
        )
    answers = [
        MoodleAnswer(
            option,
            right_percent if number in key_set else wrong_percent,
            feedback.get(number, ""),
        )
        for number, option in enumerate(question.options, start=1)
    ]
    return answers, unplaced
