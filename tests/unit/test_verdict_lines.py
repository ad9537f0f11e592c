"""A code verdict as a renderable lays itself out for the width it is given."""

from __future__ import annotations

import io

import numpy as np
import pytest
from rich.cells import cell_len
from rich.console import Console
from rich.measure import Measurement

from tui_course.content.code_check import CellDiff, CodeVerdict, Outcome
from tui_course.render.code import VerdictLines, verdict_lines
from tui_course.sandbox.level import Level


def drawn(renderable: object, width: int) -> list[str]:
    console = Console(width=width, file=io.StringIO(), color_system=None, legacy_windows=False)
    with console.capture() as captured:
        console.print(renderable)
    return [line.rstrip() for line in captured.get().splitlines()]


def measured(renderable: object, width: int) -> Measurement:
    console = Console(width=width, file=io.StringIO(), color_system=None, legacy_windows=False)
    return console.measure(renderable)


def wrong_matrix(stdout: str = "") -> CodeVerdict:
    want = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    got = want.copy()
    got[1, 2] = 9.0
    return CodeVerdict(
        Outcome.FAILED,
        "values",
        "Case 'a matrix': result[1, 2] is 9, expected 6. [b]x[/b]",
        Level.BWRAP,
        cases_failed=("a matrix",),
        diff=CellDiff("a matrix", "result", got, want, got != want),
        stdout=stdout,
    )


SIDE_BY_SIDE = [
    "NOT YET: Case 'a matrix': result[1, 2] is 9, expected 6. [b]x[/b]",
    "Cases not passed: a matrix",
    "",
    "your result                      expected result",
    "           0        1        2              0        1        2",
    " 0         1        2        3    0         1        2        3",
    " 1         4        5       !9    1         4        5        6",
    "'!' marks the cells that differ",
]


@pytest.mark.parametrize("width", [80, 200])
def test_wide_the_prose_is_one_line_and_the_matrices_side_by_side(width: int) -> None:
    assert drawn(VerdictLines(wrong_matrix()), width) == SIDE_BY_SIDE


def test_at_40_columns_the_prose_wraps_and_the_matrices_stack() -> None:
    assert drawn(VerdictLines(wrong_matrix()), 40) == [
        "NOT YET: Case 'a matrix': result[1, 2]",
        "is 9, expected 6. [b]x[/b]",
        "Cases not passed: a matrix",
        "",
        "your result",
        "           0        1        2",
        " 0         1        2        3",
        " 1         4        5       !9",
        "expected result",
        "           0        1        2",
        " 0         1        2        3",
        " 1         4        5        6",
        "'!' marks the cells that differ",
    ]


def test_at_20_columns_the_matrix_is_windowed_to_the_wrong_cell() -> None:
    lines = drawn(VerdictLines(wrong_matrix()), 20)
    assert lines == [
        "NOT YET: Case 'a",
        "matrix': result[1,",
        "2] is 9, expected 6.",
        "[b]x[/b]",
        "Cases not passed: a",
        "matrix",
        "",
        "your result",
        "           2",
        " 0         3",
        " 1        !9",
        "expected result",
        "           2",
        " 0         3",
        " 1         6",
        "(rows 0-1, cols 2-2",
        "of 2x3)",
        "'!' marks the cells",
        "that differ",
    ]
    assert all(cell_len(line) <= 20 for line in lines)


@pytest.mark.parametrize("width", [20, 40, 80, 200])
def test_the_renderable_says_what_verdict_lines_says_at_its_width(width: int) -> None:
    verdict = wrong_matrix()
    assert drawn(VerdictLines(verdict), width) == verdict_lines(verdict, width)


def test_what_the_code_printed_stays_text() -> None:
    """Markup in the output is shown as written; escape sequences lose their control bytes."""
    verdict = wrong_matrix(stdout="[bold red]hi[/bold red] \x1b]0;pwned\x07\x1b[2J\n")
    lines = drawn(VerdictLines(verdict), 80)
    assert lines[-2:] == ["Your code printed:", "  [bold red]hi[/bold red] ]0;pwned[2J"]
    assert not any("\x1b" in line or "\x07" in line for line in lines)


def test_it_measures_from_its_narrowest_layout_to_one_line_a_paragraph() -> None:
    verdict = wrong_matrix()
    widest = max(cell_len(line) for line in SIDE_BY_SIDE)
    assert measured(VerdictLines(verdict), 200) == Measurement(20, widest)  # prose wraps at 20
    assert measured(VerdictLines(verdict), 40) == Measurement(20, 40)
    printed = wrong_matrix(stdout="x" * 50)  # a printed line keeps its length
    assert measured(VerdictLines(printed), 200).minimum == 52
