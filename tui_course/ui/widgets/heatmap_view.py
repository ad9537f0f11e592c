"""A heatmap that fits its width: whole words when there is room, else numbered columns
named on a key line; rows and columns are windowed around the selected row."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray
from textual import events
from textual.geometry import Size
from textual.message import Message
from textual.widget import Widget

from tui_course.render.heatmap import Heatmap, heatmap_rich, window


class HeatmapView(Widget):
    """Thin: holds weights and labels, shows them as a render.heatmap.Heatmap (which lays
    itself out in the widget's width), reports clicks."""

    class RowClicked(Message):
        """A click on a row: the figure around it makes that word the query."""

        def __init__(self, view: HeatmapView, row: int) -> None:
            super().__init__()
            self.view = view
            self.row = row

        @property
        def control(self) -> HeatmapView:
            return self.view

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
        self._absolute = False
        self._figure: Heatmap | None = None  # the renderable shown, made again on a change

    @property
    def absolute(self) -> bool:
        """Shade on 0-100 %, not this map's largest weight."""
        return self._absolute

    @absolute.setter
    def absolute(self, value: bool) -> None:
        if value != self._absolute:
            self._absolute, self._figure = value, None
            self.refresh(layout=True)

    def show(
        self, weights: NDArray[np.float64], labels: Sequence[str], selected: int | None
    ) -> None:
        self.weights, self.labels, self.selected = weights, list(labels), selected
        self._figure = None
        self.refresh(layout=True)

    def figure(self) -> Heatmap:
        """The renderable for the weights shown (it lays itself out in the width it gets)."""
        rows = self.rows_shown()
        if self._figure is None or self._figure.max_rows != rows:
            self._figure = Heatmap(
                self.weights,
                self.labels,
                self.labels,
                self.selected,
                unit=self.unit,
                shade_from_min=self.shade_from_min,
                max_rows=rows,
                signed=self.signed,
                keep_columns=self.keep_columns,
                absolute=self._absolute,
            )
        return self._figure

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self.figure().height(width)

    def render(self) -> Heatmap:
        return self.figure()

    @property
    def plain(self) -> str:
        """The picture as it is drawn now, in the widget's width, as text (for tests)."""
        width = self.content_region.width or self.app.size.width
        return heatmap_rich(self.figure().cells(width)).plain

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
            self.post_message(self.RowClicked(self, rows[line]))
