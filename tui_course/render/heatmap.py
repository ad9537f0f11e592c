"""ASCII heatmaps that read in monochrome: every cell has a shade character and a number."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

RAMP = " .:-=+*#%@"


def format_weight(weight: float, decimals: int = 2) -> str:
    """'.31' style: weights live in [0, 1], so the leading zero only costs width."""
    text = f"{weight:.{decimals}f}"
    if text.startswith("0."):
        return text[1:]
    return f"{weight:.{max(decimals - 1, 0)}f}"  # "1.0" keeps the same width as ".31"


def shade(value: float, top: float) -> str:
    """The ramp character for value on a scale where `top` is the darkest."""
    if top <= 0:
        return RAMP[0]
    index = int(round(float(np.clip(value / top, 0.0, 1.0)) * (len(RAMP) - 1)))
    return RAMP[index]


def _fit(label: str, width: int) -> str:
    return label if len(label) <= width else label[: width - 1] + "~"


def heatmap_text(
    weights: ArrayLike,
    row_labels: Sequence[str],
    column_labels: Sequence[str],
    selected: int | None = None,
    decimals: int = 2,
) -> str:
    """Rows are queries, columns are keys; the selected row is marked with '>'."""
    matrix = np.asarray(weights, dtype=np.float64)
    top = float(matrix.max()) if matrix.size else 0.0
    cell = 2 + decimals + 1
    label_width = min(max((len(label) for label in row_labels), default=1), 10)
    lines = [" " * (label_width + 2) + " ".join(_fit(c, cell).rjust(cell) for c in column_labels)]
    for row, label in enumerate(row_labels):
        marker = ">" if row == selected else " "
        cells = " ".join(
            shade(value, top) * 2 + format_weight(value, decimals) for value in matrix[row]
        )
        lines.append(f"{marker}{_fit(label, label_width).ljust(label_width)} {cells}")
    lines.append(f"shade '{RAMP[0]}' = 0 ... '{RAMP[-1]}' = {format_weight(top, decimals)} (max)")
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
        bar = "#" * int(round(value * width))
        note = "  <- strongest" if index == strongest else ""
        lines.append(
            f"  {_fit(label, label_width).ljust(label_width)} {value:.{decimals}f} {bar}{note}"
        )
    return "\n".join(lines)


def format_vector(values: ArrayLike, decimals: int = 3) -> str:
    return "[" + ", ".join(f"{v:.{decimals}f}" for v in np.asarray(values, dtype=np.float64)) + "]"
