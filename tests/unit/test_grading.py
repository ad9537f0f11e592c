from __future__ import annotations

import pytest

from tui_course.answers import read_number
from tui_course.content.grading import (
    AmbiguousNumber,
    AnswerFormatError,
    normalise_text,
    parse_number,
)
from tui_course.content.kinds import grade
from tui_course.content.models import Kind, Mistake, NumericSpec, Question


def q(kind: Kind, **fields: object) -> Question:
    return Question(kind=kind, prompt="p", explanation="e", line=1, **fields)  # type: ignore[arg-type]


CHOICE = q(Kind.CHOICE, options=("a", "b", "c"), answer=2, mistakes=(Mistake(3, "c is tempting"),))
MULTI = q(Kind.MULTI, options=("a", "b", "c"), answer=frozenset({1, 3}))
NUMERIC = q(
    Kind.NUMERIC,
    answer=0.67,
    numeric=NumericSpec(tolerance=0.005),
    mistakes=(Mistake(0.5, "you forgot to scale"),),
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
    relative = q(Kind.NUMERIC, answer=1000.0, numeric=NumericSpec(rel_tolerance=0.01))
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
    assert normalise_text('"Hello,  World!"') == "hello,world"


def test_numeric_key_must_be_resolved() -> None:
    with pytest.raises(ValueError, match="not resolved"):
        grade(q(Kind.NUMERIC, answer=None, numeric=NumericSpec(answer_from="sqrt(2)")), "1.41")


def test_decimal_comma_and_fractions() -> None:
    assert parse_number("0,67") == 0.67
    assert parse_number("-0,5") == -0.5
    assert parse_number("2/3") == 2 / 3
    with pytest.raises(AnswerFormatError):
        parse_number("1,000.5")  # a comma with a point is not a decimal comma
    assert grade(NUMERIC, "0,67").correct
    assert grade(NUMERIC, "0,67").read_as == 0.67


@pytest.mark.parametrize("typed", ["14,049", "1,000", "-1,000", "999,999"])
def test_a_comma_before_three_digits_is_asked_about_not_guessed(typed: str) -> None:
    """14,049 parameters or 14.049? Grading either reading would mark someone wrong."""
    whole, point = typed.replace(",", ""), typed.replace(",", ".")
    with pytest.raises(AmbiguousNumber, match=f"could mean {whole} or {point}"):
        parse_number(typed)
    with pytest.raises(AmbiguousNumber):
        read_number(typed)  # the expression reader must not take it as 14.049 either


def test_unambiguous_commas_read_one_way() -> None:
    assert parse_number("1,000,000") == 1_000_000  # only a thousands separator
    assert parse_number("14,049,000") == 14_049_000
    assert parse_number("0,500") == 0.5  # a whole part of 0: a decimal comma
    assert parse_number("1,5") == 1.5
    assert parse_number("12,3456") == 12.3456  # four decimals: not a thousands group


@pytest.mark.parametrize(
    ("typed", "key"),
    [
        ("X0 - X3", "x0-x3"),
        ("x[0], x[1], x[2], x[3]", "x0-x3"),
        ("x_0 .. x_3", "x0-x3"),
        ("x0 to x3", "x0,x1,x2,x3"),
        ("[2, 10, 256]", "(2, 10, 256)"),
        ("{2,10,256}", "(2,10,256)"),
        ("0-3", "0, 1, 2, 3"),
        ("  The   street. ", "the street"),
        ("[x0, x1, x2, x3]", "x0-x3"),  # a list in brackets is the list
        ("(x0..x3)", "x0-x3"),
        ("2, 10, 256", "(2, 10, 256)"),
        ("((2, 10, 256)).", "(2, 10, 256)"),
    ],
)
def test_normalisation_accepts_the_same_answer_written_differently(typed: str, key: str) -> None:
    assert normalise_text(typed) == normalise_text(key)


@pytest.mark.parametrize(
    ("typed", "key"),
    [
        ("x0-x2", "x0-x3"),
        ("x4-x7", "x0-x3"),
        ("x0, x2, x4, x6", "x0-x3"),
        ("(2, 256, 10)", "(2, 10, 256)"),
        ("0-3-5", "0,1,2,3,4,5"),  # not a range: left as typed
        ("1-100", "1,2"),  # longer than MAX_RANGE: not expanded
        ("(2, 10)(256)", "2, 10, 256"),  # two groups, not one enclosing pair
        ("f(x)", "x"),
    ],
)
def test_normalisation_keeps_different_answers_apart(typed: str, key: str) -> None:
    assert normalise_text(typed) != normalise_text(key)


def test_numeric_also_accepted_readings() -> None:
    question = q(
        Kind.NUMERIC,
        answer=28.0,
        numeric=NumericSpec(also_accepted=(29.0,)),
        mistakes=(Mistake(30.0, "f"),),
    )
    assert grade(question, "28").correct and grade(question, "29").correct
    wrong = grade(question, "30")
    assert not wrong.correct and wrong.feedback == "f" and wrong.expected == "28"


SHAPE = Question(
    Kind.TEXT,
    "What is the output shape? Write it like (a, b, c).",
    "",
    1,
    answer=("(2, 10, 256)",),
    mistakes=(Mistake(("(10, 2, 256)",), "Batch first."),),
)


@pytest.mark.parametrize("typed", ["2 x 10 x 256", "2*10*256", "shape 2 by 10 by 256"])
def test_the_right_numbers_in_another_form_get_a_format_hint_not_a_verdict(typed: str) -> None:
    with pytest.raises(AnswerFormatError, match=r"in the form \(a, b, c\): this costs no try"):
        grade(SHAPE, typed)


def test_a_format_hint_never_hides_a_wrong_answer_or_a_known_mistake() -> None:
    assert not grade(SHAPE, "(2, 256)").correct  # other numbers: graded, and wrong
    assert not grade(SHAPE, "2 x 256 x 10").correct  # same numbers, other order: wrong
    assert grade(SHAPE, "(10, 2, 256)").feedback == "Batch first."
    with pytest.raises(AnswerFormatError):  # a known mistake in another form: say the form
        grade(SHAPE, "10 x 2 x 256")
    assert grade(SHAPE, "[2, 10, 256]").correct  # a form the normalisation already reads
