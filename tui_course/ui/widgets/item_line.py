"""A line of keys or switches that wraps between its items (see render.item_lines)."""

from __future__ import annotations

from collections.abc import Sequence

from textual.widgets import Static

from tui_course.render.item_lines import PackedItems


class ItemLine(Static):
    """Thin: shows a PackedItems, which lays itself out for the width it gets."""

    DEFAULT_CSS = """
    ItemLine {
        height: auto;
    }
    """

    def __init__(self, separator: str = " | ", **kwargs: object) -> None:
        super().__init__(markup=False, **kwargs)  # type: ignore[arg-type]
        self.separator = separator
        self.packed = PackedItems((), separator)

    def show(self, items: Sequence[str], tail: str = "") -> None:
        """The items, and a further line wrapped as prose (a problem with the input)."""
        self.packed = PackedItems(tuple(items), self.separator, tail)
        self.update(self.packed)
