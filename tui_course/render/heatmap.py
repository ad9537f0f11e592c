"""ASCII heatmaps that read in monochrome: every cell has a shade character and a number."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

RAMP = " .:-=+*#%@"


def format_percent(value: float) -> str:
    """A weight in [0, 1] as a whole percentage, right-aligned in 3 characters."""
    return f"{round(value * 100):>3d}"


def shade(value: float, top: float, low: float = 0.0) -> str:
    """The ramp character for value on a scale from `low` (blank) to `top` (darkest)."""
    if top <= low:
        return RAMP[-1] if value >= top > 0 else RAMP[0]
    index = round(float(np.clip((value - low) / (top - low), 0.0, 1.0)) * (len(RAMP) - 1))
    return RAMP[index]


def _fit(label: str, width: int) -> str:
    return label if len(label) <= width else label[: width - 1] + "~"


def heatmap_text(
    weights: ArrayLike,
    row_labels: Sequence[str],
    column_labels: Sequence[str],
    selected: int | None = None,
    unit: str = "weights",
    shade_from_min: bool = False,
) -> str:
    """Rows are queries, columns are keys; the selected row is marked with '>'.

    A cell is two shade characters then the value in percent ("## 31"), so it
    reads without colour. The shade runs from 0 (or the smallest value, with
    shade_from_min) to the largest value shown.
    """
    matrix = np.asarray(weights, dtype=np.float64)
    top = float(matrix.max()) if matrix.size else 0.0
    low = float(matrix.min()) if shade_from_min and matrix.size else 0.0
    cell = 5
    label_width = min(max((len(label) for label in row_labels), default=1), 10)
    lines = [" " * (label_width + 2) + " ".join(_fit(c, cell).rjust(cell) for c in column_labels)]
    for row, label in enumerate(row_labels):
        marker = ">" if row == selected else " "
        cells = " ".join(
            shade(value, top, low) * 2 + format_percent(value) for value in matrix[row]
        )
        lines.append(f"{marker}{_fit(label, label_width).ljust(label_width)} {cells}")
    lines.append(
        f"{unit} in %; shade ' ' = {format_percent(low).strip()}"
        f" ... '{RAMP[-1]}' = {format_percent(top).strip()}"
    )
    return "\n".join(lines)


def weight_bars(
    weights: ArrayLike, labels: Sequence[str], decimals: int = 2, width: int = 20
) -> str:
    """One line per key: label, weight, a bar of '#' and a note on the strongest."""
    row = np.asarray(weights, dtype=np.float64)
    strongest = int(np.argmax(row)) if row.size else -1
    label_width = min(max((len(label) for label in labels), default=1), 12)
    lines = []
    for index, (label, value) in enumerate(zip(labels, row, strict=True)):
        bar = "#" * round(float(value) * width)
        note = "  <- strongest" if index == strongest else ""
        lines.append(
            f"  {_fit(label, label_width).ljust(label_width)} {value:.{decimals}f} {bar}{note}"
        )
    return "\n".join(lines)


def format_vector(values: ArrayLike, decimals: int = 3) -> str:
    return "[" + ", ".join(f"{v:.{decimals}f}" for v in np.asarray(values, dtype=np.float64)) + "]"
