"""A heatmap that fits its width: whole words when there is room, else numbered columns
named on a key line; rows and columns are windowed around the selected row."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray
from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.widget import Widget

from tui_course.render.heatmap import Piece, heatmap_cells, heatmap_rich, window
from tui_course.ui.messages import HeatmapRowClicked


class HeatmapView(Widget):
    """Thin: gets weights and labels, draws them with render.heatmap, reports clicks."""

    DEFAULT_CSS = """
    HeatmapView {
        height: auto;
        width: 1fr;
    }
    """

    def __init__(
        self,
        weights: NDArray[np.float64],
        labels: Sequence[str],
        selected: int | None = None,
        unit: str = "weights",
        shade_from_min: bool = False,
        max_rows: int = 12,
        signed: bool = False,
        keep_columns: Sequence[int] = (),
        **kwargs: object,
    ) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.weights = weights
        self.labels = list(labels)
        self.selected = selected
        self.unit = unit
        self.shade_from_min = shade_from_min
        self.max_rows = max_rows
        self.signed = signed  # values from -1 to +1, on the diverging scale
        self.keep_columns = tuple(keep_columns)  # never windowed away
        self.absolute = False  # shade on 0-100 %, not this map's largest weight

    def show(
        self, weights: NDArray[np.float64], labels: Sequence[str], selected: int | None
    ) -> None:
        self.weights, self.labels, self.selected = weights, list(labels), selected
        self.refresh(layout=True)

    def _cells(self, width: int) -> list[list[Piece]]:
        return heatmap_cells(
            self.weights,
            self.labels,
            self.labels,
            self.selected,
            unit=self.unit,
            shade_from_min=self.shade_from_min,
            max_rows=self.rows_shown(),
            signed=self.signed,
            keep_columns=self.keep_columns,
            width=width,
            absolute=self.absolute,
        )

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """The lines drawn at this width: a narrow heatmap adds a key line."""
        return len(self._cells(width)) if width else 0

    def render(self) -> Text:
        return heatmap_rich(self._cells(self.content_region.width or self.app.size.width))

    def rows_shown(self) -> int:
        """`max_rows` on a 24-line terminal, proportionally more on a taller one: at 200x60
        a 16-token map showed rows 5-16 above thirty empty lines."""
        return max(self.max_rows, self.max_rows * self.app.size.height // 24)

    def visible_rows(self) -> range:
        return window(len(self.labels), self.rows_shown(), self.selected)

    def on_click(self, event: events.Click) -> None:
        rows = self.visible_rows()
        line = event.y - 1  # the first line holds the column labels
        if 0 <= line < len(rows):
            event.stop()
            self.post_message(HeatmapRowClicked(self, rows[line]))
