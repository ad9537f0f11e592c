"""Numbers in quizzes are finite and tolerances sane, or the file is refused with its line."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui_course.answers import prove_quiz
from tui_course.content.errors import ContentError
from tui_course.content.quizzes import load_quiz

HEAD = 'id = "q"\ntitle = "t"\n\n[[question]]\nkind = "numeric"\nprompt = "?"\nexplanation = "."\n'


def quiz_file(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "q.toml"
    path.write_text(HEAD + body, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("answer = nan\n", "q.toml:8: question 1: 'answer' must be a finite number, not nan"),
        ("answer = -inf\n", "q.toml:8: question 1: 'answer' must be a finite number, not -inf"),
        ("answer = 1\ntolerance = inf\n", "q.toml:9: question 1: 'tolerance' must be a finite"),
        ("answer = 1\ntolerance = nan\n", "q.toml:9: question 1: 'tolerance' must be a finite"),
        ("answer = 1\nrel_tolerance = nan\n", "q.toml:9: question 1: 'rel_tolerance' must be"),
        ("answer = 1\ntolerance = -1\n", "q.toml:9: question 1: 'tolerance' must be a finite"),
        (
            "answer = 2.0\ntolerance = 1e308\n",
            "q.toml:9: question 1: tolerance 1e+308 is wider than 10 times the key 2",
        ),
        (
            "answer = 0.5\nrel_tolerance = 50\n",
            "q.toml:9: question 1: tolerance 25 is wider than 10 times the key 0.5",
        ),
        (
            'answer = 1\n[[question.mistake]]\nanswer = nan\nfeedback = "f"\n',
            "q.toml:10: question 1 mistake 1: 'answer' must be a finite number, not nan",
        ),
    ],
)
def test_bad_numbers_are_refused_with_their_line(tmp_path: Path, body: str, message: str) -> None:
    with pytest.raises(ContentError) as raised:
        load_quiz(quiz_file(tmp_path, body), tmp_path)
    assert str(raised.value).startswith(message)


@pytest.mark.parametrize(
    "body", ["answer = 0\ntolerance = 0.01\n", "answer = 100\ntolerance = 5\n"]
)
def test_sensible_tolerances_pass(tmp_path: Path, body: str) -> None:
    load_quiz(quiz_file(tmp_path, body), tmp_path)


def test_a_computed_key_is_checked_against_its_tolerance(tmp_path: Path) -> None:
    quiz = load_quiz(quiz_file(tmp_path, 'answer_from = "sin(2)"\ntolerance = 100\n'), tmp_path)
    (problem,) = prove_quiz(quiz)
    assert str(problem).startswith("q.toml:4: question 1: tolerance 100 is wider than 10 times")


@pytest.mark.parametrize("typed", ["1" + "0" * 4000 + "/3", "9" * 5000, "1e999", "nan", "-inf%"])
def test_hostile_typed_numbers_get_a_message_not_a_crash(typed: str) -> None:
    from tui_course.content.grading import AnswerFormatError, parse_number

    with pytest.raises(AnswerFormatError):
        parse_number(typed)


def test_a_mistake_computed_from_an_expression_gets_its_feedback(tmp_path: Path) -> None:
    """A numeric mistake's answer_from is the numeric kind's own field (NumericSpec), by the
    mistake's position; a mistake with a plain answer beside it keeps that answer."""
    from tui_course.answers import resolve
    from tui_course.content.kinds import grade
    from tui_course.study import needs_expressions

    body = (
        'answer_from = "cos(2)"\ntolerance = 0.001\n'
        '[[question.mistake]]\nanswer = 0.999\nfeedback = "Degrees, not radians."\n'
        '[[question.mistake]]\nanswer_from = "sin(2)"\nfeedback = "That is the sine."\n'
    )
    quiz = load_quiz(quiz_file(tmp_path, body), tmp_path)
    (question,) = quiz.questions
    assert question.numeric_spec.mistakes_from == (None, "sin(2)")
    assert [m.answer for m in question.mistakes] == [0.999, None]
    assert needs_expressions(quiz)
    resolved = resolve(question)
    assert resolved.mistakes[1].answer == pytest.approx(0.909297, abs=1e-6)
    assert grade(resolved, "0.9093").feedback == "That is the sine."
    assert grade(resolved, "0.999").feedback == "Degrees, not radians."
    right = grade(resolved, "-0.4161")
    assert right.correct and right.feedback is None


def test_only_plain_mistakes_need_no_expressions(tmp_path: Path) -> None:
    from tui_course.study import needs_expressions

    body = 'answer = 0.5\n[[question.mistake]]\nanswer = 2\nfeedback = "Upside down."\n'
    quiz = load_quiz(quiz_file(tmp_path, body), tmp_path)
    assert quiz.questions[0].numeric_spec.mistakes_from == ()
    assert not needs_expressions(quiz)
