"""content.code_check.plain_pass: the judge's NumPy-free pass gives NumPy's verdict or none.

Each student array below is judged twice: from its `.npy` bytes (Packed: plain_pass may
answer) and as ndarrays (plain_pass cannot: NumPy's allclose and property checks decide).
Wherever the plain judge answers, its verdict is the NumPy judge's, to the field; and on
the plain cases a correct solution gives (float64 references, arrays in one order) it
does answer, or `attn-tui check` would load NumPy after all."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from tui_course.content.code_check import Outcome, judge, plain_pass
from tui_course.content.code_model import ArgSpec, CodeCase, CodeSpec
from tui_course.sandbox.level import Level
from tui_course.sandbox.npy import pack
from tui_course.sandbox.runner import CaseResult, RunResult

STARTER = "def weights(x):\n    raise NotImplementedError\n"
CODE = "def weights(x):\n    return x\n"
TOLERANCES = [(1e-6, 1e-6), (0.0, 0.0), (1e-3, 0.0), (0.0, 1e-3), (1e-8, 1e-5)]
PROPERTIES = [(), ("finite",), ("non_negative",), ("rows_sum_to_one",)]
PROPERTIES += [("finite", "non_negative", "rows_sum_to_one"), ("some_other",)]


def spec_of(cases: int, tolerance: float, rel: float, properties: tuple[str, ...]) -> CodeSpec:
    arg = ArgSpec(name="x", shape=(3, 4))
    return CodeSpec(
        entry="weights",
        starter=STARTER,
        reference="weights",
        cases=tuple(CodeCase(f"case {n}", n, (arg,), line=n) for n in range(cases)),
        outputs=("weights",),
        properties=properties,
        tolerance=tolerance,
        rel_tolerance=rel,
    )


def run_of(outputs: list[tuple[Any, ...]], wrap: Callable[[Any], Any], **changes: Any) -> RunResult:
    cases = tuple(CaseResult("ok", tuple(wrap(o) for o in case)) for case in outputs)
    return replace(RunResult("ok", Level.BWRAP, entries=(cases,), seconds=0.01), **changes)


def both(
    spec: CodeSpec, student: list[tuple[Any, ...]], reference: list[tuple[Any, ...]], **run: Any
) -> tuple[Any, Any]:
    """(plain_pass on the bytes, judge on ndarrays)."""
    plain_ref = [CaseResult("ok", tuple(pack(o) for o in case)) for case in reference]
    array_ref = [CaseResult("ok", tuple(np.asarray(o) for o in case)) for case in reference]
    plain = plain_pass(spec, CODE, run_of(student, pack, **run), plain_ref)
    full = judge(spec, CODE, run_of(student, np.asarray, **run), array_ref)
    if plain is not None:  # judge() on the bytes answers as plain_pass did
        assert judge(spec, CODE, run_of(student, pack, **run), plain_ref) == plain
    return plain, full


def weights(seed: int) -> np.ndarray:
    rows = np.random.default_rng(seed).random((3, 4)) + 0.05
    return rows / rows.sum(axis=-1, keepdims=True)


def edges(reference: np.ndarray, tolerance: float, rel: float) -> dict[str, np.ndarray]:
    """Student arrays around the tolerance's edge, and the dtypes and oddities a
    student's result may have."""
    gap = tolerance + rel * np.abs(reference)
    found = {
        "same": reference.copy(),
        "half the gap": reference + gap / 2,
        "the gap itself": reference + gap,
        "just under the gap": reference + np.nextafter(gap, 0),
        "just over the gap": reference + np.nextafter(gap, 1),
        "below by the gap": reference - gap,
        "twice the gap": reference + 2 * gap + 1e-12,
        "float32": reference.astype(np.float32),
        "float16": reference.astype(np.float16),
        "rounded ints": np.rint(reference).astype(np.int64),
        "bools": reference > 0.25,
        "fortran order": np.asfortranarray(reference),
        "negative zero": np.where(reference == reference.min(), -0.0, reference),
        "a nan": np.where(reference == reference.max(), np.nan, reference),
        "an inf": np.where(reference == reference.max(), np.inf, reference),
        "a negative cell": np.where(reference == reference.min(), -1e-300, reference),
        "transposed": reference.T.copy(),
        "a row off by 1e-5": reference + np.array([[1e-5 / 4], [0], [0]]),
    }
    return found


@pytest.mark.parametrize(("tolerance", "rel"), TOLERANCES)
@pytest.mark.parametrize("properties", PROPERTIES, ids=str)
def test_wherever_the_plain_judge_answers_numpy_agrees_to_the_field(
    tolerance: float, rel: float, properties: tuple[str, ...]
) -> None:
    spec = spec_of(2, tolerance, rel, properties)
    reference = [(weights(1),), (weights(2),)]
    answered = 0
    for name, changed in edges(reference[1][0], tolerance, rel).items():
        plain, full = both(spec, [reference[0], (changed,)], reference)
        if plain is not None:
            answered += 1
            assert full == plain, name
            assert plain.outcome is Outcome.PASSED
    assert answered >= 2  # the same values and half the gap, at the least


def test_a_plain_correct_solution_is_judged_without_numpy() -> None:
    spec = spec_of(3, 1e-6, 1e-6, ("finite", "non_negative", "rows_sum_to_one"))
    reference = [(weights(n),) for n in range(3)]
    close = [(values + 1e-9,) for (values,) in reference]
    plain, full = both(spec, close, reference)
    assert plain is not None and plain == full and plain.passed
    assert plain.message == "Passed: all 3 cases match the reference."


@pytest.mark.parametrize(
    ("name", "student", "reference"),
    [
        ("nan where the reference has nan", [np.nan, 1.0], [np.nan, 1.0]),
        ("nan where it has a number", [np.nan, 1.0], [0.5, 1.0]),
        ("inf matching inf", [np.inf, -np.inf], [np.inf, -np.inf]),
        ("inf of the other sign", [-np.inf, 1.0], [np.inf, 1.0]),
        ("a number where it has inf", [1e308, 1.0], [np.inf, 1.0]),
        ("huge values apart", [1e308, -1e308], [-1e308, 1e308]),
        ("zero and negative zero", [0.0, -0.0], [-0.0, 0.0]),
        ("an empty array", [], []),
    ],
)
def test_special_values_are_judged_as_allclose_with_equal_nan(
    name: str, student: list[float], reference: list[float]
) -> None:
    spec = spec_of(1, 1e-6, 1e-6, ())
    plain, full = both(spec, [(np.array(student),)], [(np.array(reference),)])
    with np.errstate(all="ignore"):
        expected = bool(np.allclose(student, reference, rtol=1e-6, atol=1e-6, equal_nan=True))
    assert full.passed is expected, name
    assert (plain is not None) is expected and (plain is None or plain == full)


@pytest.mark.parametrize("reference_dtype", ["<f4", "<f2", ">f8", "<i8"])
def test_a_reference_not_in_native_float64_is_left_to_numpy_or_agrees(
    reference_dtype: str,
) -> None:
    spec = spec_of(1, 1e-6, 1e-6, ())
    values = weights(3).astype(reference_dtype)
    plain, full = both(spec, [(values.astype(np.float64),)], [(values,)])
    assert plain is None or plain == full
    if reference_dtype[1:] != "f8":
        assert plain is None  # NumPy compares in the reference's own precision


@pytest.mark.parametrize("delta_in_bounds", [0.0, 0.5, 0.999999, 1.0, 1.000001, 2.0])
@pytest.mark.parametrize("tolerance", [0.0, 1e-6, 1e-4])
def test_rows_summing_near_the_bound_pass_plainly_only_when_numpy_passes(
    delta_in_bounds: float, tolerance: float
) -> None:
    spec = spec_of(1, tolerance, 0.0, ("rows_sum_to_one",))
    bound = max(tolerance, 1e-6) * 10 + 1e-5
    rows = weights(4)  # the student's are the reference's: the sums alone decide
    rows[:, 0] += bound * delta_in_bounds
    plain, full = both(spec, [(rows,)], [(rows,)])
    assert plain is None or plain == full
    if delta_in_bounds <= 0.5:
        assert plain is not None


def broken(reference: np.ndarray, how: str) -> np.ndarray:
    values = reference.copy()
    if how == "cancelling huge values":  # a float sum of the row is 0, its exact sum 1
        values[0] = [1e16, 1.0, -1e16, 0.0]
    elif how == "a negative cell":
        values[1, 2] = -1e-300
    elif how == "a nan":
        values[2, 1] = np.nan
    elif how == "an inf":
        values[0, 3] = np.inf
    elif how == "sums past float64's range":
        values[0] = [1e308, -1e308, 1e308, 1e308]
    elif how == "both infs in a row":
        values[2, :2] = [np.inf, -np.inf]
    elif how == "a row off by twice the bound":
        values[1] *= 1 + 2e-4
    return values


@pytest.mark.parametrize(
    "how",
    [
        "cancelling huge values",
        "a negative cell",
        "a nan",
        "an inf",
        "both infs in a row",
        "sums past float64's range",
        "a row off by twice the bound",
    ],
)
@pytest.mark.parametrize("properties", PROPERTIES, ids=str)
def test_values_equal_to_the_reference_still_fail_a_property_plainly_or_not_at_all(
    how: str, properties: tuple[str, ...]
) -> None:
    """Equal values pass allclose: what stops them is the property, and only NumPy's
    judge says which (the plain judge must not answer)."""
    values = broken(weights(6), how)
    spec = spec_of(1, 1e-6, 1e-6, properties)
    plain, full = both(spec, [(values,)], [(values,)])
    assert plain is None or plain == full
    if not full.passed:
        assert plain is None and full.stage == "property"


@pytest.mark.parametrize(
    "change",
    [
        {"status": "time_limit"},
        {"status": "syntax_error"},
    ],
    ids=["time limit", "syntax error"],
)
def test_a_run_that_did_not_finish_is_never_a_plain_pass(change: dict[str, Any]) -> None:
    spec = spec_of(1, 1e-6, 1e-6, ())
    plain, full = both(spec, [(weights(5),)], [(weights(5),)], **change)
    assert plain is None and not full.passed


def test_the_starter_mutated_inputs_and_failed_cases_are_never_a_plain_pass() -> None:
    spec = spec_of(2, 1e-6, 1e-6, ())
    reference = [CaseResult("ok", (pack(weights(n)),)) for n in range(2)]
    good = tuple(CaseResult("ok", (pack(weights(n)),)) for n in range(2))
    run = RunResult("ok", Level.BWRAP, entries=(good,))
    assert plain_pass(spec, CODE, run, reference) is not None
    assert plain_pass(spec, STARTER, run, reference) is None
    mutated = (replace(good[0], mutated=(0,)), good[1])
    assert plain_pass(spec, CODE, replace(run, entries=(mutated,)), reference) is None
    for status in ("exception", "not_array", "too_large", "memory", "exit", "missing"):
        broken = (CaseResult(status), good[1])
        assert plain_pass(spec, CODE, replace(run, entries=(broken,)), reference) is None
    two = (CaseResult("ok", (pack(weights(0)), pack(weights(0)))), good[1])
    assert plain_pass(spec, CODE, replace(run, entries=(two,)), reference) is None


def test_many_random_students_agree_with_numpy() -> None:
    """Random arrays, dtypes and tolerances: never a plain answer NumPy would not give."""
    rng = np.random.default_rng(30)
    answered = 0
    for trial, properties in itertools.product(range(60), PROPERTIES):
        tolerance, rel = TOLERANCES[trial % len(TOLERANCES)]
        spec = spec_of(1, tolerance, rel, properties)
        reference = weights(trial)
        gap = (tolerance + rel * np.abs(reference)) * rng.uniform(0, 2, reference.shape)
        student = reference + gap * rng.choice([-1, 1], reference.shape)
        student = student.astype(rng.choice(["<f8", "<f4", ">f8", "<f2"]))
        plain, full = both(spec, [(student,)], [(reference,)])
        assert plain is None or plain == full, (trial, properties)
        answered += plain is not None
    assert answered > 0
