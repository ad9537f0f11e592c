"""How a numeric answer box reads what a student types (tui_course.answers.read_number)."""

from __future__ import annotations

import pytest

from tui_course.answers import read_number
from tui_course.content.grading import AnswerFormatError


def test_numbers_commas_fractions_and_expressions() -> None:
    assert read_number("0,67") == 0.67
    assert read_number("3/4") == 0.75
    assert read_number("1/sqrt(2)") == pytest.approx(0.70710678)
    assert read_number("e^0.707/(e^0.707 + 1)") == pytest.approx(0.66974, abs=1e-5)
    assert read_number("2,5*2") == 5.0
    assert read_number("sin(1)") == pytest.approx(0.84147, abs=1e-5)


@pytest.mark.parametrize(
    "hostile",
    [
        "9**9**9",  # an enormous integer: read as floats, it overflows at once
        "positional_encoding(100000, 100000)",  # not a scalar function
        "__import__('os')",
        "[1, 2][0]",
        "log(0)",
        "1/0",
        "sqrt(" + "1" * 100 + ")",  # longer than an answer expression may be
        "sqrt",
    ],
)
def test_what_is_not_a_number_is_refused_quickly(hostile: str) -> None:
    with pytest.raises(AnswerFormatError):
        read_number(hostile)


@pytest.mark.parametrize("unreadable", ["x4", "qhnar", "1/0", "sqrt(-1)", "0.670.", "1e999"])
def test_every_unreadable_answer_gets_the_same_message_naming_what_the_box_takes(
    unreadable: str,
) -> None:
    with pytest.raises(AnswerFormatError) as caught:
        read_number(unreadable)
    assert str(caught.value) == (
        "Type a number (0.25 or 0,25), a fraction like 2/3, or an expression like 1/sqrt(2)."
    )


def test_nan_asks_for_a_finite_number() -> None:
    with pytest.raises(AnswerFormatError, match=r"^Type a finite number\.$"):
        read_number("nan")
