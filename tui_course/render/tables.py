"""Number tables as aligned plain text."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike


def number_table(
    values: ArrayLike,
    row_labels: Sequence[str],
    column_labels: Sequence[str],
    decimals: int = 3,
    corner: str = "",
    max_width: int | None = None,
) -> str:
    """A right-aligned grid; negative numbers keep their column straight. Wider than
    `max_width`, it is printed in blocks of columns, each with the row labels, so a
    narrow terminal never wraps a row into the next."""
    matrix = np.asarray(values, dtype=np.float64)
    cells = [[f"{v:.{decimals}f}" for v in row] for row in matrix]
    width = max([len(c) for row in cells for c in row] + [len(c) for c in column_labels] + [1])
    label_width = max([len(label) for label in row_labels] + [len(corner)])
    per_block = len(column_labels) or 1
    if max_width is not None:
        per_block = max(1, min(per_block, (max_width - label_width - 2 + 1) // (width + 1)))
    blocks = []
    for first in range(0, max(len(column_labels), 1), per_block):
        shown = slice(first, first + per_block)
        header = " ".join(c.rjust(width) for c in column_labels[shown])
        lines = [corner.ljust(label_width) + "  " + header]
        for label, row in zip(row_labels, cells, strict=True):
            numbers = " ".join(c.rjust(width) for c in row[shown])
            lines.append(label.rjust(label_width) + "  " + numbers)
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def two_column_table(rows: Sequence[tuple[str, str]], total: tuple[str, str] | None = None) -> str:
    """Label / value rows with the values right-aligned, and an optional total line."""
    all_rows = [*rows, *([total] if total else [])]
    left = max(len(label) for label, _ in all_rows)
    right = max(len(value) for _, value in all_rows)
    lines = [f"{label.ljust(left)}  {value.rjust(right)}" for label, value in rows]
    if total:
        lines.append("-" * (left + 2 + right))
        lines.append(f"{total[0].ljust(left)}  {total[1].rjust(right)}")
    return "\n".join(lines)
