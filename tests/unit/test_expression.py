from __future__ import annotations

import math

import pytest

from tui_course.maths.expression import ExpressionError, evaluate_number, shared_budget


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


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("9**9**9", "exponent 387420489 is beyond 64"),
        ("2**64", "beyond 2\\*\\*53"),
        ("2**53 * 2**53", "whole number beyond"),
        ("10.0 ** 400", "expression failed"),
        ("positional_encoding(10**9, 512)[0][0]", "positions must be between 0 and 1024"),
        ("positional_encoding(4, 10**6)[0][0]", "d_model must be between 1 and 1024"),
        ("sum(causal_mask(100000))", "causal_mask: size must be between 0 and 256"),
        ("+".join(["1"] * 3000), "longer than 1000 characters"),
        ("sum([" + ",".join(["1"] * 400) + "])", "more than 300 parts"),
        ("-" * 100 + "1", "nested more than 40 deep"),
        ("sum(position_similarity(positional_encoding(1024, 64)))", "1024 x 1024 is larger"),
        (
            "dot(positional_encoding(1024, 64), positional_encoding(64, 1024))[0][0]",
            "1024 x 1024 is larger",
        ),
        (
            "sum(attention_loop(positional_encoding(100, 4), positional_encoding(100, 4),"
            " positional_encoding(100, 4))[0])",
            "10000 query-key pairs",
        ),
        ("sum(positional_encoding(2, 4, axis=0))", "unexpected keyword"),
        ("sum([1, 2], out=[0])", "keyword 'out' is not allowed"),
        ("exp(1000)", "finite"),
    ],
)
def test_expressions_beyond_what_a_lesson_needs_are_refused(text: str, message: str) -> None:
    with pytest.raises(ExpressionError, match=message):
        evaluate_number(text)


def test_a_lesson_sized_expression_still_works() -> None:
    total = evaluate_number("sum(position_similarity(positional_encoding(64, 512)))")
    assert 0 < total < 64 * 64
    assert evaluate_number("2 ** 53") == 2.0**53


def test_a_shared_budget_stops_many_expensive_keys_in_one_file() -> None:
    expensive = "sum(positional_encoding(64, 512) @ positional_encoding(512, 64))"
    evaluate_number(expensive)  # one is fine
    with shared_budget(), pytest.raises(ExpressionError, match="this file's answer expressions"):
        for _ in range(1000):
            evaluate_number(expensive)
    evaluate_number(expensive)  # the budget was for that file only


def test_resource_errors_in_the_maths_become_expression_errors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tui_course.maths import expression

    for error in (MemoryError(), RecursionError(), OverflowError("big"), FloatingPointError()):

        def broken(*_: object, error: BaseException = error) -> None:
            raise error

        monkeypatch.setitem(expression.NAMES, "softmax", broken)
        with pytest.raises(ExpressionError):
            evaluate_number("softmax([1, 2])")
