"""A line of keys or switches that wraps between its items (see render.item_lines)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.geometry import Size
from textual.widgets import Static

from tui_course.render.item_lines import pack_items


class ItemLine(Static):
    """Thin: holds the items, lays them out for the width it gets."""

    DEFAULT_CSS = """
    ItemLine {
        height: auto;
    }
    """

    def __init__(self, separator: str = " | ", **kwargs: object) -> None:
        super().__init__(markup=False, **kwargs)  # type: ignore[arg-type]
        self.separator = separator
        self.items: list[str] = []
        self.tail = ""  # a further line, wrapped as prose (a problem with the input)

    def show(self, items: Sequence[str], tail: str = "") -> None:
        self.items, self.tail = list(items), tail
        self.refresh(layout=True)

    def lines(self, width: int) -> list[str]:
        packed = pack_items(self.items, width, self.separator)
        return packed + ([self.tail] if self.tail else [])

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(Text("\n".join(self.lines(width))).wrap(self.app.console, max(width, 1)))

    def render(self) -> Text:
        return Text("\n".join(self.lines(self.content_region.width or self.app.size.width)))
