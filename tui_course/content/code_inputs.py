"""The arguments a code question's cases call the student's function with.

Built from the case as the content specifies it (seeded random arrays, ranges, sizes,
plain values) and a seed offset: 0 gives the visible cases, one above gives the held-out
cases of a class recheck. Deterministic for one NumPy (its random generators), so the
trusted process remembers them with the reference's results (codecheck.reference_cache),
whose key digests this file's source.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from tui_course.content.code_check import shape_text
from tui_course.content.code_model import ArgSpec, CodeCase, CodeSpec, dimension


def build_inputs(spec: CodeSpec, seed_offset: int = 0) -> list[list[Any]]:
    """Each case's arguments. seed_offset 0 gives the visible cases; one above gives
    held-out cases (class recheck): fresh array values, and every size and held_out
    value drawn afresh from its range, never all as in a visible case."""
    if not 0 <= seed_offset < 2**63:
        raise ValueError(f"seed offset {seed_offset} is not 0 to 2**63 - 1")
    seen = {case.sizes for case in spec.cases if case.sizes}
    cases: list[list[Any]] = []
    for case in spec.cases:
        sizes = dict(case.sizes) if seed_offset == 0 else _held_out_sizes(case, seed_offset, seen)
        cases.append(
            [
                _argument(case, arg, position, sizes, seed_offset)
                for position, arg in enumerate(case.args)
            ]
        )
    return cases


SIZES_STREAM = 1_000_000  # the random stream of a case's sizes, apart from its arguments'
DRAWS = 50  # tries at a held-out draw unlike every visible one


def _held_out_sizes(case: CodeCase, seed_offset: int, seen: set[Any]) -> dict[str, int]:
    """Each size drawn from its range unlike its visible value (where the range allows),
    and the whole draw unlike every visible case's sizes."""
    rng = np.random.default_rng([case.seed, seed_offset, SIZES_STREAM])
    visible = dict(case.sizes)
    drawn = case.sizes
    for _ in range(DRAWS):
        drawn = tuple(
            (name, _draw_unlike(rng, low, high, visible[name])) for name, low, high in case.held_out
        )
        if drawn not in seen:
            break
    return dict(drawn)


def _draw_unlike(rng: np.random.Generator, low: int, high: int, visible: int) -> int:
    if low == high or not low <= visible <= high:
        return int(rng.integers(low, high + 1))
    value = int(rng.integers(low, high))  # low..high without the visible value
    return value + 1 if value >= visible else value


def _argument(
    case: CodeCase, arg: ArgSpec, position: int, sizes: dict[str, int], seed_offset: int
) -> Any:
    if arg.shape is not None:
        rng = np.random.default_rng([case.seed, seed_offset, position])
        shape = tuple(dimension(axis, sizes) for axis in arg.shape)
        return rng.standard_normal(shape) * arg.scale + arg.offset
    if arg.arange is not None:
        return np.arange(dimension(arg.arange, sizes))
    if arg.size is not None:
        return dimension(arg.size, sizes)
    if seed_offset == 0 or arg.held_out is None:
        return np.asarray(arg.value, dtype=np.float64) if isinstance(arg.value, list) else arg.value
    rng = np.random.default_rng([case.seed, seed_offset, position])
    low, high = arg.held_out
    drawn: Any = arg.value
    for _ in range(DRAWS):
        drawn = rng.integers(low, high + 1, size=np.shape(arg.value))
        if not np.array_equal(drawn, arg.value):
            break
    if isinstance(arg.value, list):
        return np.asarray(drawn, dtype=np.float64)
    return int(drawn)


def held_out_spec(spec: CodeSpec, seed_offset: int) -> CodeSpec:
    """The question as judged on held-out seed `seed_offset`: each case labelled by the
    inputs it has there (a visible label's "3 queries, 5 keys" would be untrue)."""
    if seed_offset == 0:
        return spec
    inputs = build_inputs(spec, seed_offset)
    cases = tuple(
        replace(case, label=f"held-out {index + 1}: {_inputs_text(case, args)}")
        for index, (case, args) in enumerate(zip(spec.cases, inputs, strict=True))
    )
    return replace(spec, cases=cases)


def _inputs_text(case: CodeCase, args: Sequence[Any]) -> str:
    shown = []
    for arg, value in zip(case.args, args, strict=True):
        if isinstance(value, np.ndarray):
            shown.append(f"{arg.name} of shape {shape_text(value.shape)}")
        else:
            shown.append(f"{arg.name} = {value}")
    return ", ".join(shown)
