from __future__ import annotations

import math

import pytest

from tui_course.maths.expression import ExpressionError, evaluate_number


def test_expressions_over_the_maths_api() -> None:
    assert evaluate_number("positional_encoding(3, 4)[2][1]") == pytest.approx(math.cos(2))
    assert evaluate_number("split_heads([[3, 1, 4, 1, 5, 9, 2, 6]], 2)[1][0][0]") == 5
    weight = evaluate_number(
        "scaled_dot_product_attention([[1, 0]], [[1, 0], [0, 1]], [[1, 0], [0, 1]])[1][0][0]"
    )
    assert weight == pytest.approx(math.exp(1 / math.sqrt(2)) / (math.exp(1 / math.sqrt(2)) + 1))
    assert evaluate_number("-(2 ** 3) / 4 + sqrt(16)") == 2.0


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("__import__('os')", "unknown name '__import__'"),
        ("(lambda: 1)()", "is not allowed"),
        ("softmax.__globals__", "is not allowed"),
        ("open('x')", "unknown name 'open'"),
        ("positional_encoding(2, 4)", "not a number"),
        ("1 +", "cannot parse"),
        ("pi(2)", "'pi' is not a function"),
        ("positional_encoding(2, 4)[9][0]", "expression failed"),
        ("1 / 0", "expression failed"),
    ],
)
def test_rejected_expressions(text: str, message: str) -> None:
    with pytest.raises(ExpressionError, match=message):
        evaluate_number(text)
