"""The words a quiz says, for the quiz screen and for plain mode alike.

Pure (no Textual): the quiz widget and `attn-tui --plain` both draw a QuizSession with
these, so a verdict, a summary or a "read as" line is worded in one place.
"""

from __future__ import annotations

import textwrap

from tui_course.content.grading import AnswerFormatError, expected_text, format_number
from tui_course.content.models import Kind, Question
from tui_course.content.session import Outcome, PassKind, QuizSession

MAX_LISTED_MISSES = 20  # a summary lists at most this many missed questions

QUIZ_RULES = (
    "A wrong answer gets a pointer or the next hint, then you try again. The answer "
    "and explanation show once you get it right, run out of tries, or press **v** "
    "(that counts as revealed). Your **first-try** score is the one that counts; "
    "going through again later never changes it."
)


def intro_text(session: QuizSession) -> str:
    """The quiz's intro (Markdown), then how a quiz works."""
    intro = session.quiz.intro or ""
    return f"{intro}\n\n{QUIZ_RULES}" if intro else QUIZ_RULES


def position_text(session: QuizSession) -> str:
    """'Question 2 of 5 (again: ...) | Quiz title'."""
    position = f"Question {session.position + 1} of {len(session.order)}"
    if session.kind is PassKind.RETRY:
        position += " (again: the first-try score stays)"
    elif session.kind is PassKind.REVIEW:
        quiz_id = session.review_of.get(session.index, session.quiz.id)
        position += f" (review, from {quiz_id})"
    return f"{position} | {session.quiz.title}"


def not_yet_text(session: QuizSession) -> str:
    """After a wrong answer that leaves tries."""
    left = session.tries_left
    return f"Not yet. {left} {'try' if left == 1 else 'tries'} left."


def closed_text(session: QuizSession) -> str:
    """The verdict once a question is closed, with the key for typed answers."""
    state = session.state
    question = session.question
    if state.outcome is Outcome.RIGHT:
        lines = ["Correct." + (" First try." if state.tries_used == 1 else "")]
        if state.tries_used == 1 and session.kind is not PassKind.FIRST:
            lines = ["Correct. First try this time."]  # the first-try score is not this one
    elif state.outcome is Outcome.REVEALED:
        lines = ["Answer shown (recorded as revealed)."]
    elif state.outcome is Outcome.SKIPPED:
        lines = ["Skipped."]
    else:
        lines = ["Not quite, and that was the last try."]
    verdict = state.verdict
    if state.outcome is not Outcome.RIGHT:
        if state.last_answer and question.kind in (Kind.NUMERIC, Kind.TEXT):
            lines.append(f"You answered {state.last_answer}.")
        if verdict is not None and verdict.feedback and state.outcome is Outcome.WRONG:
            lines.append(verdict.feedback)
    if question.kind in (Kind.NUMERIC, Kind.TEXT):
        lines.append(f"The answer: {expected_text(question)}")
    return "\n".join(lines)


def explanation_text(session: QuizSession) -> str:
    return f"**Why:** {session.question.explanation}"


def reading(value: float, question: Question) -> str:
    """A number as the student should recognise it: the key's precision, no float noise."""
    return format_number(value, question) if question.tolerance > 0 else f"{value:.6g}"


def read_as_text(session: QuizSession, raw: str) -> str | None:
    """'read as 0.707' for a numeric answer (None for other kinds or an empty answer)."""
    if session.question.kind is not Kind.NUMERIC or not raw.strip():
        return None
    try:
        value = session.read_number(raw)
    except AnswerFormatError:
        return "read as: not a number yet"
    return f"read as {reading(value, session.question)}"


def first_words(text: str, width: int = 60) -> str:
    """A prompt cut to about a line at a word boundary: "k1 = [1, 0] ...", not "... a..."."""
    short = textwrap.shorten(text, width, placeholder=" ...")
    return short if short != "..." else " ".join(text.split())[: width - 3] + "..."


def summary_lines(
    session: QuizSession, mastered: int | None, first_try_score: int | None
) -> list[str]:
    """The end of a pass, as Markdown lines. `mastered` (any pass) and `first_try_score`
    (the quiz's, for a retry) come from the store; None when it cannot say."""
    total = len(session.order)
    lines: list[str] = []
    if session.kind is PassKind.FIRST:
        lines.append(
            f"**First-try score: {session.first_try_count} of {total}.** "
            f"Right in the end, without showing the answer: {session.right_count} of {total}."
        )
        if mastered is not None and mastered > session.right_count:
            lines.append(
                f"Since then (going again or in review): {mastered} of {total} "
                "right without showing the answer."
            )
    else:
        lines.append(f"This time: {session.right_count} of {total} right.")
        if session.kind is PassKind.REVIEW:
            lines.append(
                "Each question comes back later: sooner if you missed it, "
                "later and later as you get it right."
            )
        if session.kind is PassKind.RETRY and first_try_score is not None:
            count = len(session.questions)
            lines.append(f"Your first-try score stays {first_try_score} of {count}.")
    if session.missed and session.kind is not PassKind.REVIEW:
        lines += ["", "Not right on the first try:", ""]
        for index in session.missed[:MAX_LISTED_MISSES]:
            lines.append(f"- {index + 1}. {first_words(session.questions[index].prompt)}")
        if len(session.missed) > MAX_LISTED_MISSES:
            lines.append(f"- ... and {len(session.missed) - MAX_LISTED_MISSES} more")
    return lines
