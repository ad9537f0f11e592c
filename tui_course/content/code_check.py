"""The judge of a code question: pure, trusted, run in the parent only.

Given what the student's function returned for each case, what the reference
returned and what each mistake variant returned, it says what is wrong first, in
the order a student can act on: syntax, an unfinished starter, an exception, a wrong
shape, a failed property, a recognised mistake, else the case and the worst cell.
It never runs code; the sandbox (tui_course.sandbox) does that.

A check that plainly passes (every case's arrays float64 references, the student's
within tolerance, every property holding by a clear margin) is judged in plain Python
from the arrays' bytes (plain_pass), to the same verdict NumPy's allclose gives: the
`attn-tui check` process then never imports NumPy. Anything else, or any doubt, and the
arrays are made ndarrays and judged by NumPy (imported then, not at import).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from tui_course.content.code_model import CodeSpec
from tui_course.sandbox.level import Level
from tui_course.sandbox.npy import Packed, as_array
from tui_course.sandbox.runner import CaseResult, RunResult

PLAIN_VALUES = 100_000  # numbers a passing check may compare in plain Python; more: NumPy
F64_ROUNDING = 2.0**-52  # twice float64's unit roundoff: a generous bound on a sum's error


class Outcome(StrEnum):
    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"
    TIME_LIMIT = "time limit"
    MEMORY_LIMIT = "memory limit"
    CRASHED = "crashed"
    UNAVAILABLE = "sandbox unavailable"


@dataclass(frozen=True)
class CellDiff:
    """The case drawn for the student: their array, the reference, the cells that differ."""

    case: str
    output: str
    got: Any  # ndarray
    expected: Any  # ndarray
    wrong: Any  # bool ndarray, True where the cell is wrong


@dataclass(frozen=True)
class CodeVerdict:
    outcome: Outcome
    stage: str  # syntax, unfinished, exception, shape, property, mistake, values, passed, ...
    message: str  # the first thing to fix, one or two sentences
    level: Level
    mistake: int | None = None  # index into spec.mistakes, when one is recognised
    mistake_feedback: str = ""
    line: int | None = None  # the student's line the message is about
    traceback: tuple[tuple[int, str, str], ...] = ()  # (line, function, source) theirs only
    cases_failed: tuple[str, ...] = ()
    diff: CellDiff | None = None
    stdout: str = ""
    stderr: str = ""
    output_truncated: bool = False
    seconds: float = 0.0
    notes: tuple[str, ...] = field(default=())  # extra lines (inputs changed in place...)

    @property
    def passed(self) -> bool:
        return self.outcome is Outcome.PASSED


def normalise_code(code: str) -> str:
    return "\n".join(line.rstrip() for line in code.strip().splitlines())


def shape_text(shape: Sequence[int]) -> str:
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def _cell(index: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(i) for i in index) + "]"


def _number(value: float) -> str:
    return f"{value:.4g}"


def _common(run: RunResult) -> dict[str, Any]:
    return {
        "level": run.level,
        "stdout": run.stdout,
        "stderr": run.stderr,
        "output_truncated": run.stdout_truncated or run.stderr_truncated,
        "seconds": run.seconds,
    }


def student_frames(detail: Mapping[str, Any]) -> tuple[tuple[int, str, str], ...]:
    frames = []
    for frame in detail.get("frames", ()):
        try:
            frames.append((int(frame[0]), str(frame[1])[:80], str(frame[2])[:200]))
        except (TypeError, ValueError, IndexError):
            continue
    return tuple(frames)


def _exception_text(detail: Mapping[str, Any]) -> str:
    name = str(detail.get("type", "Exception"))[:80]
    message = str(detail.get("message", ""))[:300]
    return f"{name}: {message}" if message else name


def _raises_mistake(spec: CodeSpec, detail: Mapping[str, Any]) -> int | None:
    for index, mistake in enumerate(spec.mistakes):
        if mistake.raises is None or mistake.raises != detail.get("type"):
            continue
        if mistake.match is None or re.search(mistake.match, str(detail.get("message", ""))):
            return index
    return None


def _close(got: Any, expected: Any, spec: CodeSpec) -> bool:
    import numpy as np

    got, expected = as_array(got), as_array(expected)
    if got.shape != expected.shape:
        return False
    with np.errstate(all="ignore"):
        return bool(
            np.allclose(got, expected, rtol=spec.rel_tolerance, atol=spec.tolerance, equal_nan=True)
        )


def same_results(first: Sequence[CaseResult], second: Sequence[CaseResult], spec: CodeSpec) -> bool:
    """Two functions that behave alike on every case: equal outputs, or the same exception."""
    compared = False
    for a, b in zip(first, second, strict=True):
        if a.status == "ok" and b.status == "ok":
            if len(a.outputs) != len(b.outputs) or not all(
                _close(x, y, spec) for x, y in zip(a.outputs, b.outputs, strict=True)
            ):
                return False
            compared = True
        elif a.status == "exception" and b.status == "exception":
            if a.detail.get("type") != b.detail.get("type"):
                return False
        else:
            return False
    return compared or bool(first)


def recognised_variant(
    spec: CodeSpec, student: Sequence[CaseResult], variants: Mapping[int, Sequence[CaseResult]]
) -> int | None:
    for index, results in variants.items():
        if same_results(student, results, spec):
            return index
    return None


def _property_problem(prop: str, name: str, got: Any, spec: CodeSpec) -> str | None:
    import numpy as np

    values = np.asarray(got, dtype=np.float64)
    if prop == "finite":
        bad = np.argwhere(~np.isfinite(values))
        if bad.size:
            where = tuple(int(i) for i in bad[0])
            return f"{name}{_cell(where)} is {values[where]}, not a finite number"
    elif prop == "non_negative":
        bad = np.argwhere(values < 0)
        if bad.size:
            where = tuple(int(i) for i in bad[0])
            return f"{name}{_cell(where)} is {_number(values[where])}: weights are never negative"
    elif prop == "rows_sum_to_one" and values.ndim >= 1:
        with np.errstate(all="ignore"):
            sums = values.sum(axis=-1)
        bad = np.argwhere(~np.isclose(sums, 1.0, atol=max(spec.tolerance, 1e-6) * 10))
        if bad.size:
            where = tuple(int(i) for i in bad[0])
            row = "row " + ", ".join(str(i) for i in where) if where else "the row"
            return f"{row} of {name} sums to {_number(float(sums[where]))}, not 1"
    return None


def judge(
    spec: CodeSpec,
    code: str,
    run: RunResult,
    reference: Sequence[CaseResult],
    variants: Mapping[int, Sequence[CaseResult]] | None = None,
) -> CodeVerdict:
    """The verdict on one run of the student's code."""
    passed = plain_pass(spec, code, run, reference)
    if passed is not None:
        return passed
    variants = variants or {}
    common = _common(run)
    labels = [case.label for case in spec.cases]
    if run.status == "unavailable":
        message = str(run.detail.get("message", "the sandbox cannot run here"))
        return CodeVerdict(Outcome.UNAVAILABLE, "unavailable", message, **common)
    if run.status == "syntax_error":
        line = run.detail.get("line")
        text = str(run.detail.get("text", ""))[:200]
        message = f"Syntax error on line {line}: {str(run.detail.get('message', ''))[:200]}"
        if text.strip():
            message += f"\n    {text.strip()}"
        return CodeVerdict(
            Outcome.ERROR, "syntax", message, line=line if isinstance(line, int) else None, **common
        )
    if normalise_code(code) == normalise_code(spec.starter):
        return CodeVerdict(
            Outcome.FAILED,
            "unfinished",
            "This is still the starter: write the body of "
            f"{spec.entry}() where it says so, then check again.",
            **common,
        )
    if run.status in ("exception", "exit"):
        return _load_error(spec, run, labels, common)
    if run.status == "missing_entry":
        message = f"Your code defines no function {spec.entry}(): the check calls that name."
        return CodeVerdict(Outcome.ERROR, "missing", message, cases_failed=tuple(labels), **common)
    if run.status == "protocol":
        message = "The check could not read what your code sent back: " + str(
            run.detail.get("message", "")
        )
        return CodeVerdict(Outcome.CRASHED, "crashed", message, **common)
    student = run.cases
    if run.status != "ok":
        return _stopped(spec, run, labels, common)
    for index, result in enumerate(student):
        if result.status == "memory":
            message = f"Case '{labels[index]}': your code ran out of memory (MemoryError)."
            return CodeVerdict(
                Outcome.MEMORY_LIMIT, "memory", message, cases_failed=(labels[index],), **common
            )
        if result.status == "exit":
            message = (
                f"Case '{labels[index]}': your function called sys.exit() or exit() "
                "instead of returning its result."
            )
            return CodeVerdict(
                Outcome.ERROR, "exit", message, cases_failed=(labels[index],), **common
            )
    failed_cases = tuple(labels[i] for i, r in enumerate(student) if r.status != "ok")
    # from here on the arrays themselves are compared: NumPy's side of the judge
    student, reference = _with_arrays(student), _with_arrays(reference)
    variants = {index: _with_arrays(results) for index, results in variants.items()}
    for index, result in enumerate(student):
        if result.status == "exception":
            if result.detail.get("type") == "NotImplementedError":
                return CodeVerdict(
                    Outcome.FAILED,
                    "unfinished",
                    f"{spec.entry}() still raises NotImplementedError: replace that line "
                    "with your code.",
                    cases_failed=failed_cases,
                    **common,
                )
            mistake = _raises_mistake(spec, result.detail)
            if mistake is None:
                mistake = recognised_variant(spec, student, variants)
            frames = student_frames(result.detail)
            line = frames[-1][0] if frames else None
            message = f"Case '{labels[index]}': {_exception_text(result.detail)}"
            if line is not None:
                message += f" (line {line})"
            if mistake is not None:
                return CodeVerdict(
                    Outcome.FAILED,
                    "mistake",
                    message,
                    mistake=mistake,
                    mistake_feedback=spec.mistakes[mistake].feedback,
                    line=line,
                    traceback=frames,
                    cases_failed=failed_cases,
                    **common,
                )
            return CodeVerdict(
                Outcome.ERROR,
                "exception",
                message,
                line=line,
                traceback=frames,
                cases_failed=failed_cases,
                **common,
            )
    for index, result in enumerate(student):
        if result.status == "not_array":
            kind = str(result.detail.get("type", "something else"))[:80]
            unfinished = kind == "NoneType"
            message = (
                f"{spec.entry}() returns None: end it with `return` and the result."
                if unfinished
                else f"Case '{labels[index]}': {spec.entry}() returned {kind}, "
                "not a NumPy array of numbers."
            )
            return CodeVerdict(
                Outcome.FAILED,
                "unfinished" if unfinished else "type",
                message,
                cases_failed=failed_cases,
                **common,
            )
        if result.status == "too_large":
            shape = shape_text(result.detail.get("shape", ()))
            message = f"Case '{labels[index]}': your result of shape {shape} is far too large."
            return CodeVerdict(
                Outcome.FAILED, "shape", message, cases_failed=failed_cases, **common
            )
    mistake = recognised_variant(spec, student, variants)
    mistake_fields: dict[str, Any] = {}
    if mistake is not None:
        mistake_fields = {"mistake": mistake, "mistake_feedback": spec.mistakes[mistake].feedback}
    # shapes, then properties, then values: every case at each stage before the next
    for index, (result, expected) in enumerate(zip(student, reference, strict=True)):
        if len(result.outputs) != len(expected.outputs):
            message = (
                f"Case '{labels[index]}': expected {len(expected.outputs)} result(s) "
                f"({', '.join(spec.outputs)}), got {len(result.outputs)}."
            )
            return CodeVerdict(
                Outcome.FAILED,
                "shape",
                message,
                cases_failed=(labels[index],),
                **mistake_fields,
                **common,
            )
        for name, got, want in zip(spec.outputs, result.outputs, expected.outputs, strict=False):
            if got.shape != want.shape:
                message = (
                    f"Case '{labels[index]}': expected {name} of shape {shape_text(want.shape)}, "
                    f"got {shape_text(got.shape)}."
                )
                return CodeVerdict(
                    Outcome.FAILED,
                    "shape",
                    message,
                    cases_failed=_failing(spec, student, reference, labels),
                    **mistake_fields,
                    **common,
                )
    for prop in spec.properties:
        for index, result in enumerate(student):
            problem = _property_problem(prop, spec.outputs[0], result.outputs[0], spec)
            if problem is not None:
                return CodeVerdict(
                    Outcome.FAILED,
                    "property",
                    f"Case '{labels[index]}': {problem}.",
                    cases_failed=_failing(spec, student, reference, labels),
                    diff=_diff(
                        spec, labels[index], 0, result.outputs[0], reference[index].outputs[0]
                    ),
                    **mistake_fields,
                    **common,
                )
    failing = _failing(spec, student, reference, labels)
    if failing:
        index = labels.index(failing[0])
        position = next(
            i
            for i, (got, want) in enumerate(
                zip(student[index].outputs, reference[index].outputs, strict=True)
            )
            if not _close(got, want, spec)
        )
        got, want = student[index].outputs[position], reference[index].outputs[position]
        name = spec.outputs[position] if position < len(spec.outputs) else f"result {position}"
        where = _worst_cell(got, want)
        message = (
            f"Case '{labels[index]}': {name}{_cell(where)} is {_number(float(got[where]))}, "
            f"expected {_number(float(want[where]))}."
        )
        stage = "mistake" if mistake is not None else "values"
        return CodeVerdict(
            Outcome.FAILED,
            stage,
            message,
            cases_failed=failing,
            diff=_diff(spec, labels[index], position, got, want),
            **mistake_fields,
            **common,
        )
    changed = sorted({i for result in student for i in result.mutated})
    if changed:
        names = [spec.cases[0].args[i].name for i in changed if i < len(spec.cases[0].args)]
        message = (
            f"Your results are right, but {spec.entry}() changes its input "
            f"{', '.join(names)} in place: work on a copy (x = x.copy()) or build new arrays."
        )
        return CodeVerdict(Outcome.FAILED, "mutated", message, cases_failed=tuple(labels), **common)
    return _passed(spec, run)


def _with_arrays(results: Sequence[CaseResult]) -> tuple[CaseResult, ...]:
    return tuple(
        replace(result, outputs=tuple(as_array(output) for output in result.outputs))
        if any(isinstance(output, Packed) for output in result.outputs)
        else result
        for result in results
    )


def plain_pass(
    spec: CodeSpec, code: str, run: RunResult, reference: Sequence[CaseResult]
) -> CodeVerdict | None:
    """The PASSED verdict when plain Python can tell it exactly from the arrays' bytes,
    else None (the rest of judge() decides, with NumPy). Exactly: every comparison is the
    one np.allclose makes (float64 arithmetic, the same order of operations), and a
    property is taken to hold only when NumPy's own rounding could not undo it."""
    if run.status != "ok" or normalise_code(code) == normalise_code(spec.starter):
        return None
    student = run.cases
    if not len(student) == len(reference) == len(spec.cases):
        return None
    budget = PLAIN_VALUES
    for result, expected in zip(student, reference, strict=True):
        if result.status != "ok" or expected.status != "ok" or result.mutated:
            return None
        if not result.outputs or len(result.outputs) != len(expected.outputs):
            return None
        for got, want in zip(result.outputs, expected.outputs, strict=True):
            budget -= got.size if isinstance(got, Packed) else 0
            if budget < 0 or not _plainly_close(got, want, spec):
                return None
        if not all(_plainly_holds(prop, result.outputs[0], spec) for prop in spec.properties):
            return None
    return _passed(spec, run)


def _passed(spec: CodeSpec, run: RunResult) -> CodeVerdict:
    """The one PASSED verdict, whichever side of the judge found it."""
    message = f"Passed: all {len(spec.cases)} cases match the reference."
    return CodeVerdict(Outcome.PASSED, "passed", message, **_common(run))


def _plainly_close(got: Any, want: Any, spec: CodeSpec) -> bool:
    """np.allclose(got, want, rtol, atol, equal_nan=True), cell by cell in float64, for a
    float64 reference stored in the same order as the student's array; False when that
    cannot be told here."""
    if not (isinstance(got, Packed) and isinstance(want, Packed)):
        return False
    if got.shape != want.shape or want.dtype[1:] != "f8" or got.fortran != want.fortran:
        return False
    mine, theirs = got.numbers, want.numbers
    if mine is None or theirs is None:
        return False
    rtol, atol = spec.rel_tolerance, spec.tolerance
    for number, y in zip(mine, theirs, strict=True):
        x = float(number)  # NumPy casts the student's ints, bools and narrower floats so
        if x == y or (x != x and y != y):
            continue
        if not (math.isfinite(y) and abs(x - y) <= atol + rtol * abs(y)):
            return False
    return True


def _plainly_holds(prop: str, got: Any, spec: CodeSpec) -> bool:
    """Whether _property_problem would find nothing, told without NumPy; False when in
    doubt (a sum within NumPy's rounding of the tolerance, a value that is not finite)."""
    numbers = got.numbers if isinstance(got, Packed) else None
    if numbers is None:
        return False
    if prop == "finite":
        return all(math.isfinite(value) for value in numbers)
    if prop == "non_negative":
        return not any(value < 0 for value in numbers)
    if prop != "rows_sum_to_one" or got.ndim == 0:
        return True  # a property the judge does not know finds nothing, as there
    width = got.shape[-1]
    if width == 0 or (got.fortran and got.ndim > 1):
        return bool(math.prod(got.shape[:-1]) == 0)  # no rows, else an empty row or doubt
    bound = max(spec.tolerance, 1e-6) * 10 + 1e-05  # np.isclose(sums, 1.0, atol=...)
    for start in range(0, len(numbers), width):
        row = [float(value) for value in numbers[start : start + width]]
        if not all(math.isfinite(value) for value in row):
            return False
        try:
            exact = math.fsum(row)
            rounding = (width + 1) * F64_ROUNDING * math.fsum(abs(value) for value in row)
        except OverflowError:  # a sum past float64's range: NumPy's judge says what it is
            return False
        if not abs(exact - 1.0) + rounding <= bound * (1 - 1e-9):
            return False
    return True


def _failing(
    spec: CodeSpec,
    student: Sequence[CaseResult],
    reference: Sequence[CaseResult],
    labels: Sequence[str],
) -> tuple[str, ...]:
    failed = []
    for label, result, expected in zip(labels, student, reference, strict=True):
        if (
            result.status != "ok"
            or len(result.outputs) != len(expected.outputs)
            or not all(
                _close(got, want, spec)
                for got, want in zip(result.outputs, expected.outputs, strict=True)
            )
        ):
            failed.append(label)
    return tuple(failed)


def _worst_cell(got: Any, want: Any) -> tuple[int, ...]:
    import numpy as np

    with np.errstate(all="ignore"):
        difference = np.abs(np.asarray(got, dtype=np.float64) - want)
    difference = np.where(np.isnan(difference), np.inf, difference)
    if difference.ndim == 0:
        return ()
    return tuple(int(i) for i in np.unravel_index(int(np.argmax(difference)), difference.shape))


def _diff(spec: CodeSpec, case: str, position: int, got: Any, want: Any) -> CellDiff:
    import numpy as np

    name = spec.outputs[position] if position < len(spec.outputs) else f"result {position}"
    with np.errstate(all="ignore"):
        wrong = ~np.isclose(got, want, rtol=spec.rel_tolerance, atol=spec.tolerance)
    return CellDiff(case, name, got, want, wrong)


def _load_error(
    spec: CodeSpec, run: RunResult, labels: Sequence[str], common: dict[str, Any]
) -> CodeVerdict:
    if run.status == "exit":
        message = "Your file called sys.exit() or exit() while loading: define the function only."
        return CodeVerdict(Outcome.ERROR, "exit", message, cases_failed=tuple(labels), **common)
    frames = student_frames(run.detail)
    line = frames[-1][0] if frames else None
    message = f"Loading your file: {_exception_text(run.detail)}"
    if line is not None:
        message += f" (line {line})"
    if run.detail.get("type") == "ModuleNotFoundError":
        message += ". Only NumPy can be imported here."
    return CodeVerdict(
        Outcome.ERROR,
        "exception",
        message,
        line=line,
        traceback=frames,
        cases_failed=tuple(labels),
        **common,
    )


def _stopped(
    spec: CodeSpec, run: RunResult, labels: Sequence[str], common: dict[str, Any]
) -> CodeVerdict:
    reached = next((i for i, r in enumerate(run.cases) if r.status == "missing"), 0)
    case = labels[reached] if reached < len(labels) else labels[-1]
    if run.status == "time_limit":
        message = (
            f"Case '{case}': your code was stopped after {run.seconds:.1f} s. "
            "Look for a loop that never ends."
        )
        return CodeVerdict(Outcome.TIME_LIMIT, "time", message, cases_failed=(case,), **common)
    if run.status == "memory_limit":
        message = f"Case '{case}': your code used more memory than a check allows."
        return CodeVerdict(Outcome.MEMORY_LIMIT, "memory", message, cases_failed=(case,), **common)
    sig = run.signal
    import signal as signals

    if sig == signals.SIGXFSZ:
        message = f"Case '{case}': your code wrote a file larger than a check allows."
    elif sig is not None:
        try:
            name = signals.Signals(sig).name
        except ValueError:
            name = f"signal {sig}"
        message = f"Case '{case}': your code crashed the Python process ({name})."
    else:
        status = run.detail.get("exit_status")
        message = (
            f"Case '{case}': your code ended the process (exit status {status}) before returning."
        )
    return CodeVerdict(Outcome.CRASHED, "crashed", message, cases_failed=(case,), **common)
