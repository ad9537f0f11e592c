"""The live positional-encoding figure: table, shaded map and position similarity."""

from __future__ import annotations

import numpy as np
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import HorizontalScroll, Vertical
from textual.message import Message
from textual.widgets import Static

from tui_course import specs
from tui_course.maths.positional import position_similarity, positional_encoding
from tui_course.render.positional import pe_shaded_text, pe_table_text, position_labels
from tui_course.ui.widgets.heatmap_view import HeatmapView
from tui_course.ui.widgets.item_line import ItemLine


class PEView(Vertical, can_focus=True):
    DEFAULT_CSS = """
    PEView {
        height: auto;
    }
    PEView .pe-controls {
        color: $text-muted;
        margin-bottom: 1;
    }
    PEView .pe-table, PEView .pe-shaded {
        height: auto;
        margin-bottom: 1;
    }
    PEView .pe-numbers, PEView .pe-shaded-map {
        width: auto;
    }
    PEView .pe-similarity-title {
        margin-bottom: 1;
    }
    """
    POSITIONS_KEYS = Binding.Group("Positions")
    DIM_KEYS = Binding.Group("d_model")
    BINDINGS = [
        Binding(
            "plus,equals_sign",
            "positions(1)",
            "More positions",
            key_display="+",
            group=POSITIONS_KEYS,
            tooltip="One more position",
        ),
        Binding(
            "minus",
            "positions(-1)",
            "Fewer positions",
            key_display="-",
            group=POSITIONS_KEYS,
            tooltip="One position fewer",
        ),
        Binding(
            "right_square_bracket",
            "dim(2)",
            "Wider",
            key_display="]",
            group=DIM_KEYS,
            tooltip="d_model up by 2",
        ),
        Binding(
            "left_square_bracket",
            "dim(-2)",
            "Narrower",
            key_display="[",
            group=DIM_KEYS,
            tooltip="d_model down by 2",
        ),
        Binding(
            "up,k", "select(-1)", "Position up", show=False, tooltip="Compare the position above"
        ),
        Binding(
            "down,j", "select(1)", "Position down", show=False, tooltip="Compare the position below"
        ),
    ]

    class Changed(Message):
        def __init__(self, view: PEView) -> None:
            super().__init__()
            self.view = view

    def __init__(
        self,
        positions: int = specs.POSITIONS.default,
        dim: int = specs.DIM.default,
        decimals: int = 3,
        start: int = specs.START.default,
        show_table: bool = True,
        show_shaded: bool = True,
        show_similarity: bool = True,
        **kwargs: object,
    ) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.positions = specs.POSITIONS.clamp(positions)
        self.dim = specs.DIM.clamp(dim)
        self.start = specs.START.clamp(start)
        self.decimals = decimals
        self.show_table = show_table
        self.show_shaded = show_shaded
        self.show_similarity = show_similarity
        self.selected = 0

    def compose(self) -> ComposeResult:
        yield ItemLine(classes="pe-controls")
        with HorizontalScroll(classes="pe-table"):
            yield Static(classes="pe-numbers", markup=False)
        with HorizontalScroll(classes="pe-shaded"):
            yield Static(classes="pe-shaded-map", markup=False)
        yield Static(classes="pe-similarity-title", markup=False)
        yield HeatmapView(np.ones((1, 1)), ["0"], unit="cosine similarity", signed=True)

    def on_mount(self) -> None:
        self.redraw()

    def redraw(self) -> None:
        pe = positional_encoding(self.positions, self.dim, start=self.start)
        last = self.start + self.positions - 1
        keys = [
            f"positions {self.start}-{last} ({self.positions}, up to "
            f"{specs.POSITIONS.high}) x d_model {self.dim} (up to {specs.DIM.high})",
            "+/- positions",
            "[/] d_model",
        ]
        if self.show_similarity:  # up/down move the compared row: only with that map shown
            keys.append("up/down compare a position")
        self.query_one(".pe-controls", ItemLine).show(keys)
        table = self.query_one(".pe-table", HorizontalScroll)
        table.display = self.show_table
        self.query_one(".pe-numbers", Static).update(
            Text(pe_table_text(pe, self.start, self.decimals))
        )
        self.query_one(".pe-shaded", HorizontalScroll).display = self.show_shaded
        self.query_one(".pe-shaded-map", Static).update(Text(pe_shaded_text(pe, self.start)))
        title = self.query_one(".pe-similarity-title", Static)
        heatmap = self.query_one(HeatmapView)
        title.display = heatmap.display = self.show_similarity
        title.update(
            Text(
                f"How alike is position {self.start + self.selected} to the others "
                "(cosine similarity, -1 to +1):"
            )
        )
        heatmap.show(
            position_similarity(pe), position_labels(self.positions, self.start), self.selected
        )
        self.post_message(self.Changed(self))

    def action_positions(self, step: int) -> None:
        self.positions = specs.POSITIONS.step(self.positions, step)
        self.selected = min(self.selected, self.positions - 1)
        self.redraw()

    def action_dim(self, step: int) -> None:
        self.dim = specs.DIM.step(self.dim, step)
        self.redraw()

    def action_select(self, step: int) -> None:
        self.selected = (self.selected + step) % self.positions
        self.redraw()

    def on_heatmap_view_row_clicked(self, event: HeatmapView.RowClicked) -> None:
        self.selected = event.row
        self.focus()
        self.redraw()
