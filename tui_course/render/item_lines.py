"""A line of short items ("s scale on | c causal off | ...") that breaks between items,
never inside one: "e" on one line and "vectors toy-train" on the next read as two things."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from rich.cells import cell_len


def pack_items(items: Sequence[str], width: int, separator: str = " | ") -> list[str]:
    """`items` joined by `separator`, as many per line as fit in `width` cells; an item
    wider than a whole line is wrapped between its words."""
    lines: list[str] = []
    for item in items:
        if lines and cell_len(lines[-1]) + cell_len(separator) + cell_len(item) <= width:
            lines[-1] += separator + item
        elif cell_len(item) <= width or width < 1:
            lines.append(item)
        else:
            lines += textwrap.wrap(item, width, break_on_hyphens=False) or [item]
    return lines
