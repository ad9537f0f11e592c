"""Positional-encoding figures as text: the numbers, a shaded map of them, similarity."""

from __future__ import annotations

from tui_course.maths.attention import Array
from tui_course.maths.positional import position_similarity, positional_encoding
from tui_course.render.heatmap import RAMP, heatmap_cells, heatmap_text, shade
from tui_course.render.tables import number_table


def column_names(dim: int) -> list[str]:
    return [f"{'sin' if i % 2 == 0 else 'cos'} {i}" for i in range(dim)]


def pe_table_text(pe: Array, start: int = 0, decimals: int = 3) -> str:
    labels = [str(start + p) for p in range(pe.shape[0])]
    return number_table(pe, labels, column_names(pe.shape[1]), decimals=decimals, corner="pos")


def pe_shaded_text(pe: Array, start: int = 0) -> str:
    """One character per value: -1 is blank, +1 is '@'; each row is one position."""
    width = max(3, len(str(start + pe.shape[0] - 1)))
    lines = [f"{'pos'.rjust(width)}  {pe.shape[1]} dims, '{RAMP[0]}' = -1 ... '{RAMP[-1]}' = +1"]
    for offset, row in enumerate(pe):
        cells = "".join(shade(value + 1.0, 2.0) for value in row)
        lines.append(f"{str(start + offset).rjust(width)}  {cells}")
    return "\n".join(lines)


def similarity_text(
    pe: Array,
    start: int = 0,
    max_rows: int | None = None,
    max_columns: int | None = None,
    selected: int | None = None,
) -> str:
    labels = [str(start + p) for p in range(pe.shape[0])]
    return heatmap_text(
        heatmap_cells(
            position_similarity(pe).clip(0, 1),
            labels,
            labels,
            selected=selected,
            unit="similarity",
            shade_from_min=True,
            max_rows=max_rows,
            max_columns=max_columns,
        )
    )


def pe_report(
    positions: int,
    dim: int,
    start: int = 0,
    decimals: int = 3,
    table: bool = True,
    shaded: bool = False,
    similarity: bool = False,
) -> str:
    pe = positional_encoding(positions, dim, start=start)
    parts = [f"Sinusoidal PE, d_model = {dim}"]
    if table:
        parts += ["", pe_table_text(pe, start, decimals)]
    if shaded:
        parts += ["", pe_shaded_text(pe, start)]
    if similarity:
        parts += ["", "Cosine similarity of positions:", similarity_text(pe, start)]
    return "\n".join(parts)
