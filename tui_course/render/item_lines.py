"""A line of short items ("s scale on | c causal off | ...") that breaks between items,
never inside one: "e" on one line and "vectors toy-train" on the next read as two things."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text


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


@dataclass(frozen=True)
class PackedItems:
    """A renderable of `items` packed for the width it is given (pack_items), with an
    optional further line wrapped as prose; its widest is every item on one line."""

    items: tuple[str, ...]
    separator: str = " | "
    tail: str = ""

    def lines(self, width: int) -> list[str]:
        return pack_items(self.items, width, self.separator) + ([self.tail] if self.tail else [])

    def __str__(self) -> str:
        """The items on one line, then the tail: the text without a width."""
        return "\n".join(self.lines(cell_len(self.separator.join(self.items))))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Text("\n".join(self.lines(options.max_width)))

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        words = [word for item in self.items for word in item.split()] + self.tail.split()
        narrowest = max((cell_len(word) for word in words), default=1)
        widest = max(cell_len(self.separator.join(self.items)), cell_len(self.tail), 1)
        return Measurement(narrowest, widest).clamp(max_width=options.max_width)
