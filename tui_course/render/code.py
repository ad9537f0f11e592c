"""A code verdict as text: the same words in `attn-tui check` and in the app's editor.

The student's array and the reference are drawn side by side, with the course's heatmap
for weights (values in 0..1) and for signed values in -1..1, else as a table of numbers;
wrong cells are marked with '!'. Everything the student's code printed is shown as text,
control characters stripped (an OSC 52 or a title sequence never reaches the terminal).
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tui_course.content.code_check import CellDiff, CodeVerdict, Outcome
from tui_course.text.safe import clean, one_line

if TYPE_CHECKING:  # Rich comes with the app's renderable or a heatmap, not with the CLI's text
    from rich.console import Console, ConsoleOptions, RenderResult
    from rich.measure import Measurement

MAX_SHOWN_OUTPUT_LINES = 12
MAX_GRID = 8  # rows and columns of a matrix drawn in full; larger ones are windowed

HEADLINES = {
    Outcome.PASSED: "PASSED",
    Outcome.FAILED: "NOT YET",
    Outcome.ERROR: "ERROR",
    Outcome.TIME_LIMIT: "TIME LIMIT",
    Outcome.MEMORY_LIMIT: "MEMORY LIMIT",
    Outcome.CRASHED: "CRASHED",
    Outcome.UNAVAILABLE: "SANDBOX UNAVAILABLE",
}


def _window(size: int, focus: int, shown: int) -> slice:
    start = max(0, min(focus - shown // 2, size - shown))
    return slice(start, start + shown)


def _plane(diff: CellDiff, max_columns: int) -> tuple[Any, Any, Any, str, int, int]:
    """A 2-d window to draw, around the worst cell (3-d results: the slice holding it).
    Returns the arrays, the slice's index prefix, and the window's first row and column."""
    import numpy as np

    got, want, wrong = (np.asarray(a) for a in (diff.got, diff.expected, diff.wrong))
    with np.errstate(all="ignore"):
        gap = np.abs(np.asarray(got, dtype=np.float64) - want)
    gap = np.where(np.isnan(gap), np.inf, gap)
    focus: tuple[int, ...] = (
        tuple(int(i) for i in np.unravel_index(int(np.argmax(gap)), gap.shape)) if gap.ndim else ()
    )
    prefix = ""
    while got.ndim > 2:
        index, focus = int(focus[0]), focus[1:]
        prefix += f"[{index}]"
        got, want, wrong = got[index], want[index], wrong[index]
    if got.ndim < 2:
        got, want, wrong = (np.reshape(a, (1, -1)) for a in (got, want, wrong))
        focus = (0, int(focus[0]) if focus else 0)
    rows = _window(got.shape[0], int(focus[0]), MAX_GRID)
    columns = _window(got.shape[1], int(focus[1]), max_columns)
    return (
        got[rows, columns],
        want[rows, columns],
        wrong[rows, columns],
        prefix,
        rows.start,
        columns.start,
    )


def _grid(values: Any, wrong: Any, first_row: int, first_column: int) -> list[str]:
    import numpy as np

    finite = np.isfinite(values)
    if finite.all() and values.min() >= 0 and values.max() <= 1:
        return _heatmap(values, wrong, False, first_row, first_column)
    if finite.all() and values.min() >= -1 and values.max() <= 1:
        return _heatmap(values, wrong, True, first_row, first_column)
    header = "   " + "".join(f"{first_column + j:>9}" for j in range(values.shape[1]))
    lines = [header]
    for row in range(values.shape[0]):
        cells = []
        for column in range(values.shape[1]):
            mark = "!" if wrong[row, column] else " "
            cells.append((mark + f"{values[row, column]:.3g}").rjust(9))
        lines.append(f"{first_row + row:>2} " + "".join(cells))
    return lines


def _heatmap(values: Any, wrong: Any, signed: bool, first_row: int, first_column: int) -> list[str]:
    rows = [str(first_row + i) for i in range(values.shape[0])]
    columns = [str(first_column + j) for j in range(values.shape[1])]
    from tui_course.render.heatmap import heatmap_cells

    cells = heatmap_cells(values, rows, columns, signed=signed, unit="values")
    lines = []
    header, body = cells[0], cells[1 : 1 + values.shape[0]]
    lines.append("".join(text for text, _ in header).rstrip())
    for row, line in enumerate(body):
        # pieces: marker, label, space, then one (padding?, cell) per column
        texts = [text for text, _ in line]
        cell_pieces = [
            i
            for i, (_, style) in enumerate(line)
            if style.startswith(("shade-", "signed-", "strong"))
        ]
        for column, index in enumerate(cell_pieces):
            if column < wrong.shape[1] and wrong[row, column]:
                texts[index] = "!" + texts[index][1:]
        lines.append("".join(texts).rstrip())
    return lines


def diff_lines(diff: CellDiff, width: int = 80) -> list[str]:
    """Yours and the reference, side by side when they fit in `width`, else one above."""
    import numpy as np

    max_columns = max(1, min(MAX_GRID, (width - 4) // 9))
    got, want, wrong, prefix, row, column = _plane(diff, max_columns)
    left = _grid(got, wrong, row, column)
    right = _grid(want, np.zeros_like(wrong), row, column)
    name = one_line(diff.output) + prefix
    full = np.asarray(diff.got).shape[-2:] if np.ndim(diff.got) >= 2 else ()
    window = ""
    if full and tuple(full) != got.shape:
        rows_shown = f"rows {row}-{row + got.shape[0] - 1}"
        window = f"{rows_shown}, cols {column}-{column + got.shape[1] - 1} of {full[0]}x{full[1]}"
    left_title, right_title = f"your {name}", f"expected {name}"
    column = max(len(line) for line in [left_title, *left]) + 3
    lines: list[str] = []
    if column + max(len(line) for line in [right_title, *right]) <= width:
        lines.append(left_title.ljust(column) + right_title)
        for index in range(max(len(left), len(right))):
            a = left[index] if index < len(left) else ""
            b = right[index] if index < len(right) else ""
            lines.append((a.ljust(column) + b).rstrip())
    else:
        lines += [left_title, *left, right_title, *right]
    if window:
        lines += _wrapped(f"({window})", width)
    lines += _wrapped("'!' marks the cells that differ", width)
    return lines


def _output_block(title: str, text: str, truncated: bool) -> list[str]:
    shown = clean(text).splitlines()
    if not shown:
        return []
    cut = len(shown) > MAX_SHOWN_OUTPUT_LINES or truncated
    lines = [title] + ["  " + line[:200] for line in shown[:MAX_SHOWN_OUTPUT_LINES]]
    if cut:
        lines.append("  ... (the rest was cut)")
    return lines


def _wrapped(text: str, width: int, indent: str = "") -> list[str]:
    lines: list[str] = []
    for paragraph in clean(text).splitlines() or [""]:
        if paragraph.startswith("    "):  # a quoted source line keeps its place
            lines.append(paragraph)
            continue
        lines += textwrap.wrap(
            paragraph, max(20, width), initial_indent=indent, subsequent_indent=indent
        ) or [""]
    return lines


def verdict_lines(verdict: CodeVerdict, width: int = 80) -> list[str]:
    """The verdict, its prose wrapped to `width`; matrices stack when two do not fit."""
    lines = _wrapped(f"{HEADLINES[verdict.outcome]}: {verdict.message}", width)
    if verdict.mistake_feedback and verdict.mistake_feedback not in verdict.message:
        lines += _wrapped(verdict.mistake_feedback, width)
    for note in verdict.notes:
        lines += _wrapped(note, width)
    if verdict.traceback:
        lines.append("Where, in your code:")
        for number, function, source in verdict.traceback:
            lines.append(f"  line {number}, in {one_line(function)}: {one_line(source)}")
    if verdict.cases_failed and verdict.outcome is not Outcome.PASSED:
        cases = "; ".join(one_line(case) for case in verdict.cases_failed)
        lines += _wrapped(f"Cases not passed: {cases}", width)
    if verdict.diff is not None:
        lines.append("")
        lines += diff_lines(verdict.diff, width)
    lines += _output_block("Your code printed:", verdict.stdout, verdict.output_truncated)
    lines += _output_block("Your code wrote to stderr:", verdict.stderr, verdict.output_truncated)
    return lines


def verdict_text(verdict: CodeVerdict, width: int = 80) -> str:
    return "\n".join(verdict_lines(verdict, width))


NARROWEST = 1  # the width verdict_lines is asked for to find the verdict's narrowest layout
WIDEST = 10_000  # ... and its widest: every paragraph on one line, matrices side by side


@dataclass(frozen=True, eq=False)
class VerdictLines:
    """A renderable of the verdict worded for the width it is given (verdict_lines): the
    app's editor shows it as it is, and it lays itself out again when the screen resizes
    (prose rewrapped, the two matrices side by side or stacked). Plain Text throughout:
    what the student's code printed is never read as markup."""

    verdict: CodeVerdict

    def lines(self, width: int) -> list[str]:
        return [clean(line) for line in verdict_lines(self.verdict, width)]

    def __str__(self) -> str:
        return "\n".join(self.lines(80))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from rich.text import Text

        yield Text("\n".join(self.lines(options.max_width)))

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        """Narrowest: its layout at one column (prose wraps at 20, quoted code and output
        keep their lines); widest: every paragraph on one line."""
        from rich.cells import cell_len
        from rich.measure import Measurement

        narrow, wide = (
            max((cell_len(line) for line in self.lines(width)), default=1)
            for width in (NARROWEST, WIDEST)
        )
        return Measurement(min(narrow, wide), wide).clamp(max_width=options.max_width)
