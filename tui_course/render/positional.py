"""Positional-encoding figures as text: the numbers, a shaded map of them, similarity.

Both the encodings and their cosine similarities are signed (-1 to +1), so they
are drawn on the diverging scale of render.heatmap: negatives keep their sign.
"""

from __future__ import annotations

from tui_course import specs
from tui_course.maths.attention import Array
from tui_course.maths.positional import position_similarity, positional_encoding
from tui_course.render.heatmap import heatmap_cells, heatmap_text, signed_legend, signed_shade
from tui_course.render.tables import number_table


def column_names(dim: int) -> list[str]:
    return [f"{'sin' if i % 2 == 0 else 'cos'} {i}" for i in range(dim)]


def position_labels(count: int, start: int = 0) -> list[str]:
    return [str(start + p) for p in range(count)]


def pe_table_text(
    pe: Array, start: int = 0, decimals: int = 3, max_width: int | None = None
) -> str:
    labels = position_labels(pe.shape[0], start)
    names = column_names(pe.shape[1])
    return number_table(pe, labels, names, decimals=decimals, corner="pos", max_width=max_width)


def pe_shaded_text(pe: Array, start: int = 0) -> str:
    """One character per value on the diverging scale; each row is one position."""
    width = max(3, len(str(start + pe.shape[0] - 1)))
    lines = [
        f"shade order {signed_legend()}",
        f"{'pos'.rjust(width)}  {pe.shape[1]} dims, one character each",
    ]
    for offset, row in enumerate(pe):
        cells = "".join(signed_shade(float(value)) for value in row)
        lines.append(f"{str(start + offset).rjust(width)}  {cells}")
    return "\n".join(lines)


def similarity_text(
    pe: Array,
    start: int = 0,
    max_rows: int | None = None,
    max_columns: int | None = None,
    selected: int | None = None,
    width: int | None = None,
) -> str:
    labels = position_labels(pe.shape[0], start)
    return heatmap_text(
        heatmap_cells(
            position_similarity(pe),
            labels,
            labels,
            selected=selected,
            unit="cosine similarity",
            max_rows=max_rows,
            max_columns=max_columns,
            signed=True,
            width=width,
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
    width: int | None = None,
) -> str:
    """The `pe-table` block and `attn-tui pe`; every character is ASCII. `width` is the
    terminal's (None: no limit): the table then comes in blocks of columns and the
    similarity map is windowed, saying which columns it shows."""
    pe = positional_encoding(positions, dim, start=start)
    last = start + positions - 1
    parts = [f"Sinusoidal PE, d_model = {dim}, positions {start} to {last}"]
    if table:
        parts += ["", pe_table_text(pe, start, decimals, max_width=width)]
    if shaded:
        parts += ["", pe_shaded_text(pe, start)]
    if similarity:
        similar = similarity_text(pe, start, width=width)
        parts += ["", "Cosine similarity of positions:", similar]
    return "\n".join(parts)


def explorer_keys(positions: int, dim: int, start: int, similarity_shown: bool) -> list[str]:
    """The PE explorer's switches line: what is shown, and the keys that change it."""
    keys = [
        f"positions {start}-{start + positions - 1} ({positions}, up to "
        f"{specs.POSITIONS.high}) x d_model {dim} (up to {specs.DIM.high})",
        "+/- positions",
        "[/] d_model",
    ]
    if similarity_shown:  # up/down move the compared row: only with that map shown
        keys.append("up/down compare a position")
    return keys


def similarity_title(position: int) -> str:
    return f"How alike is position {position} to the others (cosine similarity, -1 to +1):"
