"""Code questions as plain data: what a student writes, what it is checked against.

Pure (no NumPy): inputs are described (shape, seed, scale), built by code_check.
The trusted reference and mistake variants are named functions of a Python file
shipped beside the quiz (run by the parent's side only) or of tui_course.maths.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PROPERTIES = ("finite", "rows_sum_to_one", "non_negative")
MAX_CASES = 12
MAX_ARG_ELEMENTS = 100_000  # one input array; the exercises use a few dozen numbers
MAX_CASE_ELEMENTS = 400_000
MAX_CODE_BYTES = 20 * 1024  # what a student may send (and the store keeps)
MATHS_PREFIX = "tui_course.maths"


Dimension = int | str  # a whole number, or a case's size: "n", or a product "h*w"


@dataclass(frozen=True)
class ArgSpec:
    """One input: a random array (shape, seed offset, scale, and an offset added to every
    value: large numbers close together, where float32 arithmetic shows), a whole-number range
    (`arange`), one of the case's sizes (`size`), or a literal number or nested list
    (`value`). A shape's axes, an arange's length and a size name the case's `sizes`,
    which held-out seeds draw afresh from the case's `held_out` ranges; a value varies
    there only with a `held_out` range of its own (whole numbers from low to high)."""

    name: str
    shape: tuple[Dimension, ...] | None = None
    scale: float = 1.0
    offset: float = 0.0
    arange: Dimension | None = None
    value: Any = None
    size: Dimension | None = None  # a whole-number input: a size or an expression of them
    held_out: tuple[int, int] | None = None

    def elements(self, sizes: Mapping[str, int]) -> int:
        if self.shape is not None:
            count = 1
            for axis in self.shape:
                count *= dimension(axis, sizes)
            return count
        if self.arange is not None:
            return dimension(self.arange, sizes)
        if self.size is not None:
            return 1
        return _count(self.value)


@dataclass(frozen=True)
class CodeCase:
    label: str
    seed: int
    args: tuple[ArgSpec, ...]
    line: int
    sizes: tuple[tuple[str, int], ...] = ()  # the visible case's sizes, by name
    held_out: tuple[tuple[str, int, int], ...] = ()  # each size's range on held-out seeds


def dimension(axis: Dimension, sizes: Mapping[str, int]) -> int:
    """An axis or a size as a number: `4`, or `"n"`, `"h*w"`, `"2*k+1"` with the case's
    sizes (a sum of products of whole numbers and size names)."""
    if isinstance(axis, int):
        return axis
    total = 0
    for term in axis.split("+"):
        product = 1
        for part in term.split("*"):
            part = part.strip()
            product *= int(part) if part.isdigit() else sizes[part]
        total += product
    return total


def dimension_names(axis: Dimension) -> tuple[str, ...]:
    """The size names an axis uses."""
    if isinstance(axis, int):
        return ()
    parts = (part.strip() for term in axis.split("+") for part in term.split("*"))
    return tuple(part for part in parts if not part.isdigit())


@dataclass(frozen=True)
class CodeMistake:
    """A trusted variant (`variant`, a function name) or an exception (`raises` + `match`)."""

    feedback: str
    line: int
    variant: str | None = None
    raises: str | None = None
    match: str | None = None

    @property
    def name(self) -> str:
        return self.variant or f"raises {self.raises}"


@dataclass(frozen=True)
class CodeSpec:
    entry: str
    starter: str
    reference: str  # a function in `module`, or "tui_course.maths.<module>:<function>"
    cases: tuple[CodeCase, ...]
    outputs: tuple[str, ...] = ("result",)
    module: Path | None = None  # the trusted Python file beside the quiz
    module_shown: str = ""  # as error messages name it
    properties: tuple[str, ...] = ()
    tolerance: float = 1e-6
    rel_tolerance: float = 1e-6
    solution: str = ""
    mistakes: tuple[CodeMistake, ...] = ()


@dataclass(frozen=True)
class CodeAttempt:
    """What the store keeps of one check, beside the attempt row."""

    code: str  # as typed, up to MAX_CODE_BYTES
    sha256: str
    outcome: str  # passed, failed, error, time limit, memory limit, crashed, sandbox unavailable
    mistake: int | None  # 0-based index of the recognised mistake
    cases_failed: tuple[str, ...]
    sandbox: str  # bwrap, limits only, none
    seconds: float  # how long the check took


def _count(value: Any) -> int:
    if isinstance(value, list):
        return sum(_count(item) for item in value) or 1
    return 1
