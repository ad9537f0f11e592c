"""A tiny, safe expression language for quiz keys: numbers, lists and maths calls.

Quiz authors write `answer_from = "positional_encoding(2, 4)[1][0]"`; the
validator recomputes the key instead of trusting a typed number. Only the names
below are callable and there is no attribute access, so a content file cannot
run arbitrary code.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from tui_course.maths.attention import (
    attention_loop,
    causal_mask,
    merge_heads,
    scaled_dot_product_attention,
    softmax,
    split_heads,
)
from tui_course.maths.positional import position_similarity, positional_encoding


class ExpressionError(ValueError):
    pass


NAMES: dict[str, Any] = {
    "softmax": softmax,
    "scaled_dot_product_attention": scaled_dot_product_attention,
    "attention_loop": attention_loop,
    "causal_mask": causal_mask,
    "split_heads": split_heads,
    "merge_heads": merge_heads,
    "positional_encoding": positional_encoding,
    "position_similarity": position_similarity,
    "array": np.asarray,
    "dot": np.dot,
    "sum": np.sum,
    "mean": np.mean,
    "max": np.max,
    "min": np.min,
    "sqrt": np.sqrt,
    "exp": np.exp,
    "log": np.log,
    "sin": np.sin,
    "cos": np.cos,
    "abs": np.abs,
    "pi": math.pi,
    "e": math.e,
}

_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
    ast.MatMult: operator.matmul,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
}


def evaluate(text: str) -> Any:
    """Evaluate an expression over NAMES; raise ExpressionError with a readable reason."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as error:
        raise ExpressionError(f"cannot parse expression: {error.msg}") from None
    try:
        return _eval(tree.body)
    except ExpressionError:
        raise
    except (ValueError, TypeError, IndexError, ZeroDivisionError, OverflowError) as error:
        raise ExpressionError(f"expression failed: {error}") from None


def evaluate_number(text: str) -> float:
    value = evaluate(text)
    array = np.asarray(value)
    if array.size != 1 or not np.issubdtype(array.dtype, np.number):
        raise ExpressionError(
            f"expression gives {array.shape or type(value).__name__}, not a number"
        )
    number = float(array.reshape(()))
    if not math.isfinite(number):
        raise ExpressionError("expression does not give a finite number")
    return number


def _eval(node: ast.AST) -> Any:
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, int | float)
        and not isinstance(node.value, bool)
    ):
        return node.value
    if isinstance(node, ast.Constant) and isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in NAMES:
            raise ExpressionError(f"unknown name '{node.id}' (allowed: {', '.join(sorted(NAMES))})")
        return NAMES[node.id]
    if isinstance(node, ast.List | ast.Tuple):
        return [_eval(item) for item in node.elts]
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _eval(node.left), _eval(node.right)
        if isinstance(left, list):
            left = np.asarray(left, dtype=np.float64)
        if isinstance(right, list):
            right = np.asarray(right, dtype=np.float64)
        return _BINARY[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_eval(node.operand))
    if isinstance(node, ast.Subscript):
        return np.asarray(_eval(node.value))[_index(node.slice)]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        function = _eval(node.func)
        if not callable(function):
            raise ExpressionError(f"'{node.func.id}' is not a function")
        args = [_eval(arg) for arg in node.args]
        kwargs = {kw.arg: _eval(kw.value) for kw in node.keywords if kw.arg is not None}
        if len(kwargs) != len(node.keywords):
            raise ExpressionError("**kwargs are not allowed")
        return function(*args, **kwargs)
    raise ExpressionError(f"'{ast.unparse(node)}' is not allowed in an answer expression")


def _index(node: ast.AST) -> Any:
    if isinstance(node, ast.Tuple):
        return tuple(_index(item) for item in node.elts)
    if isinstance(node, ast.Slice):
        parts = (node.lower, node.upper, node.step)
        return slice(*(None if part is None else int(_eval(part)) for part in parts))
    value = _eval(node)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ExpressionError("indexes must be whole numbers")
    return value
