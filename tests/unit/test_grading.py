from __future__ import annotations

import pytest

from tui_course.content.grading import (
    AnswerFormatError,
    grade,
    normalise_text,
    parse_number,
)
from tui_course.content.models import Kind, Mistake, Question
from tui_course.content.session import QuizSession


def q(kind: Kind, **fields: object) -> Question:
    return Question(kind=kind, prompt="p", explanation="e", line=1, **fields)  # type: ignore[arg-type]


CHOICE = q(Kind.CHOICE, options=("a", "b", "c"), answer=2, mistakes=(Mistake(3, "c is tempting"),))
MULTI = q(Kind.MULTI, options=("a", "b", "c"), answer=frozenset({1, 3}))
NUMERIC = q(
    Kind.NUMERIC, answer=0.67, tolerance=0.005, mistakes=(Mistake(0.5, "you forgot to scale"),)
)
TEXT = q(Kind.TEXT, answer=("the street", "street"), mistakes=(Mistake(("the animal",), "tired"),))


def test_choice() -> None:
    assert grade(CHOICE, "2").correct
    wrong = grade(CHOICE, "3")
    assert not wrong.correct and wrong.feedback == "c is tempting"
    assert wrong.expected == "2. b"
    assert grade(CHOICE, "1").feedback is None
    with pytest.raises(AnswerFormatError, match="Options are numbered 1 to 3"):
        grade(CHOICE, "4")
    with pytest.raises(AnswerFormatError, match="exactly one"):
        grade(CHOICE, "1,2")
    with pytest.raises(AnswerFormatError, match="Pick an option"):
        grade(CHOICE, "")


def test_multi_needs_the_exact_set() -> None:
    assert grade(MULTI, "3,1").correct
    assert not grade(MULTI, "1").correct
    assert not grade(MULTI, "1,2,3").correct
    assert grade(MULTI, "1").expected == "1. a; 3. c"


def test_numeric_tolerance_and_targeted_feedback() -> None:
    assert grade(NUMERIC, "0.67").correct
    assert grade(NUMERIC, "0.674").correct
    assert grade(NUMERIC, "67%").correct
    assert not grade(NUMERIC, "0.676").correct
    mistake = grade(NUMERIC, "0.502")
    assert not mistake.correct and mistake.feedback == "you forgot to scale"
    assert mistake.expected == "0.670"
    with pytest.raises(AnswerFormatError, match="Type a number"):
        grade(NUMERIC, "abc")


def test_numeric_relative_tolerance_and_exact_default() -> None:
    relative = q(Kind.NUMERIC, answer=1000.0, rel_tolerance=0.01)
    assert grade(relative, "1009").correct and not grade(relative, "1011").correct
    exact = q(Kind.NUMERIC, answer=29.0)
    assert grade(exact, "29").correct and not grade(exact, "29.001").correct


def test_parse_number_forms() -> None:
    assert parse_number(" 1/4 ") == 0.25
    assert parse_number("-1.5e-1") == -0.15
    for bad in ("1/0", "nan", "inf", "x"):
        with pytest.raises(AnswerFormatError):
            parse_number(bad)


def test_text_is_case_space_and_punctuation_insensitive() -> None:
    assert grade(TEXT, "  The   STREET. ").correct
    assert grade(TEXT, "street").correct
    wrong = grade(TEXT, "The animal")
    assert not wrong.correct and wrong.feedback == "tired"
    assert normalise_text('"Hello,  World!"') == "hello, world"


def test_numeric_key_must_be_resolved() -> None:
    with pytest.raises(ValueError, match="not resolved"):
        grade(q(Kind.NUMERIC, answer=None, answer_from="sqrt(2)"), "1.41")


def test_session_scores_first_tries_and_retries_missed() -> None:
    from tui_course.content.models import Quiz

    quiz = Quiz("x", "X", "x.toml", (CHOICE, MULTI, NUMERIC))
    session = QuizSession.start(quiz, quiz.questions)
    session.count(session.check("3"))  # wrong first
    session.count(session.check("2"))  # right on retry: does not raise the score
    session.advance()
    session.count(session.check("1,3"))
    session.advance()
    assert session.reveal_hint() is None  # no hints on this question
    session.advance()  # skipped the numeric one
    assert session.finished
    assert session.correct_count == 1
    assert session.missed == (0, 2)
    again = session.retry_missed()
    assert again.order == (0, 2) and not again.is_full_run and again.number == 1
