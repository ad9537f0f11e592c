"""A code verdict as text: the same words in `attn-tui check` and in the app's editor.

The student's array and the reference are drawn side by side, with the course's heatmap
for weights (values in 0..1) and for signed values in -1..1, else as a table of numbers;
wrong cells are marked with '!'. Everything the student's code printed is shown as text,
control characters stripped (an OSC 52 or a title sequence never reaches the terminal).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tui_course.content.code_check import CellDiff, CodeVerdict, Outcome
from tui_course.render.heatmap import heatmap_cells
from tui_course.safe_text import clean, one_line

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


def _plane(diff: CellDiff) -> tuple[Any, Any, Any, str]:
    """A 2-d slice to draw: the one holding the worst cell for 3-d results."""
    got, want, wrong = (np.asarray(a) for a in (diff.got, diff.expected, diff.wrong))
    prefix = ""
    while got.ndim > 2:
        flat = wrong.reshape(wrong.shape[0], -1).any(axis=1)
        index = int(np.argmax(flat)) if flat.any() else 0
        prefix += f"[{index}]"
        got, want, wrong = got[index], want[index], wrong[index]
    if got.ndim == 1:
        got, want, wrong = got[None, :], want[None, :], wrong[None, :]
    if got.ndim == 0:
        got, want, wrong = got.reshape(1, 1), want.reshape(1, 1), wrong.reshape(1, 1)
    return (
        got[:MAX_GRID, :MAX_GRID],
        want[:MAX_GRID, :MAX_GRID],
        wrong[:MAX_GRID, :MAX_GRID],
        prefix,
    )


def _grid(values: Any, wrong: Any, width: int) -> list[str]:
    finite = np.isfinite(values)
    if finite.all() and values.min() >= 0 and values.max() <= 1:
        return _heatmap(values, wrong, signed=False)
    if finite.all() and values.min() >= -1 and values.max() <= 1:
        return _heatmap(values, wrong, signed=True)
    lines = []
    for row in range(values.shape[0]):
        cells = []
        for column in range(values.shape[1]):
            mark = "!" if wrong[row, column] else " "
            cells.append((mark + f"{values[row, column]:.3g}").rjust(9))
        lines.append(f"{row:>2} " + "".join(cells))
    return lines


def _heatmap(values: Any, wrong: Any, signed: bool) -> list[str]:
    rows = [str(i) for i in range(values.shape[0])]
    columns = [str(j) for j in range(values.shape[1])]
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
    got, want, wrong, prefix = _plane(diff)
    left = _grid(got, wrong, width)
    right = _grid(want, np.zeros_like(wrong), width)
    name = one_line(diff.output) + prefix
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
    lines.append("'!' marks the cells that differ from the reference")
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


def verdict_lines(verdict: CodeVerdict, width: int = 80) -> list[str]:
    lines = [f"{HEADLINES[verdict.outcome]}: {clean(verdict.message)}"]
    if verdict.mistake_feedback and verdict.mistake_feedback not in verdict.message:
        lines.append(clean(verdict.mistake_feedback))
    for note in verdict.notes:
        lines.append(clean(note))
    if verdict.traceback:
        lines.append("Where, in your code:")
        for number, function, source in verdict.traceback:
            lines.append(f"  line {number}, in {one_line(function)}: {one_line(source)}")
    if verdict.cases_failed and verdict.outcome is not Outcome.PASSED:
        lines.append("Cases not passed: " + ", ".join(one_line(c) for c in verdict.cases_failed))
    if verdict.diff is not None:
        lines.append("")
        lines += diff_lines(verdict.diff, width)
    lines += _output_block("Your code printed:", verdict.stdout, verdict.output_truncated)
    lines += _output_block("Your code wrote to stderr:", verdict.stderr, verdict.output_truncated)
    return lines


def verdict_text(verdict: CodeVerdict, width: int = 80) -> str:
    return "\n".join(verdict_lines(verdict, width))
