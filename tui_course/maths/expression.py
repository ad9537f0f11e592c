"""A tiny, safe expression language for quiz keys: numbers, lists and maths calls.

Quiz authors write `answer_from = "positional_encoding(2, 4)[1][0]"`; the
validator recomputes the key instead of trusting a typed number. Only the names
below are callable and there is no attribute access, so a content file cannot
run arbitrary code.

Content files are not trusted to be small either: `9**9**9`,
`positional_encoding(10**9, 512)` or a 3,000-term sum would hang or exhaust
memory. So the text, the syntax tree (nodes and depth), integers, exponents and
every array are capped, the size and cost of each operation is checked *before*
it runs, and all of an expression's work is charged to a budget (and, inside
`shared_budget()`, to one budget for a whole quiz file).
"""

from __future__ import annotations

import ast
import contextvars
import math
import operator
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
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


# What a lesson needs is far below these: the course's figures use at most
# 64 positions and 512 dimensions (32,768 numbers).
MAX_TEXT = 1_000  # characters in one expression
MAX_NODES = 300  # syntax-tree nodes in one expression
MAX_DEPTH = 40  # nesting of the syntax tree
MAX_EXPONENT = 64  # for integer powers
MAX_INT = 2**53  # whole numbers beyond this are not exact as floats anyway
MAX_ELEMENTS = 65_536  # numbers in any one array
MAX_LOOP_PAIRS = 4_096  # query-key pairs attention_loop may visit (it is a Python loop)
MAX_POSITIONS = 1_024
MAX_DIM = 1_024
MAX_START = 1_000_000
# Work is counted in array elements touched; one node costs about as much Python time
# as NODE_COST element operations in NumPy.
NODE_COST = 1_000
EXPRESSION_BUDGET = 20_000_000
FILE_BUDGET = 50_000_000  # one quiz file, all its expressions together
_OP_LIMIT = 16_777_216  # elements touched by one operation


class BudgetExceeded(ExpressionError):
    """The work budget (of one expression or of a whole file) is spent."""


class Budget:
    """Work left for evaluation; ExpressionError once it is spent."""

    def __init__(self, units: int, what: str) -> None:
        self.left = units
        self.what = what

    def charge(self, units: int) -> None:
        self.left -= units
        if self.left < 0:
            raise BudgetExceeded(f"{self.what} need more computing than quiz keys may use")


_SHARED: contextvars.ContextVar[Budget | None] = contextvars.ContextVar(
    "expression_budget", default=None
)


@contextmanager
def shared_budget(units: int = FILE_BUDGET) -> Iterator[Budget]:
    """Charge every expression evaluated inside to one budget (one per quiz file)."""
    budget = Budget(units, "this file's answer expressions together")
    token = _SHARED.set(budget)
    try:
        yield budget
    finally:
        _SHARED.reset(token)


def _shape(value: Any) -> tuple[int, ...]:
    if isinstance(value, np.ndarray):
        return tuple(value.shape)
    if isinstance(value, list | tuple):
        return tuple(np.shape(np.asarray(value, dtype=np.float64)))
    return ()


def _size(shape: Sequence[int]) -> int:
    return math.prod(shape)


def _whole(value: Any, what: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ExpressionError(f"{what} must be a whole number")
    if not low <= value <= high:
        raise ExpressionError(f"{what} must be between {low} and {high}, got {value}")
    return int(value)


def _elements(args: Sequence[Any]) -> int:
    return sum(_size(_shape(arg)) for arg in args)


def _cost_positional_encoding(
    num_positions: Any = 0, d_model: Any = 1, start: Any = 0, *_: Any
) -> int:
    positions = _whole(num_positions, "positional_encoding: positions", 0, MAX_POSITIONS)
    dim = _whole(d_model, "positional_encoding: d_model", 1, MAX_DIM)
    _whole(start, "positional_encoding: start", -MAX_START, MAX_START)
    return _checked_size((positions, dim)) * 4


def _cost_position_similarity(pe: Any = None, *_: Any, **__: Any) -> int:
    shape = _shape(pe)
    if len(shape) != 2:
        raise ExpressionError("position_similarity needs a (positions, d_model) table")
    return _checked_size((shape[0], shape[0])) * shape[1]


def _cost_causal_mask(n: Any = 0, *_: Any, **__: Any) -> int:
    size = _whole(n, "causal_mask: size", 0, math.isqrt(MAX_ELEMENTS))
    return size * size


def _cost_attention(q: Any = None, k: Any = None, v: Any = None, *_: Any, **__: Any) -> int:
    queries, keys, values = _shape(q), _shape(k), _shape(v)
    if min(len(queries), len(keys), len(values)) < 2:
        raise ExpressionError("attention needs (sequence, dimension) tables")
    batch = np.broadcast_shapes(queries[:-2], keys[:-2], values[:-2])
    weights = _checked_size((*batch, queries[-2], keys[-2]))
    return weights * (queries[-1] + values[-1] + 4)


def _cost_attention_loop(q: Any = None, k: Any = None, v: Any = None, *_: Any, **__: Any) -> int:
    queries, keys = _shape(q), _shape(k)
    if len(queries) != 2 or len(keys) != 2 or len(_shape(v)) != 2:
        raise ExpressionError("attention_loop needs (sequence, dimension) tables")
    pairs = queries[0] * keys[0]
    if pairs > MAX_LOOP_PAIRS:
        raise ExpressionError(
            f"attention_loop visits {pairs} query-key pairs, at most {MAX_LOOP_PAIRS}"
        )
    return pairs * NODE_COST + _elements((q, k, v))


def _cost_dot(a: Any = None, b: Any = None, *_: Any, **__: Any) -> int:
    left, right = _shape(a), _shape(b)
    if not left or not right:
        return _checked_size(left or right)
    inner = left[-1]
    if len(right) == 1:
        out: tuple[int, ...] = left[:-1]
    else:
        out = (*left[:-1], *right[:-2], right[-1])
    return _checked_size(out) * max(inner, 1)


def _cost_elementwise(*args: Any, **kwargs: Any) -> int:
    return (_elements(args) + _elements(tuple(kwargs.values()))) * 2


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
# What each function will cost, checked before it runs (raises ExpressionError if too big).
_COSTS: dict[str, Callable[..., int]] = {
    "positional_encoding": _cost_positional_encoding,
    "position_similarity": _cost_position_similarity,
    "causal_mask": _cost_causal_mask,
    "scaled_dot_product_attention": _cost_attention,
    "attention_loop": _cost_attention_loop,
    "dot": _cost_dot,
}
_KEYWORDS = frozenset(
    {"axis", "scale", "mask", "start", "keepdims", "num_heads", "num_positions", "d_model"}
)

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


def _checked_size(shape: Sequence[int]) -> int:
    size = _size(shape)
    if size > MAX_ELEMENTS:
        shown = " x ".join(str(n) for n in shape)
        raise ExpressionError(f"an array of {shown} is larger than {MAX_ELEMENTS} numbers")
    return size


def evaluate(text: str) -> Any:
    """Evaluate an expression over NAMES; raise ExpressionError with a readable reason.

    Never raises anything else: running out of memory or stack, overflow and any
    NumPy error all become ExpressionError.
    """
    if len(text) > MAX_TEXT:
        raise ExpressionError(f"expression is longer than {MAX_TEXT} characters")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as error:
        raise ExpressionError(f"cannot parse expression: {error.msg}") from None
    except (ValueError, MemoryError, RecursionError):
        raise ExpressionError("cannot parse expression: too deeply nested") from None
    _check_tree(tree.body)
    evaluator = _Evaluator(Budget(EXPRESSION_BUDGET, "this expression's steps"), _SHARED.get())
    try:
        with np.errstate(all="ignore"):  # NumPy warnings would draw over the app
            return evaluator.eval(tree.body)
    except ExpressionError:
        raise
    except MemoryError:
        raise ExpressionError("expression failed: out of memory") from None
    except RecursionError:
        raise ExpressionError("expression failed: too deeply nested") from None
    except Exception as error:  # content must never crash the app
        raise ExpressionError(f"expression failed: {error}") from None


def evaluate_number(text: str) -> float:
    value = evaluate(text)
    try:
        array = np.asarray(value)
    except (ValueError, TypeError):
        raise ExpressionError("expression does not give a number") from None
    if array.size != 1 or not np.issubdtype(array.dtype, np.number):
        raise ExpressionError(
            f"expression gives {array.shape or type(value).__name__}, not a number"
        )
    try:
        number = float(array.reshape(()))
    except OverflowError:
        number = math.inf
    if not math.isfinite(number):
        raise ExpressionError("expression does not give a finite number")
    return number


def _check_tree(root: ast.AST) -> None:
    """Node count and depth, walked without recursion (the tree may be very deep)."""
    stack = [(root, 1)]
    count = 0
    while stack:
        node, depth = stack.pop()
        count += 1
        if count > MAX_NODES:
            raise ExpressionError(f"expression has more than {MAX_NODES} parts")
        if depth > MAX_DEPTH:
            raise ExpressionError(f"expression is nested more than {MAX_DEPTH} deep")
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))


class _Evaluator:
    def __init__(self, own: Budget, shared: Budget | None) -> None:
        self.budgets = [own] if shared is None else [own, shared]

    def charge(self, units: int) -> None:
        for budget in self.budgets:
            budget.charge(units)

    def charge_operation(self, units: int) -> None:
        """One call or operator: refused before it runs if it alone is too big."""
        if units > _OP_LIMIT:
            raise ExpressionError("one step of this expression is larger than a quiz key needs")
        self.charge(units)

    def eval(self, node: ast.AST) -> Any:
        self.charge(NODE_COST)
        value = self._eval(node)
        shape = _shape(value) if isinstance(value, np.ndarray) else ()
        _checked_size(shape)
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INT:
            raise ExpressionError(f"a whole number beyond {MAX_INT} (2**53)")
        return value

    def _eval(self, node: ast.AST) -> Any:
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float | bool):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in NAMES:
                known = ", ".join(sorted(NAMES))
                raise ExpressionError(f"unknown name '{node.id}' (allowed: {known})")
            return NAMES[node.id]
        if isinstance(node, ast.List | ast.Tuple):
            return [self.eval(item) for item in node.elts]
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            return self._binary(node.op, self.eval(node.left), self.eval(node.right))
        if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
            operand = self.eval(node.operand)
            self.charge(_elements((operand,)))
            return _UNARY[type(node.op)](operand)
        if isinstance(node, ast.Subscript):
            value = np.asarray(self.eval(node.value))
            return value[self._index(node.slice)]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            return self._call(node)
        raise ExpressionError(f"'{ast.unparse(node)}' is not allowed in an answer expression")

    def _binary(self, op: ast.operator, left: Any, right: Any) -> Any:
        if isinstance(left, list):
            left = np.asarray(left, dtype=np.float64)
        if isinstance(right, list):
            right = np.asarray(right, dtype=np.float64)
        if isinstance(op, ast.Pow) and _is_int(left) and _is_int(right):
            if abs(right) > MAX_EXPONENT:
                raise ExpressionError(f"exponent {right} is beyond {MAX_EXPONENT}")
            if abs(left) > 1 and right > 0 and right * math.log2(abs(left)) > 53:
                raise ExpressionError(f"{left} ** {right} is beyond 2**53")
        if isinstance(op, ast.MatMult):
            self.charge_operation(_cost_matmul(_shape(left), _shape(right)))
        else:
            shapes = (_shape(left), _shape(right))
            self.charge_operation(2 * _checked_size(np.broadcast_shapes(*shapes)))
        return _BINARY[type(op)](left, right)

    def _call(self, node: ast.Call) -> Any:
        assert isinstance(node.func, ast.Name)
        name = node.func.id
        function = self.eval(node.func)
        if not callable(function):
            raise ExpressionError(f"'{name}' is not a function")
        args = [self.eval(arg) for arg in node.args]
        kwargs: dict[str, Any] = {}
        for keyword in node.keywords:
            if keyword.arg is None:
                raise ExpressionError("**kwargs are not allowed")
            if keyword.arg not in _KEYWORDS:
                raise ExpressionError(f"{name}: keyword '{keyword.arg}' is not allowed")
            kwargs[keyword.arg] = self.eval(keyword.value)
        for value in (*args, *kwargs.values()):
            _checked_size(_shape(value))
        cost = _COSTS.get(name, _cost_elementwise)
        self.charge_operation(cost(*args, **kwargs))
        return function(*args, **kwargs)

    def _index(self, node: ast.AST) -> Any:
        if isinstance(node, ast.Tuple):
            return tuple(self._index(item) for item in node.elts)
        if isinstance(node, ast.Slice):
            parts = (node.lower, node.upper, node.step)
            return slice(*(None if part is None else int(self.eval(part)) for part in parts))
        value = self.eval(node)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ExpressionError("indexes must be whole numbers")
        return value


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _cost_matmul(left: tuple[int, ...], right: tuple[int, ...]) -> int:
    if not left or not right:
        raise ExpressionError("@ needs arrays on both sides")
    inner = left[-1]
    if len(left) == 1 and len(right) == 1:
        return max(inner, 1)
    if len(right) == 1:
        out: tuple[int, ...] = left[:-1]
    elif len(left) == 1:
        out = (*right[:-2], right[-1])
    else:
        out = (*np.broadcast_shapes(left[:-2], right[:-2]), left[-2], right[-1])
    return _checked_size(out) * max(inner, 1)
