"""The quiz schema's new keys (tries, numeric answer lists) and what validate proves
about text keys."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui_course.answers import prove_quiz
from tui_course.content.errors import ContentError
from tui_course.content.models import NumericSpec
from tui_course.content.quizzes import load_quiz

HEAD = 'id = "q"\ntitle = "Q"\n'


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "q.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_tries_at_quiz_and_question_level(tmp_path: Path) -> None:
    quiz = load_quiz(
        write(
            tmp_path,
            HEAD + 'tries = 2\n[[question]]\nkind = "text"\nprompt = "p"\nexplanation = "e"\n'
            'answer = "a"\ntries = 5\n[[question]]\nkind = "numeric"\nprompt = "p"\n'
            'explanation = "e"\nanswer = [28, 29]\n',
        )
    )
    assert quiz.tries == 2 and quiz.questions[0].tries == 5 and quiz.questions[1].tries is None
    numeric = quiz.questions[1]
    assert (numeric.answer, numeric.numeric_spec.also_accepted) == (28.0, (29.0,))


def test_numeric_fields_are_the_numeric_question_s_own(tmp_path: Path) -> None:
    """Written in the question's table as before, read into its NumericSpec; no other kind
    carries one."""
    quiz = load_quiz(
        write(
            tmp_path,
            HEAD + '[[question]]\nkind = "numeric"\nprompt = "p"\nexplanation = "e"\n'
            'answer_from = "1/sqrt(2)"\ntolerance = 0.001\nrel_tolerance = 0.01\n'
            '[[question]]\nkind = "numeric"\nprompt = "p"\nexplanation = "e"\nanswer = 0.5\n'
            '[[question]]\nkind = "text"\nprompt = "p"\nexplanation = "e"\nanswer = "a"\n',
        )
    )
    computed, exact, text = quiz.questions
    assert computed.numeric == NumericSpec("1/sqrt(2)", 0.001, 0.01, ())
    assert computed.answer is None and not computed.numeric.exact
    assert computed.numeric.margin(10.0) == pytest.approx(0.1)
    assert exact.numeric == NumericSpec() and exact.numeric.exact
    assert text.numeric is None


@pytest.mark.parametrize("value", ["0", "10", "true", '"3"'])
def test_bad_tries_name_the_line(tmp_path: Path, value: str) -> None:
    path = write(
        tmp_path,
        HEAD + '[[question]]\nkind = "text"\nprompt = "p"\nexplanation = "e"\nanswer = "a"\n'
        f"tries = {value}\n",
    )
    with pytest.raises(ContentError) as caught:
        load_quiz(path, tmp_path)
    assert str(caught.value).startswith("q.toml:8: question 1:")
    assert "tries" in str(caught.value)


def test_validate_finds_keys_accepted_twice(tmp_path: Path) -> None:
    quiz = load_quiz(
        write(
            tmp_path,
            HEAD + '[[question]]\nkind = "text"\nprompt = "p"\nexplanation = "e"\n'
            'answer = ["x0-x3", "x[0], x[1], x[2], x[3]", "(2, 3)"]\n',
        ),
        tmp_path,
    )
    assert [str(problem) for problem in prove_quiz(quiz)] == [
        "q.toml:3: question 1: answer 'x[0], x[1], x[2], x[3]' is accepted twice: it reads as"
        " 'x0-x3' (x0,x1,x2,x3)",
    ]


def test_a_mistake_that_reads_as_a_key_is_refused(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        HEAD + '[[question]]\nkind = "text"\nprompt = "p"\nexplanation = "e"\n'
        'answer = ["(2, 3)"]\n[[question.mistake]]\nanswer = ["[2,3]"]\nfeedback = "f"\n',
    )
    with pytest.raises(ContentError, match=r"mistake's answer '\[2,3\]' reads as a key \(2,3\)"):
        load_quiz(path, tmp_path)


def test_numeric_mistake_equal_to_an_accepted_reading_is_reported(tmp_path: Path) -> None:
    quiz = load_quiz(
        write(
            tmp_path,
            HEAD + '[[question]]\nkind = "numeric"\nprompt = "p"\nexplanation = "e"\n'
            'answer = [28, 29]\n[[question.mistake]]\nanswer = 29\nfeedback = "f"\n',
        ),
        tmp_path,
    )
    assert [str(p) for p in prove_quiz(quiz)] == [
        "q.toml:3: question 1 mistake 1: its answer 29 would be graded correct"
    ]
